package diag

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/openjibo/jibod/motion"
)

// Motor command limits.
const (
	// DefaultMotorMargin keeps shell moves this far inside each axis's
	// limits (about 6 degrees), off the end stops, unless a technician
	// overrides it.
	DefaultMotorMargin = 0.1
	// MaxMotorMargin bounds the margin setting.
	MaxMotorMargin = 0.5
	// moveTimeout bounds waiting for a move or homing to arrive.
	moveTimeout = 30 * time.Second
	// offTimeout bounds waiting for the body to come to rest before its
	// power goes off.
	offTimeout = 3 * time.Second
)

const motorHelp = `Moves the body through its control loop, so every move keeps the axis's speed and acceleration limits.
  motor limits                 each axis: angle now, its limits, the shell's range, speed and acceleration limits, power
  motor <axis> <angle>         move one axis and wait until it arrives (Ctrl-C halts it)
  motor <axis> <angle> --override   go past the shell's range up to the axis's limits (end-stop checks)
  motor home                   move every axis to the home pose
  motor off                    bring the body to rest and power the motors off (it can then be moved by hand)
  motor on                     power the motors and home the body
Axes: bottomSection_r (bottom, base), middleSection_r (middle, torso), topSection_r (top, head).
Angles are radians, or degrees with "deg" (30deg). The shell's range is each axis's limits less a margin
(config motor.margin, 0.1 rad by default); --override allows the rest of the way to the limits, which
nothing can exceed. Every motor command but limits needs technician mode and is logged.`

func axisNames() []string {
	out := make([]string, motion.NumAxes)
	for i := range out {
		out[i] = motion.AxisName(i)
	}
	return out
}

// shortAxis names an axis as people say it.
func shortAxis(a string) string {
	i, _ := motion.AxisIndex(a)
	switch {
	case a != motion.AxisName(i):
	case i == motion.Bottom:
		return "bottom"
	case i == motion.Middle:
		return "middle"
	case i == motion.Top:
		return "top"
	}
	return a
}

// axisIndex reads an axis by full or short name.
func axisIndex(name string) (int, string, bool) {
	n := strings.ToLower(name)
	for _, a := range axisNames() {
		short := shortAxis(a)
		if n == strings.ToLower(a) || n == short || (short == "bottom" && n == "base") ||
			(short == "middle" && n == "torso") || (short == "top" && n == "head") {
			idx, ok := motion.AxisIndex(a)
			return idx, a, ok
		}
	}
	return 0, "", false
}

// parseAngle reads "0.5", "0.5rad", "30deg" or "30°" as radians.
func parseAngle(s string) (float64, error) {
	num, scale := s, 1.0
	switch {
	case strings.HasSuffix(s, "deg"):
		num, scale = strings.TrimSuffix(s, "deg"), math.Pi/180
	case strings.HasSuffix(s, "°"):
		num, scale = strings.TrimSuffix(s, "°"), math.Pi/180
	case strings.HasSuffix(s, "rad"):
		num = strings.TrimSuffix(s, "rad")
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("angle %q: want radians (0.5) or degrees (30deg)", s)
	}
	return v * scale, nil
}

// angleText shows an angle in radians and degrees.
func angleText(rad float64) string {
	return fmt.Sprintf("%.3f rad (%.1f deg)", rad, rad*180/math.Pi)
}

// envelope is the shell's range of an axis: its limits less the margin.
func envelope(l motion.AxisLimits, margin float64) (lo, hi float64) {
	lo, hi = l.Min+margin, l.Max-margin
	if lo > hi {
		mid := (l.Min + l.Max) / 2
		return mid, mid
	}
	return lo, hi
}

type axisReport struct {
	Axis       string  `json:"axis"`
	Angle      float64 `json:"angle_rad"`
	Min        float64 `json:"min_rad"`
	Max        float64 `json:"max_rad"`
	ShellMin   float64 `json:"shell_min_rad"`
	ShellMax   float64 `json:"shell_max_rad"`
	MaxVel     float64 `json:"max_velocity_rad_s"`
	MaxAcc     float64 `json:"max_acceleration_rad_s2"`
	Powered    bool    `json:"powered"`
	Home       float64 `json:"home_rad"`
	MarginUsed float64 `json:"-"`
}

