package motion

import (
	"math"

	"github.com/openjibo/jibod/device"
)

// The trajectory generator: one step of one axis.
//
// Each tick, an axis at angle p moving at v is given a reference (where it
// should be, ref, and how fast that point moves, vref) and picks its next
// velocity. The pick is the velocity that would reach ref soonest while
// still being able to stop there, clamped so that
//
//   - |v' - v| <= amax·dt           (acceleration limit),
//   - |v'| <= vmax                  (velocity limit),
//   - v' <= brake(max - p) and -v' <= brake(p - min), where brake(d) is the
//     fastest speed from which the axis can still stop within distance d
//     decelerating at amax in whole ticks (angle limits).
//
// The new angle is p + v'·dt. brake is exact for the discrete steps, so the
// third clamp is always reachable from a state that satisfied it before:
// the angle can never pass a limit, and the body can always be stopped. The
// same brake towards the reference makes moves end at their target without
// overshoot when the target holds still.

// brake returns the fastest speed from which an axis can stop within
// distance d (>= 0) decelerating by at most a·dt per tick of dt, moving
// v·dt in a tick at velocity v. In units of a·dt (speed) and a·dt²
// (distance), stopping from speed u = n + f (n whole, 0 <= f < 1) covers
// u + (u-1) + ... + f = (n+1)·f + n(n+1)/2; brake inverts that. The law is
// exact for whole ticks, so an axis at brake(d) can always stop in time
// and the next tick's brake allows at least one a·dt less.
func brake(d, a, dt float64) float64 {
	if d <= 0 {
		return 0
	}
	x := d / (a * dt * dt)
	n := math.Floor((math.Sqrt(1+8*x) - 1) / 2)
	// Rounding in the square root may put n one off.
	for n > 0 && n*(n+1)/2 > x {
		n--
	}
	for (n+1)*(n+2)/2 <= x {
		n++
	}
	f := (x - n*(n+1)/2) / (n + 1)
	return (n + f) * a * dt
}

// step advances one axis by one tick of dt seconds. With halt the axis
// decelerates to a stop (ref and vref are ignored); otherwise it follows
// ref, which moves at vref.
func step(p, v, ref, vref float64, halt bool, l *device.Limits, dt float64) (float64, float64) {
	a := l.MaxAcceleration
	var want float64
	if !halt {
		e := ref - p
		// Close the gap no faster than the axis can brake, which also
		// never passes the target within one tick.
		want = vref + math.Copysign(brake(math.Abs(e), a, dt), e)
	}
	lo := math.Max(math.Max(v-a*dt, -l.MaxVelocity), -brake(p-l.Min, a, dt))
	hi := math.Min(math.Min(v+a*dt, l.MaxVelocity), brake(l.Max-p, a, dt))
	if lo > hi {
		// Only rounding can get here; the angle limit wins.
		if p-l.Min < l.Max-p {
			hi = lo
		} else {
			lo = hi
		}
	}
	nv := math.Min(math.Max(want, lo), hi)
	np := math.Min(math.Max(p+nv*dt, l.Min), l.Max)
	return np, nv
}

// Settling tolerances: an axis this close to a still target, this slow, has
// arrived.
const (
	arriveAngle    = 1e-7
	arriveVelocity = 1e-5
)
