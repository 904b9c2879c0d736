package motion

import (
	"errors"
	"fmt"
	"math"
)

// Jibo's body geometry (spec/jibo.md §6). Each axis turns about its own
// local vertical; the torso's frame is tilted about 13° about the forward
// (x) axis from the base's, and the head's about −21.7° from the torso's.
// Turning the torso and head against each other therefore tips the head up
// or down, which is how Jibo looks up and down without a pitch joint.
const (
	// TiltMiddle is the torso frame's tilt, in radians.
	TiltMiddle = 13 * math.Pi / 180
	// TiltTop is the head frame's tilt relative to the torso, in radians.
	TiltTop = -21.7 * math.Pi / 180
	// HeadHeight is the height of the head's centre above the base, in
	// metres, used to aim at positions. The exact figure is not published
	// (the robot is about 28 cm tall); 0.22 m is the centre of the face.
	HeadHeight = 0.22
)

// vec is a 3-vector: x forward, y left, z up (metres or unit directions).
type vec [3]float64

func (a vec) dot(b vec) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }

func (a vec) norm() float64 { return math.Sqrt(a.dot(a)) }

// mat is a 3×3 rotation, row-major.
type mat [3][3]float64

func (m mat) mul(n mat) mat {
	var r mat
	for i := range 3 {
		for j := range 3 {
			for k := range 3 {
				r[i][j] += m[i][k] * n[k][j]
			}
		}
	}
	return r
}

func (m mat) apply(v vec) vec {
	return vec{vec(m[0]).dot(v), vec(m[1]).dot(v), vec(m[2]).dot(v)}
}

func rotZ(a float64) mat {
	c, s := math.Cos(a), math.Sin(a)
	return mat{{c, -s, 0}, {s, c, 0}, {0, 0, 1}}
}

func rotX(a float64) mat {
	c, s := math.Cos(a), math.Sin(a)
	return mat{{1, 0, 0}, {0, c, -s}, {0, s, c}}
}

// headFrame returns the head's orientation at pose p. At the zero pose the
// head looks straight ahead (x) and is level.
func headFrame(p Pose) mat {
	return rotZ(p[Bottom]).mul(rotX(TiltMiddle)).mul(rotZ(p[Middle])).mul(rotX(TiltTop)).mul(rotZ(p[Top])).mul(rotX(-(TiltMiddle + TiltTop)))
}

// Gaze is a direction to look in, relative to the robot's base.
type Gaze struct {
	// Yaw turns left (positive) from straight ahead, in radians.
	Yaw float64
	// Pitch looks up (positive) from level, in radians.
	Pitch float64
}

// String writes the gaze in degrees, as people read it.
func (g Gaze) String() string {
	return fmt.Sprintf("yaw %.1f° pitch %.1f°", g.Yaw*180/math.Pi, g.Pitch*180/math.Pi)
}

func (g Gaze) dir() vec {
	return vec{math.Cos(g.Pitch) * math.Cos(g.Yaw), math.Cos(g.Pitch) * math.Sin(g.Yaw), math.Sin(g.Pitch)}
}

// GazeOf returns where the head looks at pose p, and how far it is rolled
// (its left side up, in radians).
func GazeOf(p Pose) (g Gaze, roll float64) {
	r := headFrame(p)
	f := r.apply(vec{1, 0, 0})
	l := r.apply(vec{0, 1, 0})
	return Gaze{Yaw: math.Atan2(f[1], f[0]), Pitch: math.Asin(math.Max(-1, math.Min(1, f[2])))}, math.Asin(math.Max(-1, math.Min(1, l[2])))
}

// LookMode is how the body turns to look (LOOKAT options.type).
type LookMode int

const (
	// LevelHead turns all axes and keeps the head level (not rolled).
	LevelHead LookMode = iota
	// FlushBase keeps the base where it is and looks with torso and head.
	FlushBase
)

// Target is something to look at: a direction relative to the present
// gaze, or a point.
type Target struct {
	// Position, when set, is a point in metres: x forward, y left, z up,
	// from the centre of the base.
	Position *[3]float64
	// Turn, when Position is nil, turns the gaze by Yaw and Pitch from
	// where the body looks now (RCP's angle target is relative).
	Turn Gaze
}

// ErrTargetAtHead is returned for a position target at the head itself,
// which has no direction.
var ErrTargetAtHead = errors.New("look-at position is at the head: no direction to look in")

// MaxTargetDistance bounds a position target, in metres.
const MaxTargetDistance = 100

// gazeFor returns the absolute gaze towards t, starting from pose from.
func gazeFor(t Target, from Pose) (Gaze, error) {
	if t.Position == nil {
		g, _ := GazeOf(from)
		g.Yaw += t.Turn.Yaw
		g.Pitch = math.Max(-math.Pi/2, math.Min(math.Pi/2, g.Pitch+t.Turn.Pitch))
		return g, nil
	}
	p := *t.Position
	d := vec{p[0], p[1], p[2] - HeadHeight}
	for _, c := range p {
		if math.IsNaN(c) || math.IsInf(c, 0) || math.Abs(c) > MaxTargetDistance {
			return Gaze{}, fmt.Errorf("look-at position %v: coordinates must be finite and within %g m", p, float64(MaxTargetDistance))
		}
	}
	if d.norm() < 1e-3 {
		return Gaze{}, ErrTargetAtHead
	}
	return Gaze{Yaw: math.Atan2(d[1], d[0]), Pitch: math.Atan2(d[2], math.Hypot(d[0], d[1]))}, nil
}