func cmdMotor(c *call) error {
	m := c.srv.env.Motion
	if m == nil {
		return missing("motors")
	}
	if len(c.args) == 0 {
		return c.usageErr("say what to do")
	}
	switch c.args[0] {
	case "limits":
		if len(c.args) > 1 {
			return c.usageErr("limits takes no arguments")
		}
		return c.motorLimits(m)
	case "home":
		if len(c.args) > 1 {
			return c.usageErr("home takes no arguments")
		}
		if err := c.needPower(); err != nil {
			return err
		}
		return c.move(m, c.srv.env.Home, motion.AllAxes, "home")
	case "on":
		if len(c.args) > 1 {
			return c.usageErr("on takes no arguments")
		}
		if err := c.printf("powering the motors and homing the body...\n"); err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(c.ctx, moveTimeout)
		defer cancel()
		if err := m.Recover(ctx); err != nil {
			return fmt.Errorf("motors on: %w", err)
		}
		return c.motorDone("on", m.Pose())
	case "off":
		if len(c.args) > 1 {
			return c.usageErr("off takes no arguments")
		}
		return c.motorsOff(m)
	}
	idx, axis, ok := axisIndex(c.args[0])
	if !ok {
		return c.usageErr("no axis %q (axes: %s)", c.args[0], strings.Join(axisNames(), ", "))
	}
	if len(c.args) < 2 || len(c.args) > 3 || (len(c.args) == 3 && c.args[2] != "--override") {
		return c.usageErr("want an angle, and --override to pass the shell's range")
	}
	target, err := parseAngle(c.args[1])
	if err != nil {
		return err
	}
	override := len(c.args) == 3
	lim := m.Limits()[idx]
	if target < lim.Min || target > lim.Max {
		return fmt.Errorf("%s: %s is outside the axis's limits %.3f..%.3f rad; nothing can move it there", axis, angleText(target), lim.Min, lim.Max)
	}
	lo, hi := envelope(lim, c.srv.motorMargin())
	if (target < lo || target > hi) && !override {
		return fmt.Errorf("%s: %s is outside the shell's range %.3f..%.3f rad (the limits less a %.3f rad margin); add --override to go up to the limits",
			axis, angleText(target), lo, hi, c.srv.motorMargin())
	}
	if err := c.needPower(); err != nil {
		return err
	}
	var p motion.Pose
	var sel motion.Axes
	p[idx], sel[idx] = target, true
	return c.move(m, p, sel, axis)
}

// needPower refuses to move an unpowered body: the loop would run on
// without the motors following, and jump when they came back.
func (c *call) needPower() error {
	if !c.srv.motorsPowered() {
		return errors.New("the motors are off: `motor on` first")
	}
	if err := c.srv.env.Motion.Fault(); err != nil {
		return fmt.Errorf("the control loop has a fault (%v): `motor on` recovers it", err)
	}
	return nil
}

func (c *call) move(m Motion, p motion.Pose, sel motion.Axes, what string) error {
	from := m.Pose()
	start := time.Now()
	j, err := m.MoveTo(p, sel)
	if err != nil {
		return fmt.Errorf("moving %s: %w", what, err)
	}
	if !c.json {
		for i := range motion.NumAxes {
			if sel[i] {
				if err := c.printf("%s: %s -> %s\n", motion.AxisName(i), angleText(from[i]), angleText(p[i])); err != nil {
					j.Halt()
					return err
				}
			}
		}
	}
	ctx, cancel := context.WithTimeout(c.ctx, moveTimeout)
	defer cancel()
	if err := j.Wait(ctx); err != nil {
		if ctx.Err() != nil {
			// Interrupted or too slow: bring the body to rest.
			m.Halt("shell: " + what + " stopped")
			if c.ctx.Err() != nil {
				_ = c.printf("halted\n")
				return context.Cause(c.ctx)
			}
		}
		return fmt.Errorf("moving %s: %w", what, err)
	}
	if c.json {
		return c.emit(map[string]any{"moved": what, "pose_rad": poseMap(m.Pose()), "seconds": time.Since(start).Seconds()})
	}
	return c.printf("arrived in %.2f s\n", time.Since(start).Seconds())
}

func poseMap(p motion.Pose) map[string]float64 {
	out := map[string]float64{}
	for i := range motion.NumAxes {
		out[motion.AxisName(i)] = p[i]
	}
	return out
}

func (c *call) motorDone(what string, p motion.Pose) error {
	if c.json {
		return c.emit(map[string]any{"motors": what, "powered": c.srv.motorsPowered(), "pose_rad": poseMap(p)})
	}
	return c.printf("motors %s; pose %s\n", what, p)
}

