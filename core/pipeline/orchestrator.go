package pipeline

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/internal/textcheck"
)

// Limits on an entry message (ovos.utterance.handle).
const (
	// MaxUtterances bounds the candidate list of one entry.
	MaxUtterances = 16
	// MaxUtteranceBytes bounds one candidate; longer ones are dropped.
	MaxUtteranceBytes = 2048
	// DefaultMaxInFlight bounds concurrent lifecycles.
	DefaultMaxInFlight = 256
	// DefaultMatchTimeout bounds one plugin's match call (PIPE-11).
	DefaultMatchTimeout = 10 * time.Second
	// DefaultHandlerTimeout bounds one skill handler, speech and motion included.
	DefaultHandlerTimeout = 60 * time.Second
)

// Dispatch is what a skill handler receives: the dispatch message as it went
// on the bus (derive speaks and other output from it, PIPE-28) and its fields
// unpacked.
type Dispatch struct {
	Message    bus.Message
	SkillID    string
	IntentName string
	PipelineID string
	Lang       string
	Utterance  string
	Slots      map[string]string
	Session    session.Session
	// Continues is the match's: the skill's conversation goes on, so the
	// skill must not be launched afresh.
	Continues bool
	// after is the match's After.
	after func(ctx context.Context, d Dispatch) error
}

// Invoker runs skill handlers for dispatched matches. It returns the session
// as the handler left it (SES2-05; the zero Session means unchanged) or the
// handler's error. The orchestrator owns the trio around the call.
type Invoker interface {
	Invoke(ctx context.Context, d Dispatch) (session.Session, error)
}

// Config wires an Orchestrator.
type Config struct {
	Bus      *bus.Bus
	Defaults session.Defaults
	// Plugins are the loaded pipeline stages, each with a unique id.
	Plugins []Plugin
	Invoker Invoker
	Logger  *slog.Logger

	MatchTimeout   time.Duration
	HandlerTimeout time.Duration
	// MaxInFlight bounds concurrent lifecycles; MaxQueued bounds the entries
	// waiting for one of those slots. An entry beyond both ends at once with
	// one ovos.utterance.handled saying the orchestrator is overloaded.
	MaxInFlight int
	MaxQueued   int
	// Now is the clock (unix time for activated_at, expires_at and context
	// decay, and the circuit breaker's cool-down); nil means time.Now.
	Now func() time.Time

	// Transformers are the loaded chains (TRANSFORM-1); nil runs none.
	Transformers *Transformers
	// Listeners take messages from the orchestrator's subscription, in
	// order with utterances (the fallback registry, for one).
	Listeners []Listener
	// BreakerThreshold consecutive failed match calls drop a plugin for
	// BreakerCooldown (PIPE-10).
	BreakerThreshold int
	BreakerCooldown  time.Duration
	// MaxHandlers caps active_handlers and converse_handlers (CONV-03).
	MaxHandlers int
	// ConverseTTL prunes converse_handlers when answering
	// ovos.converse.active.list (CONV-04); 0 means no TTL.
	ConverseTTL time.Duration
	// MaxContextEntries caps intent_context (CTX-05).
	MaxContextEntries int
	// Rules are the registered intents' context rules and required slots,
	// checked on every match (CTX-11, CTX-12, CTX-13, PIPE-15); nil checks
	// none. The intent stack provides them.
	Rules IntentRules
	// QueueLen is the length of the orchestrator's subscription queue; 0
	// means DefaultQueueLen. An entry lost to a full queue still ends with
	// one ovos.utterance.handled saying so.
	QueueLen int
	// Keeper, if set, keeps the default session's intent context across
	// restarts; nil keeps it in memory.
	Keeper ContextKeeper
}

// DefaultQueueLen is the length of the orchestrator's subscription queue.
// Its handler hardly blocks, so the queue only absorbs bursts.
const DefaultQueueLen = 4096

// overflowNotices bounds the entries lost to a full queue that wait for
// their refusal to be published.
const overflowNotices = 256

// DefaultMaxQueued bounds entries waiting for a lifecycle slot.
const DefaultMaxQueued = 1024

// Orchestrator runs utterance lifecycles.
type Orchestrator struct {
	cfg      Config
	log      *slog.Logger
	plugins  map[string]Plugin
	breakers map[string]*breaker
	store    *session.Store

	mu       sync.Mutex
	sub      *bus.Subscription
	ctx      context.Context
	cancel   context.CancelFunc
	started  bool
	running  int
	backlog  []bus.Message
	inflight map[string]*lc // by utterance_id

	// overflow carries entries the subscription dropped to refuseOverflow;
	// never closed, since publishers may still hold the drop hook.
	overflow     chan bus.Message
	overflowStop chan struct{}
	overflowDone chan struct{}

	lifecycles sync.WaitGroup // lifecycle goroutines
	calls      sync.WaitGroup // match and handler calls, which a timeout may abandon

	// keep saves the intent context when a Keeper is set.
	keep *keepWriter
}

