package motion

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/device"
)

// brake is the exact whole-tick stopping law: from brake(d), decelerating
// by a·dt per tick covers at most d.
func TestBrakeIsExact(t *testing.T) {
	const a, dt = 30.0, 0.005
	for _, d := range []float64{0, 1e-9, a * dt * dt / 2, a * dt * dt, 2.5 * a * dt * dt, 0.01, 0.3, 3} {
		v := brake(d, a, dt)
		covered := 0.0
		for u := v; u > 0; u -= a * dt {
			covered += u * dt
		}
		assert.LessOrEqual(t, covered, d*(1+1e-9)+1e-15, "d=%g", d)
		// And it is the fastest such speed: a little more overshoots.
		if d > 0 {
			covered = 0
			for u := v * 1.001; u > 0; u -= a * dt {
				covered += u * dt
			}
			assert.Greater(t, covered, d, "d=%g", d)
		}
	}
	assert.Equal(t, 0.0, brake(-1, a, dt))
}

// trace steps one axis through a schedule of targets and returns the
// positions, one per tick, starting with p0.
func trace(l device.Limits, dt, p0 float64, targets func(tick int) (ref, vref float64, halt bool), ticks int) []float64 {
	ps := make([]float64, 0, ticks+1)
	p, v := p0, 0.0
	ps = append(ps, p)
	for k := range ticks {
		ref, vref, halt := targets(k)
		p, v = step(p, v, ref, vref, halt, &l, dt)
		ps = append(ps, p)
	}
	return ps
}

// checkLimits asserts that positions sampled every dt stay within the
// angle limits and that the velocity and acceleration they imply stay
// within the axis limits (spec/jibo.md §6: ±3.0543 rad, 10 rad/s, 30 rad/s²).
func checkLimits(t *testing.T, l device.Limits, dt float64, ps []float64) bool {
	t.Helper()
	ok := true
	prevV := 0.0
	for k := 1; k < len(ps); k++ {
		if ps[k] < l.Min-1e-12 || ps[k] > l.Max+1e-12 {
			ok = assert.Fail(t, "angle limit", "tick %d: %g outside [%g, %g]", k, ps[k], l.Min, l.Max)
			break
		}
		v := (ps[k] - ps[k-1]) / dt
		if math.Abs(v) > l.MaxVelocity*(1+1e-9) {
			ok = assert.Fail(t, "velocity limit", "tick %d: %g rad/s", k, v)
			break
		}
		if acc := (v - prevV) / dt; math.Abs(acc) > l.MaxAcceleration*(1+1e-6) {
			ok = assert.Fail(t, "acceleration limit", "tick %d: %g rad/s²", k, acc)
			break
		}
		prevV = v
	}
	return ok
}

// Property: whatever the targets, wherever they jump, whenever a halt
// comes, trajectories never exceed the angle, velocity and acceleration
// limits, and a still target is reached.
func TestStepNeverExceedsLimits(t *testing.T) {
	limits := []device.Limits{
		device.DefaultLimits(),
		{Min: -1, Max: 0.5, MaxVelocity: 2, MaxAcceleration: 5},
		{Min: -3, Max: 3, MaxVelocity: 50, MaxAcceleration: 1000},
	}
	for _, dt := range []float64{0.005, 0.001, 0.02} {
		for li, l := range limits {
			rng := rand.New(rand.NewPCG(uint64(li)+1, uint64(dt*1e6)))
			for trial := range 200 {
				span := l.Max - l.Min
				// Targets may lie beyond the limits: the generator must
				// still stop at the limit.
				random := func() float64 { return l.Min - 0.2*span + rng.Float64()*1.4*span }
				ref := random()
				vref := 0.0
				haltFrom := -1
				if trial%3 == 0 {
					haltFrom = rng.IntN(400)
				}
				ps := trace(l, dt, l.Min+rng.Float64()*span, func(k int) (float64, float64, bool) {
					if rng.IntN(60) == 0 {
						ref = random()
						vref = (rng.Float64()*2 - 1) * 2 * l.MaxVelocity // even infeasible reference speeds
						if rng.IntN(2) == 0 {
							vref = 0
						}
					}
					return ref, vref, haltFrom >= 0 && k >= haltFrom
				}, 600)
				if !checkLimits(t, l, dt, ps) {
					t.Logf("dt=%g limits=%+v trial=%d", dt, l, trial)
					return
				}
			}
		}
	}
}

// A still target is reached exactly, in about the time a trapezoidal
// profile would take, and the axis then stays there.
func TestStepArrives(t *testing.T) {
	l := device.DefaultLimits()
	const dt = 0.005
	for _, tc := range []struct{ from, to float64 }{{0, 1}, {0, -3.0543}, {2, 2.0001}, {-1, 3}} {
		ps := trace(l, dt, tc.from, func(int) (float64, float64, bool) { return tc.to, 0, false }, 400)
		require.True(t, checkLimits(t, l, dt, ps))
		arrived := -1
		for k, p := range ps {
			if math.Abs(p-tc.to) < 1e-9 {
				arrived = k
				break
			}
		}
		require.GreaterOrEqual(t, arrived, 0, "from %g to %g never arrived", tc.from, tc.to)
		for _, p := range ps[arrived:] {
			assert.InDelta(t, tc.to, p, 1e-9, "stays at the target")
		}
		d := math.Abs(tc.to - tc.from)
		ideal := 2 * math.Sqrt(d/l.MaxAcceleration) // triangular profile
		if d > l.MaxVelocity*l.MaxVelocity/l.MaxAcceleration {
			ideal = d/l.MaxVelocity + l.MaxVelocity/l.MaxAcceleration
		}
		assert.InDelta(t, ideal, float64(arrived)*dt, 3*dt+0.02*ideal, "from %g to %g", tc.from, tc.to)
	}
}

// A halt at full speed stops within v²/2a (plus a tick) and never reverses.
func TestStepHaltDecelerates(t *testing.T) {
	l := device.DefaultLimits()
	const dt = 0.005
	p, v := -3.0, 0.0
	for range 80 { // up to full speed towards +3 (0.33 s to reach it)
		p, v = step(p, v, 3, 0, false, &l, dt)
	}
	require.InDelta(t, l.MaxVelocity, v, 1e-9)
	start := p
	ticks := 0
	for v > 0 {
		p, v = step(p, v, 0, 0, true, &l, dt)
		ticks++
		require.GreaterOrEqual(t, v, 0.0, "never reverses")
	}
	assert.InDelta(t, l.MaxVelocity/l.MaxAcceleration, float64(ticks)*dt, 2*dt)
	assert.LessOrEqual(t, p-start, l.MaxVelocity*l.MaxVelocity/(2*l.MaxAcceleration)+l.MaxVelocity*dt)
}
