package sim

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/openjibo/jibod/device"
)

// SwitchOptions configures a simulated on/off output.
type SwitchOptions struct {
	// Name is the Device name events are reported under, e.g. "motor-power".
	Name string
	// Observer, if set, receives a "set" event with "on" at every change.
	Observer device.Observer
}

// Switch is a simulated on/off output; it starts off.
type Switch struct {
	name string
	obs  device.Observer

	mu     sync.Mutex
	on     bool
	closed bool
}

var _ device.Switch = (*Switch)(nil)

// NewSwitch returns a switch that is off.
func NewSwitch(o SwitchOptions) *Switch { return &Switch{name: o.Name, obs: o.Observer} }

// Set turns the switch on or off, reporting a change.
func (s *Switch) Set(ctx context.Context, on bool) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sim switch %s: set: %w", s.name, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("sim switch %s: set: %w", s.name, device.ErrClosed)
	}
	if s.on != on {
		s.on = on
		if s.obs != nil {
			s.obs(device.Event{Time: time.Now(), Device: s.name, Kind: "set", Values: map[string]any{"on": on}})
		}
	}
	return nil
}

// On reports whether the switch is on.
func (s *Switch) On() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.on
}

// Check reports whether the switch answers: nil unless it is closed.
func (s *Switch) Check(ctx context.Context) error {
	return check(ctx, "sim switch "+s.name, &s.mu, &s.closed)
}

// Close makes further calls fail with device.ErrClosed.
func (s *Switch) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}

// ButtonOptions configures a simulated button.
type ButtonOptions struct {
	// Name identifies the button; its events are reported as "button.<name>".
	Name string
	// Observer, if set, receives "press" and "release" events.
	Observer device.Observer
}

// Button is a simulated push button, pressed and released by calling Press
// and Release (from tests, or the diagnostics shell).
type Button struct {
	name string
	obs  device.Observer

	mu      sync.Mutex
	pressed bool
}

var _ device.Button = (*Button)(nil)

// NewButton returns a released button.
func NewButton(o ButtonOptions) *Button { return &Button{name: o.Name, obs: o.Observer} }

// Name returns the button's name.
func (b *Button) Name() string { return b.name }

// Pressed reports whether the button is held down.
func (b *Button) Pressed() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.pressed
}

// Press pushes the button down; pressing a pressed button does nothing.
func (b *Button) Press() { b.set(true) }

// Release lets the button go.
func (b *Button) Release() { b.set(false) }

func (b *Button) set(down bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.pressed == down {
		return
	}
	b.pressed = down
	kind := "release"
	if down {
		kind = "press"
	}
	if b.obs != nil {
		b.obs(device.Event{Time: time.Now(), Device: "button." + b.name, Kind: kind, Values: map[string]any{}})
	}
}
