// Package skill hosts the robot's skills behind one protocol, the Jibo skill
// protocol (spec/jibo.md §2): the pipeline dispatches "<skill_id>:<intent>"
// to the Host, which sends the skill a LISTEN_LAUNCH, runs the JCP of each
// SKILL_ACTION on the body, follows a SKILL_REDIRECT and reports an ERROR as
// a handler error.
package skill

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/core/skill/invoke"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/jcp"
)

// Manifest is a skill's manifest: who it is and what it may make the
// body do (core/skill/registry).
type Manifest = registry.Manifest

// Skill is a skill living in this process. Handle answers one request and
// must honour ctx.
type Skill interface {
	// Manifest declares the skill; its bus id ("jibo/timer" → "jibo.timer")
	// names it in dispatch topics and intent registrations.
	Manifest() *Manifest
	// Locale is the skill's locale tree (<lang>/… with .intent, .voc,
	// .entity, .dialog files), or nil when it registers no intents.
	Locale() fs.FS
	Handle(ctx context.Context, req *protocol.Request) (*protocol.Response, error)
}

// Body runs JCP actions, reporting each behaviour event of the run.
type Body interface {
	RunObserved(ctx context.Context, a *jcp.Action, observe func(jcp.Event)) (*jcp.Result, error)
}

// Robot is what the robot says about itself in every request's general data.
type Robot struct {
	AccountID string
	RobotID   string
	Release   string
}

// MaxRedirects bounds SKILL_REDIRECT chains; a second redirect is an error.
const MaxRedirects = 1

