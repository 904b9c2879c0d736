package sim

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/openjibo/jibod/device"
)

// Pixel counts a simulated LED ring accepts. Jibo's real pixel count is not
// known (spec/jibo.md §6); 12 is a common ring size.
const (
	// DefaultPixels is the ring size used when none is configured.
	DefaultPixels = 12
	// MaxPixels bounds the ring size.
	MaxPixels = 1024
)

// LEDRingName is the Device name an LEDRing reports its events under.
const LEDRingName = "led"

// LEDRingOptions configures a simulated LED ring.
type LEDRingOptions struct {
	// Pixels is the number of LEDs, 1..MaxPixels; 0 means DefaultPixels.
	Pixels int
	// Observer, if set, receives a "set" event for every Set that changes
	// what the ring shows.
	Observer device.Observer
	// Logger receives debug logs; nil discards them.
	Logger *slog.Logger
}

// LEDRing is a simulated light ring. It starts dark.
type LEDRing struct {
	obs device.Observer
	log *slog.Logger

	mu     sync.Mutex
	px     []device.RGB
	closed bool
}

var _ device.LEDRing = (*LEDRing)(nil)

// NewLEDRing returns a dark ring configured by o.
func NewLEDRing(o LEDRingOptions) (*LEDRing, error) {
	n := o.Pixels
	if n == 0 {
		n = DefaultPixels
	}
	if n < 1 || n > MaxPixels {
		return nil, fmt.Errorf("sim led ring: %d pixels: want 1..%d", o.Pixels, MaxPixels)
	}
	return &LEDRing{
		obs: o.Observer,
		log: loggerOrDiscard(o.Logger),
		px:  device.Fill(n, device.RGB{A: 0xff}),
	}, nil
}

// Len returns the number of pixels.
func (r *LEDRing) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.px)
}

// Set shows px, which must hold exactly Len colours; alpha is ignored. A
// Set that changes what the ring shows is reported as a "set" event
// carrying "color" (#rrggbb) when every pixel has the same colour, and
// "pixels" (one #rrggbb per pixel) otherwise; one that changes nothing is
// not reported. An animation writes a frame many times a second, and a
// watcher needs only the changes: with no Observer and debug logs off, Set
// allocates nothing.
func (r *LEDRing) Set(ctx context.Context, px []device.RGB) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sim led ring: set: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return fmt.Errorf("sim led ring: set: %w", device.ErrClosed)
	}
	if len(px) != len(r.px) {
		return fmt.Errorf("sim led ring: set: got %d colours, the ring has %d pixels", len(px), len(r.px))
	}
	changed := false
	for i, c := range px {
		c.A = 0xff
		changed = changed || c != r.px[i]
		r.px[i] = c
	}
	if !changed {
		return nil
	}
	debug := r.log.Enabled(ctx, slog.LevelDebug)
	if r.obs == nil && !debug {
		return nil
	}
	values := colourValues(r.px)
	if r.obs != nil {
		r.obs(device.Event{Time: time.Now(), Device: LEDRingName, Kind: "set", Values: values})
	}
	if debug {
		r.log.Debug("sim led ring: set", "values", values)
	}
	return nil
}

// colourValues describes px as a "set" event does.
func colourValues(px []device.RGB) map[string]any {
	uniform := true
	for _, c := range px {
		uniform = uniform && c == px[0]
	}
	if uniform {
		return map[string]any{"color": device.FormatRGB(px[0])}
	}
	hex := make([]string, len(px))
	for i, c := range px {
		hex[i] = device.FormatRGB(c)
	}
	return map[string]any{"pixels": hex}
}

// Pixels returns a copy of the colours shown now.
func (r *LEDRing) Pixels() []device.RGB {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]device.RGB(nil), r.px...)
}

// Check reports whether the ring answers: nil unless it is closed.
func (r *LEDRing) Check(ctx context.Context) error {
	return check(ctx, "sim led ring", &r.mu, &r.closed)
}

// Close makes further calls fail with device.ErrClosed. Closing twice is
// harmless.
func (r *LEDRing) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	return nil
}
