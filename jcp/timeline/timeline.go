// Package timeline records what a body did while it ran a JCP action —
// the devices' and the executor's events, and samples of the joint angles
// and the ring's colours — and draws it as an SVG picture. `jibod jcp run`
// prints and draws it.
package timeline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/jcp"
	"github.com/openjibo/jibod/motion"
)

// Limits of a recorded timeline, so a runaway action cannot exhaust
// memory.
const (
	// MaxEvents bounds the events kept; later ones are counted as dropped.
	MaxEvents = 100000
	// MaxSamples bounds the state samples kept: an hour at SampleEvery.
	MaxSamples = 60 * 60 * 50
	// SampleEvery is how often Record samples the body's state.
	SampleEvery = 20 * time.Millisecond
)

// Timeline records what the body did during a run: device and behaviour
// events, and samples of the joint angles and ring colours. It is safe for
// concurrent use: devices report from their own goroutines.
type Timeline struct {
	start time.Time

	mu      sync.Mutex
	events  []Event
	samples []Sample
	dropped int
}

// Event is one line of the printed timeline.
type Event struct {
	T      time.Duration  `json:"-"`
	Ms     int64          `json:"t_ms"`
	Device string         `json:"device"`
	Event  string         `json:"event"`
	Values map[string]any `json:"values,omitempty"`
}

// Sample is the body's state at one moment.
type Sample struct {
	T    time.Duration
	Pose motion.Pose
	LED  []device.RGB
}

// New starts a timeline now.
func New() *Timeline { return &Timeline{start: time.Now()} }

// Add records an event of dev at the time at.
func (tl *Timeline) Add(at time.Time, dev, event string, values map[string]any) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if len(tl.events) >= MaxEvents {
		tl.dropped++
		return
	}
	t := at.Sub(tl.start)
	tl.events = append(tl.events, Event{T: t, Ms: t.Milliseconds(), Device: dev, Event: event, Values: values})
}

// Device records a device event; it is a device.Observer.
func (tl *Timeline) Device(e device.Event) { tl.Add(e.Time, e.Device, e.Kind, e.Values) }

// Behaviour records a JCP behaviour event; it is an executor observer.
func (tl *Timeline) Behaviour(e jcp.Event) {
	v := map[string]any{"id": e.BehaviorID, "type": string(e.Type)}
	if e.Error != "" {
		v["error"] = e.Error
	}
	if e.Note != "" {
		v["note"] = e.Note
	}
	if e.Text != "" {
		v["text"] = e.Text
	}
	tl.Add(e.Time, "jcp", string(e.Kind), v)
}

// Result records an action's result as a "jcp result" event.
func (tl *Timeline) Result(res *jcp.Result) {
	if res == nil {
		return
	}
	v := map[string]any{"status": string(res.Status)}
	if res.Error != "" {
		v["error"] = res.Error
	}
	if len(res.Spoken) > 0 {
		v["spoken"] = res.Spoken
	}
	tl.Add(time.Now(), "jcp", "result", v)
}

// Frames reads the LED ring's pixels; *ledring.Animator is one.
type Frames interface {
	Frame() []device.RGB
}

// Body is what Record runs an action on: an executor whose devices and
// behaviours report to the timeline (Device, Behaviour), the control loop
// it drives, and the ring (nil without one).
type Body struct {
	Exec   *jcp.Executor
	Motion *motion.Controller
	Ring   Frames
}

// Record runs a, checked when it was read, on the body while sampling its
// state, records the result, and waits, at most settle, for the body to
// come to rest, so the timeline shows a stop's deceleration to the end.
func (tl *Timeline) Record(ctx context.Context, b Body, a *jcp.Checked, settle time.Duration) (*jcp.Result, error) {
	if b.Exec == nil || b.Motion == nil {
		return nil, errors.New("timeline: record needs an executor and a control loop")
	}
	sctx, stopSampling := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Go(func() { tl.sample(sctx, b.Motion, b.Ring) })
	res, err := b.Exec.RunChecked(ctx, a, nil)
	tl.Result(res)
	waitRest(ctx, b.Motion, settle)
	stopSampling()
	wg.Wait()
	return res, err
}

// waitRest waits, at most d, until the body has stopped moving.
func waitRest(ctx context.Context, c *motion.Controller, d time.Duration) {
	deadline := time.Now().Add(d)
	for c.Moving() && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(c.Period())
	}
}

// sample records the body's state until ctx ends; run it in a goroutine
// the caller waits for.
func (tl *Timeline) sample(ctx context.Context, ctrl *motion.Controller, ring Frames) {
	t := time.NewTicker(SampleEvery)
	defer t.Stop()
	for {
		s := Sample{T: time.Since(tl.start), Pose: ctrl.Pose()}
		if ring != nil {
			s.LED = ring.Frame()
		}
		tl.mu.Lock()
		if len(tl.samples) < MaxSamples {
			tl.samples = append(tl.samples, s)
		}
		tl.mu.Unlock()
		select {
		case <-t.C:
		case <-ctx.Done():
			return
		}
	}
}

// Events returns the events in time order (devices report from their own
// goroutines, so arrival order can differ by a hair).
func (tl *Timeline) Events() []Event {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	ev := slices.Clone(tl.events)
	// sort.SliceStable shares one copy of the sort code; a generic sort
	// over the struct would add its own (docs/size.md).
	sort.SliceStable(ev, func(i, j int) bool { return ev[i].T < ev[j].T })
	return ev
}

// Samples returns the state samples in time order.
func (tl *Timeline) Samples() []Sample {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	return slices.Clone(tl.samples)
}

// Dropped says how many events the limit cut off, if any: the printed
// timeline is then not the whole run.
func (tl *Timeline) Dropped() error {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if tl.dropped > 0 {
		return fmt.Errorf("timeline: %d events beyond the limit of %d were dropped", tl.dropped, MaxEvents)
	}
	return nil
}

// WithSamples merges the state samples into the events as "sample state"
// lines: each axis's angle in radians and the ring's first pixel.
func WithSamples(ev []Event, samples []Sample) []Event {
	out := make([]Event, 0, len(ev)+len(samples))
	i := 0
	for _, s := range samples {
		for i < len(ev) && ev[i].T <= s.T {
			out = append(out, ev[i])
			i++
		}
		v := map[string]any{}
		for k := range s.Pose {
			v[motion.AxisName(k)] = roundRad(s.Pose[k])
		}
		if len(s.LED) > 0 {
			v["led"] = device.FormatRGB(s.LED[0])
		}
		out = append(out, Event{T: s.T, Ms: s.T.Milliseconds(), Device: "sample", Event: "state", Values: v})
	}
	return append(out, ev[i:]...)
}

// roundRad rounds an angle to 0.1 mrad for printing.
func roundRad(f float64) float64 { return math.Round(f*1e4) / 1e4 }
