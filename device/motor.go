package device

import (
	"context"
	"fmt"
	"math"
)

// Jibo's three rotary axes, named as in the robot's geometry configuration
// (spec/jibo.md §6). Each rotates about its own local Y axis.
const (
	// BottomSection is the pelvis (base) axis.
	BottomSection = "bottomSection_r"
	// MiddleSection is the torso axis.
	MiddleSection = "middleSection_r"
	// TopSection is the head (neck) axis.
	TopSection = "topSection_r"
)

// Limits of every Jibo axis (spec/jibo.md §6): ±175° of travel and the
// velocity and acceleration the original animation system stayed within.
const (
	// AxisLimit is the largest angle, in radians, either way from centre.
	AxisLimit = 3.0543
	// MaxVelocity is the fastest an axis may turn, in rad/s.
	MaxVelocity = 10.0
	// MaxAcceleration is the fastest an axis may speed up, in rad/s².
	MaxAcceleration = 30.0
)

// Axes returns the names of Jibo's axes from the base up.
func Axes() []string {
	return []string{BottomSection, MiddleSection, TopSection}
}

// IsAxis reports whether name is one of Jibo's axes.
func IsAxis(name string) bool {
	return name == BottomSection || name == MiddleSection || name == TopSection
}

// Limits bound what a motor may be asked to do.
type Limits struct {
	// Min and Max bound the angle in radians; Min < Max.
	Min, Max float64
	// MaxVelocity is the fastest the axis may turn, in rad/s (> 0).
	MaxVelocity float64
	// MaxAcceleration is the fastest the axis may speed up, in rad/s² (> 0).
	MaxAcceleration float64
}

// DefaultLimits returns the limits of a Jibo axis.
func DefaultLimits() Limits {
	return Limits{Min: -AxisLimit, Max: AxisLimit, MaxVelocity: MaxVelocity, MaxAcceleration: MaxAcceleration}
}

// Validate reports whether l describes a usable axis. Angles must lie within
// ±π because the axes are rotary and a larger range would alias.
func (l Limits) Validate() error {
	for _, v := range []float64{l.Min, l.Max, l.MaxVelocity, l.MaxAcceleration} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("limits %+v: not a finite number", l)
		}
	}
	switch {
	case l.Min < -math.Pi || l.Max > math.Pi:
		return fmt.Errorf("angle limits [%g, %g] rad: outside ±π", l.Min, l.Max)
	case l.Min >= l.Max:
		return fmt.Errorf("angle limits [%g, %g] rad: min must be below max", l.Min, l.Max)
	case l.MaxVelocity <= 0:
		return fmt.Errorf("max velocity %g rad/s: must be positive", l.MaxVelocity)
	case l.MaxAcceleration <= 0:
		return fmt.Errorf("max acceleration %g rad/s²: must be positive", l.MaxAcceleration)
	}
	return nil
}

// Check returns a *LimitError when rad is not a finite angle within l.
func (l Limits) Check(axis string, rad float64) error {
	if math.IsNaN(rad) || math.IsInf(rad, 0) || rad < l.Min || rad > l.Max {
		return &LimitError{Axis: axis, Target: rad, Min: l.Min, Max: l.Max}
	}
	return nil
}

// LimitError reports a target angle outside an axis's limits.
type LimitError struct {
	// Axis names the motor.
	Axis string
	// Target is the rejected angle in radians.
	Target float64
	// Min and Max are the axis's limits in radians.
	Min, Max float64
}

// Error names the axis, the target and the limits.
func (e *LimitError) Error() string {
	return fmt.Sprintf("motor %s: target %g rad outside limits [%g, %g]", e.Axis, e.Target, e.Min, e.Max)
}

// Motor is one rotary axis.
type Motor interface {
	// Name returns the axis name, e.g. TopSection.
	Name() string
	// Limits returns the axis's limits.
	Limits() Limits
	// SetAngle commands the axis to rad. A target outside Limits is rejected
	// with a *LimitError and changes nothing; a disabled motor returns
	// ErrDisabled. It returns once the command is accepted, not on arrival.
	SetAngle(ctx context.Context, rad float64) error
	// Angle returns the axis's present angle in radians.
	Angle() float64
	// Enable powers the motor on or off. An unpowered motor holds no
	// position and rejects SetAngle.
	Enable(ctx context.Context, on bool) error
	// Enabled reports whether the motor is powered.
	Enabled() bool
}
