package board

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/device/sim"
	"github.com/openjibo/jibod/jcp"
)

// A body's devices are handed to the JCP executor as they are: the device
// interfaces satisfy the executor's.
var (
	_ jcp.Voice  = device.Voice(nil)
	_ jcp.Lights = device.LEDRing(nil)
)

// Options configures Open.
type Options struct {
	// Logger receives the devices' logs; nil means slog.Default().
	Logger *slog.Logger
	// Observer, if set, receives every device event.
	Observer device.Observer
}

// Body is an opened set of devices.
type Body struct {
	// Profile is the profile the body was built from.
	Profile *Profile
	// Voice speaks.
	Voice device.Voice
	// Ring is the light ring; nil when the profile has none.
	Ring device.LEDRing
	// Motors holds the axes by name (device.BottomSection, ...).
	Motors map[string]device.Motor

	log     *slog.Logger
	devices []opened // in opening order, for Check and Close
}

// opened is one device of the body.
type opened struct {
	name, driver string
	dev          any
}

// checker is a device that can test that it answers.
type checker interface {
	Check(ctx context.Context) error
}

// Open validates p and builds its devices. If any device fails to open,
// those already opened are closed and an error names the failing one.
func Open(ctx context.Context, p *Profile, o Options) (*Body, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("open board: %w", err)
	}
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	b := &Body{Profile: p, Motors: map[string]device.Motor{}, log: log}
	if err := b.open(ctx, o); err != nil {
		if cerr := b.Close(); cerr != nil {
			log.Warn("board: close devices after failed open", "profile", p.Name, "error", cerr)
		}
		return nil, fmt.Errorf("open board %q: %w", p.Name, err)
	}
	log.Debug("board: opened", "profile", p.Name, "devices", len(b.devices))
	return b, nil
}

func (b *Body) open(ctx context.Context, o Options) error {
	p := b.Profile
	if err := ctx.Err(); err != nil {
		return err
	}
	// Validate has checked every driver is DriverSim; hardware drivers will
	// branch on the driver name here.
	spk, err := sim.NewSpeaker(sim.SpeakerOptions{WPM: p.Speaker.WPM, Observer: o.Observer, Logger: b.log})
	if err != nil {
		return fmt.Errorf("open speaker: %w", err)
	}
	b.Voice = spk
	b.devices = append(b.devices, opened{sim.SpeakerName, p.Speaker.Driver, spk})

	if r := p.LEDRing; r != nil {
		if err := ctx.Err(); err != nil {
			return err
		}
		ring, err := sim.NewLEDRing(sim.LEDRingOptions{Pixels: r.Pixels, Observer: o.Observer, Logger: b.log})
		if err != nil {
			return fmt.Errorf("open led ring: %w", err)
		}
		b.Ring = ring
		b.devices = append(b.devices, opened{sim.LEDRingName, r.Driver, ring})
	}

	for _, m := range p.Motors {
		if err := ctx.Err(); err != nil {
			return err
		}
		motor, err := sim.NewMotor(sim.MotorOptions{Axis: m.Name, Limits: m.Limits(), Observer: o.Observer, Logger: b.log})
		if err != nil {
			return fmt.Errorf("open motor %s: %w", m.Name, err)
		}
		b.Motors[m.Name] = motor
		b.devices = append(b.devices, opened{"motor." + m.Name, m.Driver, motor})
	}
	return nil
}

// ExecutorConfig returns a JCP executor configuration that drives this
// body: its voice, and its ring when it has one. Add an Observer, Listener
// or State before passing it to jcp.NewExecutor.
func (b *Body) ExecutorConfig() jcp.ExecutorConfig {
	cfg := jcp.ExecutorConfig{Voice: b.Voice, Logger: b.log}
	if b.Ring != nil {
		cfg.Lights = b.Ring
	}
	return cfg
}

// Close closes every device, reporting all that failed to close.
func (b *Body) Close() error {
	var errs []error
	for _, d := range b.devices {
		if c, ok := d.dev.(io.Closer); ok {
			if err := c.Close(); err != nil {
				errs = append(errs, fmt.Errorf("close %s: %w", d.name, err))
			}
		}
	}
	return errors.Join(errs...)
}

// CheckResult is whether one device answered.
type CheckResult struct {
	// Device names the device as its events do, e.g. "motor.topSection_r".
	Device string `json:"device"`
	// Driver is the profile's driver for it.
	Driver string `json:"driver"`
	// OK is true when the device answered.
	OK bool `json:"ok"`
	// Detail describes what was found, e.g. "12 pixels".
	Detail string `json:"detail,omitempty"`
	// Error says why the device did not answer.
	Error string `json:"error,omitempty"`
}

// Check pings every device and reports, in profile order, which answer.
func (b *Body) Check(ctx context.Context) []CheckResult {
	results := make([]CheckResult, 0, len(b.devices))
	for _, d := range b.devices {
		r := CheckResult{Device: d.name, Driver: d.driver, OK: true}
		if c, ok := d.dev.(checker); ok {
			if err := c.Check(ctx); err != nil {
				r.OK, r.Error = false, err.Error()
			}
		} else {
			r.Detail = "no self-test; present"
		}
		if r.OK {
			r.Detail = describe(d.dev, r.Detail)
		}
		results = append(results, r)
	}
	return results
}

// describe reports what a device that answered looks like now.
func describe(dev any, fallback string) string {
	switch d := dev.(type) {
	case device.Motor:
		l := d.Limits()
		return fmt.Sprintf("angle %.4f rad, limits [%g, %g], enabled %t", d.Angle(), l.Min, l.Max, d.Enabled())
	case device.LEDRing:
		return fmt.Sprintf("%d pixels", d.Len())
	case device.Voice:
		return "voice ready"
	}
	return fallback
}
