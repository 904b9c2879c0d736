// Package skill hosts the robot's skills behind one protocol, the Jibo skill
// protocol (spec/jibo.md §2): the pipeline dispatches "<skill_id>:<intent>"
// to the Host, which sends the skill a LISTEN_LAUNCH, runs the JCP of each
// SKILL_ACTION on the body, follows a SKILL_REDIRECT and reports an ERROR as
// a handler error.
package skill

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/pipeline"
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

// CheckedSkill is a Skill whose answers come checked where they are made
// (base.Skill's validation, a decoder of the wire): the host and
// jibod skills try take them without validating again.
type CheckedSkill interface {
	Skill
	HandleChecked(ctx context.Context, req *protocol.Request) (*protocol.CheckedResponse, error)
}

// Handler is how s is called so that its answer is validated once: its
// own HandleChecked when it has one, else Handle with the invoker's check.
func Handler(s Skill) invoke.CheckedHandler {
	if cs, ok := s.(CheckedSkill); ok {
		return cs.HandleChecked
	}
	return invoke.Checking(s.Handle)
}

// Body runs JCP actions the invoker has checked, without checking them
// again, reporting each behaviour event of the run.
type Body interface {
	RunChecked(ctx context.Context, a *jcp.Checked, observe func(jcp.Event)) (*jcp.Result, error)
}

// The executor is the robot's Body: it takes the action as the invoker
// checked it, so nothing between the invoker and the motors parses it again.
var _ Body = (*jcp.Executor)(nil)

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
	// Lexicons are the skip words the answer rules match with, by
	// language (the intent stack's, so they are read once); nil means
	// intent.BuiltinLexicons.
	Lexicons map[string]*intent.Lexicon
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
	running map[runKey]map[int]run
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
	rules, err := newRuleBook(log, cfg.Lexicons)
	if err != nil {
		return nil, err
	}
	h := &Host{cfg: cfg, log: log, rules: rules, skills: map[string]Skill{},
		running: map[runKey]map[int]run{}, waiting: map[runKey]*time.Timer{},
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
