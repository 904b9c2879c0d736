package scenario

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/session"
)

// observer watches every bus message (it never publishes): it counts
// lifecycles, remembers topics for wait_for, and which lifecycles ended
// after dispatching which topic, for await.
type observer struct {
	mu       sync.Mutex
	changed  chan struct{} // closed and replaced on every message
	topics   []string
	handles  int
	handled  int
	dispatch map[string]string // utterance_id → dispatch topic
	ended    map[string]bool   // utterance_ids with handled
	count    map[string]int    // dispatch topic → ended lifecycles
	emitted  map[int64]bool    // steps whose own message has been seen
}

func newObserver() *observer {
	return &observer{changed: make(chan struct{}), dispatch: map[string]string{}, ended: map[string]bool{}, count: map[string]int{},
		emitted: map[int64]bool{}}
}

func (o *observer) receive(_ context.Context, m bus.Message) {
	if _, own := m.Context[confirmKey]; own {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.topics = append(o.topics, m.Type)
	uid := m.ContextString(bus.KeyUtteranceID)
	if n, ok := m.Context[StepKey].(int64); ok && uid == "" {
		o.emitted[n] = true
	}
	switch {
	case m.Type == pipeline.TopicHandle:
		o.handles++
	case m.Type == pipeline.TopicHandled:
		o.handled++
		if uid != "" {
			o.ended[uid] = true
			if t, ok := o.dispatch[uid]; ok {
				o.count[t]++
			}
		}
	case strings.Contains(m.Type, ":") && uid != "":
		o.dispatch[uid] = m.Type
	}
	close(o.changed)
	o.changed = make(chan struct{})
}

// wait blocks until cond holds (checked under the lock) or ctx ends.
func (o *observer) wait(ctx context.Context, cond func() bool) error {
	for {
		o.mu.Lock()
		ok := cond()
		ch := o.changed
		o.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (o *observer) mark() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.topics)
}

func (o *observer) waitTopic(ctx context.Context, topic string, from int) error {
	return o.wait(ctx, func() bool {
		for _, t := range o.topics[from:] {
			if t == topic {
				return true
			}
		}
		return false
	})
}

func (o *observer) idle() bool { return o.handled >= o.handles }

// waitEmitted waits until the step's own message has reached the observer,
// so lifecycle counts include it.
func (o *observer) waitEmitted(ctx context.Context, step int) error {
	return o.wait(ctx, func() bool { return o.emitted[int64(step)] })
}

func (o *observer) waitIdle(ctx context.Context) error { return o.wait(ctx, o.idle) }

func (o *observer) waitHandled(ctx context.Context, uid string) error {
	return o.wait(ctx, func() bool { return o.ended[uid] })
}

func (o *observer) handledCount(topic string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.count[topic]
}

func (o *observer) waitCount(ctx context.Context, topic string, n int) error {
	return o.wait(ctx, func() bool { return o.count[topic] >= n })
}

func (o *observer) running() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.handles - o.handled
}

// Options tune a run.
type Options struct {
	Logger *slog.Logger
	// Now is the orchestrator's clock; nil means time.Now.
	Now func() time.Time
	// Intents builds the intent stack on the scenario's bus: its
	// registration service reads the registrations the steps emit, its
	// rules gate every match (CTX-11, CTX-12, CTX-13, PIPE-15), and its
	// bands are the "intents" plugins. The robot's constructor
	// (intent.NewStack) is handed in by the caller, since the intent stack
	// builds on this package. Nil runs without one.
	Intents func(b *bus.Bus, log *slog.Logger) (IntentStack, error)
}

// IntentStack is what the runner needs of the intent stack.
type IntentStack interface {
	Start() error
	Close()
	// Plugin returns the band with a pipeline id, or nil.
	Plugin(id string) pipeline.Plugin
	// Rules are the registered intents' rules, for the orchestrator.
	Rules() pipeline.IntentRules
	// Learn has the stack's learning sources (the paraphrase tier) learn
	// what is registered now; the runner asks before every utterance, so
	// what a run understands never depends on how fast they learn.
	Learn(ctx context.Context) error
}

