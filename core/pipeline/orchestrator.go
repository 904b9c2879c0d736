package pipeline

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/session"
)

// Limits on an entry message (ovos.utterance.handle).
const (
	// MaxUtterances bounds the candidate list of one entry.
	MaxUtterances = 16
	// MaxUtteranceBytes bounds one candidate; longer ones are dropped.
	MaxUtteranceBytes = 2048
	// DefaultMaxInFlight bounds concurrent lifecycles.
	DefaultMaxInFlight = 64
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
	MaxInFlight    int
	// Now is the clock (unix time for activated_at); nil means time.Now.
	Now func() time.Time
}

// Orchestrator runs utterance lifecycles.
type Orchestrator struct {
	cfg     Config
	log     *slog.Logger
	plugins map[string]Plugin
	store   *session.Store
	sem     chan struct{}

	mu      sync.Mutex
	sub     *bus.Subscription
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup // lifecycles and abandoned calls
	started bool
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
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	o := &Orchestrator{cfg: cfg, log: log.With("component", "pipeline"), plugins: map[string]Plugin{},
		store: session.NewStore(), sem: make(chan struct{}, cfg.MaxInFlight)}
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
	}
	return o, nil
}

// Start subscribes to ovos.utterance.handle. Lifecycles run until Close.
func (o *Orchestrator) Start() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.started {
		return errors.New("pipeline: already started")
	}
	o.ctx, o.cancel = context.WithCancel(context.Background())
	sub, err := o.cfg.Bus.Subscribe(TopicHandle, o.onHandle, bus.WithName("pipeline"), bus.WithQueue(bus.DefaultQueueLen, bus.DropNewest))
	if err != nil {
		o.cancel()
		return fmt.Errorf("pipeline: subscribing to %s: %w", TopicHandle, err)
	}
	o.sub, o.started = sub, true
	return nil
}

// Close stops taking utterances, cancels running lifecycles once ctx ends,
// and waits for every goroutine it started.
func (o *Orchestrator) Close(ctx context.Context) error {
	o.mu.Lock()
	if !o.started {
		o.mu.Unlock()
		return nil
	}
	o.started = false
	sub := o.sub
	o.mu.Unlock()
	sub.Close()
	done := make(chan struct{})
	go func() { o.wg.Wait(); close(done) }()
	select {
	case <-done:
		o.cancel()
		return nil
	case <-ctx.Done():
		o.cancel()
		<-done
		return fmt.Errorf("pipeline: lifecycles still running at close: %w", ctx.Err())
	}
}

// DefaultSession returns the stored device-local session.
func (o *Orchestrator) DefaultSession() session.Session { return o.store.Get() }

// onHandle takes an entry off the bus and runs its lifecycle on a goroutine
// of its own (PIPE-29), bounded by MaxInFlight.
func (o *Orchestrator) onHandle(ctx context.Context, m bus.Message) {
	select {
	case o.sem <- struct{}{}:
	case <-ctx.Done():
		return
	}
	o.wg.Add(1)
	go func() {
		defer o.wg.Done()
		defer func() { <-o.sem }()
		o.lifecycle(o.ctx, m)
	}()
}

// lc is one lifecycle's state.
type lc struct {
	o     *Orchestrator
	entry bus.Message // with utterance_id stamped
	uid   string
	sess  session.Session
	log   *slog.Logger
}

func (l *lc) publish(ctx context.Context, m bus.Message) {
	if err := l.o.cfg.Bus.Publish(ctx, m); err != nil {
		l.log.Error("publishing lifecycle message", "topic", m.Type, "err", err)
	}
}

// derive returns a broadcast derived from the entry carrying the current
// session and utterance_id.
func (l *lc) broadcast(topic string, data map[string]any) bus.Message {
	m := l.entry.Forward(topic, data)
	delete(m.Context, bus.KeyDestination)
	m.Context[bus.KeySession] = l.sess.Map()
	return m
}

