package web

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/motion"
)

// live watches the robot for the pages: it turns bus messages into
// updates, samples the body while a page watches, keeps the recent
// conversation for pages that open later and hands every update to every
// page's queue without ever waiting for one.
type live struct {
	cfg Config
	log *slog.Logger
	sub *bus.Subscription

	mu      sync.Mutex
	clients map[*client]struct{}
	history [][]byte          // encoded conversation updates, oldest first
	screen  map[int]shownView // each layer's view, as far as the bus has told
	body    bodyState         // as last sent
	stopped bool

	wake chan struct{} // a page arrived: sample again
	quit chan struct{}
	wg   sync.WaitGroup
}

// client is one live page.
type client struct {
	ch      chan []byte
	dropped atomic.Uint64
}

// shownView is a view on one layer of the screen: its name and the
// update that showed it.
type shownView struct {
	name  string
	frame []byte
}

// bodyState is the body as the page draws it.
type bodyState struct {
	Axes []string  `json:"axes,omitempty"`
	Pose []float64 `json:"pose,omitempty"` // radians, per axis
	LEDs []string  `json:"leds,omitempty"`
}

func startLive(cfg Config, log *slog.Logger) (*live, error) {
	l := &live{cfg: cfg, log: log, clients: map[*client]struct{}{}, screen: map[int]shownView{},
		wake: make(chan struct{}, 1), quit: make(chan struct{})}
	var err error
	patterns := []string{bodyPrefix + "*"}
	for t := range conversationTopics {
		patterns = append(patterns, t)
	}
	l.sub, err = cfg.Bus.SubscribeAll(patterns, l.observe, bus.WithName("web"), bus.WithQueue(1024, bus.DropNewest))
	if err != nil {
		return nil, fmt.Errorf("watching the bus: %w", err)
	}
	if cfg.Body != nil || cfg.Lights != nil {
		l.wg.Add(1)
		go l.sample() // owned: stop ends it, wait waits
	}
	return l, nil
}

// stop ends the sampler and every live page; wait waits for the sampler.
func (l *live) stop() {
	l.mu.Lock()
	if !l.stopped {
		l.stopped = true
		close(l.quit)
	}
	l.mu.Unlock()
	l.sub.Close()
}

func (l *live) wait() { l.wg.Wait() }

// observe turns one bus message into an update for the pages; it runs
// on the bus's delivery goroutine for this subscription and never blocks.
func (l *live) observe(_ context.Context, m bus.Message) {
	if !shown(m.Type) {
		return
	}
	f := frame("update", toUpdate(m, time.Now()))
	l.mu.Lock()
	if strings.HasPrefix(m.Type, topicDisplay) {
		// The screen is kept by layer, not in the history: a page opened
		// later must see what is shown however long ago it was shown.
		layer, _ := m.Data["layer"].(int64)
		name := m.DataString("name")
		if m.Type == topicDisplay+"show" {
			l.screen[int(layer)] = shownView{name: name, frame: f}
		} else if v, ok := l.screen[int(layer)]; ok && (name == "" || v.name == name) {
			delete(l.screen, int(layer))
		}
	} else {
		l.history = append(l.history, f)
		if len(l.history) > historyLen {
			l.history = slices.Delete(l.history, 0, len(l.history)-historyLen)
		}
	}
	l.mu.Unlock()
	l.broadcast(f)
}

// broadcast queues f for every page; a page whose queue is full loses it
// and is told how many it lost once it catches up.
func (l *live) broadcast(f []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for c := range l.clients {
		select {
		case c.ch <- f:
		default:
			c.dropped.Add(1)
		}
	}
}

// join adds a page and returns what it must show first: the recent
// conversation, the screen and the body now.
func (l *live) join(max int) (*client, [][]byte, error) {
	c := &client{ch: make(chan []byte, clientQueue)}
	l.mu.Lock()
	if l.stopped {
		l.mu.Unlock()
		return nil, nil, errClosing
	}
	if len(l.clients) >= max {
		l.mu.Unlock()
		return nil, nil, errTooManyPages
	}
	l.clients[c] = struct{}{}
	first := append([][]byte(nil), l.history...)
	for _, layer := range slices.Sorted(maps.Keys(l.screen)) {
		first = append(first, l.screen[layer].frame)
	}
	l.mu.Unlock()
	if b, ok := l.read(); ok {
		first = append(first, frame("body", b))
	}
	select {
	case l.wake <- struct{}{}:
	default:
	}
	return c, first, nil
}

func (l *live) leave(c *client) {
	l.mu.Lock()
	delete(l.clients, c)
	l.mu.Unlock()
}

// read looks at the body now.
func (l *live) read() (bodyState, bool) {
	var b bodyState
	if l.cfg.Body != nil {
		p := l.cfg.Body.Pose()
		for i := range motion.NumAxes {
			b.Axes = append(b.Axes, motion.AxisName(i))
			b.Pose = append(b.Pose, math.Round(p[i]*1e4)/1e4)
		}
	}
	if l.cfg.Lights != nil {
		b.LEDs = l.cfg.Lights.Colors()
	}
	return b, b.Axes != nil || b.LEDs != nil
}

// sample sends the body whenever it changes while a page watches, and
// sleeps while none does.
func (l *live) sample() {
	defer l.wg.Done()
	t := time.NewTicker(l.cfg.SampleEvery)
	defer t.Stop()
	for {
		l.mu.Lock()
		watching := len(l.clients) > 0
		l.mu.Unlock()
		if !watching {
			select {
			case <-l.wake:
			case <-l.quit:
				return
			}
		}
		select {
		case <-t.C:
		case <-l.quit:
			return
		}
		b, ok := l.read()
		if !ok {
			continue
		}
		l.mu.Lock()
		same := slices.Equal(b.Pose, l.body.Pose) && slices.Equal(b.LEDs, l.body.LEDs)
		l.body = b
		l.mu.Unlock()
		if !same {
			l.broadcast(frame("body", b))
		}
	}
}

// frame encodes one server-sent event.
func frame(event string, v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		data = []byte(`{}`)
	}
	out := make([]byte, 0, len(event)+len(data)+16)
	out = append(out, "event: "...)
	out = append(out, event...)
	out = append(out, "\ndata: "...)
	out = append(out, data...) // JSON has no raw newlines
	return append(out, "\n\n"...)
}
