// Package gpio drives simple GPIO devices through periph.io: an output
// that switches something on and off (the motors' power enable) and a
// push button.
package gpio

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	pgpio "periph.io/x/conn/v3/gpio"

	"github.com/openjibo/jibod/device"
)

// OutputOptions configures an Output.
type OutputOptions struct {
	// Name is the Device name events are reported under, e.g. "motor-power".
	Name string
	// ActiveLow drives the pin low for on.
	ActiveLow bool
	// Observer, if set, receives a "set" event at every change.
	Observer device.Observer
}

// Output is a GPIO pin driven as a device.Switch. It starts off.
type Output struct {
	pin pgpio.PinOut
	o   OutputOptions

	mu     sync.Mutex
	on     bool
	closed bool
}

var _ device.Switch = (*Output)(nil)

// NewOutput drives pin as an output, off.
func NewOutput(pin pgpio.PinOut, o OutputOptions) (*Output, error) {
	if pin == nil {
		return nil, errors.New("gpio output: no pin")
	}
	out := &Output{pin: pin, o: o}
	if err := pin.Out(out.level(false)); err != nil {
		return nil, fmt.Errorf("gpio output %s on %s: %w", o.Name, pin, err)
	}
	return out, nil
}

func (out *Output) level(on bool) pgpio.Level { return pgpio.Level(on != out.o.ActiveLow) }

// Set turns the output on or off.
func (out *Output) Set(ctx context.Context, on bool) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("gpio output %s: set: %w", out.o.Name, err)
	}
	out.mu.Lock()
	defer out.mu.Unlock()
	if out.closed {
		return fmt.Errorf("gpio output %s: set: %w", out.o.Name, device.ErrClosed)
	}
	if err := out.pin.Out(out.level(on)); err != nil {
		return fmt.Errorf("gpio output %s: set %t: %w", out.o.Name, on, err)
	}
	if out.on != on && out.o.Observer != nil {
		out.o.Observer(device.Event{Time: time.Now(), Device: out.o.Name, Kind: "set", Values: map[string]any{"on": on}})
	}
	out.on = on
	return nil
}

// On reports whether the output is on.
func (out *Output) On() bool {
	out.mu.Lock()
	defer out.mu.Unlock()
	return out.on
}

// Check reports whether the pin takes its present level again.
func (out *Output) Check(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	out.mu.Lock()
	defer out.mu.Unlock()
	if out.closed {
		return fmt.Errorf("gpio output %s: check: %w", out.o.Name, device.ErrClosed)
	}
	if err := out.pin.Out(out.level(out.on)); err != nil {
		return fmt.Errorf("gpio output %s: check: %w", out.o.Name, err)
	}
	return nil
}

// Close turns the output off; further calls fail with device.ErrClosed.
func (out *Output) Close() error {
	out.mu.Lock()
	defer out.mu.Unlock()
	if out.closed {
		return nil
	}
	out.closed = true
	out.on = false
	return out.pin.Out(out.level(false))
}

// Button timing.
const (
	// DefaultDebounce is how long a button level must hold to count.
	DefaultDebounce = 20 * time.Millisecond
	// poll bounds how long the watcher waits for an edge before checking
	// whether it should stop.
	poll = 100 * time.Millisecond
	// maxBounces bounds the edges one settling may swallow.
	maxBounces = 50
)

// ButtonOptions configures a Button.
type ButtonOptions struct {
	// Name identifies the button; events are reported as "button.<name>".
	Name string
	// ActiveLow reads a low level as pressed (a button to ground with a
	// pull-up, the usual wiring).
	ActiveLow bool
	// Pull is the pin's pull resistor; the zero value leaves it as is.
	Pull pgpio.Pull
	// Debounce is how long a new level must hold; 0 means DefaultDebounce.
	Debounce time.Duration
	// Observer, if set, receives "press" and "release" events.
	Observer device.Observer
}

// Button watches a GPIO input in its own goroutine, from NewButton until
// Close, and reports presses and releases.
type Button struct {
	pin  pgpio.PinIn
	o    ButtonOptions
	stop chan struct{}
	done chan struct{}

	mu      sync.Mutex
	pressed bool
}

var _ device.Button = (*Button)(nil)

// NewButton sets pin up as an input with edge detection and starts
// watching it.
func NewButton(pin pgpio.PinIn, o ButtonOptions) (*Button, error) {
	if pin == nil {
		return nil, errors.New("gpio button: no pin")
	}
	if o.Debounce == 0 {
		o.Debounce = DefaultDebounce
	}
	if o.Debounce < 0 || o.Debounce > time.Second {
		return nil, fmt.Errorf("gpio button %s: debounce %v outside 0..1s", o.Name, o.Debounce)
	}
	if err := pin.In(o.Pull, pgpio.BothEdges); err != nil {
		return nil, fmt.Errorf("gpio button %s on %s: %w", o.Name, pin, err)
	}
	b := &Button{pin: pin, o: o, stop: make(chan struct{}), done: make(chan struct{})}
	b.pressed = b.read()
	go b.watch()
	return b, nil
}

func (b *Button) read() bool { return bool(b.pin.Read()) != b.o.ActiveLow }

// Name returns the button's name.
func (b *Button) Name() string { return b.o.Name }

// Pressed reports whether the button is held down.
func (b *Button) Pressed() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.pressed
}

func (b *Button) watch() {
	defer close(b.done)
	for {
		select {
		case <-b.stop:
			return
		default:
		}
		if !b.pin.WaitForEdge(poll) {
			continue
		}
		// Let the contacts settle: wait until no edge has come for the
		// debounce time (bounded, for a line that never settles), then take
		// the level that holds.
		for range maxBounces {
			if !b.pin.WaitForEdge(b.o.Debounce) {
				break
			}
		}
		down := b.read()
		b.mu.Lock()
		changed := down != b.pressed
		b.pressed = down
		b.mu.Unlock()
		if changed && b.o.Observer != nil {
			kind := "release"
			if down {
				kind = "press"
			}
			b.o.Observer(device.Event{Time: time.Now(), Device: "button." + b.o.Name, Kind: kind, Values: map[string]any{}})
		}
	}
}

// Close stops watching and waits for the watcher (at most about 100 ms).
func (b *Button) Close() error {
	select {
	case <-b.stop:
	default:
		close(b.stop)
	}
	<-b.done
	return nil
}
