package interrupt

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/pipeline"
)

func stops(t *testing.T, b *bus.Bus) chan bus.Message {
	t.Helper()
	ch := make(chan bus.Message, 8)
	sub, err := b.Subscribe(pipeline.TopicStop, func(_ context.Context, m bus.Message) { ch <- m })
	require.NoError(t, err)
	t.Cleanup(sub.Close)
	return ch
}

// The head button stops the robot (STOP-06): a press is one ovos.stop for
// the default session; other buttons do not stop it.
func TestHeadButtonStops(t *testing.T) {
	b := bus.New(bus.Options{Logger: slog.New(slog.DiscardHandler)})
	defer b.Close(context.Background())
	got := stops(t, b)
	w, err := WatchButtons(b, []string{"wake", "head"}, DefaultButtons, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	require.NotNil(t, w)
	defer w.Close()

	ctx := context.Background()
	require.NoError(t, b.Publish(ctx, bus.NewMessage("jibo.body.button.wake.press", map[string]any{})))
	require.NoError(t, b.Publish(ctx, bus.NewMessage("jibo.body.button.head.release", map[string]any{})))
	require.NoError(t, b.Publish(ctx, bus.NewMessage("jibo.body.button.head.press", map[string]any{})))
	select {
	case m := <-got:
		assert.Equal(t, "button.head", m.Context[bus.KeySource])
		assert.Nil(t, m.Context[bus.KeySession], "the default session")
	case <-time.After(10 * time.Second): // a hang guard
		t.Fatal("no stop")
	}
	require.NoError(t, b.Close(ctx))
	assert.Empty(t, got, "one stop, and only for the stop button")
}

func TestWatchButtonsWithoutStopButtons(t *testing.T) {
	b := bus.New(bus.Options{})
	defer b.Close(context.Background())
	w, err := WatchButtons(b, []string{"wake"}, DefaultButtons, nil)
	require.NoError(t, err)
	assert.Nil(t, w)
	w.Close() // a nil watcher closes fine
	_, err = WatchButtons(b, []string{"a.b"}, []string{"a.b"}, nil)
	assert.EqualError(t, err, `stop buttons: button name "a.b" is not usable in a topic`)
	_, err = WatchButtons(nil, nil, nil, nil)
	assert.EqualError(t, err, "stop buttons: no bus")
}

func TestStopSaysWhere(t *testing.T) {
	b := bus.New(bus.Options{})
	defer b.Close(context.Background())
	got := stops(t, b)
	require.NoError(t, Stop(context.Background(), b, "shell"))
	m := <-got
	assert.Equal(t, "shell", m.Context[bus.KeySource])
	assert.Empty(t, m.Data)
}
