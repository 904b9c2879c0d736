// Package ledring animates a light ring: it plays programs of colours and
// patterns (listening, thinking, speaking, error, ...) on any
// device.LEDRing, layered over a static base colour, at a steady frame
// rate.
//
// An Animator is itself a device.LEDRing: Set changes the base layer, shown
// whenever no program plays. Programs stack: the newest one is drawn, and
// when it ends the one beneath shows again. Events go to the Observer
// ("set" for the base, "play" and "end" for programs); single frames are
// not reported, so a 50 Hz animation does not flood the bus.
package ledring

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/openjibo/jibod/device"
)

// Frame rates an Animator accepts.
const (
	// DefaultFPS is the frame rate when none is configured.
	DefaultFPS = 50
	// MaxFPS bounds the frame rate.
	MaxFPS = 200
)

// Name is the Device name an Animator reports its events under.
const Name = "led"

// Options configures an Animator.
type Options struct {
	// Ring is the ring to draw on. Required.
	Ring device.LEDRing
	// FPS is the frame rate while a program plays, 1..MaxFPS; 0 means
	// DefaultFPS.
	FPS int
	// Observer, if set, receives "set", "play" and "end" events.
	Observer device.Observer
	// Logger receives debug logs and frame write errors; nil discards them.
	Logger *slog.Logger
}

// Animator plays light programs on a ring. Its goroutine runs from New
// until Close.
type Animator struct {
	ring   device.LEDRing
	period time.Duration
	obs    device.Observer
	log    *slog.Logger
	wake   chan struct{}
	stop   chan struct{}
	done   chan struct{}

	mu     sync.Mutex // guards everything below and orders writes to ring
	base   []device.RGB
	shown  []device.RGB // last frame written to the ring
	frame  []device.RGB // scratch for drawing
	stack  []*layer
	closed bool
}

// layer is one playing program.
type layer struct {
	prog  Program
	start time.Time
	ended chan struct{} // closed when the program has run its Duration
}

var _ device.LEDRing = (*Animator)(nil)

// New returns an Animator for o.Ring showing the ring's present colours as
// its base, and starts its frame goroutine; Close stops it.
func New(o Options) (*Animator, error) {
	if o.Ring == nil {
		return nil, errors.New("new led animator: no ring")
	}
	fps := o.FPS
	if fps == 0 {
		fps = DefaultFPS
	}
	if fps < 1 || fps > MaxFPS {
		return nil, fmt.Errorf("new led animator: %d frames per second outside 1..%d", o.FPS, MaxFPS)
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	n := o.Ring.Len()
	a := &Animator{
		ring:   o.Ring,
		period: time.Second / time.Duration(fps),
		obs:    o.Observer,
		log:    log,
		wake:   make(chan struct{}, 1),
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
		base:   o.Ring.Pixels(),
		frame:  make([]device.RGB, n),
	}
	a.shown = append([]device.RGB(nil), a.base...)
	go a.loop()
	return a, nil
}

// Len returns the number of pixels.
func (a *Animator) Len() int { return len(a.frame) }

// Pixels returns the base layer: what Set last showed. Frames of playing
// programs are not included; Frame returns what is on the ring now.
func (a *Animator) Pixels() []device.RGB {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]device.RGB(nil), a.base...)
}

// Frame returns the colours on the ring now.
func (a *Animator) Frame() []device.RGB {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]device.RGB(nil), a.shown...)
}

// Set makes px the base layer. It is shown at once unless a program is
// playing, in which case it shows when the programs end.
func (a *Animator) Set(ctx context.Context, px []device.RGB) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("led animator: set: %w", err)
	}
	if len(px) != len(a.frame) {
		return fmt.Errorf("led animator: set: got %d colours, the ring has %d pixels", len(px), len(a.frame))
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return fmt.Errorf("led animator: set: %w", device.ErrClosed)
	}
	if len(a.stack) == 0 {
		if err := a.write(ctx, px); err != nil {
			return fmt.Errorf("led animator: set: %w", err)
		}
	}
	for i, c := range px {
		c.A = 0xff
		a.base[i] = c
	}
	a.emit("set", colourValues(a.base))
	return nil
}

