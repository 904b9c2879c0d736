// Package diagbody adapts the body's parts to what the field shell
// (core/diag) drives, which core/diag cannot import: the LED ring by colour
// names. It is part of the composition root (core/runtime), the one
// place in core that imports the body; the shell's tests use it too.
package diagbody

import (
	"context"
	"fmt"
	"time"

	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/device/ledring"
)

// Lights is the LED ring as the shell drives it: colours by name
// (device.ColorNames, or #rrggbb), frames as text.
type Lights struct{ a *ledring.Animator }

// NewLights drives the ring a animates.
func NewLights(a *ledring.Animator) Lights { return Lights{a: a} }

// Len is the number of LEDs.
func (l Lights) Len() int { return l.a.Len() }

// Colours are the colour names Fill takes.
func (l Lights) Colours() []string { return device.ColorNames() }

// Frame is what each LED shows now.
func (l Lights) Frame() []string {
	var out []string
	for _, p := range l.a.Frame() {
		out = append(out, device.FormatRGB(p))
	}
	return out
}

// Fill sets every LED to colour ("off" for dark) and returns it as set.
func (l Lights) Fill(ctx context.Context, colour string) (string, error) {
	col := device.RGB{A: 0xff}
	if colour != "off" {
		var err error
		if col, err = device.ParseRGB(colour); err != nil {
			// ParseRGB's error lists the names already.
			return "", err
		}
	}
	if err := l.a.Set(ctx, device.Fill(l.a.Len(), col)); err != nil {
		return "", fmt.Errorf("setting the ring: %w", err)
	}
	return device.FormatRGB(col), nil
}

// Test plays colours in turn, step apart, then the rainbow.
func (l Lights) Test(ctx context.Context, colours []string, step time.Duration) error {
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