func (o *Orchestrator) lifecycle(ctx context.Context, entry bus.Message) {
	uid := newUUID()
	entry = entry.WithContext(bus.KeyUtteranceID, uid) // PIPE-02
	l := &lc{o: o, entry: entry, uid: uid, log: o.log.With("utterance_id", uid)}

	defer func() {
		if r := recover(); r != nil {
			// A bug in the orchestrator must still end the lifecycle.
			l.log.Error("lifecycle panicked", "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			l.publish(ctx, l.broadcast(TopicHandled, map[string]any{"error": "internal error"}))
		}
	}()

	sess, warns, err := session.FromMessage(entry)
	if err != nil {
		// §14 item 1: drop the carrier, say why, still end the lifecycle once.
		l.log.Warn("entry dropped", "err", err)
		c := map[string]any{bus.KeyUtteranceID: uid}
		l.publish(ctx, bus.Message{Type: TopicSessionRejected,
			Data: map[string]any{"msg_type": entry.Type, "reason": "malformed_carrier"}, Context: c})
		l.publish(ctx, bus.Message{Type: TopicHandled, Data: map[string]any{"error": err.Error()}, Context: bus.CopyMap(c)})
		return
	}
	for _, w := range warns {
		l.log.Warn("session field ignored", "warning", w)
	}
	if sess.IsDefault() {
		sess = o.store.Merge(sess) // SES2-02
	}
	l.sess = sess

	utterances, problem := readUtterances(entry.Data["utterances"])
	if problem != "" {
		l.log.Warn("entry utterances", "problem", problem)
	}
	if len(utterances) == 0 {
		// PIPE-17 / §13.D: no candidates, no plugin called, unmatched without lang.
		data := map[string]any{}
		l.publish(ctx, l.broadcast(TopicUnmatched, data))
		hd := map[string]any{}
		if problem != "" {
			hd["error"] = problem
		}
		l.publish(ctx, l.broadcast(TopicHandled, hd))
		return
	}

	entryLang, _ := entry.Data["lang"].(string)
	lang := sess.ResolveLang(entryLang, o.cfg.Defaults) // SES-12, once
	l.log = l.log.With("lang", lang)

	match, pid := l.iterate(ctx, utterances, lang)
	if match == nil {
		l.publish(ctx, l.broadcast(TopicUnmatched, map[string]any{"utterances": utterances, "lang": lang}))
		l.publish(ctx, l.broadcast(TopicHandled, map[string]any{}))
		return
	}
	l.dispatch(ctx, match, pid)
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

// effectivePipeline composes preference, availability and policy (PIPE-13).
func (l *lc) effectivePipeline() []Plugin {
	var out []Plugin
	seen := map[string]bool{}
	for _, id := range l.sess.Pipeline(l.o.cfg.Defaults) {
		p, ok := l.o.plugins[id]
		if !ok {
			l.log.Warn("pipeline entry not loaded; skipped", "pipeline_id", id)
			continue
		}
		if l.sess.PipelineBlocked(id) || seen[id] {
			continue
		}
		seen[id] = true
		out = append(out, p)
	}
	return out
}

// iterate asks plugins in order for the first surviving match (PIPE-09).
func (l *lc) iterate(ctx context.Context, utterances []string, lang string) (*Match, string) {
	for _, p := range l.effectivePipeline() {
		m, err := l.callMatch(ctx, p, utterances, lang)
		if err != nil {
			l.log.Warn("plugin declined with an error", "pipeline_id", p.ID(), "err", err)
			continue
		}
		if m == nil {
			continue
		}
		if err := m.validate(); err != nil {
			l.log.Warn("plugin returned a malformed match; declined", "pipeline_id", p.ID(), "err", err)
			continue
		}
		if l.sess.SkillBlocked(m.SkillID) || l.sess.IntentBlocked(m.SkillID, m.IntentName) {
			l.log.Info("match blocked by session denylist", "pipeline_id", p.ID(), "skill_id", m.SkillID, "intent", m.IntentName)
			continue
		}
		return m, p.ID()
	}
	return nil, ""
}

// callMatch bounds one match call; a late answer is discarded (PIPE-11) and
// a panic counts as an error (PIPE-10).
func (l *lc) callMatch(ctx context.Context, p Plugin, utterances []string, lang string) (*Match, error) {
	mctx, cancel := context.WithTimeout(ctx, l.o.cfg.MatchTimeout)
	defer cancel()
	type answer struct {
		m   *Match
		err error
	}
	ch := make(chan answer, 1) // buffered: a late answer never blocks the plugin
	sess := l.sess             // the goroutine may outlive this round; never share l
	cands := append([]string(nil), utterances...)
	l.o.wg.Add(1)
	go func() {
		defer l.o.wg.Done()
		defer func() {
			if r := recover(); r != nil {
				ch <- answer{err: fmt.Errorf("match panicked: %v", r)}
			}
		}()
		m, err := p.Match(mctx, cands, lang, sess)
		ch <- answer{m, err}
	}()
	select {
	case a := <-ch:
		return a.m, a.err
	case <-mctx.Done():
		return nil, fmt.Errorf("match timed out after %s: %w", l.o.cfg.MatchTimeout, mctx.Err())
	}
}

// dispatch commits the match and runs the handler with the trio around it.
func (l *lc) dispatch(ctx context.Context, m *Match, pipelineID string) {
	o := l.o
	if m.UpdatedSession != nil {
		up, _, err := session.Parse(m.UpdatedSession)
		switch {
		case err != nil:
			l.log.Warn("updated_session ignored", "pipeline_id", pipelineID, "err", err)
		case up.ID() != l.sess.ID():
			l.log.Warn("updated_session for another session ignored (PIPE-08)", "pipeline_id", pipelineID, "got", up.ID())
		default:
			l.sess = up
		}
	}
	l.pushActive(m)

	data := map[string]any{"skill_id": m.SkillID, "intent_name": m.IntentName, "lang": m.Lang,
		"utterance": m.Utterance, "slots": m.Slots, "pipeline_id": pipelineID}
	l.publish(ctx, l.broadcast(TopicMatched, data))

	topic, err := bus.DispatchTopic(m.SkillID, m.IntentName)
	if err != nil { // validate() makes this unreachable; fail the lifecycle cleanly anyway
		l.log.Error("building dispatch topic", "err", err)
		l.publish(ctx, l.broadcast(TopicHandled, map[string]any{"error": err.Error()}))
		return
	}
	d := l.entry.Reply(topic, map[string]any{"lang": m.Lang, "utterance": m.Utterance, "slots": m.Slots}) // PIPE-18
	d.Context[bus.KeySkillID] = m.SkillID
	d.Context[bus.KeyPipelineID] = pipelineID
	d.Context[bus.KeySession] = l.sess.Map()
	l.publish(ctx, d)

	trio := map[string]any{"skill_id": m.SkillID, "intent_name": m.IntentName}
	l.publish(ctx, d.Forward(TopicHandlerStart, trio))

	final, herr := l.invoke(ctx, Dispatch{Message: d, SkillID: m.SkillID, IntentName: m.IntentName,
		PipelineID: pipelineID, Lang: m.Lang, Utterance: m.Utterance, Slots: m.Slots, Session: l.sess})
	if !final.IsZero() && final.ID() == l.sess.ID() {
		l.sess = final
	}
	end := d.Forward(TopicHandlerDone, trio)
	if herr != nil {
		ed := bus.CopyMap(trio)
		ed["exception"] = herr.Error()
		end = d.Forward(TopicHandlerError, ed)
	}
	end.Context[bus.KeySession] = l.sess.Map()
	l.publish(ctx, end)
	if l.sess.IsDefault() {
		o.store.Replace(l.sess)
	}
	l.publish(ctx, l.broadcast(TopicHandled, map[string]any{}))
}

// reservedNoPush are intent names whose dispatch does not touch
// active_handlers (PIPE-19).
var reservedNoPush = map[string]bool{"converse": true, "response": true, "stop": true, "common_query": true}

// pushActive puts the matched skill at the head of active_handlers (PIPE-19).
func (l *lc) pushActive(m *Match) {
	if reservedNoPush[m.IntentName] {
		return
	}
	entries := []any{map[string]any{"skill_id": m.SkillID, "activated_at": float64(l.o.cfg.Now().UnixNano()) / 1e9}}
	if old, ok := l.sess.Get(session.FieldActiveHandlers); ok {
		if list, ok := old.([]any); ok {
			for _, e := range list {
				if em, ok := e.(map[string]any); ok && em["skill_id"] == m.SkillID {
					continue
				}
				entries = append(entries, e)
			}
		}
	}
	s, err := l.sess.With(session.FieldActiveHandlers, entries)
	if err != nil {
		l.log.Warn("updating active_handlers", "err", err)
		return
	}
	l.sess = s
}

// invoke runs the handler with a timeout; a panic or timeout becomes an
// error (PIPE-23, PIPE-24). An abandoned handler keeps running until it
// honours its cancelled context; Close waits for it.
func (l *lc) invoke(ctx context.Context, d Dispatch) (session.Session, error) {
	hctx, cancel := context.WithTimeout(ctx, l.o.cfg.HandlerTimeout)
	defer cancel()
	type answer struct {
		s   session.Session
		err error
	}
	ch := make(chan answer, 1)
	log := l.log
	l.o.wg.Add(1)
	go func() {
		defer l.o.wg.Done()
		defer func() {
			if r := recover(); r != nil {
				log.Error("skill handler panicked", "skill_id", d.SkillID, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				ch <- answer{err: fmt.Errorf("handler panicked: %v", r)}
			}
		}()
		s, err := l.o.cfg.Invoker.Invoke(hctx, d)
		ch <- answer{s, err}
	}()
	select {
	case a := <-ch:
		if a.err != nil && hctx.Err() == context.DeadlineExceeded {
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

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
