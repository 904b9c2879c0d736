package bus

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// collector gathers delivered topics for assertions.
type collector struct {
	mu  sync.Mutex
	got []string
	ch  chan struct{}
}

func newCollector() *collector { return &collector{ch: make(chan struct{}, 1024)} }

func (c *collector) handle(_ context.Context, m Message) {
	c.mu.Lock()
	c.got = append(c.got, m.Type)
	c.mu.Unlock()
	c.ch <- struct{}{}
}

func (c *collector) wait(t *testing.T, n int) []string {
	t.Helper()
	for i := 0; i < n; i++ {
		select {
		case <-c.ch:
		case <-time.After(5 * time.Second):
			t.Fatalf("waited for %d messages, got %d", n, i)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.got...)
}

func newBus(t *testing.T) *Bus {
	b := New(Options{})
	t.Cleanup(func() { _ = b.Close(context.Background()) })
	return b
}

func TestExactAndPrefixSubscriptions(t *testing.T) {
	b := newBus(t)
	exact, prefix, all := newCollector(), newCollector(), newCollector()
	_, err := b.Subscribe("ovos.intent.matched", exact.handle)
	require.NoError(t, err)
	_, err = b.Subscribe("ovos.intent.*", prefix.handle)
	require.NoError(t, err)
	_, err = b.Subscribe("*", all.handle)
	require.NoError(t, err)

	ctx := context.Background()
	for _, topic := range []string{"ovos.intent.matched", "ovos.intent.unmatched", "ovos.utterance.handled", "ovos.intent"} {
		require.NoError(t, b.Publish(ctx, NewMessage(topic, nil)))
	}
	assert.Equal(t, []string{"ovos.intent.matched"}, exact.wait(t, 1))
	assert.Equal(t, []string{"ovos.intent.matched", "ovos.intent.unmatched"}, prefix.wait(t, 2))
	assert.Equal(t, []string{"ovos.intent.matched", "ovos.intent.unmatched", "ovos.utterance.handled", "ovos.intent"}, all.wait(t, 4))
}

func TestBadPatterns(t *testing.T) {
	b := newBus(t)
	for _, p := range []string{"", "a*b*", "*a*", "a..b", "a b"} {
		_, err := b.Subscribe(p, func(context.Context, Message) {})
		assert.Error(t, err, p)
	}
}

func TestMalformedPublishReachesNoOne_MSG03(t *testing.T) {
	b := newBus(t)
	c := newCollector()
	_, err := b.Subscribe("*", c.handle)
	require.NoError(t, err)
	ctx := context.Background()
	assert.ErrorIs(t, b.Publish(ctx, Message{Type: "bad topic"}), ErrMalformed)
	assert.ErrorIs(t, b.Publish(ctx, Message{Type: "a", Data: map[string]any{"x": "\xff"}}), ErrMalformed)
	// The bus and the subscriber carry on.
	require.NoError(t, b.Publish(ctx, NewMessage("good", nil)))
	assert.Equal(t, []string{"good"}, c.wait(t, 1))
	assert.Equal(t, uint64(2), b.Stats().Rejected)
}

func TestOrderPreservedPerSubscriber(t *testing.T) {
	b := newBus(t)
	c := newCollector()
	_, err := b.Subscribe("n.*", c.handle, WithQueue(2000, Block))
	require.NoError(t, err)
	var want []string
	for i := 0; i < 1000; i++ {
		topic := fmt.Sprintf("n.%d", i)
		want = append(want, topic)
		require.NoError(t, b.Publish(context.Background(), NewMessage(topic, nil)))
	}
	assert.Equal(t, want, c.wait(t, 1000))
}

func TestOverflowPolicies(t *testing.T) {
	for _, policy := range []Overflow{DropNewest, DropOldest} {
		t.Run(policy.String(), func(t *testing.T) {
			b := newBus(t)
			release := make(chan struct{})
			var mu sync.Mutex
			var got, lost []int64
			started := make(chan struct{}, 1)
			sub, err := b.Subscribe("t", func(_ context.Context, m Message) {
				select {
				case started <- struct{}{}:
				default:
				}
				<-release
				mu.Lock()
				got = append(got, m.Data["i"].(int64))
				mu.Unlock()
			}, WithQueue(2, policy), WithOnDrop(func(m Message) { lost = append(lost, m.Data["i"].(int64)) }))
			require.NoError(t, err)
			ctx := context.Background()
			require.NoError(t, b.Publish(ctx, NewMessage("t", map[string]any{"i": 0})))
			<-started // message 0 is in the handler; the queue is empty
			for i := 1; i <= 4; i++ {
				require.NoError(t, b.Publish(ctx, NewMessage("t", map[string]any{"i": i})))
			}
			assert.Equal(t, uint64(2), sub.Dropped())
			close(release)
			require.NoError(t, b.Close(context.Background()))
			if policy == DropNewest {
				assert.Equal(t, []int64{0, 1, 2}, got)
				assert.Equal(t, []int64{3, 4}, lost, "the hook is told what was lost")
			} else {
				assert.Equal(t, []int64{0, 3, 4}, got)
				assert.Equal(t, []int64{1, 2}, lost, "the hook is told what was lost")
			}
			assert.Equal(t, map[string]uint64{"t": 2}, b.Stats().Dropped)
		})
	}
}

func TestBlockPolicyWaitsAndHonoursContext(t *testing.T) {
	b := newBus(t)
	release := make(chan struct{})
	sub, err := b.Subscribe("t", func(context.Context, Message) { <-release }, WithQueue(1, Block))
	require.NoError(t, err)
	require.NoError(t, b.Publish(context.Background(), NewMessage("t", nil))) // in handler
	require.NoError(t, b.Publish(context.Background(), NewMessage("t", nil))) // queued
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.NoError(t, b.Publish(ctx, NewMessage("t", nil)), "a full Block queue with a done context drops")
	assert.Equal(t, uint64(1), sub.Dropped())
	close(release)
}

func TestHandlerPanicIsContained(t *testing.T) {
	b := newBus(t)
	c := newCollector()
	_, err := b.Subscribe("t", func(_ context.Context, m Message) {
		if m.Data["boom"] == true {
			panic("boom")
		}
		c.handle(context.Background(), m)
	})
	require.NoError(t, err)
	require.NoError(t, b.Publish(context.Background(), NewMessage("t", map[string]any{"boom": true})))
	require.NoError(t, b.Publish(context.Background(), NewMessage("t", nil)))
	assert.Equal(t, []string{"t"}, c.wait(t, 1))
}

func TestPublishCopiesData(t *testing.T) {
	b := newBus(t)
	got := make(chan Message, 1)
	_, err := b.Subscribe("t", func(_ context.Context, m Message) { got <- m })
	require.NoError(t, err)
	data := map[string]any{"list": []any{"a"}}
	require.NoError(t, b.Publish(context.Background(), NewMessage("t", data)))
	data["list"].([]any)[0] = "changed"
	m := <-got
	assert.Equal(t, "a", m.Data["list"].([]any)[0], "publishers cannot mutate a published message")
}

func TestCloseDrainsAndLeaksNoGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	b := New(Options{})
	var mu sync.Mutex
	n := 0
	for i := 0; i < 10; i++ {
		_, err := b.Subscribe("t", func(context.Context, Message) { mu.Lock(); n++; mu.Unlock() })
		require.NoError(t, err)
	}
	for i := 0; i < 50; i++ {
		require.NoError(t, b.Publish(context.Background(), NewMessage("t", nil)))
	}
	require.NoError(t, b.Close(context.Background()))
	assert.Equal(t, 500, n, "Close delivers everything already queued")
	assert.ErrorIs(t, b.Publish(context.Background(), NewMessage("t", nil)), ErrClosed)
	_, err := b.Subscribe("t", func(context.Context, Message) {})
	assert.ErrorIs(t, err, ErrClosed)
	// Poll by hand: assert.Eventually runs its condition on a goroutine of its own.
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	assert.LessOrEqual(t, runtime.NumGoroutine(), before, "subscriber goroutines must all exit")
}