// Run starts the real orchestrator with the scenario's plugins,
// transformers, skills and handlers, emits its steps, and writes every bus
// message to out as one JSON line ({"type","data","context"}). It returns
// when every lifecycle has ended after the last step, or with an error when
// the scenario's deadline passes first.
func Run(ctx context.Context, f *File, out io.Writer, opts Options) (err error) {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	ctx, cancel := context.WithTimeout(ctx, time.Duration(f.Config.DeadlineMS)*time.Millisecond)
	defer cancel()

	b := bus.New(bus.Options{Logger: log})
	tap := bus.NewTap(out, false, log)
	var closers []func()
	defer func() {
		// Stop everything that publishes, let the bus drain into the tap,
		// then flush it.
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
		cctx, ccancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer ccancel()
		if cerr := b.Close(cctx); cerr != nil && err == nil {
			err = cerr
		}
		if ferr := tap.Flush(); ferr != nil && err == nil {
			err = ferr
		}
	}()
	trace := func(ctx context.Context, m bus.Message) {
		if _, own := m.Context[confirmKey]; !own {
			tap.Handle(ctx, m)
		}
	}
	if _, err := b.Subscribe("*", trace, bus.WithName("scenario-trace"), bus.WithQueue(8192, bus.Block)); err != nil {
		return err
	}
	obs := newObserver()
	if _, err := b.Subscribe("*", obs.receive, bus.WithName("scenario-observer"), bus.WithQueue(8192, bus.Block)); err != nil {
		return err
	}

	window := time.Duration(f.Config.PollWindowMS) * time.Millisecond
	tr, err := buildTransformers(f, log)
	if err != nil {
		return err
	}
	closers = append(closers, func() {
		cctx, ccancel := context.WithTimeout(context.Background(), time.Second)
		defer ccancel()
		if err := tr.Close(cctx); err != nil {
			log.Warn("scenario: closing transformers", "err", err)
		}
	})
	var stack IntentStack
	if opts.Intents != nil {
		if stack, err = opts.Intents(b, log); err != nil {
			return fmt.Errorf("scenario: building the intent stack: %w", err)
		}
		if err := stack.Start(); err != nil {
			return fmt.Errorf("scenario: %w", err)
		}
		closers = append(closers, stack.Close)
	}
	plugins, listeners, err := buildPlugins(f, b, window, log, stack)
	if err != nil {
		return err
	}

	sk := &skills{bus: b, specs: f.Skills, ids: sortedKeys(f.Skills)}
	skSub, err := b.SubscribeAll([]string{pipeline.TopicStopPing, pipeline.TopicConversePing, pipeline.TopicFallbackPing},
		sk.receive, bus.WithName("scenario-skills"), bus.WithQueue(1024, bus.DropNewest))
	if err != nil {
		return err
	}
	closers = append(closers, skSub.Close)

	hs := &handlers{bus: b, specs: f.Handlers, obs: obs, now: now, runs: map[*run]bool{}}
	stopSub, err := b.Subscribe(pipeline.TopicStop, func(_ context.Context, m bus.Message) {
		// STOP-06: ovos.stop ends what every scripted skill does in that session.
		hs.stopRuns(sessionOf(m), "")
	}, bus.WithName("scenario-stop"), bus.WithQueue(256, bus.DropNewest))
	if err != nil {
		return err
	}
	closers = append(closers, stopSub.Close)

	orch, err := pipeline.New(pipeline.Config{
		Bus: b, Invoker: hs, Logger: log, Plugins: plugins, Listeners: listeners, Transformers: tr, Now: now,
		Rules:            rulesOf(stack),
		Defaults:         sessionDefaults(f),
		MatchTimeout:     time.Duration(f.Config.MatchTimeoutMS) * time.Millisecond,
		HandlerTimeout:   time.Duration(f.Config.HandlerTimeoutMS) * time.Millisecond,
		BreakerThreshold: f.Config.BreakerThreshold,
		BreakerCooldown:  time.Duration(f.Config.BreakerCooldownMS) * time.Millisecond,
	})
	if err != nil {
		return fmt.Errorf("scenario: %w", err)
	}
	if err := orch.Start(); err != nil {
		return err
	}
	closers = append(closers, func() {
		cctx, ccancel := context.WithTimeout(context.Background(), time.Second)
		defer ccancel()
		if err := orch.Close(cctx); err != nil {
			log.Warn("scenario: closing the orchestrator", "err", err)
		}
	})

	// Setup (step 0): fallback registrations of the scripted skills.
	for _, id := range sk.ids {
		spec := f.Skills[id]
		if spec.FallbackPriority == nil {
			continue
		}
		m := bus.NewMessage(pipeline.TopicFallbackRegister, map[string]any{"skill_id": id, "priority": *spec.FallbackPriority})
		m.Context[bus.KeySkillID] = id
		m.Context[StepKey] = 0
		if err := b.Publish(ctx, m); err != nil {
			return fmt.Errorf("scenario setup: %w", err)
		}
	}

	mark := obs.mark()
	for i, st := range f.Steps {
		if st.WaitFor != "" {
			if err := obs.waitTopic(ctx, st.WaitFor, mark); err != nil {
				return fmt.Errorf("steps[%d]: waiting for %s: %w", i, st.WaitFor, err)
			}
		} else if !st.Overlap {
			if err := obs.waitIdle(ctx); err != nil {
				return fmt.Errorf("steps[%d]: waiting for %d lifecycles to end: %w", i, obs.running(), err)
			}
		}
		if st.AfterMS > 0 {
			t := time.NewTimer(time.Duration(st.AfterMS) * time.Millisecond)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return fmt.Errorf("steps[%d]: %w", i, ctx.Err())
			}
		}
		m := st.Emit
		m.Data = bus.CopyMap(m.Data)
		m.Context = bus.CopyMap(m.Context)
		m.Context[StepKey] = i + 1
		if stack != nil && m.Type == pipeline.TopicHandle {
			// The registrations emitted so far must be applied (their
			// context rules known, their samples indexed) before the
			// utterance is matched or the learners learn them.
			if err := confirmRegistrations(ctx, b); err != nil {
				return fmt.Errorf("steps[%d]: %w", i, err)
			}
			if err := stack.Learn(ctx); err != nil {
				return fmt.Errorf("steps[%d]: %w", i, err)
			}
		}
		mark = obs.mark()
		if err := b.Publish(ctx, m); err != nil {
			return fmt.Errorf("steps[%d]: emitting %s: %w", i, m.Type, err)
		}
		if err := obs.waitEmitted(ctx, i+1); err != nil {
			return fmt.Errorf("steps[%d]: %w", i, err)
		}
	}
	for {
		if err := obs.waitIdle(ctx); err != nil {
			return fmt.Errorf("%w: %d ms, with %d lifecycles still running", ErrDeadline, f.Config.DeadlineMS, obs.running())
		}
		// Answers to queries and late poll replies have no lifecycle to
		// wait for: let the bus go quiet before closing.
		n := obs.mark()
		t := time.NewTimer(settle)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w: %d ms", ErrDeadline, f.Config.DeadlineMS)
		}
		if obs.mark() == n {
			return nil
		}
	}
}

