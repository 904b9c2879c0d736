package sim

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/openjibo/jibod/device"
)

// DisplayName is the Device name a Display reports its events under.
const DisplayName = "display"

// MaxViewTextBytes bounds a view's name and text on the simulated display.
const MaxViewTextBytes = 1024

// DisplayOptions configures a simulated display.
type DisplayOptions struct {
	// Observer, if set, receives "show" and "hide" events.
	Observer device.Observer
	// Logger receives debug logs; nil discards them.
	Logger *slog.Logger
}

// Display is a simulated screen: it remembers the view on each layer and
// reports every change.
type Display struct {
	obs device.Observer
	log *slog.Logger

	mu     sync.Mutex
	layers [device.MaxDisplayLayer + 1]*device.View
	closed bool
}

var _ device.Display = (*Display)(nil)

// NewDisplay returns an empty display.
func NewDisplay(o DisplayOptions) *Display {
	return &Display{obs: o.Observer, log: loggerOrDiscard(o.Logger)}
}

// Show puts v on its layer, replacing what was there.
func (d *Display) Show(ctx context.Context, v device.View) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sim display: show: %w", err)
	}
	if err := checkView(v); err != nil {
		return fmt.Errorf("sim display: show: %w", err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return fmt.Errorf("sim display: show: %w", device.ErrClosed)
	}
	d.layers[v.Layer] = &v
	values := map[string]any{"layer": v.Layer, "name": v.Name, "view": v.Kind}
	if v.Text != "" {
		values["text"] = v.Text
	}
	if v.Overlay != "" {
		values["overlay"] = v.Overlay
	}
	d.emit("show", values)
	d.log.Debug("sim display: show", "layer", v.Layer, "name", v.Name, "view", v.Kind)
	return nil
}

// Hide removes the view called name from layer, if it is shown there.
func (d *Display) Hide(ctx context.Context, layer int, name string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sim display: hide: %w", err)
	}
	if layer < 0 || layer > device.MaxDisplayLayer {
		return fmt.Errorf("sim display: hide: layer %d outside 0..%d", layer, device.MaxDisplayLayer)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return fmt.Errorf("sim display: hide: %w", device.ErrClosed)
	}
	if v := d.layers[layer]; v != nil && v.Name == name {
		d.layers[layer] = nil
		d.emit("hide", map[string]any{"layer": layer, "name": name})
	}
	return nil
}

// Layers returns the view on each layer; nil where a layer is empty.
func (d *Display) Layers() []*device.View {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]*device.View, len(d.layers))
	for i, v := range d.layers {
		if v != nil {
			c := *v
			out[i] = &c
		}
	}
	return out
}

// Check reports whether the display answers: nil unless it is closed.
func (d *Display) Check(ctx context.Context) error {
	return check(ctx, "sim display", &d.mu, &d.closed)
}

// Close makes further calls fail with device.ErrClosed.
func (d *Display) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closed = true
	return nil
}

func (d *Display) emit(kind string, values map[string]any) {
	if d.obs != nil {
		d.obs(device.Event{Time: time.Now(), Device: DisplayName, Kind: kind, Values: values})
	}
}

func checkView(v device.View) error {
	if v.Layer < 0 || v.Layer > device.MaxDisplayLayer {
		return fmt.Errorf("layer %d outside 0..%d", v.Layer, device.MaxDisplayLayer)
	}
	switch v.Kind {
	case device.ViewEye, device.ViewNone, device.ViewText, device.ViewSkill, device.ViewMenu,
		device.ViewImage, device.ViewLoopMenu, device.ViewPhotoGallery:
	default:
		return fmt.Errorf("unknown view kind %q", v.Kind)
	}
	for _, s := range []string{v.Name, v.Text} {
		if len(s) > MaxViewTextBytes || !utf8.ValidString(s) {
			return fmt.Errorf("view name or text: want valid UTF-8 of at most %d bytes", MaxViewTextBytes)
		}
	}
	switch v.Overlay {
	case "", "dim", "clear":
	default:
		return fmt.Errorf("overlay %q: want dim or clear", v.Overlay)
	}
	return nil
}
