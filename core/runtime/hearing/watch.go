package hearing

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/openjibo/jibod/audio/grammar"
	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/intent"
)

// DefaultDebounce is how long the watcher waits after the last
// registration change before it rebuilds: a skill registers its intents
// in a burst, and one rebuild should follow the burst.
const DefaultDebounce = 500 * time.Millisecond

// barrierTimeout bounds waiting for the intent service to answer the
// list query that tells the watcher it has seen every change.
const barrierTimeout = 2 * time.Second

// registrationTopics are the INTENT-4 topics that change what can be said.
var registrationTopics = []string{
	intent.TopicRegisterTemplate, intent.TopicRegisterKeyword, intent.TopicRegisterEntity,
	intent.TopicDeregister, intent.TopicEnable, intent.TopicDisable,
	intent.TopicDeregisterEntity, intent.TopicSkillDeregister,
}

// Watcher rebuilds the speech grammar when skills' registrations change,
// or anything else the grammar is made from (Topics).
type Watcher struct {
	Bus *bus.Bus
	// Topics are more topics whose messages change the grammar, besides
	// the registration topics: the robot's loop (its people's names).
	Topics []string
	// Build makes the grammar from what is registered now.
	Build func(ctx context.Context) (*grammar.Grammar, error)
	// Apply hands a new grammar to the recogniser.
	Apply func(ctx context.Context, g *grammar.Grammar) error
	// Debounce is the quiet time before a rebuild; 0 means
	// DefaultDebounce.
	Debounce time.Duration
	Logger   *slog.Logger

	// What Subscribe made, for Run.
	sub     *bus.Subscription
	changed chan struct{}
	answers chan bus.Message
}

// Subscribe starts following the topics now, before Run: a change
// published after it returns is rebuilt for, even if Run has not started
// yet. A caller that builds the first grammar itself subscribes before
// that build, so nothing registered meanwhile is missed. Run subscribes
// itself when Subscribe was not called; Close drops a subscription that
// no Run took over.
func (w *Watcher) Subscribe() error {
	if w.sub != nil {
		return errors.New("grammar watcher: subscribed already")
	}
	if w.Bus == nil {
		return errors.New("grammar watcher: bus is required")
	}
	changed := make(chan struct{}, 1)
	answers := make(chan bus.Message, 4)
	topics := append(append(slices.Clone(registrationTopics), w.Topics...), intent.TopicList+".response")
	sub, err := w.Bus.SubscribeAll(topics,
		func(_ context.Context, m bus.Message) {
			if m.Type == intent.TopicList+".response" {
				if m.ContextString("jibo_grammar") != "" {
					select {
					case answers <- m:
					default:
					}
				}
				return
			}
			select {
			case changed <- struct{}{}:
			default:
			}
		}, bus.WithName("grammar"), bus.WithQueue(256, bus.DropNewest))
	if err != nil {
		return fmt.Errorf("grammar watcher: %w", err)
	}
	w.sub, w.changed, w.answers = sub, changed, answers
	return nil
}

// Close drops the subscription of a watcher whose Run never started.
func (w *Watcher) Close() {
	if w.sub != nil {
		w.sub.Close()
		w.sub = nil
	}
}

// Run follows the registration topics until ctx ends, rebuilding and
// applying the grammar after each burst of changes. Before it builds, it
// asks the intent service for its list (ovos.intent.list): the service
// answers only after every registration published before the question,
// so the build sees them all. A failed build or apply is logged and the
// recogniser keeps its grammar. Run returns ctx's error.
func (w *Watcher) Run(ctx context.Context) error {
	if w.Bus == nil || w.Build == nil || w.Apply == nil {
		return errors.New("grammar watcher: bus, Build and Apply are required")
	}
	log := w.Logger
	if log == nil {
		log = slog.Default()
	}
	log = log.With("component", "grammar")
	debounce := w.Debounce
	if debounce <= 0 {
		debounce = DefaultDebounce
	}
	if w.sub == nil {
		if err := w.Subscribe(); err != nil {
			return err
		}
	}
	defer w.Close()
	changed, answers := w.changed, w.answers

	var timer *time.Timer
	var fire <-chan time.Time
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for n := 1; ; {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
			if timer == nil {
				timer = time.NewTimer(debounce)
			} else {
				timer.Reset(debounce)
			}
			fire = timer.C
		case <-fire:
			fire = nil
			id := fmt.Sprintf("rebuild-%d", n)
			n++
			w.barrier(ctx, id, answers, log)
			start := time.Now()
			g, err := w.Build(ctx)
			if err == nil {
				err = w.Apply(ctx, g)
			}
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				log.Error("grammar not rebuilt; keeping the old one", "err", err)
				continue
			}
			log.Info("grammar rebuilt", "intents", g.Intents(), "samples", g.Samples(), "words", len(g.Words()),
				"dropped", len(g.Dropped()), "took", time.Since(start).Round(time.Millisecond))
		}
	}
}

// barrier asks the intent service for its list and waits (bounded) for
// the answer to this question.
func (w *Watcher) barrier(ctx context.Context, id string, answers <-chan bus.Message, log *slog.Logger) {
	q := bus.NewMessage(intent.TopicList, map[string]any{})
	q.Context["jibo_grammar"] = id
	if err := w.Bus.Publish(ctx, q); err != nil {
		log.Warn("asking the intent service for its list", "err", err)
		return
	}
	t := time.NewTimer(barrierTimeout)
	defer t.Stop()
	for {
		select {
		case m := <-answers:
			if m.ContextString("jibo_grammar") == id {
				return
			}
		case <-t.C:
			log.Warn("the intent service did not answer; building the grammar anyway")
			return
		case <-ctx.Done():
			return
		}
	}
}
