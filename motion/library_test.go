package motion

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBuiltinLibrary(t *testing.T) {
	lib, err := Builtin()
	require.NoError(t, err)
	assert.Equal(t, []string{"beat", "blink", "bounce", "dance", "dance-small", "droop", "glance-left", "glance-right",
		"happy-wiggle", "idle-breathe", "led-error", "led-glow", "led-listening", "led-rainbow", "led-speaking", "led-thinking",
		"look-around", "nod", "shake", "think", "tilt"}, lib.Names())
	for _, ref := range []string{"nod", "animations/nod.keys", "anim://nod", "nod.json", "https://example.com/a/nod.anim.json"} {
		a, ok := lib.Lookup(ref)
		require.True(t, ok, ref)
		assert.Equal(t, "nod", a.Name)
	}
	_, ok := lib.Lookup("moonwalk")
	assert.False(t, ok)

	a, ok := lib.ByCategory("happy")
	require.True(t, ok)
	assert.Equal(t, "dance", a.Name, "first by name")
	a, ok = lib.ByCategory("happy", "yes")
	require.True(t, ok)
	assert.Equal(t, "nod", a.Name)
	_, ok = lib.ByCategory("sad")
	assert.False(t, ok)

	dance, _ := lib.Lookup("dance")
	assert.True(t, dance.Moves(AllAxes))
	assert.True(t, dance.HasLights())
	glow, _ := lib.Lookup("led-glow")
	assert.False(t, glow.Moves(AllAxes))
	shake, _ := lib.Lookup("shake")
	assert.False(t, shake.Moves(Axes{Middle: true, Top: true}), "shake only turns the base")
}

// Every shipped animation stays within Jibo's velocity and acceleration
// limits as written (spec/jibo.md §6: 10 rad/s, 30 rad/s²), so the control
// loop plays them faithfully rather than rounding them off.
func TestBuiltinAnimationsAreFeasible(t *testing.T) {
	lib, err := Builtin()
	require.NoError(t, err)
	const dt = 0.005
	for _, name := range lib.Names() {
		a, _ := lib.Lookup(name)
		for i := range NumAxes {
			if !a.Animates(i) {
				continue
			}
			var prevV float64
			prev, _ := a.Sample(i, 0)
			for k := 1; float64(k)*dt <= a.Duration; k++ {
				v, _ := a.Sample(i, float64(k)*dt)
				vel := (v - prev) / dt
				assert.LessOrEqual(t, abs(vel), 10.0, "%s %s at %.3fs: velocity", name, AxisName(i), float64(k)*dt)
				if k > 1 {
					assert.LessOrEqual(t, abs((vel-prevV)/dt), 30.0, "%s %s at %.3fs: acceleration", name, AxisName(i), float64(k)*dt)
				}
				prev, prevV = v, vel
			}
		}
	}
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}
