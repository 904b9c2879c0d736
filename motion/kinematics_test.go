package motion

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

var jiboLimits = [NumAxes]Limits{{-3.0543, 3.0543}, {-3.0543, 3.0543}, {-3.0543, 3.0543}}

func TestGazeOfHome(t *testing.T) {
	g, roll := GazeOf(Pose{})
	assert.InDelta(t, 0, g.Yaw, 1e-12)
	assert.InDelta(t, 0, g.Pitch, 1e-12)
	assert.InDelta(t, 0, roll, 1e-12)
	// The base alone turns the gaze and nothing else.
	g, roll = GazeOf(Pose{0.7, 0, 0})
	assert.InDelta(t, 0.7, g.Yaw, 1e-12)
	assert.InDelta(t, 0, g.Pitch, 1e-12)
	assert.InDelta(t, 0, roll, 1e-12)
}

// LOOKAT angle targets become joint targets that look where asked, head
// level, for gazes the body can reach (near ±175° of yaw the base has no
// room left to make up the twist that tipping the head needs).
func TestSolveReachesGazes(t *testing.T) {
	for _, yaw := range []float64{-1.9, -1, 0, 0.4, 1.9} {
		for _, pitch := range []float64{-0.5, -0.2, 0, 0.1, 0.5} {
			want := Gaze{Yaw: yaw, Pitch: pitch}
			p := Solve(want, Pose{}, AllAxes, LevelHead, jiboLimits)
			for i := range p {
				assert.LessOrEqual(t, math.Abs(p[i]), 3.0543)
			}
			got, roll := GazeOf(p)
			assert.InDelta(t, 0, math.Remainder(got.Yaw-yaw, 2*math.Pi), 2e-3, "%v → %v", want, got)
			assert.InDelta(t, pitch, got.Pitch, 2e-3, "%v → %v", want, got)
			assert.InDelta(t, 0, roll, 2e-3, "%v: head level", want)
		}
	}
}

// Beyond the reachable pitch (Jibo tips its gaze some 30°) the nearest
// reachable gaze wins.
func TestSolveUnreachablePitch(t *testing.T) {
	p := Solve(Gaze{Pitch: 1.2}, Pose{}, AllAxes, LevelHead, jiboLimits)
	got, _ := GazeOf(p)
	assert.Greater(t, got.Pitch, 0.5)
	assert.Less(t, got.Pitch, 1.2)
	assert.InDelta(t, 0, got.Yaw, 0.05)
}

// dofs BASE turns only the base; FLUSH_BASE leaves the base where it is.
func TestSolveAxisSelection(t *testing.T) {
	from := Pose{0.2, 0.1, -0.1}
	p := Solve(Gaze{Yaw: 1, Pitch: 0.3}, from, BaseOnly, LevelHead, jiboLimits)
	assert.Equal(t, from[Middle], p[Middle])
	assert.Equal(t, from[Top], p[Top])
	g0, _ := GazeOf(from)
	assert.InDelta(t, 1-g0.Yaw+from[Bottom], p[Bottom], 0.2)

	p = Solve(Gaze{Yaw: 0.3, Pitch: 0.2}, from, AllAxes, FlushBase, jiboLimits)
	assert.Equal(t, from[Bottom], p[Bottom])
	got, _ := GazeOf(p)
	assert.InDelta(t, 0.2, got.Pitch, 0.02)

	// A turn past the limit stops at the limit.
	p = Solve(Gaze{Yaw: math.Pi}, Pose{}, BaseOnly, LevelHead, jiboLimits)
	assert.InDelta(t, 3.0543, math.Abs(p[Bottom]), 1e-9)
}

func TestGazeForPosition(t *testing.T) {
	g, err := gazeFor(Target{Position: &[3]float64{1, 1, HeadHeight}}, Pose{})
	assert.NoError(t, err)
	assert.InDelta(t, math.Pi/4, g.Yaw, 1e-12)
	assert.InDelta(t, 0, g.Pitch, 1e-12)
	g, err = gazeFor(Target{Position: &[3]float64{0, 0, 3}}, Pose{})
	assert.NoError(t, err)
	assert.InDelta(t, math.Pi/2, g.Pitch, 1e-12, "straight up")
	_, err = gazeFor(Target{Position: &[3]float64{1000, 0, 0}}, Pose{})
	assert.ErrorContains(t, err, "within 100 m")
	assert.Equal(t, "yaw 45.0° pitch -10.0°", Gaze{Yaw: math.Pi / 4, Pitch: -math.Pi / 18}.String())
}
