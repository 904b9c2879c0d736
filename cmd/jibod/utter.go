package main

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/console"
	"github.com/openjibo/jibod/core/pipeline"
)

// keyInput is the context key the text inputs put on their entries. Every
// lifecycle message derives its context from the entry's, so it comes back
// on all of them and ties a lifecycle to the line that started it.
const keyInput = console.KeyInput

// utterer sends typed utterances and collects their lifecycles.
type utterer struct {
	bus    *bus.Bus
	source string
	next   atomic.Uint64
	sub    *bus.Subscription

	mu      sync.Mutex
	waiting map[string]*lifecycle
}

// lifecycle is what one utterance caused on the bus, up to its handled.
type lifecycle struct {
	msgs []bus.Message
	done chan struct{}
}

func newUtterer(b *bus.Bus, source string) (*utterer, error) {
	u := &utterer{bus: b, source: source, waiting: map[string]*lifecycle{}}
	sub, err := b.Subscribe("*", u.observe, bus.WithName("input-"+source), bus.WithQueue(4096, bus.DropNewest))
	if err != nil {
		return nil, err
	}
	u.sub = sub
	return u, nil
}

func (u *utterer) observe(_ context.Context, m bus.Message) {
	id, _ := m.Context[keyInput].(string)
	if id == "" {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	lc := u.waiting[id]
	if lc == nil {
		return
	}
	lc.msgs = append(lc.msgs, m)
	if m.Type == pipeline.TopicHandled {
		delete(u.waiting, id)
		close(lc.done)
	}
}

// Say publishes text as ovos.utterance.handle and waits for its
// ovos.utterance.handled. It returns the input id it put on the entry and
// every message of the lifecycle.
func (u *utterer) Say(ctx context.Context, text string) (string, []bus.Message, error) {
	id := u.source + "-" + strconv.FormatUint(u.next.Add(1), 10)
	lc := &lifecycle{done: make(chan struct{})}
	u.mu.Lock()
	u.waiting[id] = lc
	u.mu.Unlock()
	m := bus.NewMessage(pipeline.TopicHandle, map[string]any{"utterances": []any{text}})
	m.Context[bus.KeySource] = u.source
	m.Context[keyInput] = id
	if err := u.bus.Publish(ctx, m); err != nil {
		u.forget(id)
		return id, nil, fmt.Errorf("sending utterance: %w", err)
	}
	select {
	case <-lc.done:
		return id, lc.msgs, nil
	case <-ctx.Done():
		u.forget(id)
		return id, nil, fmt.Errorf("waiting for %q to be handled: %w", text, ctx.Err())
	}
}

func (u *utterer) forget(id string) {
	u.mu.Lock()
	delete(u.waiting, id)
	u.mu.Unlock()
}

func (u *utterer) Close() { u.sub.Close() }
