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
	"regexp"
	"runtime/debug"
	"sort"
	"sync"
	"time"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/jcp"
)

// Manifest describes a skill.
type Manifest struct {
	// ID is the skill id used on the bus; it must be topic-safe
	// ([a-z0-9][a-z0-9._-]*, no ':'), as dispatch topics are "<id>:<intent>".
	ID          string
	Name        string
	Description string
	Version     string
}

var skillIDPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

// Validate checks the manifest.
func (m Manifest) Validate() error {
	if !skillIDPattern.MatchString(m.ID) {
		return fmt.Errorf("skill id %q: want [a-z0-9][a-z0-9._-]*, at most 64 characters", m.ID)
	}
	if m.Name == "" {
		return fmt.Errorf("skill %s: name is empty", m.ID)
	}
	return nil
}

// Skill is a skill living in this process. Handle answers one request and
// must honour ctx.
type Skill interface {
	Manifest() Manifest
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

// DefaultSkillTimeout bounds one skill call (the hub's skill timeout, §1.5).
const DefaultSkillTimeout = 10 * time.Second

// MaxRedirects bounds SKILL_REDIRECT chains; a second redirect is an error.
const MaxRedirects = 1

// HostConfig wires a Host.
type HostConfig struct {
	Bus          *bus.Bus
	Body         Body
	Robot        Robot
	Logger       *slog.Logger
	SkillTimeout time.Duration
}

// Host holds the local skills and invokes them for the pipeline.
type Host struct {
	cfg HostConfig
	log *slog.Logger

	mu     sync.RWMutex
	skills map[string]Skill

	// running holds a cancel per JCP action in flight, by session and
	// dispatched skill, so a stop can end what the body is doing (STOP-06/07).
	runMu   sync.Mutex
	running map[runKey]map[int]context.CancelCauseFunc
	nextRun int
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
	if cfg.SkillTimeout <= 0 {
		cfg.SkillTimeout = DefaultSkillTimeout
	}
	if cfg.Robot.Release == "" {
		cfg.Robot.Release = "1.9.2" // hubs assume 1.8.0 when it is missing (§1.5)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Host{cfg: cfg, log: log.With("component", "skills"), skills: map[string]Skill{},
		running: map[runKey]map[int]context.CancelCauseFunc{}}, nil
}

// Add makes a skill available. Ids are unique.
func (h *Host) Add(s Skill) error {
	m := s.Manifest()
	if err := m.Validate(); err != nil {
		return fmt.Errorf("adding skill: %w", err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, dup := h.skills[m.ID]; dup {
		return fmt.Errorf("adding skill %s: already exists", m.ID)
	}
	h.skills[m.ID] = s
	return nil
}

// Remove unloads a skill: it is no longer invoked, and its intents and
// entities are deregistered with ovos.skill.deregister (REG-09, DEF-09) in
// the default session scope, where Register put them.
func (h *Host) Remove(ctx context.Context, id string) error {
	h.mu.Lock()
	_, ok := h.skills[id]
	delete(h.skills, id)
	h.mu.Unlock()
	if !ok {
		return fmt.Errorf("removing skill %s: not found", id)
	}
	m := bus.NewMessage(intent.TopicSkillDeregister, map[string]any{"skill_id": id})
	m.Context[bus.KeySource] = id
	m.Context[bus.KeySkillID] = id // REG-03
	if err := h.cfg.Bus.Publish(ctx, m); err != nil {
		return fmt.Errorf("removing skill %s: deregistering its intents: %w", id, err)
	}
	h.log.Info("skill removed", "skill_id", id)
	return nil
}

// Skills lists the hosted skills' manifests by id.
func (h *Host) Skills() []Manifest {
	h.mu.RLock()
	defer h.mu.RUnlock()
	out := make([]Manifest, 0, len(h.skills))
	for _, s := range h.skills {
		out = append(out, s.Manifest())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func (h *Host) skill(id string) (Skill, bool) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	s, ok := h.skills[id]
	return s, ok
}

// Invoke runs the dispatched intent's skill: LISTEN_LAUNCH in, then the
// response's action on the body. Speech goes on the bus as
// ovos.utterance.speak derived from the dispatch (PIPE-28).
func (h *Host) Invoke(ctx context.Context, d pipeline.Dispatch) (session.Session, error) {
	if d.IntentName == "stop" { // STOP-07: stop that skill's activity in this session only
		h.stopRunning(d.Session.ID(), d.SkillID)
		return session.Session{}, nil
	}
	s, ok := h.skill(d.SkillID)
	if !ok {
		return session.Session{}, fmt.Errorf("no skill %q on this robot", d.SkillID)
	}
	c := protocol.Context{
		General: protocol.GeneralData{AccountID: h.cfg.Robot.AccountID, RobotID: h.cfg.Robot.RobotID,
			Lang: d.Lang, Release: h.cfg.Robot.Release},
		Skill: protocol.Skill(d.SkillID),
	}
	nlu := protocol.NLUFromSlots(d.IntentName, d.Slots, nil)
	asr := protocol.ASRResult{Text: d.Utterance, Confidence: 1}
	req := protocol.NewListenLaunch(c, nlu, asr, nil)

	for redirects := 0; ; redirects++ {
		resp, err := h.call(ctx, s, req)
		if err != nil {
			return session.Session{}, err
		}
		switch resp.Type {
		case protocol.TypeSkillAction:
			return session.Session{}, h.act(ctx, d, s.Manifest().ID, resp.Action)
		case protocol.TypeError:
			return session.Session{}, fmt.Errorf("skill %s: %s", s.Manifest().ID, resp.Error.Message)
		case protocol.TypeSkillRedirect:
			if redirects >= MaxRedirects {
				return session.Session{}, fmt.Errorf("skill %s: redirected to %q after a redirect; only %d allowed",
					s.Manifest().ID, resp.Redirect.SkillID, MaxRedirects)
			}
			target, ok := h.skill(resp.Redirect.SkillID)
			if !ok {
				return session.Session{}, fmt.Errorf("skill %s: redirect to unknown skill %q", s.Manifest().ID, resp.Redirect.SkillID)
			}
			h.log.Info("skill redirect", "from", s.Manifest().ID, "to", resp.Redirect.SkillID)
			rc := c
			rc.Skill = protocol.Skill(resp.Redirect.SkillID)
			rn, ra := nlu, asr
			if resp.Redirect.NLU != nil {
				rn = *resp.Redirect.NLU
			}
			if resp.Redirect.ASR != nil {
				ra = *resp.Redirect.ASR
			}
			req = protocol.NewListenLaunch(rc, rn, ra, resp.Redirect.Memo)
			s = target
		default:
			return session.Session{}, fmt.Errorf("skill %s: unexpected response type %q", s.Manifest().ID, resp.Type)
		}
	}
}

// call sends one request, bounding it in time and containing panics; an
// invalid response is an error, never acted on.
func (h *Host) call(ctx context.Context, s Skill, req *protocol.Request) (resp *protocol.Response, err error) {
	id := s.Manifest().ID
	cctx, cancel := context.WithTimeout(ctx, h.cfg.SkillTimeout)
	defer cancel()
	defer func() {
		if r := recover(); r != nil {
			h.log.Error("skill panicked", "skill_id", id, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			resp, err = nil, fmt.Errorf("skill %s panicked: %v", id, r)
		}
	}()
	resp, err = s.Handle(cctx, req)
	switch {
	case err != nil && cctx.Err() == context.DeadlineExceeded && ctx.Err() == nil:
		return nil, fmt.Errorf("skill %s: no answer within %s", id, h.cfg.SkillTimeout)
	case err != nil:
		return nil, fmt.Errorf("skill %s: %w", id, err)
	case resp == nil:
		return nil, fmt.Errorf("skill %s: returned no response", id)
	}
	if err := resp.Validate(); err != nil {
		return nil, fmt.Errorf("skill %s: invalid response: %w", id, err)
	}
	return resp, nil
}

// act runs a SKILL_ACTION's JCP on the body; a null action ends the skill.
func (h *Host) act(ctx context.Context, d pipeline.Dispatch, skillID string, a *protocol.SkillActionData) error {
	if len(a.Action) == 0 || string(a.Action) == "null" {
		return nil
	}
	action, err := jcp.ParseAction(a.Action)
	if err != nil {
		return fmt.Errorf("skill %s: refused its action: %w", skillID, err)
	}
	listens := questionPlays(action.Behavior)
	ctx, done := h.track(ctx, d.Session.ID(), d.SkillID)
	defer done()
	res, err := h.cfg.Body.RunObserved(ctx, action, func(ev jcp.Event) {
		if ev.Kind != jcp.EventSpeaking {
			return
		}
		speak := d.Message.Forward(pipeline.TopicSpeak, map[string]any{
			"utterance": ev.Text, "lang": d.Lang, "listen": listens[ev.BehaviorID]})
		// The observer must return quickly: publishing never blocks on
		// ordinary subscribers, and ctx bounds the ones that may.
		if perr := h.cfg.Bus.Publish(ctx, speak); perr != nil {
			h.log.Warn("publishing speak", "skill_id", skillID, "err", perr)
		}
	})
	if err != nil {
		if errors.Is(context.Cause(ctx), errStopped) {
			return nil // speech and motion stopped because the user asked
		}
		return fmt.Errorf("skill %s: action %s: %w", skillID, statusOf(res), err)
	}
	return nil
}

func statusOf(r *jcp.Result) string {
	if r == nil {
		return "refused"
	}
	return string(r.Status)
}

// questionPlays maps the id of each PLAY that belongs to a listening SLIM to
// true, so its speak message says listen: true (CONV-08).
func questionPlays(b jcp.Behavior) map[string]bool {
	out := map[string]bool{}
	var walk func(jcp.Behavior)
	walk = func(b jcp.Behavior) {
		switch t := b.(type) {
		case *jcp.SLIM:
			if t.Play != nil && t.Listen != nil {
				out[t.Play.ID] = true
			}
		case *jcp.SequenceBehavior:
			for _, c := range t.Children {
				walk(c)
			}
		case *jcp.ParallelBehavior:
			for _, c := range t.Children {
				walk(c)
			}
		}
	}
	walk(b)
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