func TestCloseWithHungHandlerCancels(t *testing.T) {
	b := New(Options{})
	started := make(chan struct{})
	_, err := b.Subscribe("t", func(ctx context.Context, _ Message) { close(started); <-ctx.Done() })
	require.NoError(t, err)
	require.NoError(t, b.Publish(context.Background(), NewMessage("t", nil)))
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	err = b.Close(ctx)
	assert.ErrorContains(t, err, "did not drain")
}

// Drain delivers what was queued before it, takes nothing after it, and
// gives up at its context's end without leaving the handler running.
func TestSubscriptionDrain(t *testing.T) {
	b := newBus(t)
	gate := make(chan struct{})
	var mu sync.Mutex
	var got []string
	sub, err := b.Subscribe("t", func(ctx context.Context, m Message) {
		select {
		case <-gate:
		case <-ctx.Done():
			return
		}
		mu.Lock()
		got = append(got, m.DataString("n"))
		mu.Unlock()
	})
	require.NoError(t, err)
	for _, n := range []string{"1", "2", "3"} {
		require.NoError(t, b.Publish(context.Background(), NewMessage("t", map[string]any{"n": n})))
	}
	drained := make(chan error, 1)
	go func() { drained <- sub.Drain(context.Background()) }()
	require.Eventually(t, func() bool { return b.Stats().Subscribers == 0 }, 10*time.Second, time.Millisecond)
	require.NoError(t, b.Publish(context.Background(), NewMessage("t", map[string]any{"n": "late"})))
	close(gate)
	require.NoError(t, <-drained)
	assert.Equal(t, []string{"1", "2", "3"}, got, "what was queued is delivered, what came after is not")

	hung, err := b.Subscribe("h", func(ctx context.Context, _ Message) { <-ctx.Done() })
	require.NoError(t, err)
	require.NoError(t, b.Publish(context.Background(), NewMessage("h", nil)))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, hung.Drain(ctx), context.Canceled, "a handler that does not finish is cancelled")
}

