package runtime

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/console"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/session"
)

// client talks to the robot in a session of its own (a named session: the
// client keeps it and sends it back with each utterance, as OVOS clients
// do), on the robot's bus.
type client struct {
	bus  *bus.Bus
	sess map[string]any
	n    int

	mu      sync.Mutex
	waiting map[string]chan bus.Message
	msgs    map[string][]bus.Message
}

func newClient(t *testing.T, b *bus.Bus, id string) *client {
	t.Helper()
	c := &client{bus: b, sess: map[string]any{"session_id": id}, waiting: map[string]chan bus.Message{}, msgs: map[string][]bus.Message{}}
	sub, err := b.Subscribe("*", func(_ context.Context, m bus.Message) {
		in, _ := m.Context[console.KeyInput].(string)
		c.mu.Lock()
		defer c.mu.Unlock()
		ch := c.waiting[in]
		if ch == nil {
			return
		}
		c.msgs[in] = append(c.msgs[in], m)
		if m.Type == pipeline.TopicHandled {
			ch <- m
		}
	}, bus.WithQueue(4096, bus.DropNewest))
	require.NoError(t, err)
	t.Cleanup(sub.Close)
	return c
}

// say sends text in the client's session and returns what the robot said;
// the client keeps the session the round ended with.
func (c *client) say(t *testing.T, text string) []string {
	t.Helper()
	c.n++
	in := fmt.Sprintf("%s-%d", c.sess["session_id"], c.n)
	ch := make(chan bus.Message, 1)
	c.mu.Lock()
	c.waiting[in] = ch
	c.mu.Unlock()
	m := bus.NewMessage(pipeline.TopicHandle, map[string]any{"utterances": []any{text}})
	m.Context[console.KeyInput] = in
	m.Context[bus.KeySession] = c.sess
	require.NoError(t, c.bus.Publish(context.Background(), m))
	var handled bus.Message
	select {
	case handled = <-ch:
	case <-time.After(30 * time.Second):
		t.Fatalf("%q was not handled", text)
	}
	s, _, err := session.FromMessage(handled)
	require.NoError(t, err)
	c.sess = s.Map()
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, m := range c.msgs[in] {
		if m.Type == pipeline.TopicSpeak {
			out = append(out, m.DataString("utterance"))
		}
	}
	return out
}

// TestCancelItIsPerSession: "cancel it" cancels the timer just set in the
// session it is said in (the timer's set context, CONTEXT-1, holds its
// id), never the one another session set after it.
func TestCancelItIsPerSession(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r := startRobot(t, Config{})
	require.NoError(t, r.Intents().Learn(ctx))
	kitchen, hall := newClient(t, r.Bus(), "kitchen"), newClient(t, r.Bus(), "hall")
	assert.Regexp(t, `^\[[^]]*ten minutes, starting now\.\]$`, fmt.Sprint(kitchen.say(t, "set a timer for ten minutes")))
	assert.Regexp(t, `^\[[^]]*two minutes, starting now\.\]$`, fmt.Sprint(hall.say(t, "set a timer for two minutes")))
	assert.Equal(t, []string{"OK, I cancelled your ten minute timer."}, kitchen.say(t, "cancel it"))
	left := r.sched.List()
	require.Len(t, left, 1)
	assert.Equal(t, "hall", left[0].BusSession, "the other session's timer runs on")
	assert.Equal(t, []string{"OK, I cancelled your two minute timer."}, hall.say(t, "cancel it"))
	assert.Empty(t, r.sched.List())
}

// TestCancelItAfterARestart: the set context, and with it the timer just
// set, is kept in the state folder as the timers are: restarted within
// its window, "cancel it" still cancels that timer, not an older one.
func TestCancelItAfterARestart(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	state := t.TempDir()
	first, err := newTestRobot(ctx, Config{StateDir: state})
	require.NoError(t, err)
	require.NoError(t, first.Intents().Learn(ctx))
	u := utter(t, first)
	said(t, u, "set a timer for ten minutes")
	said(t, u, "set a timer for five minutes")
	u.Close()
	require.NoError(t, first.Close(ctx))

	second := startRobot(t, Config{StateDir: state})
	require.NoError(t, second.Intents().Learn(ctx))
	assert.Equal(t, []string{"OK, I cancelled your five minute timer."}, said(t, utter(t, second), "cancel it"))
	left := second.sched.List()
	require.Len(t, left, 1)
	assert.Equal(t, 10*time.Minute, left[0].Due.Sub(left[0].Created), "the older timer runs on")
}