// Play runs p over whatever is shown and returns when it has run its
// Duration (nil) or when ctx ends (an error wrapping ctx.Err()); then the
// layer beneath shows again.
func (a *Animator) Play(ctx context.Context, p Program) error {
	if err := p.Validate(); err != nil {
		return fmt.Errorf("led animator: play: %w", err)
	}
	l := &layer{prog: p, start: time.Now(), ended: make(chan struct{})}
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return fmt.Errorf("led animator: play %s: %w", p.Name, device.ErrClosed)
	}
	a.stack = append(a.stack, l)
	a.emit("play", map[string]any{"name": p.Name, "ms": p.Duration.Milliseconds()})
	a.mu.Unlock()
	a.poke()

	var err error
	select {
	case <-l.ended:
	case <-ctx.Done():
		err = fmt.Errorf("led animator: play %s: %w", p.Name, ctx.Err())
	case <-a.stop:
		err = fmt.Errorf("led animator: play %s: %w", p.Name, device.ErrClosed)
	}
	a.mu.Lock()
	a.remove(l)
	status := "done"
	if err != nil {
		status = "canceled"
	}
	a.emit("end", map[string]any{"name": p.Name, "status": status})
	a.mu.Unlock()
	a.poke()
	return err
}

// Check reports whether the ring answers.
func (a *Animator) Check(ctx context.Context) error {
	if c, ok := a.ring.(interface{ Check(context.Context) error }); ok {
		return c.Check(ctx)
	}
	return ctx.Err()
}

// Close stops the frame goroutine and waits for it; programs still playing
// end with device.ErrClosed. The ring itself is left open: it belongs to
// whoever made it.
func (a *Animator) Close() error {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return nil
	}
	a.closed = true
	a.mu.Unlock()
	close(a.stop)
	<-a.done
	return nil
}

// poke wakes the frame goroutine.
func (a *Animator) poke() {
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

// remove takes l off the stack; the caller holds a.mu.
func (a *Animator) remove(l *layer) {
	for i, x := range a.stack {
		if x == l {
			a.stack = append(a.stack[:i], a.stack[i+1:]...)
			if len(a.stack) == 0 {
				// Back to the base colours.
				if err := a.write(context.Background(), a.base); err != nil {
					a.log.Warn("led animator: restore base", "error", err)
				}
			}
			return
		}
	}
}

// write shows px on the ring; the caller holds a.mu.
func (a *Animator) write(ctx context.Context, px []device.RGB) error {
	if err := a.ring.Set(ctx, px); err != nil {
		return err
	}
	copy(a.shown, px)
	return nil
}

func (a *Animator) loop() {
	defer close(a.done)
	t := time.NewTimer(time.Hour)
	t.Stop()
	for {
		a.mu.Lock()
		active := a.drawTop(time.Now())
		a.mu.Unlock()
		if active {
			t.Reset(a.period)
			select {
			case <-t.C:
			case <-a.wake:
				t.Stop()
			case <-a.stop:
				return
			}
			continue
		}
		select {
		case <-a.wake:
		case <-a.stop:
			return
		}
	}
}

// drawTop draws the top program's frame for now and reports whether a
// program is playing; the caller holds a.mu.
func (a *Animator) drawTop(now time.Time) bool {
	if len(a.stack) == 0 {
		return false
	}
	top := a.stack[len(a.stack)-1]
	t := now.Sub(top.start)
	if d := top.prog.Duration; d > 0 && t >= d {
		select {
		case <-top.ended:
		default:
			close(top.ended)
		}
		// Its Play removes it; until then show the layer beneath.
		if len(a.stack) == 1 {
			return false
		}
		under := a.stack[len(a.stack)-2]
		under.prog.Draw(now.Sub(under.start), a.frame)
		a.writeFrame()
		return true
	}
	top.prog.Draw(t, a.frame)
	a.writeFrame()
	return true
}

func (a *Animator) writeFrame() {
	if err := a.write(context.Background(), a.frame); err != nil {
		a.log.Warn("led animator: frame", "error", err)
	}
}

func (a *Animator) emit(kind string, values map[string]any) {
	if a.obs != nil {
		a.obs(device.Event{Time: time.Now(), Device: Name, Kind: kind, Values: values})
	}
}

// colourValues is how ring events describe colours: "color" when every
// pixel has the same one, "pixels" otherwise (as device/sim does).
func colourValues(px []device.RGB) map[string]any {
	uniform := true
	for _, c := range px {
		uniform = uniform && c == px[0]
	}
	if uniform && len(px) > 0 {
		return map[string]any{"color": device.FormatRGB(px[0])}
	}
	hex := make([]string, len(px))
	for i, c := range px {
		hex[i] = device.FormatRGB(c)
	}
	return map[string]any{"pixels": hex}
}