func TestSubscriptionCloseAndStop(t *testing.T) {
	b := newBus(t)
	c := newCollector()
	sub, err := b.Subscribe("t", c.handle)
	require.NoError(t, err)
	sub.Close()
	require.NoError(t, b.Publish(context.Background(), NewMessage("t", nil)))
	assert.Equal(t, 0, b.Stats().Subscribers)

	// Stop from inside the handler does not deadlock.
	var once sync.Once
	stopped := make(chan struct{})
	var self *Subscription
	self, err = b.Subscribe("u", func(context.Context, Message) { once.Do(func() { self.Stop(); close(stopped) }) })
	require.NoError(t, err)
	require.NoError(t, b.Publish(context.Background(), NewMessage("u", nil)))
	<-stopped
}

func TestTapWritesJSONLines(t *testing.T) {
	b := newBus(t)
	var buf bytes.Buffer
	tap := NewTap(&buf, false, nil)
	_, err := b.Subscribe("*", tap.Handle, WithQueue(64, Block))
	require.NoError(t, err)
	require.NoError(t, b.Publish(context.Background(), NewMessage("a.b", map[string]any{"x": 1})))
	require.NoError(t, b.Publish(context.Background(), Message{Type: "c"}))
	require.NoError(t, b.Close(context.Background()))
	require.NoError(t, tap.Flush())
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	require.Len(t, lines, 2)
	assert.JSONEq(t, `{"type":"a.b","data":{"x":1},"context":{}}`, lines[0])
	assert.JSONEq(t, `{"type":"c","data":{},"context":{}}`, lines[1])
}

func TestConcurrentPublishersRaceClean(t *testing.T) {
	b := newBus(t)
	var mu sync.Mutex
	count := 0
	_, err := b.Subscribe("*", func(context.Context, Message) { mu.Lock(); count++; mu.Unlock() }, WithQueue(10000, Block))
	require.NoError(t, err)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				_ = b.Publish(context.Background(), NewMessage("t", map[string]any{"i": i}))
			}
		}()
	}
	wg.Wait()
	require.NoError(t, b.Close(context.Background()))
	assert.Equal(t, 1600, count)
}

func BenchmarkPublish(b *testing.B) {
	bus := New(Options{})
	defer bus.Close(context.Background())
	_, _ = bus.Subscribe("ovos.*", func(context.Context, Message) {}, WithQueue(4096, Block))
	m := NewMessage("ovos.utterance.handle", map[string]any{"utterances": []any{"what time is it"}, "lang": "en-US"})
	ctx := context.Background()
	for b.Loop() {
		if err := bus.Publish(ctx, m); err != nil {
			b.Fatal(err)
		}
	}
}

func TestMain(m *testing.M) {
	// Expected warnings (dropped messages, recovered panics) stay out of test output.
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	os.Exit(m.Run())
}

func TestSubscribeAllSharesOneOrderedQueue(t *testing.T) {
	b := newBus(t)
	c := newCollector()
	sub, err := b.SubscribeAll([]string{"reg.intent", "reg.entity", "reg.*", "list"}, c.handle)
	require.NoError(t, err)
	for _, topic := range []string{"reg.intent", "other", "reg.entity", "list", "reg.x"} {
		require.NoError(t, b.Publish(context.Background(), NewMessage(topic, nil)))
	}
	assert.Equal(t, []string{"reg.intent", "reg.entity", "list", "reg.x"}, c.wait(t, 4), "each once, in publish order")
	assert.Equal(t, 1, b.Stats().Subscribers)
	sub.Close()
	assert.Equal(t, 0, b.Stats().Subscribers)
	_, err = b.SubscribeAll(nil, c.handle)
	assert.Error(t, err)
}