func (c *call) motorsOff(m Motion) error {
	m.Halt("shell: motors off")
	ctx, cancel := context.WithTimeout(c.ctx, offTimeout)
	defer cancel()
	for m.Moving() {
		t := time.NewTimer(10 * time.Millisecond)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			if c.ctx.Err() != nil {
				return context.Cause(c.ctx)
			}
			// Still moving after the wait: power off anyway, as asked.
		}
		if ctx.Err() != nil {
			break
		}
	}
	var errs []error
	off := context.WithoutCancel(c.ctx)
	for _, a := range axisNames() {
		if mo := c.srv.env.Motors[a]; mo != nil {
			if err := mo.Enable(off, false); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", a, err))
			}
		}
	}
	if p := c.srv.env.Power; p != nil {
		if err := p.Set(off, false); err != nil {
			errs = append(errs, fmt.Errorf("motor power: %w", err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("motors off: %w", err)
	}
	return c.motorDone("off", m.Pose())
}

func (c *call) motorLimits(m Motion) error {
	lims := m.Limits()
	pose := m.Pose()
	margin := c.srv.motorMargin()
	var out []axisReport
	for i := range motion.NumAxes {
		a := motion.AxisName(i)
		l := lims[i]
		lo, hi := envelope(l, margin)
		r := axisReport{Axis: a, Angle: pose[i], Min: l.Min, Max: l.Max, ShellMin: lo, ShellMax: hi,
			MaxVel: l.MaxVelocity, MaxAcc: l.MaxAcceleration, Home: c.srv.env.Home[i], Powered: true}
		if mo := c.srv.env.Motors[a]; mo != nil {
			r.Powered = mo.Enabled()
		}
		out = append(out, r)
	}
	if c.json {
		return c.emit(map[string]any{"axes": out, "margin_rad": margin})
	}
	rows := [][]string{{"axis", "angle", "limits (rad)", "shell range (rad)", "max speed", "max accel", "home", "power"}}
	for _, r := range out {
		power := "on"
		if !r.Powered {
			power = "off"
		}
		rows = append(rows, []string{r.Axis, fmt.Sprintf("%.3f", r.Angle), fmt.Sprintf("%.3f..%.3f", r.Min, r.Max),
			fmt.Sprintf("%.3f..%.3f", r.ShellMin, r.ShellMax), fmt.Sprintf("%.1f rad/s", r.MaxVel),
			fmt.Sprintf("%.1f rad/s2", r.MaxAcc), fmt.Sprintf("%.3f", r.Home), power})
	}
	return c.table(rows)
}

// ledTestSteps is what `led test` shows, each for ledTestStep.
var ledTestSteps = []string{"red", "green", "blue", "white"}

const ledTestStep = 700 * time.Millisecond

func cmdLED(c *call) error {
	l := c.srv.env.Lights
	if l == nil {
		return missing("LED ring")
	}
	if len(c.args) > 1 {
		return c.usageErr("one colour")
	}
	if len(c.args) == 0 {
		cols := l.Frame()
		if c.json {
			return c.emit(map[string]any{"pixels": cols})
		}
		return c.printf("%d pixels: %s\n", len(cols), strings.Join(cols, " "))
	}
	switch arg := c.args[0]; arg {
	case "test":
		return c.ledTest(l)
	default:
		col, err := l.Fill(c.ctx, arg)
		if err != nil {
			return err
		}
		if c.json {
			return c.emit(map[string]any{"led": col, "pixels": l.Len()})
		}
		return c.printf("ring: %d pixels %s\n", l.Len(), col)
	}
}

func (c *call) ledTest(l Lights) error {
	step := c.srv.ledStep
	at := time.Duration(len(ledTestSteps)+2) * step
	if !c.json {
		if err := c.printf("showing %s, then a rainbow, on %d pixels (%.1f s)...\n", strings.Join(ledTestSteps, ", "), l.Len(), at.Seconds()); err != nil {
			return err
		}
	}
	if err := l.Test(c.ctx, ledTestSteps, step); err != nil {
		if c.ctx.Err() != nil {
			return context.Cause(c.ctx)
		}
		return fmt.Errorf("LED test: %w", err)
	}
	if c.json {
		return c.emit(map[string]any{"led_test": append(append([]string(nil), ledTestSteps...), "rainbow"), "pixels": l.Len()})
	}
	return c.printf("done: every pixel should have shown each colour, then the rainbow\n")
}
