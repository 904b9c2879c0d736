package main

import (
	"context"
	"fmt"
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
	maxTimelineEvents  = 100000
	maxTimelineSamples = 60 * 60 * 50 // an hour at 50 Hz
	sampleEvery        = 20 * time.Millisecond
)

// timeline records what the body did during a run: device and behaviour
// events, and samples of the joint angles and ring colours.
type timeline struct {
	start time.Time

	mu      sync.Mutex
	events  []tlEvent
	samples []tlSample
	dropped int
}

// tlEvent is one line of the printed timeline.
type tlEvent struct {
	T      time.Duration  `json:"-"`
	Ms     int64          `json:"t_ms"`
	Device string         `json:"device"`
	Event  string         `json:"event"`
	Values map[string]any `json:"values,omitempty"`
}

// tlSample is the body's state at one moment.
type tlSample struct {
	T    time.Duration
	Pose motion.Pose
	LED  []device.RGB
}

func newTimeline() *timeline { return &timeline{start: time.Now()} }

func (tl *timeline) add(at time.Time, dev, event string, values map[string]any) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if len(tl.events) >= maxTimelineEvents {
		tl.dropped++
		return
	}
	t := at.Sub(tl.start)
	tl.events = append(tl.events, tlEvent{T: t, Ms: t.Milliseconds(), Device: dev, Event: event, Values: values})
}

// device records a device event.
func (tl *timeline) device(e device.Event) { tl.add(e.Time, e.Device, e.Kind, e.Values) }

// behaviour records a JCP behaviour event.
func (tl *timeline) behaviour(e jcp.Event) {
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
	tl.add(e.Time, "jcp", string(e.Kind), v)
}

// sample records the body's state until ctx ends; run it in a goroutine
// the caller waits for.
func (tl *timeline) sample(ctx context.Context, ctrl *motion.Controller, ring interface{ Frame() []device.RGB }) {
	t := time.NewTicker(sampleEvery)
	defer t.Stop()
	for {
		s := tlSample{T: time.Since(tl.start), Pose: ctrl.Pose()}
		if ring != nil {
			s.LED = ring.Frame()
		}
		tl.mu.Lock()
		if len(tl.samples) < maxTimelineSamples {
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

// sorted returns the events in time order (devices report from their own
// goroutines, so arrival order can differ by a hair).
func (tl *timeline) sorted() []tlEvent {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	ev := slices.Clone(tl.events)
	// sort.SliceStable shares one copy of the sort code; a generic sort
	// over the struct would add its own (docs/size.md).
	sort.SliceStable(ev, func(i, j int) bool { return ev[i].T < ev[j].T })
	return ev
}

func (tl *timeline) snapshotSamples() []tlSample {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	return slices.Clone(tl.samples)
}

// droppedErr says how many events the limit cut off, if any: the printed
// timeline is then not the whole run.
func (tl *timeline) droppedErr() error {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if tl.dropped > 0 {
		return fmt.Errorf("timeline: %d events beyond the limit of %d were dropped", tl.dropped, maxTimelineEvents)
	}
	return nil
}