// HostConfig wires a Host.
type HostConfig struct {
	Bus    *bus.Bus
	Body   Body
	Robot  Robot
	Logger *slog.Logger
	// Registry holds the skills' manifests; nil means a fresh one.
	Registry *registry.Registry
	// Invoker makes every skill call (timeout, permission gate, records);
	// nil means one recording to Records.
	Invoker *invoke.Invoker
	// Records, if set, receives the record of every call made by the
	// default invoker and of failures the host sees after the call.
	Records invoke.Recorder
	// Conversations keeps skills' sessions between turns; nil means in
	// memory (lost on restart).
	Conversations Conversations
	// ListenWindow is how long a question waits for its answer; 0 means
	// DefaultListenWindow.
	ListenWindow time.Duration
	// Runtime, if set, gives the robot's runtime context (character,
	// perception, location…) for each request.
	Runtime func() protocol.RuntimeContext
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Host holds the local skills and invokes them for the pipeline.
type Host struct {
	cfg   HostConfig
	log   *slog.Logger
	rules *ruleBook

	mu     sync.RWMutex
	skills map[string]Skill

	// running holds a cancel per JCP action in flight, by session and
	// dispatched skill, so a stop can end what the body is doing (STOP-06/07).
	runMu   sync.Mutex
	running map[runKey]map[int]context.CancelCauseFunc
	nextRun int

	// waiting holds the no-input timer of each question waiting for its
	// answer; closed stops new ones; turns counts the no-input turns
	// running, which Close waits for.
	waitMu  sync.Mutex
	waiting map[runKey]*time.Timer
	closed  bool
	turns   sync.WaitGroup
	// lastSkill is the skill launched last in each bus session, for the
	// analytics' last_skill.
	lastMu    sync.Mutex
	lastSkill map[string]string
	// listed are the skills the pipeline may list as converse handlers:
	// every dispatch lists its skill (CONV-02), and so does putting one
	// back in response mode. Guarded by lastMu.
	listed map[string]bool

	// baseCtx is the context of no-input turns; Close cancels it.
	baseCtx    context.Context
	cancelBase context.CancelFunc

	// listenWindow is cfg.ListenWindow as it is now: the diagnostics
	// shell changes it while questions are being asked, hence atomic.
	listenWindow atomic.Int64
}

type runKey struct{ session, skill string }

// errStopped is the cause of an action cancelled by a stop: the handler is
// done, not failed.
var errStopped = errors.New("stopped on request")

var _ pipeline.Invoker = (*Host)(nil)

// NewHost builds an empty host.
func NewHost(cfg HostConfig) (*Host, error) {
	if cfg.Bus == nil {
		return nil, errors.New("skill host: no bus")
	}
	if cfg.Body == nil {
		return nil, errors.New("skill host: no body to run actions on")
	}
	if cfg.Registry == nil {
		cfg.Registry = registry.New()
	}
	if cfg.Records == nil {
		cfg.Records = invoke.NewLog(invoke.DefaultLogCapacity)
	}
	if cfg.Conversations == nil {
		cfg.Conversations = NewMemoryState()
	}
	if cfg.ListenWindow <= 0 {
		cfg.ListenWindow = DefaultListenWindow
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Robot.Release == "" {
		cfg.Robot.Release = "1.9.2" // hubs assume 1.8.0 when it is missing (§1.5)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	log = log.With("component", "skills")
	if cfg.Invoker == nil {
		iv, err := invoke.New(invoke.Config{Recorder: cfg.Records, Logger: log})
		if err != nil {
			return nil, fmt.Errorf("skill host: %w", err)
		}
		cfg.Invoker = iv
	}
	rules, err := newRuleBook(log)
	if err != nil {
		return nil, err
	}
	h := &Host{cfg: cfg, log: log, rules: rules, skills: map[string]Skill{},
		running: map[runKey]map[int]context.CancelCauseFunc{}, waiting: map[runKey]*time.Timer{},
		lastSkill: map[string]string{}, listed: map[string]bool{}}
	h.baseCtx, h.cancelBase = context.WithCancel(context.Background())
	h.listenWindow.Store(int64(cfg.ListenWindow))
	return h, nil
}

// ListenWindow is how long the next question waits for its answer.
func (h *Host) ListenWindow() time.Duration { return time.Duration(h.listenWindow.Load()) }

// SetListenWindow changes how long questions wait for their answers,
// while the host runs (the diagnostics shell's listen.answer_window). It
// applies from the next question; one already waiting keeps its window.
// A window of zero or less is refused and changes nothing.
func (h *Host) SetListenWindow(d time.Duration) error {
	if d <= 0 {
		return fmt.Errorf("skill host: listen window %v: want more than 0", d)
	}
	h.listenWindow.Store(int64(d))
	return nil
}

// Add makes a skill available under its manifest's bus id. The manifest
// must be valid and its id new; the skill's answer rules must compile, and
// a Questioner's questions must name rules the robot has. Nothing is added
// when anything is wrong.
func (h *Host) Add(s Skill) error {
	m := s.Manifest()
	if m == nil {
		return fmt.Errorf("adding skill: %w: no manifest", registry.ErrInvalid)
	}
	m = m.Normalized()
	if err := m.Validate(); err != nil {
		return fmt.Errorf("adding skill: %w", err)
	}
	id := m.BusID()
	if reservedOwner(id) {
		return fmt.Errorf("adding skill %s: %w: bus id %q is reserved for the runtime's answer rules", m.ID, registry.ErrInvalid, id)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, dup := h.skills[id]; dup {
		return fmt.Errorf("adding skill %s: %w", m.ID, registry.ErrExists)
	}
	if rs, ok := s.(RuleSkill); ok && rs.Rules() != nil {
		if err := h.rules.add(id, rs.Rules()); err != nil {
			return fmt.Errorf("adding skill %s: %w", m.ID, err)
		}
	}
	if q, ok := s.(Questioner); ok {
		if err := h.rules.check(q.ListenRules()); err != nil {
			h.rules.remove(id)
			return fmt.Errorf("adding skill %s: its questions: %w", m.ID, err)
		}
	}
	if err := h.cfg.Registry.Add(m); err != nil {
		h.rules.remove(id)
		return fmt.Errorf("adding skill: %w", err)
	}
	h.skills[id] = s
	return nil
}

// Install adds s (see Add) and registers its intents at once (see
// Register), for a skill installed while the robot runs. When its intents
// are refused it is removed again: nothing of it stays.
func (h *Host) Install(ctx context.Context, s Skill) error {
	if err := h.Add(s); err != nil {
		return err
	}
	if err := h.register(ctx, s); err != nil {
		// Whatever was registered before the refusal goes too.
		rerr := h.Remove(context.WithoutCancel(ctx), s.Manifest().ID)
		return errors.Join(fmt.Errorf("installing skill %s: %w", s.Manifest().ID, err), rerr)
	}
	return nil
}

// Remove unloads a skill (by id or bus id) once the requests using it are
// done: it is no longer invoked, and its intents and entities are
// deregistered with ovos.skill.deregister (REG-09, DEF-09) in the default
// session scope, where Register put them. Its conversations end: a
// question it asked is not answered to it (nor to a version installed in
// its place, which did not ask it), and the default session stops listing
// it among the converse handlers.
func (h *Host) Remove(ctx context.Context, id string) error {
	m, err := h.cfg.Registry.Get(id)
	if err != nil {
		return fmt.Errorf("removing skill %s: %w", id, err)
	}
	if err := h.cfg.Registry.Remove(ctx, id); err != nil {
		return fmt.Errorf("removing skill %s: %w", id, err)
	}
	busID := m.BusID()
	h.mu.Lock()
	s, hosted := h.skills[busID]
	delete(h.skills, busID)
	h.mu.Unlock()
	h.rules.remove(busID)
	dm := bus.NewMessage(intent.TopicSkillDeregister, map[string]any{"skill_id": busID})
	dm.Context[bus.KeySource] = busID
	dm.Context[bus.KeySkillID] = busID // REG-03
	if err := h.cfg.Bus.Publish(ctx, dm); err != nil {
		return fmt.Errorf("removing skill %s: deregistering its intents: %w", id, err)
	}
	if hosted && s.Locale() != nil {
		if err := intent.ConfirmDeregistered(ctx, h.cfg.Bus, busID, DefaultRegisterTimeout); err != nil {
			h.log.Warn("skill removed, but its intents may linger", "skill_id", busID, "err", err)
		}
	}
	if err := h.endConversations(ctx, busID); err != nil {
		h.log.Warn("skill removed, but ending its conversations", "skill_id", busID, "err", err)
	}
	h.log.Info("skill removed", "skill_id", busID)
	return nil
}

// Skills lists the hosted skills' manifests, sorted by id.
func (h *Host) Skills() []*Manifest { return h.cfg.Registry.List() }

// Registry is the host's skill registry.
func (h *Host) Registry() *registry.Registry { return h.cfg.Registry }

func (h *Host) now() time.Time { return h.cfg.Now() }

func (h *Host) skill(id string) (Skill, bool) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	s, ok := h.skills[id]
	return s, ok
}

// turn is what a skill's turn is about: who, in which bus session and
// language, and the message speech is derived from.
type turn struct {
	skillID    string
	busSession string
	lang       string
	// sess is the dispatch's session, zero outside a lifecycle (a
	// proactive launch).
	sess session.Session
	// origin is the message speech and errors are derived from.
	origin bus.Message
	// writes collects the context the skill sets in a turn that has a
	// session to carry it; nil otherwise.
	writes *contextWrites
}

func dispatchTurn(d pipeline.Dispatch) turn {
	t := turn{skillID: d.SkillID, busSession: d.Session.ID(), lang: d.Lang, sess: d.Session, origin: d.Message}
	if !d.Session.IsZero() {
		t.writes = &contextWrites{}
	}
	return t
}

// Invoke runs the dispatched intent's skill: LISTEN_LAUNCH in, then the
// response's action on the body. Speech goes on the bus as
// ovos.utterance.speak derived from the dispatch (PIPE-28). The skill's
// own turns are "stop" (end what it does and its conversation) and
// "response" (the answer to its question, as LISTEN_UPDATE); a dispatch
// that continues the skill's conversation (Dispatch.Continues) is a
// LISTEN_UPDATE too.
func (h *Host) Invoke(ctx context.Context, d pipeline.Dispatch) (session.Session, error) {
	t := dispatchTurn(d)
	s, err := h.invoke(ctx, t, d)
	if err != nil && d.IntentName != IntentStop {
		h.apologize(ctx, t, err)
	}
	return s, err
}

// invoke is Invoke without the apology for a failure.
func (h *Host) invoke(ctx context.Context, t turn, d pipeline.Dispatch) (session.Session, error) {
	h.list(t.skillID)
	switch d.IntentName {
	case IntentStop: // STOP-07: stop that skill's activity in this session only
		h.stopRunning(t.busSession, t.skillID)
		h.forgetAll(t.busSession, t.skillID)
		return session.Session{}, nil
	case IntentResponse:
		return h.answer(ctx, t, d)
	case IntentConverse:
		// Jibo skills take follow-ups through questions, never converse
		// polls, so no local skill claims one (CONV-07).
		return session.Session{}, fmt.Errorf("skill %s: takes answers through questions, not converse", t.skillID)
	}
	s, ok := h.skill(t.skillID)
	if !ok {
		return session.Session{}, fmt.Errorf("no skill %q on this robot", t.skillID)
	}
	if d.Continues {
		return h.carryOn(ctx, t, s, d)
	}
	// A launch starts the skill afresh (GraphManager.start refuses a
	// session): whatever it was in the middle of is over.
	if err := h.forget(t.busSession, t.skillID); err != nil {
		return session.Session{}, err
	}
	nlu := protocol.NLUFromSlots(d.IntentName, d.Slots, nil)
	asr := protocol.ASRResult{Text: d.Utterance, Confidence: 1}
	req := protocol.NewListenLaunch(h.requestContext(t.lang, protocol.Skill(t.skillID)), nlu, asr, nil)
	return h.exchange(ctx, t, s, req, d.IntentName)
}

// exchange sends req to s through the invoker, follows a redirect, runs
// the action on the body and keeps the skill's session. It returns the bus
// session to commit.
func (h *Host) exchange(ctx context.Context, t turn, s Skill, req *protocol.Request, intentName string) (out session.Session, err error) {
	defer func() {
		if err == nil {
			out = h.writeContext(t, out)
		}
	}()
	for redirects := 0; ; redirects++ {
		// The lease holds the skill in the registry from the call until
		// its action has run: it cannot be removed or replaced meanwhile.
		lease, err := h.cfg.Registry.Acquire(t.skillID)
		if err != nil {
			return session.Session{}, fmt.Errorf("skill %s: %w", t.skillID, err)
		}
		reply, err := h.cfg.Invoker.Call(withTurn(ctx, t), lease.Manifest(), s.Handle, req)
		if err != nil {
			lease.Release()
			h.refused(ctx, t, intentName, err)
			return session.Session{}, err
		}
		resp := reply.Response
		switch resp.Type {
		case protocol.TypeSkillAction:
			if len(resp.Action.Analytics) > 0 {
				h.forwardAnalytics(ctx, t, intentName, resp.Action.Analytics)
			}
			if req.Type != protocol.TypeListenUpdate {
				h.launched(t.busSession, t.skillID)
			}
			final := resp.Action.Final != nil && *resp.Action.Final || reply.Action == nil
			// Kept before the body speaks: a robot killed while asking
			// still knows its question when it starts again.
			planned := plannedListen(reply.Action)
			committed, err := h.remember(t, resp.Action.Skill, final, planned)
			if err != nil {
				lease.Release()
				return session.Session{}, err
			}
			asked := h.waitingTimer(t.busSession, t.skillID)
			if planned != nil && t.sess.IsZero() {
				// Outside a lifecycle (a proactive launch) nothing commits
				// response mode for the question, and an answer can come
				// as soon as it is spoken, before act returns: say it now.
				if err := h.syncPlanned(ctx, t); err != nil {
					lease.Release()
					return session.Session{}, err
				}
			}
			listen, err := h.act(ctx, t, reply.Action)
			lease.Release()
			if err != nil {
				_ = h.forget(t.busSession, t.skillID)
				return session.Session{}, err
			}
			if planned != nil && h.waitingTimer(t.busSession, t.skillID) != asked {
				// Answered (or timed out) while still asking: that turn
				// keeps the conversation now; writing this one back would
				// undo it.
				return committed, nil
			}
			if listen != nil || planned != nil {
				// The answer window opens once the question has been
				// asked; a stopped question is withdrawn.
				return h.remember(t, resp.Action.Skill, final, listen)
			}
			return committed, nil
		case protocol.TypeError:
			lease.Release()
			_ = h.forget(t.busSession, t.skillID)
			return session.Session{}, fmt.Errorf("skill %s: %s", reply.Record.Skill, resp.Error.Message)
		case protocol.TypeSkillRedirect:
			lease.Release()
			to := resp.Redirect.SkillID
			if redirects >= MaxRedirects {
				return session.Session{}, fmt.Errorf("skill %s: redirected to %q after a redirect; only %d allowed",
					t.skillID, to, MaxRedirects)
			}
			target, ok := h.skill(to)
			if !ok {
				if m, err := h.cfg.Registry.Get(to); err == nil {
					to = m.BusID() // a redirect may name the skill by its manifest id
					target, ok = h.skill(to)
				}
			}
			if !ok {
				return session.Session{}, fmt.Errorf("skill %s: redirect to unknown skill %q", t.skillID, resp.Redirect.SkillID)
			}
			h.log.Info("skill redirect", "from", t.skillID, "to", to)
			t.writes.take() // what the redirecting skill set is not the target's
			_ = h.forget(t.busSession, t.skillID)
			nlu, asr := protocol.NLUResult{}, protocol.ASRResult{}
			if rn := req.Data.Result.NLU; rn != nil {
				nlu = *rn
			}
			if ra := req.Data.Result.ASR; ra != nil {
				asr = *ra
			}
			if resp.Redirect.NLU != nil {
				nlu = *resp.Redirect.NLU
			}
			if resp.Redirect.ASR != nil {
				asr = *resp.Redirect.ASR
			}
			req = protocol.NewListenLaunch(h.requestContext(t.lang, protocol.Skill(to)), nlu, asr, resp.Redirect.Memo)
			t.skillID, s = to, target
		default:
			lease.Release()
			return session.Session{}, fmt.Errorf("skill %s: unexpected response type %q", t.skillID, resp.Type)
		}
	}
}

// act runs a SKILL_ACTION's JCP (already parsed and permitted by the
// invoker) on the body. It returns the contexts of the question the action
// ended on, nil when it asked none (or was stopped). A nil action does
// nothing.
func (h *Host) act(ctx context.Context, t turn, action *jcp.Action) ([]string, error) {
	if action == nil {
		return nil, nil
	}
	listens := questionPlays(action.Behavior)
	ctx, done := h.track(ctx, t.busSession, t.skillID)
	defer done()
	res, err := h.cfg.Body.RunObserved(ctx, action, func(ev jcp.Event) {
		if ev.Kind != jcp.EventSpeaking {
			return
		}
		speak := t.origin.Forward(pipeline.TopicSpeak, map[string]any{
			"utterance": ev.Text, "lang": t.lang, "listen": listens[ev.BehaviorID]})
		// The observer must return quickly: publishing never blocks on
		// ordinary subscribers, and ctx bounds the ones that may.
		if perr := h.cfg.Bus.Publish(ctx, speak); perr != nil {
			h.log.Warn("publishing speak", "skill_id", t.skillID, "err", perr)
		}
	})
	if errors.Is(context.Cause(ctx), errStopped) {
		return nil, nil // speech and motion stopped because the user asked
	}
	if err != nil {
		return nil, fmt.Errorf("skill %s: action %s: %w", t.skillID, statusOf(res), err)
	}
	if res != nil && res.Listen != nil {
		return append([]string{}, res.Listen.Contexts...), nil
	}
	return nil, nil
}

func statusOf(r *jcp.Result) string {
	if r == nil {
		return "refused"
	}
	return string(r.Status)
}

// plannedListen returns the contexts of the question an action will end
// on, nil when it asks none: its last SLIM in running order, when that
// SLIM listens (a question anywhere else ends the run, jibo.md §3.2).
func plannedListen(a *jcp.Action) []string {
	if a == nil {
		return nil
	}
	var last *jcp.SLIM
	jcp.EachSLIM(a.Behavior, func(s *jcp.SLIM) { last = s })
	if last == nil || last.Listen == nil {
		return nil
	}
	return append([]string{}, last.Listen.Contexts...)
}

// questionPlays maps the id of each PLAY that belongs to a listening SLIM to
// true, so its speak message says listen: true (CONV-08).
func questionPlays(b jcp.Behavior) map[string]bool {
	out := map[string]bool{}
	jcp.EachSLIM(b, func(s *jcp.SLIM) {
		if s.Play != nil && s.Listen != nil {
			out[s.Play.ID] = true
		}
	})
	return out
}

// ActionJSON encodes a JCP action for a SKILL_ACTION response.
func ActionJSON(a *jcp.Action) (json.RawMessage, error) {
	b, err := json.Marshal(a)
	if err != nil {
		return nil, fmt.Errorf("encoding JCP action: %w", err)
	}
	return b, nil
}

// track registers a running action so a stop can cancel it.
func (h *Host) track(ctx context.Context, sessionID, skillID string) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	k := runKey{sessionID, skillID}
	h.runMu.Lock()
	h.nextRun++
	n := h.nextRun
	if h.running[k] == nil {
		h.running[k] = map[int]context.CancelCauseFunc{}
	}
	h.running[k][n] = cancel
	h.runMu.Unlock()
	return ctx, func() {
		h.runMu.Lock()
		delete(h.running[k], n)
		if len(h.running[k]) == 0 {
			delete(h.running, k)
		}
		h.runMu.Unlock()
		cancel(nil)
	}
}

// stopRunning cancels the actions of one skill in a session, or of every
// skill when skillID is empty; the executor then stops speech and motion.
func (h *Host) stopRunning(sessionID, skillID string) {
	h.runMu.Lock()
	defer h.runMu.Unlock()
	for k, runs := range h.running {
		if k.session == sessionID && (skillID == "" || k.skill == skillID) {
			for _, cancel := range runs {
				cancel(errStopped)
			}
		}
	}
}

// StartStop subscribes the host to ovos.stop (stop everything the body does
// for that session, STOP-06) and ovos.stop.ping (answer can_handle: true for
// each skill with an action running in that session, STOP-04). Call the
// returned function to unsubscribe.
func (h *Host) StartStop() (func(), error) {
	sub, err := h.cfg.Bus.SubscribeAll([]string{pipeline.TopicStop, pipeline.TopicStopPing}, h.onStop,
		bus.WithName("skills-stop"), bus.WithQueue(bus.DefaultQueueLen, bus.DropNewest))
	if err != nil {
		return nil, fmt.Errorf("skill host: %w", err)
	}
	return sub.Close, nil
}

func (h *Host) onStop(ctx context.Context, m bus.Message) {
	s, _, err := session.FromMessage(m)
	if err != nil {
		return // malformed carrier: dropped (SES-08)
	}
	if m.Type == pipeline.TopicStop {
		h.stopRunning(s.ID(), "")
		h.forgetAll(s.ID(), "")
		return
	}
	h.runMu.Lock()
	var busy []string
	for k := range h.running {
		if k.session == s.ID() {
			busy = append(busy, k.skill)
		}
	}
	h.runMu.Unlock()
	sort.Strings(busy)
	for _, id := range busy {
		pong := m.Reply(pipeline.TopicStopPong, map[string]any{"skill_id": id, "can_handle": true})
		pong.Context[bus.KeySkillID] = id
		if err := h.cfg.Bus.Publish(ctx, pong); err != nil {
			h.log.Warn("answering stop ping", "skill_id", id, "err", err)
		}
	}
}
