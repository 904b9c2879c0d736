package skill

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/core/skill/store"
)

// TopicProactive is published when the host launches a skill on its own
// (a timer's alarm); speech of the launch is derived from it.
const TopicProactive = "jibo.skill.proactive"

// TopicSkillError reports a skill failing outside an utterance's
// lifecycle (a proactive launch), where no ovos.intent.handler.error
// would say so: {skill_id, error}.
const TopicSkillError = "jibo.skill.error"

// Proactive launches a skill on its own, for a timer it scheduled: the
// skill gets PROACTIVE_LAUNCH with the timer's memo, in the bus session
// and language the timer was set in, and its action runs on the body. A
// stop ends it like any other action; a question it asks waits for its
// answer as in a conversation.
func (h *Host) Proactive(ctx context.Context, tm store.Timer) error {
	s, ok := h.skill(tm.SkillID)
	if !ok {
		return fmt.Errorf("proactive launch of %q: no such skill on this robot", tm.SkillID)
	}
	busSession := tm.BusSession
	if busSession == "" {
		busSession = session.DefaultID
	}
	lang := tm.Lang
	if lang == "" {
		lang = "en-US"
	}
	origin := bus.NewMessage(TopicProactive, map[string]any{"skill_id": tm.SkillID, "timer_id": tm.ID, "label": tm.Label})
	origin.Context[bus.KeySession] = map[string]any{"session_id": busSession}
	origin.Context[bus.KeySkillID] = tm.SkillID
	if err := h.cfg.Bus.Publish(ctx, origin); err != nil {
		return fmt.Errorf("proactive launch of %s: %w", tm.SkillID, err)
	}
	t := turn{skillID: tm.SkillID, busSession: busSession, lang: lang, origin: origin}
	if err := h.forget(busSession, tm.SkillID); err != nil {
		return err
	}
	req := protocol.NewProactiveLaunch(h.requestContext(lang, protocol.Skill(tm.SkillID)), tm.Memo)
	if _, err := h.exchange(ctx, t, s, req, "proactive"); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("proactive launch of %s ended early: %w", tm.SkillID, context.Cause(ctx))
		}
		// No lifecycle reports this failure: say it on the bus.
		e := origin.Forward(TopicSkillError, map[string]any{"skill_id": tm.SkillID, "error": err.Error()})
		if perr := h.cfg.Bus.Publish(ctx, e); perr != nil {
			h.log.Warn("publishing skill error", "skill_id", tm.SkillID, "err", perr)
		}
		return err
	}
	// A proactive question has no lifecycle to commit response mode with.
	conv, ok, err := h.cfg.Conversations.Conversation(busSession, tm.SkillID)
	if err == nil && ok && conv.Listen != nil {
		return h.syncResponseMode(ctx, busSession, tm.SkillID, conv.ExpiresAt)
	}
	return err
}

// Scheduler keeps proactive launches for later; core/skill/schedule has
// the persistent one.
type Scheduler interface {
	Schedule(ctx context.Context, t store.Timer) (string, error)
	Cancel(ctx context.Context, id string) error
	List() []store.Timer
}

// GuardScheduler returns sched with the timers permission enforced: a
// skill whose manifest lacks it cannot schedule anything.
func (h *Host) GuardScheduler(sched Scheduler) Scheduler { return guarded{h, sched} }

type guarded struct {
	h *Host
	Scheduler
}

func (g guarded) Schedule(ctx context.Context, t store.Timer) (string, error) {
	m, err := g.h.cfg.Registry.Get(t.SkillID)
	if err != nil {
		return "", fmt.Errorf("scheduling for %s: %w", t.SkillID, err)
	}
	if err := registry.Require(m, registry.PermTimers, "scheduling a timer"); err != nil {
		return "", err
	}
	if t.SkillID != m.BusID() {
		t.SkillID = m.BusID() // timers fire by bus id
	}
	return g.Scheduler.Schedule(ctx, t)
}

// turnKey carries the bus session and language of the turn a skill is
// handling, so a timer it sets rings where it was asked for.
type turnKey struct{}

type turnInfo struct {
	busSession, lang string
	// writes collects the intent context the skill sets (SetContext).
	writes *contextWrites
	// skillID and sess are whose turn it is and the dispatch's session
	// (zero outside a lifecycle), for ContextValue; now is the host's
	// clock.
	skillID string
	sess    session.Session
	now     func() time.Time
}

func withTurn(ctx context.Context, t turn, now func() time.Time) context.Context {
	return context.WithValue(ctx, turnKey{}, turnInfo{busSession: t.busSession, lang: t.lang, writes: t.writes,
		skillID: t.skillID, sess: t.sess, now: now})
}

// Timers lets one local skill schedule proactive launches of itself. Use
// it from inside Handle: a timer rings in the bus session and language of
// the turn that set it.
type Timers struct {
	sched   Scheduler
	skillID string
	now     func() time.Time
}

// NewTimers gives skillID its timers on sched.
func NewTimers(sched Scheduler, skillID string, now func() time.Time) *Timers {
	if now == nil {
		now = time.Now
	}
	return &Timers{sched: sched, skillID: skillID, now: now}
}

// ErrNoScheduler is returned by a Timers without a scheduler.
var ErrNoScheduler = errors.New("this robot keeps no timers")

// ErrNoSuchTimer is returned by Cancel of a timer that is gone: it rang,
// was cancelled, or was never the skill's.
var ErrNoSuchTimer = errors.New("no such timer")

// Set schedules a PROACTIVE_LAUNCH of the skill, carrying memo, after d.
func (t *Timers) Set(ctx context.Context, d time.Duration, label string, memo json.RawMessage) (store.Timer, error) {
	if t == nil || t.sched == nil {
		return store.Timer{}, ErrNoScheduler
	}
	info, _ := ctx.Value(turnKey{}).(turnInfo)
	now := t.now()
	tm := store.Timer{SkillID: t.skillID, BusSession: info.busSession, Lang: info.lang,
		Due: now.Add(d), Memo: memo, Label: label, Created: now}
	id, err := t.sched.Schedule(ctx, tm)
	if err != nil {
		return store.Timer{}, fmt.Errorf("setting timer %q: %w", label, err)
	}
	tm.ID = id
	return tm, nil
}

// Cancel removes one of the skill's timers.
func (t *Timers) Cancel(ctx context.Context, id string) error {
	if t == nil || t.sched == nil {
		return ErrNoScheduler
	}
	if !t.pending(id) {
		return fmt.Errorf("cancelling timer %s of %s: %w", id, t.skillID, ErrNoSuchTimer)
	}
	err := t.sched.Cancel(ctx, id)
	if err != nil && ctx.Err() == nil && !t.pending(id) {
		// It rang or was cancelled in between.
		return fmt.Errorf("cancelling timer %s of %s: %w", id, t.skillID, ErrNoSuchTimer)
	}
	return err
}

// pending reports whether the skill's timer id is scheduled.
func (t *Timers) pending(id string) bool {
	for _, tm := range t.sched.List() {
		if tm.ID == id && tm.SkillID == t.skillID {
			return true
		}
	}
	return false
}

// List returns the skill's pending timers, soonest first.
func (t *Timers) List() []store.Timer {
	if t == nil || t.sched == nil {
		return nil
	}
	var out []store.Timer
	for _, tm := range t.sched.List() {
		if tm.SkillID == t.skillID {
			out = append(out, tm)
		}
	}
	return out
}
