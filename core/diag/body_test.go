package diag

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/device/ledring"
	"github.com/openjibo/jibod/motion"
)

// The rig's body as the shell sees it, as cmd/jibod's wiring adapts it.

// rigMotion is the control loop as the shell sees it.
type rigMotion struct{ *motion.Controller }

// Limits are the axes' limits in the shell's terms.
func (m rigMotion) Limits() (out [motion.NumAxes]AxisLimits) {
	for i, l := range m.Controller.Limits() {
		out[i] = AxisLimits(l)
	}
	return out
}

// rigLights is the LED ring as the shell drives it: colours by name.
type rigLights struct{ a *ledring.Animator }

func (l rigLights) Len() int          { return l.a.Len() }
func (l rigLights) Colours() []string { return device.ColorNames() }

func (l rigLights) Frame() []string {
	var out []string
	for _, p := range l.a.Frame() {
		out = append(out, device.FormatRGB(p))
	}
	return out
}

func (l rigLights) Fill(ctx context.Context, colour string) (string, error) {
	col := device.RGB{A: 0xff}
	if colour != "off" {
		var err error
		if col, err = device.ParseRGB(colour); err != nil {
			return "", fmt.Errorf("%w (names: %s)", err, strings.Join(device.ColorNames(), ", "))
		}
	}
	if err := l.a.Set(ctx, device.Fill(l.a.Len(), col)); err != nil {
		return "", fmt.Errorf("setting the ring: %w", err)
	}
	return device.FormatRGB(col), nil
}

func (l rigLights) Test(ctx context.Context, colours []string, step time.Duration) error {
	prog := ledring.Program{Name: "shell-test"}
	var at time.Duration
	for _, name := range colours {
		col, err := device.ParseRGB(name)
		if err != nil {
			return err
		}
		prog.Keys = append(prog.Keys, ledring.Key{At: at, Color: col})
		at += step
	}
	prog.Keys = append(prog.Keys, ledring.Key{At: at, Pattern: ledring.PatternRainbow})
	prog.Duration = at + 2*step
	return l.a.Play(ctx, prog)
}