// confirmKey marks the runner's own ovos.intent.list query and its answer
// in their context; they are not the scenario's, so the trace leaves them
// out.
const confirmKey = "scenario_confirm"

// confirmSource is the runner's name as the source of its query.
const confirmSource = "scenario-runner"

// confirmRegistrations asks the intent service ovos.intent.list (REG-12)
// and waits for its answer. The service handles its topics in order, so
// the answer means every registration published before the query has been
// applied; seeing a registration on the bus says only that it was sent.
func confirmRegistrations(ctx context.Context, b *bus.Bus) error {
	answered := make(chan struct{}, 1)
	sub, err := b.Subscribe(intentListTopic+".response", func(_ context.Context, m bus.Message) {
		if _, own := m.Context[confirmKey]; own && m.IsFor(confirmSource) {
			select {
			case answered <- struct{}{}:
			default:
			}
		}
	}, bus.WithName("scenario-confirm"), bus.WithQueue(16, bus.DropNewest))
	if err != nil {
		return fmt.Errorf("confirming the registrations: %w", err)
	}
	defer sub.Close()
	q := bus.NewMessage(intentListTopic, map[string]any{"skill_id": confirmSource})
	q.Context[bus.KeySource] = confirmSource
	q.Context[confirmKey] = true
	if err := b.Publish(ctx, q); err != nil {
		return fmt.Errorf("confirming the registrations: %w", err)
	}
	select {
	case <-answered:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("confirming the registrations: no answer to %s: %w", intentListTopic, ctx.Err())
	}
}

