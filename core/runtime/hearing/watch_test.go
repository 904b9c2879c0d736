package hearing

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openjibo/jibod/audio/grammar"
	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/intent"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func registration(skill, name, sample string) bus.Message {
	return bus.NewMessage(intent.TopicRegisterTemplate, map[string]any{
		"skill_id": skill, "intent_name": name, "lang": "en-US", "samples": []any{sample}})
}

// TestWatcherRebuildsAfterABurst: a burst of registrations gives one
// rebuild, after the debounce, and the build sees every registration of
// the burst (the list query is the barrier).
func TestWatcherRebuildsAfterABurst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		b := bus.New(bus.Options{})
		te := intent.NewTemplateEngine(intent.EngineOptions{})
		svc := intent.NewService(b, te, nil)
		require.NoError(t, svc.Start())

		var mu sync.Mutex
		var applied []*grammar.Grammar
		var builds int
		w := &Watcher{Bus: b, Debounce: 300 * time.Millisecond,
			Build: func(context.Context) (*grammar.Grammar, error) {
				mu.Lock()
				builds++
				mu.Unlock()
				return grammar.Build(templateIntents(te.Registrations("")), grammar.Options{TemplateLanguage: IntentTemplates{}, Wake: "hey jibo"})
			},
			Apply: func(_ context.Context, g *grammar.Grammar) error {
				mu.Lock()
				applied = append(applied, g)
				mu.Unlock()
				return nil
			}}
		done := make(chan error, 1)
		go func() { done <- w.Run(ctx) }()
		synctest.Wait()

		for i, s := range []string{"what time is it", "whats the date", "how are you"} {
			require.NoError(t, b.Publish(ctx, registration("s", string(rune('a'+i)), s)))
			time.Sleep(100 * time.Millisecond) // inside the debounce
			synctest.Wait()
		}
		mu.Lock()
		assert.Zero(t, builds, "nothing before the burst is over")
		mu.Unlock()
		time.Sleep(300 * time.Millisecond)
		synctest.Wait()
		mu.Lock()
		require.Len(t, applied, 1)
		g := applied[0]
		mu.Unlock()
		assert.True(t, g.Accepts("hey jibo how are you"))
		assert.True(t, g.Accepts("whats the date"))

		// A deregistration is a change too.
		require.NoError(t, b.Publish(ctx, bus.NewMessage(intent.TopicDeregister,
			map[string]any{"skill_id": "s", "intent_name": "c"})))
		time.Sleep(time.Second)
		synctest.Wait()
		mu.Lock()
		require.Len(t, applied, 2)
		assert.False(t, applied[1].Accepts("how are you"))
		mu.Unlock()

		cancel()
		assert.ErrorIs(t, <-done, context.Canceled)
		svc.Close()
		require.NoError(t, b.Close(context.Background()))
	})
}

// TestWatcherKeepsTheOldGrammar: a failed build or apply is logged and
// the watcher goes on.
func TestWatcherKeepsTheOldGrammar(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		b := bus.New(bus.Options{})
		var mu sync.Mutex
		calls := 0
		w := &Watcher{Bus: b,
			Build: func(context.Context) (*grammar.Grammar, error) {
				mu.Lock()
				defer mu.Unlock()
				calls++
				if calls == 1 {
					return nil, errors.New("broken")
				}
				return grammar.Build(nil, grammar.Options{TemplateLanguage: IntentTemplates{}, Wake: "hey jibo"})
			},
			Apply: func(context.Context, *grammar.Grammar) error { return nil }}
		done := make(chan error, 1)
		go func() { done <- w.Run(ctx) }()
		synctest.Wait()
		for range 2 {
			require.NoError(t, b.Publish(ctx, registration("s", "a", "hello")))
			// No intent service answers the barrier: it gives up after
			// its timeout and builds anyway.
			time.Sleep(DefaultDebounce + barrierTimeout + time.Millisecond)
			synctest.Wait()
		}
		mu.Lock()
		assert.Equal(t, 2, calls)
		mu.Unlock()
		cancel()
		assert.ErrorIs(t, <-done, context.Canceled)
		require.NoError(t, b.Close(context.Background()))
	})
}