// Solve returns the pose, within lim, that looks most nearly along g,
// starting the search from pose from (the body's present pose: among
// equally good poses the nearest wins). Only selected axes move. Gazes the
// body cannot reach (Jibo tips its head only some tens of degrees) give
// the nearest reachable pose.
func Solve(g Gaze, from Pose, sel Axes, mode LookMode, lim [NumAxes]Limits) Pose {
	if mode == FlushBase {
		sel[Bottom] = false
	}
	d := g.dir()
	// The base can do the turning alone.
	if sel == BaseOnly {
		p := from
		p[Bottom] = clampAxis(nearestTurn(g.Yaw, from[Bottom]), lim[Bottom])
		return p
	}
	best, bestCost := from, math.Inf(1)
	seeds := []Pose{from, {nearestTurn(g.Yaw, from[Bottom]), from[Middle], from[Top]}, {nearestTurn(g.Yaw, from[Bottom]), 0, 0}}
	for _, seed := range seeds {
		p := seed
		for i := range p {
			if !sel[i] {
				p[i] = from[i]
			}
			p[i] = clampAxis(p[i], lim[i])
		}
		p = refine(p, from, d, sel, lim)
		if c := lookCost(p, from, d); c < bestCost {
			best, bestCost = p, c
		}
	}
	return best
}

// Limits are an axis's angle bounds for Solve; device.Limits carry more.
type Limits struct{ Min, Max float64 }

func clampAxis(v float64, l Limits) float64 { return math.Max(l.Min, math.Min(l.Max, v)) }

// nearestTurn returns the angle equal to yaw modulo 2π closest to from.
func nearestTurn(yaw, from float64) float64 {
	return yaw + 2*math.Pi*math.Round((from-yaw)/(2*math.Pi))
}

// residual is what Solve drives to zero: the gaze error, the head's roll
// and, weakly, the distance moved (so the nearest good pose wins).
func residual(p, from Pose, d vec) [7]float64 {
	r := headFrame(p)
	f := r.apply(vec{1, 0, 0})
	l := r.apply(vec{0, 1, 0})
	const stay = 1e-3
	return [7]float64{f[0] - d[0], f[1] - d[1], f[2] - d[2], l[2],
		stay * (p[0] - from[0]), stay * (p[1] - from[1]), stay * (p[2] - from[2])}
}

func lookCost(p, from Pose, d vec) float64 {
	s := 0.0
	for _, e := range residual(p, from, d) {
		s += e * e
	}
	return s
}

// refine runs damped Gauss–Newton on the selected axes, keeping them in
// their limits.
func refine(p, from Pose, d vec, sel Axes, lim [NumAxes]Limits) Pose {
	const h = 1e-6
	mu := 1e-3
	cost := lookCost(p, from, d)
	for range 60 {
		r := residual(p, from, d)
		var jac [7][NumAxes]float64
		for j := range p {
			if !sel[j] {
				continue
			}
			q := p
			q[j] += h
			rq := residual(q, from, d)
			for i := range r {
				jac[i][j] = (rq[i] - r[i]) / h
			}
		}
		// Normal equations (JᵀJ + μI) δ = −Jᵀr, solved by Cramer's rule.
		var a [NumAxes][NumAxes]float64
		var b [NumAxes]float64
		for j := range p {
			for k := range p {
				for i := range r {
					a[j][k] += jac[i][j] * jac[i][k]
				}
			}
			a[j][j] += mu
			for i := range r {
				b[j] -= jac[i][j] * r[i]
			}
		}
		delta, ok := solve3(a, b)
		if !ok {
			break
		}
		q := p
		for j := range q {
			if sel[j] {
				q[j] = clampAxis(q[j]+delta[j], lim[j])
			}
		}
		if c := lookCost(q, from, d); c < cost {
			improved := cost - c
			p, cost = q, c
			mu = math.Max(mu/3, 1e-9)
			if improved < 1e-16 {
				break
			}
		} else {
			mu *= 4
			if mu > 1e6 {
				break
			}
		}
	}
	return p
}

func solve3(a [NumAxes][NumAxes]float64, b [NumAxes]float64) ([NumAxes]float64, bool) {
	det := func(m [NumAxes][NumAxes]float64) float64 {
		return m[0][0]*(m[1][1]*m[2][2]-m[1][2]*m[2][1]) - m[0][1]*(m[1][0]*m[2][2]-m[1][2]*m[2][0]) + m[0][2]*(m[1][0]*m[2][1]-m[1][1]*m[2][0])
	}
	D := det(a)
	if math.Abs(D) < 1e-300 {
		return [NumAxes]float64{}, false
	}
	var x [NumAxes]float64
	for j := range x {
		m := a
		for i := range m {
			m[i][j] = b[i]
		}
		x[j] = det(m) / D
	}
	return x, true
}