// New validates the configuration and builds an orchestrator. Plugins with a
// bad or duplicate id are refused (PIPE-04).
func New(cfg Config) (*Orchestrator, error) {
	if cfg.Bus == nil {
		return nil, errors.New("pipeline: no bus")
	}
	if cfg.Invoker == nil {
		return nil, errors.New("pipeline: no skill invoker")
	}
	if err := cfg.Defaults.Validate(); err != nil {
		return nil, fmt.Errorf("pipeline: %w", err)
	}
	if cfg.MatchTimeout <= 0 {
		cfg.MatchTimeout = DefaultMatchTimeout
	}
	if cfg.HandlerTimeout <= 0 {
		cfg.HandlerTimeout = DefaultHandlerTimeout
	}
	if cfg.MaxInFlight <= 0 {
		cfg.MaxInFlight = DefaultMaxInFlight
	}
	if cfg.MaxQueued <= 0 {
		cfg.MaxQueued = DefaultMaxQueued
	}
	if cfg.QueueLen <= 0 {
		cfg.QueueLen = DefaultQueueLen
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.BreakerThreshold <= 0 {
		cfg.BreakerThreshold = DefaultBreakerThreshold
	}
	if cfg.BreakerCooldown <= 0 {
		cfg.BreakerCooldown = DefaultBreakerCooldown
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	o := &Orchestrator{cfg: cfg, log: log.With("component", "pipeline"), plugins: map[string]Plugin{},
		breakers: map[string]*breaker{},
		store:    session.NewStore(), inflight: map[string]*lc{}}
	for _, p := range cfg.Plugins {
		if p == nil {
			return nil, errors.New("pipeline: nil plugin")
		}
		id := p.ID()
		if err := ValidatePluginID(id); err != nil {
			return nil, fmt.Errorf("pipeline: %w", err)
		}
		if _, dup := o.plugins[id]; dup {
			return nil, fmt.Errorf("pipeline: plugin id %q loaded twice (PIPE-04)", id)
		}
		o.plugins[id] = p
		o.breakers[id] = &breaker{threshold: cfg.BreakerThreshold, cooldown: cfg.BreakerCooldown}
	}
	for i, l := range cfg.Listeners {
		if l == nil {
			return nil, fmt.Errorf("pipeline: listener %d is nil", i)
		}
		for _, t := range l.Topics() {
			if err := bus.ValidatePattern(t); err != nil {
				return nil, fmt.Errorf("pipeline: listener %d: %w", i, err)
			}
		}
	}
	if cfg.Keeper != nil {
		o.keep = newKeepWriter(cfg.Keeper, o.log, o.storedContext)
		o.restoreContext()
	}
	return o, nil
}

// topics the orchestrator's one subscription carries. One queue keeps them
// in publish order, so registrations, session syncs and queries are seen
// exactly where they fall between utterances.
func (o *Orchestrator) topics() []string {
	t := []string{TopicHandle, TopicSessionSync, TopicConverseActiveList, "ovos.transformer.*", "ovos.pipeline.*"}
	for _, l := range o.cfg.Listeners {
		t = append(t, l.Topics()...)
	}
	return t
}

// Start subscribes to ovos.utterance.handle and the other topics the
// orchestrator serves. Lifecycles run until Close.
func (o *Orchestrator) Start() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.started {
		return errors.New("pipeline: already started")
	}
	o.ctx, o.cancel = context.WithCancel(context.Background())
	o.overflow = make(chan bus.Message, overflowNotices)
	o.overflowStop, o.overflowDone = make(chan struct{}), make(chan struct{})
	sub, err := o.cfg.Bus.SubscribeAll(o.topics(), o.receive, bus.WithName("pipeline"),
		bus.WithQueue(o.cfg.QueueLen, bus.DropNewest), bus.WithOnDrop(o.dropped))
	if err != nil {
		o.cancel()
		return fmt.Errorf("pipeline: subscribing: %w", err)
	}
	o.sub, o.started = sub, true
	go o.refuseOverflow(o.overflow, o.overflowStop, o.overflowDone)
	if o.keep != nil {
		o.keep.start()
	}
	return nil
}

// dropped is the subscription's drop hook: an entry lost to a full queue is
// handed to refuseOverflow, since the hook may not publish.
func (o *Orchestrator) dropped(m bus.Message) {
	if m.Type != TopicHandle {
		return
	}
	select {
	case o.overflow <- m:
	default:
		o.log.Error("utterance lost to a full queue without its handled: too many at once", "limit", overflowNotices)
	}
}

// refuseOverflow ends each entry the queue dropped with one
// ovos.utterance.handled saying why, until stop; Close refuses the rest.
func (o *Orchestrator) refuseOverflow(in <-chan bus.Message, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	for {
		select {
		case m := <-in:
			o.refuse(m, fmt.Sprintf("orchestrator overloaded: its queue of %d messages is full", o.cfg.QueueLen))
		case <-stop:
			return
		}
	}
}

// Close stops taking utterances, lets running lifecycles finish until ctx
// ends, then cancels them, and waits for every goroutine it started. A
// plugin or handler that ignores its cancelled context cannot be waited for
// past ctx; Close then says so.
func (o *Orchestrator) Close(ctx context.Context) error {
	o.mu.Lock()
	if !o.started {
		o.mu.Unlock()
		return nil
	}
	o.started = false
	sub := o.sub
	queued := o.backlog
	o.backlog = nil
	o.mu.Unlock()
	sub.Close()
	close(o.overflowStop)
	<-o.overflowDone
	for drained := false; !drained; {
		select {
		case m := <-o.overflow:
			queued = append(queued, m)
		default:
			drained = true
		}
	}
	for _, m := range queued {
		o.refuse(m, "the runtime is shutting down")
	}
	var errs []error
	if !waitCtx(ctx, &o.lifecycles) {
		errs = append(errs, fmt.Errorf("pipeline: lifecycles still running at close: %w", ctx.Err()))
	}
	o.cancel()
	o.lifecycles.Wait() // every blocking point of a lifecycle honours o.ctx
	if o.keep != nil {
		// No lifecycle is left to change the context: the last of it is
		// saved before jibod stops.
		if err := o.keep.flush(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	if !waitCtx(ctx, &o.calls) {
		errs = append(errs, fmt.Errorf("pipeline: a plugin or handler ignores its cancelled context: %w", ctx.Err()))
	}
	return errors.Join(errs...)
}

// waitCtx waits for wg until ctx ends and reports whether wg finished.
func waitCtx(ctx context.Context, wg *sync.WaitGroup) bool {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-ctx.Done():
		select {
		case <-done:
			return true
		default:
			return false
		}
	}
}

// DefaultSession returns the stored device-local session.
func (o *Orchestrator) DefaultSession() session.Session { return o.store.Get() }

// receive serves the orchestrator's subscription. It never blocks:
// lifecycles run on goroutines of their own (PIPE-29).
func (o *Orchestrator) receive(ctx context.Context, m bus.Message) {
	switch {
	case m.Type == TopicHandle:
		o.admit(m)
	case m.Type == TopicSessionSync:
		o.sync(m)
	case m.Type == TopicConverseActiveList:
		o.answerConverseList(ctx, m)
	case strings.HasPrefix(m.Type, "ovos.transformer.") && strings.HasSuffix(m.Type, ".list"):
		o.answerTransformerList(ctx, m)
	case strings.HasPrefix(m.Type, "ovos.pipeline.") && strings.HasSuffix(m.Type, ".intents.list"):
		o.answerIntentsList(ctx, m)
	}
	for _, l := range o.cfg.Listeners {
		for _, p := range l.Topics() {
			if topicMatches(p, m.Type) {
				o.deliver(ctx, l, m)
				break
			}
		}
	}
}

func topicMatches(pattern, topic string) bool {
	if pre, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(topic, pre)
	}
	return pattern == topic
}

func (o *Orchestrator) deliver(ctx context.Context, l Listener, m bus.Message) {
	defer func() {
		if r := recover(); r != nil {
			o.log.Error("listener panicked; message skipped", "topic", m.Type, "panic", fmt.Sprint(r))
		}
	}()
	l.Receive(ctx, m)
}

// admit starts a lifecycle for an entry, or queues it while MaxInFlight
// lifecycles run, or refuses it when the queue is full too.
func (o *Orchestrator) admit(m bus.Message) {
	o.mu.Lock()
	switch {
	case !o.started:
		o.mu.Unlock()
		return
	case o.running < o.cfg.MaxInFlight:
		o.running++
		o.lifecycles.Add(1)
		o.mu.Unlock()
		go o.runOne(m)
	case len(o.backlog) < o.cfg.MaxQueued:
		o.backlog = append(o.backlog, m)
		o.mu.Unlock()
	default:
		o.mu.Unlock()
		o.refuse(m, fmt.Sprintf("orchestrator overloaded: %d lifecycles running and %d waiting", o.cfg.MaxInFlight, o.cfg.MaxQueued))
	}
}

// runOne runs a lifecycle on this goroutine. When a plugin overruns its
// match timeout, a watchdog goroutine carries the lifecycle on and finishes
// it instead (see callMatch).
func (o *Orchestrator) runOne(m bus.Message) {
	if l, done := o.lifecycle(o.ctx, m); done {
		o.lifecycleDone(l)
	}
}

// lifecycleDone releases a finished lifecycle's slot, starting a queued
// entry in it if there is one.
func (o *Orchestrator) lifecycleDone(l *lc) {
	if l != nil {
		o.untrack(l)
	}
	o.mu.Lock()
	if len(o.backlog) == 0 || !o.started {
		o.running--
		o.mu.Unlock()
		o.lifecycles.Done()
		return
	}
	m := o.backlog[0]
	o.backlog = o.backlog[1:]
	o.mu.Unlock()
	go func() { // the slot passes on: running and lifecycles stay counted
		if l, done := o.lifecycle(o.ctx, m); done {
			o.lifecycleDone(l)
		}
	}()
}

// refuse ends an entry that never ran: one handled saying why (PIPE-27).
func (o *Orchestrator) refuse(m bus.Message, why string) {
	o.log.Warn("utterance refused", "reason", why)
	h := m.Forward(TopicHandled, map[string]any{"error": why})
	delete(h.Context, bus.KeyDestination)
	h.Context[bus.KeyUtteranceID] = newUUID()
	if _, _, err := session.FromMessage(m); err != nil {
		delete(h.Context, bus.KeySession)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := o.cfg.Bus.Publish(ctx, h); err != nil {
		o.log.Error("publishing refusal", "err", err)
	}
}

// lc is one lifecycle's state.
type lc struct {
	o    *Orchestrator
	uid  string
	ctx  map[string]any // the lifecycle context without the session
	sess session.Session
	log  *slog.Logger

	// base is what this lifecycle read from the default store, advanced by
	// its handler's session syncs; the commit applies the difference.
	mu         sync.Mutex
	base       session.Session
	fromStore  bool
	dispatched bool

	entry bus.Message // the match round's entry, built on first need

	// The match round, which a watchdog may take over (callMatch).
	plugins    []Plugin
	utterances []string
	lang       string
	before     session.Session // the context snapshot plugins saw (CTX-06)
	iChain     composed
	ended      bool
	end        func(map[string]any)
}

func (l *lc) publish(ctx context.Context, m bus.Message) {
	if err := l.o.cfg.Bus.Publish(ctx, m); err != nil {
		l.log.Error("publishing lifecycle message", "topic", m.Type, "err", err)
	}
}

// context returns the lifecycle context with the current session.
func (l *lc) context() map[string]any {
	c := bus.CopyMap(l.ctx)
	c[bus.KeySession] = l.sess.Map()
	return c
}

// view is the lifecycle's entry as it stands, without a deep copy: its
// context shares the lifecycle's values, which are never changed in place.
// For messages that are only read or handed to Publish (which copies), and
// to derive from.
func (l *lc) view(topic string, data map[string]any) bus.Message {
	c := make(map[string]any, len(l.ctx)+1)
	for k, v := range l.ctx {
		c[k] = v
	}
	c[bus.KeySession] = l.sess.View()
	return bus.Message{Type: topic, Data: data, Context: c}
}

// broadcast returns a lifecycle message without a destination, for
// Publish only: its context shares the lifecycle's values (Publish copies).
func (l *lc) broadcast(topic string, data map[string]any) bus.Message {
	if data == nil {
		data = map[string]any{}
	}
	c := make(map[string]any, len(l.ctx)+1)
	for k, v := range l.ctx {
		if k != bus.KeyDestination {
			c[k] = v
		}
	}
	c[bus.KeySession] = l.sess.View()
	return bus.Message{Type: topic, Data: data, Context: c}
}

// derive is Forward without the deep copy, for messages handed straight to
// Publish: the new context shares m's values.
func derive(m bus.Message, topic string, data map[string]any) bus.Message {
	c := make(map[string]any, len(m.Context))
	for k, v := range m.Context {
		c[k] = v
	}
	return bus.Message{Type: topic, Data: data, Context: c}
}

// setContext takes a transformer chain's output context: the session is
// split off and parsed (the chains refuse a malformed one).
func (l *lc) setContext(c map[string]any) {
	s, warns, err := session.Parse(c[bus.KeySession])
	if err != nil {
		l.log.Warn("transformer context kept without its malformed session", "err", err)
		s = l.sess
	}
	for _, w := range warns {
		l.log.Warn("session field ignored", "warning", w)
	}
	l.ctx = bus.CopyMap(c)
	delete(l.ctx, bus.KeySession)
	l.ctx[bus.KeyUtteranceID] = l.uid // PIPE-02: never overwritten
	l.sess = s
}

func (l *lc) now() time.Time { return l.o.cfg.Now() }

// commit stores the default session's changes since the last commit
// (SES2-01); the lifecycle commits once the match round is done and again
// before handled goes out, so an utterance sent on seeing handled finds
// them.
func (l *lc) commit() {
	if !l.fromStore || !l.sess.IsDefault() {
		return
	}
	l.mu.Lock()
	l.o.store.Commit(l.base, l.sess)
	l.base = l.sess
	l.mu.Unlock()
	l.o.keepContext()
}

func (o *Orchestrator) track(l *lc) {
	o.mu.Lock()
	o.inflight[l.uid] = l
	o.mu.Unlock()
}

func (o *Orchestrator) untrack(l *lc) {
	o.mu.Lock()
	delete(o.inflight, l.uid)
	o.mu.Unlock()
}

// guard ends the lifecycle if the orchestrator itself panics: a bug must
// still end it with one handled. Deferred by every goroutine that runs it.
func (l *lc) guard(ctx context.Context) {
	if r := recover(); r != nil && !l.ended {
		l.log.Error("lifecycle panicked", "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
		l.ended = true
		l.publish(ctx, l.broadcast(TopicHandled, map[string]any{"error": "internal error"}))
	}
}

// lifecycle runs one entry from ovos.utterance.handle to exactly one
// ovos.utterance.handled, in the order of PIPE-16. It reports false when a
// watchdog took the lifecycle over, which then finishes it.
func (o *Orchestrator) lifecycle(ctx context.Context, entry bus.Message) (l *lc, done bool) {
	uid := newUUID()
	l = &lc{o: o, uid: uid, log: o.log.With("utterance_id", uid), ctx: bus.CopyMap(entry.Context)}
	delete(l.ctx, bus.KeySession)
	// TRF-12: no third party can cancel, so entry-borne cancel keys go.
	delete(l.ctx, KeyCanceled)
	delete(l.ctx, KeyCancelReason)
	delete(l.ctx, KeyCancelBy)
	l.ctx[bus.KeyUtteranceID] = uid // PIPE-02
	o.track(l)

	done = true
	defer l.guard(ctx)
	l.end = func(data map[string]any) {
		l.commit()
		l.ended = true
		l.publish(ctx, l.broadcast(TopicHandled, data))
	}
	end := l.end

	sess, warns, err := session.FromMessage(entry)
	if err != nil {
		// §14 item 1: drop the carrier, say why, still end the lifecycle once,
		// with a context that holds no session.
		l.log.Warn("entry dropped", "err", err)
		c := bus.CopyMap(l.ctx)
		delete(c, bus.KeyDestination)
		l.publish(ctx, bus.Message{Type: TopicSessionRejected,
			Data: map[string]any{"msg_type": entry.Type, "reason": "malformed_carrier"}, Context: c})
		l.ended = true
		l.publish(ctx, bus.Message{Type: TopicHandled, Data: map[string]any{"error": err.Error()}, Context: bus.CopyMap(c)})
		return l, true
	}
	for _, w := range warns {
		l.log.Warn("session field ignored", "warning", w)
	}
	if sess.IsDefault() {
		sess = o.store.Merge(sess) // SES2-02
		l.base, l.fromStore = sess, true
	}
	l.sess = sess

	utterances, problem := readUtterances(entry.Data["utterances"])
	if problem != "" {
		l.log.Warn("entry utterances", "problem", problem)
	}
	if len(utterances) == 0 {
		// PIPE-17 / §13.D: no candidates, no plugin called, unmatched without lang.
		l.publish(ctx, l.broadcast(TopicUnmatched, map[string]any{}))
		hd := map[string]any{}
		if problem != "" {
			hd["error"] = problem
		}
		end(hd)
		return l, true
	}

	entryLang, _ := entry.Data["lang"].(string)
	lang := sess.ResolveLang(entryLang, o.cfg.Defaults) // SES-12, once
	l.log = l.log.With("lang", lang)

	// TRF-09: every chain is composed once, from the session at the start.
	tr := o.cfg.Transformers
	uChain := tr.compose(ChainUtterance, l.sess, l.log)
	mChain := tr.compose(ChainMetadata, l.sess, l.log)
	iChain := tr.compose(ChainIntent, l.sess, l.log)

	if len(uChain.ids) > 0 {
		out, c := tr.runUtterances(ctx, uChain, Utterances{Utterances: utterances, Lang: entryLang, Context: l.context()}, l.log)
		l.setContext(out.Context)
		if c != nil {
			l.cancelled(ctx, c, end)
			return l, true
		}
		utterances = out.Utterances
		if len(utterances) == 0 {
			// PIPE-17: no round ran, so no context decay (§14 item 6).
			l.publish(ctx, l.broadcast(TopicUnmatched, map[string]any{}))
			end(map[string]any{})
			return l, true
		}
	}
	if len(mChain.ids) > 0 {
		out, c := tr.runMetadata(ctx, mChain, l.context(), l.log)
		l.setContext(out)
		if c != nil {
			l.cancelled(ctx, c, end)
			return l, true
		}
	}

	plugins := l.effectivePipeline() // PIPE-13, after the metadata chain
	now := nowSeconds(l.now())
	var notes []string
	l.sess, notes = l.sess.PruneContext(now, o.cfg.MaxContextEntries) // CTX-06, before the round
	for _, n := range notes {
		l.log.Warn("intent context", "note", n)
	}
	l.before = l.sess
	l.plugins, l.utterances, l.lang, l.iChain = plugins, utterances, lang, iChain
	return l, l.resume(ctx, 0)
}

// resume runs the match round from plugin i and everything after it. It
// reports false when a watchdog took the lifecycle over on the way.
func (l *lc) resume(ctx context.Context, i int) bool {
	match, pid, mine := l.iterate(ctx, i)
	if !mine {
		return false
	}
	utterances, lang, end, before := l.utterances, l.lang, l.end, l.before
	if match == nil {
		l.sess = l.sess.DecrementContext(before) // CTX-06, matched or not
		l.publish(ctx, l.broadcast(TopicUnmatched, map[string]any{"utterances": utterances, "lang": lang}))
		end(map[string]any{})
		return true
	}
	l.commitMatch(match, pid)
	l.sess = l.sess.DecrementContext(before) // entries the match wrote are exempt
	l.push(match, pid)
	// The default session is shared by every lifecycle on this device: what
	// the round committed (active_handlers, converse_handlers, context) is
	// visible at once, so a "stop" said while this handler runs finds it.
	l.commit()

	if len(l.iChain.ids) > 0 {
		out, c := l.o.cfg.Transformers.runIntent(ctx, l.iChain, Intent{Match: *match, Context: l.context()}, l.log)
		l.setContext(out.Context)
		if c != nil {
			l.cancelled(ctx, c, end) // §13.E: matched and dispatch suppressed
			return true
		}
		m := out.Match
		match = &m
	}
	l.dispatch(ctx, match, pid, end)
	return true
}

// cancelled ends a lifecycle a transformer cancelled (TRF-12, §13.E): the
// context already holds canceled, cancel_reason and cancel_by.
func (l *lc) cancelled(ctx context.Context, c *Cancel, end func(map[string]any)) {
	l.log.Info("utterance cancelled", "by", c.By, "reason", c.Reason)
	l.publish(ctx, l.broadcast(TopicCancelled, map[string]any{}))
	end(map[string]any{})
}

// readUtterances validates data.utterances, dropping bad candidates.
func readUtterances(v any) ([]string, string) {
	list, ok := v.([]any)
	if !ok {
		if v == nil {
			return nil, "data.utterances missing"
		}
		return nil, fmt.Sprintf("data.utterances is %T, want array of strings", v)
	}
	var out []string
	var problems []string
	for i, e := range list {
		if len(out) == MaxUtterances {
			problems = append(problems, fmt.Sprintf("more than %d utterances; the rest ignored", MaxUtterances))
			break
		}
		s, ok := e.(string)
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("data.utterances[%d] is not a string", i))
		case len(s) > MaxUtteranceBytes:
			problems = append(problems, fmt.Sprintf("data.utterances[%d] is %d bytes, limit %d", i, len(s), MaxUtteranceBytes))
		case !utf8.ValidString(s):
			problems = append(problems, fmt.Sprintf("data.utterances[%d] is not valid UTF-8", i))
		case textcheck.Line(s) != nil:
			problems = append(problems, fmt.Sprintf("data.utterances[%d]: %v", i, textcheck.Line(s)))
		case s == "":
			problems = append(problems, fmt.Sprintf("data.utterances[%d] is empty", i))
		default:
			out = append(out, s)
		}
	}
	msg := ""
	if len(problems) > 0 {
		msg = problems[0]
		if len(problems) > 1 {
			msg = fmt.Sprintf("%s (and %d more)", msg, len(problems)-1)
		}
	}
	return out, msg
}

// effectivePipeline composes preference, availability (loaded, and
// Available when the plugin says) and policy (PIPE-13).
func (l *lc) effectivePipeline() []Plugin {
	var out []Plugin
	seen := map[string]bool{}
	blocked, _ := l.sess.Strings(session.FieldBlacklistedPipelines)
	for _, id := range l.sess.Pipeline(l.o.cfg.Defaults) {
		p, ok := l.o.plugins[id]
		if !ok {
			l.log.Warn("pipeline entry not loaded; skipped", "pipeline_id", id)
			continue
		}
		if seen[id] || slices.Contains(blocked, id) {
			continue
		}
		seen[id] = true
		if unavailable(p) { // PIPE-13 step 2: loaded but its backend is away
			l.log.Debug("pipeline entry unavailable; skipped for this utterance", "pipeline_id", id)
			continue
		}
		out = append(out, p)
	}
	return out
}

// iterate asks plugins in order, from plugin i, for the first surviving
// match (PIPE-09): well formed (PIPE-07), not denylisted (PIPE-14), allowed
// by the intent's context rules (CTX-11, CTX-12), with context-supplied
// slots filled (CTX-13) and every required slot bound (PIPE-15). mine is
// false when a watchdog took the lifecycle over during a call.
func (l *lc) iterate(ctx context.Context, i int) (m *Match, pipelineID string, mine bool) {
	o := l.o
	for j := i; j < len(l.plugins); j++ {
		p := l.plugins[j]
		id := p.ID()
		if !o.breakers[id].allow(l.now()) {
			l.log.Debug("plugin skipped: dropped after repeated failures (PIPE-10)", "pipeline_id", id)
			continue
		}
		m, mine, err := l.callMatch(ctx, j)
		if !mine {
			return nil, "", false
		}
		l.noteCall(ctx, id, err)
		if err != nil || m == nil {
			continue
		}
		if c := l.survives(ctx, id, m); c != nil {
			return c, id, true
		}
	}
	return nil, "", true
}

// noteCall feeds the circuit breaker (PIPE-10) and logs a failed call.
func (l *lc) noteCall(ctx context.Context, id string, err error) {
	if ctx.Err() == nil && l.o.breakers[id].record(l.now(), err != nil) {
		l.log.Warn("plugin dropped after consecutive failures (PIPE-10)", "pipeline_id", id,
			"failures", l.o.cfg.BreakerThreshold, "retry_after", l.o.cfg.BreakerCooldown)
	}
	if err != nil {
		l.log.Warn("plugin declined with an error", "pipeline_id", id, "err", err)
	}
}

// survives applies the orchestrator's checks to a plugin's Match and
// returns the Match to commit (slots filled from context), or nil for a
// silent decline.
func (l *lc) survives(ctx context.Context, id string, m *Match) *Match {
	if err := m.validate(); err != nil {
		l.log.Warn("plugin returned a malformed match; declined", "pipeline_id", id, "err", err)
		return nil
	}
	field, value := "", ""
	switch {
	case l.sess.SkillBlocked(m.SkillID):
		field, value = session.FieldBlacklistedSkills, m.SkillID
	case l.sess.IntentBlocked(m.SkillID, m.IntentName):
		field, value = session.FieldBlacklistedIntents, m.SkillID+":"+m.IntentName
	}
	if field != "" {
		l.log.Info("match blocked by session denylist", "pipeline_id", id, "skill_id", m.SkillID, "intent", m.IntentName)
		// PIPE-32: diagnostic only; nobody is expected to act on it.
		l.publish(ctx, l.broadcast(TopicPolicyDenied, map[string]any{"field": field, "value": value, "pipeline_id": id}))
		return nil
	}
	now := nowSeconds(l.now())
	v := check(l.o.cfg.Rules, l.sess, m, now)
	if !v.allowed {
		l.log.Info("match declined by its context rules (CTX-11/12)", "pipeline_id", id, "skill_id", m.SkillID, "intent", m.IntentName)
		return nil
	}
	c := *m
	c.Slots = cloneSlots(m.Slots)
	for _, k := range v.slots {
		if _, bound := c.Slots[k]; bound {
			continue // a value from the utterance wins
		}
		if val, ok := l.sess.ContextSlot(c.SkillID, k, now); ok {
			c.Slots[k] = val
		}
	}
	for _, q := range v.required {
		if _, ok := c.Slots[q]; !ok {
			l.log.Info("match declined: required slot unbound (PIPE-15)", "pipeline_id", id, "skill_id", c.SkillID, "intent", c.IntentName, "slot", q)
			return nil
		}
	}
	return &c
}

// callMatch runs plugin j's match on the lifecycle's own goroutine, bounded
// by the match timeout (PIPE-11). Should the plugin overrun it (or the
// runtime close), a watchdog goroutine takes the lifecycle over at once and
// carries on with the next plugin, so a plugin that hangs, even one that
// ignores its context, cannot stall the utterance; the late answer is
// dropped forever, and this goroutine, once the plugin lets it go, reports
// mine == false and leaves. A panic counts as an error (PIPE-10).
func (l *lc) callMatch(ctx context.Context, j int) (m *Match, mine bool, err error) {
	p := l.plugins[j]
	// Everything the plugin reads is prepared before the watchdog is armed,
	// so the watchdog's goroutine sees it settled. The plugin gets its own
	// copy of the session: a change it makes in place (non-conformant) is
	// discarded with it, and only a claiming Match's updated_session is
	// committed (PIPE-08), however long the plugin keeps running.
	sess := l.sess.Clone()
	round := Round{Utterances: append([]string(nil), l.utterances...), Lang: l.lang, Session: sess}
	if _, ok := p.(RoundPlugin); ok {
		e := l.roundEntry(l.utterances, l.lang)
		c := make(map[string]any, len(e.Context))
		for k, v := range e.Context {
			if k != bus.KeySession {
				c[k] = v
			}
		}
		c = bus.CopyMap(c)
		c[bus.KeySession] = sess.View()
		round.Entry = bus.Message{Type: e.Type, Data: bus.CopyMap(e.Data), Context: c}
	}
	mctx, cancel := context.WithTimeout(ctx, l.o.cfg.MatchTimeout)
	defer cancel()
	const (
		running int32 = iota
		returned
		takenOver
	)
	var state atomic.Int32
	// lost is closed when the watchdog fired but the plugin had already
	// answered: its Add/Done pair must happen before this lifecycle ends,
	// or Close's Wait on calls could race an Add from zero.
	lost := make(chan struct{})
	stop := context.AfterFunc(mctx, func() {
		l.o.calls.Add(1) // for the goroutine still inside the plugin; before the CAS, so its Done never comes first
		if !state.CompareAndSwap(running, takenOver) {
			l.o.calls.Done()
			close(lost)
			return
		}
		finished := true // also when resume panics: guard has ended it
		func() {
			defer l.guard(ctx)
			l.noteCall(ctx, p.ID(), fmt.Errorf("match gave no answer within %s: %w", l.o.cfg.MatchTimeout, mctx.Err()))
			finished = l.resume(ctx, j+1)
		}()
		if finished {
			l.o.lifecycleDone(l)
		}
	})
	m, err = safeMatch(mctx, p, round)
	if !state.CompareAndSwap(running, returned) {
		l.o.calls.Done() // too late: the answer is ignored forever
		return nil, false, nil
	}
	if !stop() {
		<-lost // the watchdog started anyway; it backs off at once
	}
	return m, true, err
}

// safeMatch calls a plugin, turning a panic into an error.
func safeMatch(ctx context.Context, p Plugin, r Round) (m *Match, err error) {
	defer func() {
		if rec := recover(); rec != nil {
			m, err = nil, fmt.Errorf("match panicked: %v", rec)
		}
	}()
	if rp, ok := p.(RoundPlugin); ok {
		return rp.MatchRound(ctx, r)
	}
	return p.Match(ctx, r.Utterances, r.Lang, r.Session)
}

// roundEntry is the entry message RoundPlugins derive their polls from,
// built once per match round; callMatch hands each plugin a copy.
func (l *lc) roundEntry(utterances []string, lang string) bus.Message {
	if l.entry.Type == "" {
		l.entry = l.view(TopicHandle, map[string]any{"utterances": append([]string(nil), utterances...), "lang": lang})
	}
	return l.entry
}

// policyFields are the denylists a plugin's updated_session cannot change:
// the orchestrator re-applies the session's own (PIPE-08).
var policyFields = []string{session.FieldBlacklistedPipelines, session.FieldBlacklistedSkills, session.FieldBlacklistedIntents}

// commitMatch commits the winning match's updated_session (PIPE-08,
// SES2-02): a complete snapshot for the same session_id, with the denylists
// kept as they were.
func (l *lc) commitMatch(m *Match, pipelineID string) {
	if m.UpdatedSession == nil {
		return
	}
	norm, err := bus.NormalizeMap(m.UpdatedSession)
	if err != nil {
		l.log.Warn("updated_session ignored", "pipeline_id", pipelineID, "err", err)
		return
	}
	up, warns, _ := session.Parse(norm)
	for _, w := range warns {
		l.log.Warn("updated_session field ignored", "pipeline_id", pipelineID, "warning", w)
	}
	if up.ID() != l.sess.ID() {
		l.log.Warn("updated_session for another session ignored (PIPE-08)", "pipeline_id", pipelineID, "got", up.ID())
		return
	}
	for _, f := range policyFields {
		if v, ok := l.sess.Get(f); ok {
			up, _ = up.With(f, v)
		} else {
			up = up.Without(f)
		}
	}
	l.sess = up
}

// push records the dispatch in active_handlers (PIPE-19) and
// converse_handlers (CONV-02). A plugin matching for itself (skill_id = its
// own pipeline_id, as global_stop) is kept out of converse_handlers: it never
// answers a converse poll.
func (l *lc) push(m *Match, pipelineID string) {
	now := nowSeconds(l.now())
	if push, reserved := reservedIntents[m.IntentName]; push || !reserved {
		l.sess = l.sess.WithPushed(session.FieldActiveHandlers, m.SkillID, now, l.o.cfg.MaxHandlers, "")
	}
	if m.SkillID == pipelineID {
		return
	}
	holder := ""
	if rm, ok := l.sess.ResponseMode(); ok {
		holder = rm.SkillID
	}
	l.sess = l.sess.WithPushed(session.FieldConverseHandlers, m.SkillID, now, l.o.cfg.MaxHandlers, holder)
}

// dispatch announces the match and runs the handler with the trio around it.
func (l *lc) dispatch(ctx context.Context, m *Match, pipelineID string, end func(map[string]any)) {
	slots := cloneSlots(m.Slots)
	data := map[string]any{"skill_id": m.SkillID, "intent_name": m.IntentName, "lang": m.Lang,
		"utterance": m.Utterance, "slots": slots, "pipeline_id": pipelineID}
	mm := l.broadcast(TopicMatched, data) // PIPE-25
	mm.Context[KeyMatchConfidence] = m.Confidence
	if m.Why != "" {
		mm.Context[KeyMatchWhy] = m.Why
	}
	l.publish(ctx, mm)

	topic, err := bus.DispatchTopic(m.SkillID, m.IntentName)
	if err != nil { // validate() makes this unreachable; fail the lifecycle cleanly anyway
		l.log.Error("building dispatch topic", "err", err)
		end(map[string]any{"error": err.Error()})
		return
	}
	// PIPE-18: reply-derived from the entry; the session is added after the
	// derivation, which would only copy it.
	d := bus.Message{Type: TopicHandle, Context: l.ctx}.Reply(topic, map[string]any{"lang": m.Lang, "utterance": m.Utterance, "slots": cloneSlots(slots)})
	d.Context[bus.KeySession] = l.sess.View()
	d.Context[bus.KeySkillID] = m.SkillID
	d.Context[bus.KeyPipelineID] = pipelineID
	l.publish(ctx, d)

	trio := map[string]any{"skill_id": m.SkillID, "intent_name": m.IntentName}
	l.publish(ctx, derive(d, TopicHandlerStart, trio))
	// The handler gets a copy of its own: one abandoned at its timeout may
	// still be reading it while the trio goes on.
	hd := bus.Message{Type: d.Type, Data: bus.CopyMap(d.Data), Context: bus.CopyMap(d.Context)}
	l.mu.Lock()
	l.dispatched = true
	l.mu.Unlock()

	final, herr := l.invoke(ctx, Dispatch{Message: hd, SkillID: m.SkillID, IntentName: m.IntentName,
		PipelineID: pipelineID, Lang: m.Lang, Utterance: m.Utterance, Slots: cloneSlots(slots), Session: l.sess,
		Continues: m.Continues, after: m.After})
	switch {
	case final.IsZero():
	case final.ID() == l.sess.ID():
		l.sess = final // SES2-05: the session at handler end is committed
	default:
		l.log.Warn("handler returned a session for another session; ignored", "skill_id", m.SkillID, "got", final.ID())
	}
	done := derive(d, TopicHandlerDone, trio)
	if herr != nil {
		ed := bus.CopyMap(trio)
		ed["exception"] = herr.Error()
		done = derive(d, TopicHandlerError, ed)
	}
	done.Context[bus.KeySession] = l.sess.View()
	l.publish(ctx, done)
	end(map[string]any{})
}

// invoke runs the handler with a timeout; a panic or timeout becomes an
// error (PIPE-23, PIPE-24). A plugin's own intents go to the plugin. An
// abandoned handler keeps running until it honours its cancelled context;
// Close waits for it.
func (l *lc) invoke(ctx context.Context, d Dispatch) (session.Session, error) {
	hctx, cancel := context.WithTimeout(ctx, l.o.cfg.HandlerTimeout)
	defer cancel()
	type answer struct {
		s   session.Session
		err error
	}
	ch := make(chan answer, 1)
	log := l.log
	var run func(context.Context, Dispatch) (session.Session, error) = l.o.cfg.Invoker.Invoke
	if h, ok := l.o.plugins[d.SkillID].(IntentHandler); ok && d.SkillID == d.PipelineID {
		run = h.HandleIntent
	}
	l.o.calls.Add(1)
	go func() {
		defer l.o.calls.Done()
		defer func() {
			if r := recover(); r != nil {
				log.Error("skill handler panicked", "skill_id", d.SkillID, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				ch <- answer{err: fmt.Errorf("handler panicked: %v", r)}
			}
		}()
		s, err := run(hctx, d)
		if err == nil && d.after != nil {
			if aerr := d.after(hctx, d); aerr != nil {
				log.Warn("after the handler", "skill_id", d.SkillID, "intent_name", d.IntentName, "err", aerr)
			}
		}
		ch <- answer{s, err}
	}()
	select {
	case a := <-ch:
		if a.err != nil && hctx.Err() == context.DeadlineExceeded && ctx.Err() == nil {
			return a.s, fmt.Errorf("handler timed out after %s", l.o.cfg.HandlerTimeout)
		}
		return a.s, a.err
	case <-hctx.Done():
		if ctx.Err() != nil {
			return session.Session{}, fmt.Errorf("handler cancelled: runtime shutting down")
		}
		return session.Session{}, fmt.Errorf("handler timed out after %s", l.o.cfg.HandlerTimeout)
	}
}

// sync takes ovos.session.sync (SES2-05, accepted as input): a handler's
// session mid-lifecycle, merged field by field into the default store.
// Named sessions belong to their clients and are not stored. Only a sync
// from a running handler (its utterance_id names a dispatched lifecycle)
// may write intent_context (CTX-07).
func (o *Orchestrator) sync(m bus.Message) {
	raw, ok := m.Data["session"].(map[string]any)
	if !ok {
		o.log.Warn("ovos.session.sync without a data.session object ignored")
		return
	}
	s, _, _ := session.Parse(raw)
	if !s.IsDefault() {
		o.log.Debug("ovos.session.sync for a named session ignored: clients own named sessions", "session_id", s.ID())
		return
	}
	o.mu.Lock()
	l := o.inflight[m.ContextString(bus.KeyUtteranceID)]
	o.mu.Unlock()
	fromHandler := false
	if l != nil {
		l.mu.Lock()
		fromHandler = l.dispatched
		l.mu.Unlock()
	}
	if !fromHandler {
		s = s.Without(session.FieldIntentContext)
	}
	// The store first, then the lifecycle's base: a commit in between
	// then writes the synced fields itself, rather than find them in its
	// base and leave the store without them until this merge (SES2-05).
	o.store.Merge(s)
	o.keepContext()
	if fromHandler {
		l.mu.Lock()
		if l.fromStore {
			l.base = session.MergeFields(l.base, s)
		}
		l.mu.Unlock()
	}
}

// answer publishes a reply to a query, bounded in time.
func (o *Orchestrator) answer(ctx context.Context, m bus.Message, data map[string]any) {
	r, err := m.Response(data)
	if err != nil {
		o.log.Warn("cannot answer", "topic", m.Type, "err", err)
		return
	}
	if err := o.cfg.Bus.Publish(ctx, r); err != nil {
		o.log.Warn("publishing answer", "topic", r.Type, "err", err)
	}
}

// answerTransformerList answers ovos.transformer.<type>.list (TRF-10).
func (o *Orchestrator) answerTransformerList(ctx context.Context, m bus.Message) {
	typ := ChainType(strings.TrimSuffix(strings.TrimPrefix(m.Type, "ovos.transformer."), ".list"))
	if !knownChain(typ) {
		return
	}
	loaded, prio := o.cfg.Transformers.List(typ)
	p := map[string]any{}
	for k, v := range prio {
		p[k] = v
	}
	o.answer(ctx, m, map[string]any{"loaded": loaded, "priorities": p})
}

// answerIntentsList answers ovos.pipeline.<id>.intents.list for a loaded
// plugin, even with an empty list (PIPE-31); filters lang and skill_id apply
// when they are strings, anything else is ignored.
func (o *Orchestrator) answerIntentsList(ctx context.Context, m bus.Message) {
	id := strings.TrimSuffix(strings.TrimPrefix(m.Type, "ovos.pipeline."), ".intents.list")
	p, ok := o.plugins[id]
	if !ok {
		return // silence = not loaded
	}
	lang, _ := m.Data["lang"].(string)
	skill, _ := m.Data["skill_id"].(string)
	intents := []any{}
	if lister, ok := p.(IntentLister); ok {
		for _, r := range lister.Intents(sessionIDOf(m)) {
			if skill != "" && r.SkillID != skill {
				continue
			}
			if lang != "" && r.Lang != "" && !strings.EqualFold(r.Lang, lang) {
				continue
			}
			e := map[string]any{"skill_id": r.SkillID, "intent_name": r.IntentName}
			if r.Lang != "" {
				e["lang"] = r.Lang
			}
			intents = append(intents, e)
		}
	}
	o.answer(ctx, m, map[string]any{"pipeline_id": id, "intents": intents})
}

// answerConverseList answers ovos.converse.active.list (CONV-09) with the
// TTL-pruned converse_handlers of the context's session (for "default",
// the stored one with the message's fields over it).
func (o *Orchestrator) answerConverseList(ctx context.Context, m bus.Message) {
	s, _, err := session.FromMessage(m)
	if err != nil {
		o.log.Warn("ovos.converse.active.list dropped", "err", err)
		return
	}
	if s.IsDefault() {
		s = session.MergeFields(o.store.Get(), s)
	}
	list := pruneConverse(s, nowSeconds(o.cfg.Now()), o.cfg.ConverseTTL)
	out := make([]any, len(list))
	for i, e := range list {
		out[i] = map[string]any{"skill_id": e.SkillID, "activated_at": e.ActivatedAt}
	}
	o.answer(ctx, m, map[string]any{"converse_handlers": out})
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