func TestWatcherNeedsItsParts(t *testing.T) {
	assert.Error(t, (&Watcher{}).Run(context.Background()))
}

// TestWatcherRebuildsOnItsTopics: a message on one of Topics (the loop
// changed) rebuilds the grammar as a registration does.
func TestWatcherRebuildsOnItsTopics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		b := bus.New(bus.Options{})
		svc := intent.NewService(b, intent.NewTemplateEngine(intent.EngineOptions{}), nil)
		require.NoError(t, svc.Start())
		var mu sync.Mutex
		names := []string{"ann"}
		var applied []*grammar.Grammar
		w := &Watcher{Bus: b, Topics: []string{"jibo.loop.changed"},
			Build: func(context.Context) (*grammar.Grammar, error) {
				mu.Lock()
				defer mu.Unlock()
				return grammar.Build([]grammar.Intent{{Skill: "loop", Name: "name", Lang: "en-US", Templates: names}}, grammar.Options{TemplateLanguage: IntentTemplates{}, Wake: "hey jibo"})
			},
			Apply: func(_ context.Context, g *grammar.Grammar) error {
				mu.Lock()
				applied = append(applied, g)
				mu.Unlock()
				return nil
			}}
		done := make(chan error, 1)
		go func() { done <- w.Run(ctx) }()
		synctest.Wait()

		mu.Lock()
		names = append(names, "cleo")
		mu.Unlock()
		require.NoError(t, b.Publish(ctx, bus.NewMessage("jibo.loop.changed", map[string]any{"count": 2})))
		time.Sleep(DefaultDebounce + time.Millisecond)
		synctest.Wait()
		mu.Lock()
		require.Len(t, applied, 1)
		assert.True(t, applied[0].Accepts("cleo"))
		mu.Unlock()

		require.NoError(t, b.Publish(ctx, bus.NewMessage("jibo.other", map[string]any{})))
		time.Sleep(DefaultDebounce + time.Millisecond)
		synctest.Wait()
		mu.Lock()
		assert.Len(t, applied, 1, "other topics change nothing")
		mu.Unlock()

		cancel()
		assert.ErrorIs(t, <-done, context.Canceled)
		svc.Close()
		require.NoError(t, b.Close(context.Background()))
	})
}

// A change published after Subscribe and before Run starts is rebuilt
// for: the robot subscribes before its first build, so a registration
// made during that build is not lost.
func TestWatcherSubscribedBeforeRunMissesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		b := bus.New(bus.Options{})
		svc := intent.NewService(b, intent.NewTemplateEngine(intent.EngineOptions{}), nil)
		require.NoError(t, svc.Start())
		applied := make(chan *grammar.Grammar, 4)
		w := &Watcher{Bus: b, Topics: []string{"jibo.loop.changed"},
			Build: func(context.Context) (*grammar.Grammar, error) {
				return grammar.Build([]grammar.Intent{{Skill: "loop", Name: "name", Lang: "en-US", Templates: []string{"ann"}}}, grammar.Options{TemplateLanguage: IntentTemplates{}})
			},
			Apply: func(_ context.Context, g *grammar.Grammar) error { applied <- g; return nil }}
		require.NoError(t, w.Subscribe())
		require.Error(t, w.Subscribe(), "one subscription")
		require.NoError(t, b.Publish(ctx, bus.NewMessage("jibo.loop.changed", map[string]any{"count": 1})))
		synctest.Wait()

		done := make(chan error, 1)
		go func() { done <- w.Run(ctx) }()
		time.Sleep(DefaultDebounce + time.Millisecond)
		synctest.Wait()
		require.Len(t, applied, 1, "the change before Run is rebuilt for")

		cancel()
		assert.ErrorIs(t, <-done, context.Canceled)
		svc.Close()
		require.NoError(t, b.Close(context.Background()))
	})
}

// Close drops a subscription no Run took over.
func TestWatcherClosedBeforeRun(t *testing.T) {
	b := bus.New(bus.Options{})
	w := &Watcher{Bus: b}
	require.NoError(t, w.Subscribe())
	w.Close()
	w.Close() // twice is fine
	require.NoError(t, b.Close(context.Background()))
}
