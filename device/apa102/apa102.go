// Package apa102 drives an APA102 (DotStar) LED ring on SPI through
// periph.io as a device.LEDRing.
//
// Colours go out as 8 bits a channel, scaled by a brightness, with the
// chip's 5-bit global brightness at full, so what Set is given is what the
// LEDs show (periph's default colour temperature and 13-bit ramp are
// turned off). SPI has no read-back: Check can only say that the port
// takes frames, not that LEDs are attached.
package apa102

import (
	"context"
	"fmt"
	"sync"
	"time"

	"periph.io/x/conn/v3/spi"
	periph "periph.io/x/devices/v3/apa102"

	"github.com/openjibo/jibod/device"
)

// Limits on a ring.
const (
	// MaxPixels bounds the ring size.
	MaxPixels = 1024
)

// Name is the Device name a Ring reports its events under.
const Name = "led"

// Options configures a Ring.
type Options struct {
	// Pixels is the number of LEDs, 1..MaxPixels. Required.
	Pixels int
	// Brightness scales every colour, 1..255; 0 means 255.
	Brightness uint8
	// Observer, if set, receives "set" events.
	Observer device.Observer
}

// Ring is an APA102 ring. It is safe for concurrent use.
type Ring struct {
	dev *periph.Dev
	obs device.Observer

	mu     sync.Mutex
	px     []device.RGB
	buf    []byte // RGB bytes for periph, reused so Set allocates nothing
	closed bool
}

var _ device.LEDRing = (*Ring)(nil)

// New connects to the ring on port and turns every LED off.
func New(port spi.Port, o Options) (*Ring, error) {
	if o.Pixels < 1 || o.Pixels > MaxPixels {
		return nil, fmt.Errorf("apa102: %d pixels outside 1..%d", o.Pixels, MaxPixels)
	}
	b := o.Brightness
	if b == 0 {
		b = 255
	}
	dev, err := periph.New(port, &periph.Opts{NumPixels: o.Pixels, Intensity: b, Temperature: periph.NeutralTemp, DisableGlobalPWM: true})
	if err != nil {
		return nil, fmt.Errorf("apa102: connect: %w", err)
	}
	r := &Ring{dev: dev, obs: o.Observer, px: device.Fill(o.Pixels, device.RGB{A: 0xff}), buf: make([]byte, 3*o.Pixels)}
	if _, err := dev.Write(r.buf); err != nil {
		return nil, fmt.Errorf("apa102: first frame: %w", err)
	}
	return r, nil
}

// Len returns the number of pixels.
func (r *Ring) Len() int { return len(r.px) }

// Set shows px, which must hold exactly Len colours.
func (r *Ring) Set(ctx context.Context, px []device.RGB) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("apa102: set: %w", err)
	}
	if len(px) != len(r.px) {
		return fmt.Errorf("apa102: set: got %d colours, the ring has %d pixels", len(px), len(r.px))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return fmt.Errorf("apa102: set: %w", device.ErrClosed)
	}
	for i, c := range px {
		r.buf[3*i], r.buf[3*i+1], r.buf[3*i+2] = c.R, c.G, c.B
	}
	if _, err := r.dev.Write(r.buf); err != nil {
		return fmt.Errorf("apa102: set: %w", err)
	}
	for i, c := range px {
		c.A = 0xff
		r.px[i] = c
	}
	if r.obs != nil {
		r.obs(device.Event{Time: time.Now(), Device: Name, Kind: "set", Values: map[string]any{"pixels": len(px)}})
	}
	return nil
}

// Pixels returns a copy of the colours shown.
func (r *Ring) Pixels() []device.RGB {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]device.RGB(nil), r.px...)
}

// Check resends the present frame: it fails when the SPI port does.
func (r *Ring) Check(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("apa102: check: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return fmt.Errorf("apa102: check: %w", device.ErrClosed)
	}
	if _, err := r.dev.Write(r.buf); err != nil {
		return fmt.Errorf("apa102: check: %w", err)
	}
	return nil
}

// Close turns the LEDs off; further calls fail with device.ErrClosed.
func (r *Ring) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	if err := r.dev.Halt(); err != nil {
		return fmt.Errorf("apa102: close: %w", err)
	}
	return nil
}
