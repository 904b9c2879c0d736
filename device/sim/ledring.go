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
	// Observer, if set, receives a "set" event for every Set.
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

// Set shows px, which must hold exactly Len colours; alpha is ignored. The
// "set" event carries "color" (#rrggbb) when every pixel has the same
// colour, and "pixels" (one #rrggbb per pixel) otherwise.
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
	uniform := true
	for i, c := range px {
		c.A = 0xff
		r.px[i] = c
		uniform = uniform && c == r.px[0]
	}
	values := map[string]any{}
	if uniform {
		values["color"] = device.FormatRGB(r.px[0])
	} else {
		hex := make([]string, len(r.px))
		for i, c := range r.px {
			hex[i] = device.FormatRGB(c)
		}
		values["pixels"] = hex
	}
	if r.obs != nil {
		r.obs(device.Event{Time: time.Now(), Device: LEDRingName, Kind: "set", Values: values})
	}
	r.log.Debug("sim led ring: set", "values", values)
	return nil
}

// Pixels returns a copy of the colours shown now.
func (r *LEDRing) Pixels() []device.RGB {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]device.RGB(nil), r.px...)
}

// Check reports whether the ring answers: nil unless it is closed.
func (r *LEDRing) Check(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sim led ring: check: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return fmt.Errorf("sim led ring: check: %w", device.ErrClosed)
	}
	return nil
}

// Close makes further calls fail with device.ErrClosed. Closing twice is
// harmless.
func (r *LEDRing) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	return nil
}