// intentListTopic is the intent service's list query (REG-12); the
// intent package builds on this one, so its name is repeated here.
const intentListTopic = "ovos.intent.list"

// settle is how long the bus must stay quiet after the last lifecycle
// before a run ends.
const settle = 150 * time.Millisecond

func sessionOf(m bus.Message) string {
	s, _ := m.Context[bus.KeySession].(map[string]any)
	if id, ok := s["session_id"].(string); ok && id != "" {
		return id
	}
	return "default"
}

func sessionDefaults(f *File) session.Defaults {
	return session.Defaults{Lang: f.Config.Lang, EnabledLangs: f.Config.EnabledLangs, Pipeline: f.Config.DefaultPipeline}
}

func buildTransformers(f *File, log *slog.Logger) (*pipeline.Transformers, error) {
	cfg := pipeline.TransformersConfig{Logger: log, Order: map[pipeline.ChainType][]string{}}
	for typ, order := range f.Config.TransformerOrder {
		cfg.Order[pipeline.ChainType(typ)] = order
	}
	for _, t := range f.Transformers[pipeline.ChainUtterance] {
		cfg.Utterance = append(cfg.Utterance, &scriptedTransformer{spec: t})
	}
	for _, t := range f.Transformers[pipeline.ChainMetadata] {
		cfg.Metadata = append(cfg.Metadata, &scriptedTransformer{spec: t})
	}
	for _, t := range f.Transformers[pipeline.ChainIntent] {
		cfg.Intent = append(cfg.Intent, &scriptedTransformer{spec: t})
	}
	tr, err := pipeline.NewTransformers(cfg)
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	return tr, nil
}

// buildPlugins makes the scripted and built-in plugins; the "intents"
// ones are bands of the intent stack.
func buildPlugins(f *File, b *bus.Bus, window time.Duration, log *slog.Logger, stack IntentStack) ([]pipeline.Plugin, []pipeline.Listener, error) {
	var plugins []pipeline.Plugin
	var listeners []pipeline.Listener
	var fallbacks *pipeline.Fallbacks
	ids := sortedKeys(f.Plugins)
	for _, id := range ids {
		spec := f.Plugins[id]
		var p pipeline.Plugin
		var err error
		switch spec.Builtin {
		case "":
			p = &scriptedPlugin{id: id, spec: spec}
		case "stop":
			p, err = pipeline.NewStop(pipeline.StopConfig{Bus: b, ID: id, Window: window, Vocab: spec.Vocab, Global: spec.Global, Logger: log})
		case "converse":
			p, err = pipeline.NewConverse(pipeline.ConverseConfig{Bus: b, ID: id, Window: window, Logger: log})
		case "fallback":
			if fallbacks == nil {
				if fallbacks, err = pipeline.NewFallbacks(pipeline.FallbackConfig{Bus: b, Window: window, Logger: log}); err != nil {
					break
				}
				listeners = append(listeners, fallbacks)
			}
			min, max := spec.MinPriority, spec.MaxPriority
			if min == nil && max == nil {
				for _, st := range fallbacks.DefaultStages() {
					if st.ID() == id {
						p = st
					}
				}
			}
			if p == nil {
				p, err = fallbacks.Stage(id, min, max)
			}
		case "intents":
			if stack == nil {
				return nil, nil, fmt.Errorf("scenario: plugins.%s: builtin intents needs the intent stack, and none was given", id)
			}
			p = stack.Plugin(id)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("scenario: plugins.%s: %w", id, err)
		}
		if p == nil {
			return nil, nil, fmt.Errorf("scenario: plugins.%s: builtin %s has no plugin of that id", id, spec.Builtin)
		}
		plugins = append(plugins, p)
	}
	sort.SliceStable(plugins, func(i, j int) bool { return plugins[i].ID() < plugins[j].ID() })
	return plugins, listeners, nil
}

// ErrDeadline is wrapped by Run's error when the deadline passed.
var ErrDeadline = errors.New("scenario deadline passed")

// rulesOf returns the stack's rules, or none without a stack.
func rulesOf(stack IntentStack) pipeline.IntentRules {
	if stack == nil {
		return nil
	}
	return stack.Rules()
}
