package motion

import (
	"fmt"
	"math"

	"github.com/openjibo/jibod/device"
)

// Axis indexes, in device.Axes order: from the base up.
const (
	// Bottom is device.BottomSection, the base.
	Bottom = iota
	// Middle is device.MiddleSection, the torso.
	Middle
	// Top is device.TopSection, the head.
	Top
	// NumAxes is the number of axes.
	NumAxes
)

// AxisName returns the device name of axis i.
func AxisName(i int) string { return device.Axes()[i] }

// AxisIndex returns the index of the axis called name.
func AxisIndex(name string) (int, bool) {
	for i, n := range device.Axes() {
		if n == name {
			return i, true
		}
	}
	return 0, false
}

// Pose is an angle for each axis, in radians, indexed by Bottom, Middle
// and Top.
type Pose [NumAxes]float64

// String writes the pose in radians.
func (p Pose) String() string {
	return fmt.Sprintf("[%.4f %.4f %.4f]", p[0], p[1], p[2])
}

// values describes the pose for an event.
func (p Pose) values(m map[string]any) map[string]any {
	for i := range p {
		m[AxisName(i)] = round4(p[i])
	}
	return m
}

func round4(f float64) float64 { return math.Round(f*1e4) / 1e4 }

// Axes selects axes; a false entry leaves that axis out of a command.
type Axes [NumAxes]bool

// AllAxes selects every axis.
var AllAxes = Axes{true, true, true}

// BaseOnly selects the bottom axis.
var BaseOnly = Axes{Bottom: true}

// None reports whether no axis is selected.
func (a Axes) None() bool { return !a[0] && !a[1] && !a[2] }
