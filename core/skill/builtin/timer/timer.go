// Package timer is the built-in kitchen timer, a graph skill (spec/jibo.md
// §4): "set a timer" asks "For how long?" (a question MIM run by the QN
// factory, whose answer the host understands with the skill's own
// "jibo.timer/duration" rule), schedules the timer with the robot's
// persistent scheduler and confirms; when the timer is due the robot
// launches the skill on its own (PROACTIVE_LAUNCH with the timer's memo)
// and it rings: a chime and "Your five minute timer is done!", a bounded
// number of times, until it ends or the user says "stop". It also sets a
// timer in one go ("set a timer for ten seconds"), cancels timers and says
// how much time is left. ParseDuration reads spoken lengths of time.
package timer

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"time"

	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/builtin/internal/kit"
	"github.com/openjibo/jibod/core/skill/graph"
	"github.com/openjibo/jibod/core/skill/mim"
	"github.com/openjibo/jibod/core/skill/mim/factory"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/core/skill/store"
	"github.com/openjibo/jibod/jcp"
)

// ManifestID is the skill's registry id; ID is its id on the bus.
const (
	ManifestID = "jibo/timer"
	ID         = "jibo.timer"
)

// Intent names of the launch intents, as the locale names them.
// IntentChange ("make it five") matches only right after a timer was set
// (context ContextSet, CTX-11) and replaces that timer, or starts one of
// that length when that timer is gone; IntentCancelIt ("cancel it",
// "forget it") matches only then too, and cancels that timer.
const (
	IntentSet      = "set_timer"
	IntentCancel   = "cancel_timer"
	IntentTimeLeft = "time_left"
	IntentChange   = "change_timer"
	IntentCancelIt = "cancel_it"
)

// IntentStillRunning has no sentences: the robot dispatches it after a
// stop word ("cancel", "stop it") that found nothing to stop while a
// timer counts down. The timer says which timers still run and how to
// cancel them; a word that did not name a timer cancels none.
const IntentStillRunning = "still_running"

// ContextSet is the timer's context key, live for ChangeTurns utterances
// (and at most ChangeTime) after it set a timer: IntentChange and
// IntentCancelIt require it (CONTEXT-1). Its value is the id of the timer
// just set, the one they act on: kept with the session it was set in, so
// it is that session's alone and lives exactly as long as the context.
const (
	ContextSet  = "set"
	ChangeTurns = 2
	ChangeTime  = 2 * time.Minute
)

// RuleDuration is the answer rule of "For how long?": intents "duration"
// and "cancel" (no timer after all).
const RuleDuration = ID + "/duration"

// SlotDuration is the launch slot holding the length ("set a timer for
// {duration}"); SlotAmount holds a bare number of a change ("make it
// {amount}"), in the unit of the timer it replaces.
const (
	SlotDuration = "duration"
	SlotAmount   = "amount"
)

// Alarm limits.
const (
	// DefaultAlarmRepeats is how many times the alarm rings unless told
	// otherwise; MaxAlarmRepeats bounds Options.AlarmRepeats.
	DefaultAlarmRepeats = 5
	MaxAlarmRepeats     = 20
	// AlarmSound is the sound effect of each ring.
	AlarmSound = "chime"
	// AlarmDance is the little dance of the first ring: the timer is done!
	AlarmDance = "dance-small"
	// StartedNod is the nod that says a timer is set.
	StartedNod = "nod"
)

//go:embed locale rules mims
var files embed.FS

// Manifest is what the skill declares: it speaks, plays its alarm sound,
// asks how long, schedules timers and rings on its own, nods when a timer
// is set and dances (with the ring) when one is done.
func Manifest() *registry.Manifest {
	return &registry.Manifest{
		ID: ManifestID, Version: "1.1.0", Name: "Timer",
		Description: "Sets timers, says how much time is left, and rings when one is done.",
		Permissions: []registry.Permission{registry.PermSpeech, registry.PermSound, registry.PermListen,
			registry.PermProactive, registry.PermTimers, registry.PermMotion, registry.PermLED},
		Timeout:           5 * time.Second,
		SafetyLevel:       registry.SafetyModerate,
		SideEffectTags:    []string{"timer.schedule"},
		IdempotentIntents: []string{IntentTimeLeft},
	}
}

// Timers is what the skill needs of the robot's scheduler; *skill.Timers
// is one. Cancel of a timer that is gone returns an error wrapping
// skill.ErrNoSuchTimer.
type Timers interface {
	Set(ctx context.Context, d time.Duration, label string, memo json.RawMessage) (store.Timer, error)
	Cancel(ctx context.Context, id string) error
	List() []store.Timer
}

// Options configure the skill.
type Options struct {
	// Timers schedules the alarms; nil means the robot keeps no timers
	// (the skill says so when asked for one).
	Timers Timers
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Rand picks among a dialog's phrasings; nil means random.
	Rand func(n int) int
	// PromptRand picks among the question's prompts; nil means random.
	PromptRand mim.Rand
	// AlarmRepeats is how many times the alarm rings: 0 means
	// DefaultAlarmRepeats, at most MaxAlarmRepeats.
	AlarmRepeats int
	// Logger; nil means slog.Default().
	Logger *slog.Logger
}

// memo is what a timer carries to its alarm (PROACTIVE_LAUNCH
// result.memo).
type memo struct {
	// Seconds is the timer's length.
	Seconds float64 `json:"seconds"`
	// DueMS is when it was due, in Unix milliseconds; 0 in memos written
	// before it was kept (those always ring).
	DueMS int64 `json:"due_ms,omitempty"`
}

// MissedAfter is how late an alarm may ring: a timer that fell due longer
// ago than this (the robot was off) is reported once, without the chime,
// rather than rung as if it had just finished.
const MissedAfter = 10 * time.Minute

// Skill is the timer skill.
type Skill struct {
	*kit.GraphSkill
	rules   fs.FS
	timers  Timers
	now     func() time.Time
	repeats int
}

var (
	_ skill.Skill     = (*Skill)(nil)
	_ skill.RuleSkill = (*Skill)(nil)
	_ Timers          = (*skill.Timers)(nil)
)

// New builds the skill and its graph.
func New(opts Options) (*Skill, error) {
	if opts.AlarmRepeats < 0 || opts.AlarmRepeats > MaxAlarmRepeats {
		return nil, fmt.Errorf("timer skill: alarm repeats %d: want 0..%d", opts.AlarmRepeats, MaxAlarmRepeats)
	}
	s := &Skill{timers: opts.Timers, now: opts.Now, repeats: opts.AlarmRepeats}
	if s.now == nil {
		s.now = time.Now
	}
	if s.repeats == 0 {
		s.repeats = DefaultAlarmRepeats
	}
	var err error
	kopts := kit.Options{Rand: opts.Rand, Logger: opts.Logger,
		RequiredContext: map[string][]string{IntentChange: {ContextSet}, IntentCancelIt: {ContextSet}}}
	s.GraphSkill, err = kit.NewGraph(Manifest(), files, kopts, func(log *slog.Logger) (*graph.Graph, error) {
		ask, err := s.loadAsk()
		if err != nil {
			return nil, err
		}
		return s.build(ask, opts.PromptRand, log)
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// loadAsk loads the answer rules and the "For how long?" MIM, and checks
// that the MIM listens with the skill's rule.
func (s *Skill) loadAsk() (*mim.MIM, error) {
	var err error
	if s.rules, err = fs.Sub(files, "rules"); err != nil {
		return nil, err
	}
	ask, err := mim.Load(files, "mims/AskDuration.mim")
	if err != nil {
		return nil, err
	}
	if ask.RuleName != RuleDuration {
		return nil, fmt.Errorf("AskDuration.mim listens with %q, want %q", ask.RuleName, RuleDuration)
	}
	return ask, nil
}

// Rules are the skill's answer rules: "duration".
func (s *Skill) Rules() fs.FS { return s.rules }

// Transitions of the skill's own nodes.
const (
	toSet        = "Set"
	toCancel     = "Cancel"
	toTimeLeft   = "TimeLeft"
	toAlarm      = "Alarm"
	toStill      = "StillRunning"
	toValid      = "Valid"
	toMissing    = "Missing"
	toOutOfRange = "OutOfRange"
	toNeverMind  = "NeverMind"
	exitDone     = "Done"
)

// build assembles the graph. Node ids follow the order of AddNode calls
// and are stored in sessions, so new nodes go at the end.
//
//	IntentSplit --Set--> Length --Valid------> Start
//	                             --Missing----> QN MIM: AskDuration --Success--> Length
//	                             --OutOfRange-> OutOfRange          --NoMatch/NoInput--> GiveUp
//	                             --NeverMind--> NeverMind
//	IntentSplit --Cancel--> Cancel, --TimeLeft--> TimeLeft, --Alarm--> Alarm,
//	            --StillRunning--> StillRunning
func (s *Skill) build(ask *mim.MIM, promptRand mim.Rand, log *slog.Logger) (*graph.Graph, error) {
	split := graph.Func("IntentSplit", []string{toSet, toCancel, toTimeLeft, toAlarm, toStill}, nil, s.split)
	length := graph.Func("Length", []string{toValid, toMissing, toOutOfRange, toNeverMind}, nil, s.length)
	qn, err := factory.QN("AskDuration", factory.Options{MIMs: factory.MIMs(ask), Now: s.now,
		Slimmer: &mim.Slimmer{Rand: promptRand, Logger: log}})
	if err != nil {
		return nil, err
	}
	start := graph.JCP("Start", s.start, nil, exitDone).Final()
	outOfRange := s.sayNode("OutOfRange", "out_of_range")
	neverMind := s.sayNode("NeverMind", "never_mind")
	giveUp := s.sayNode("GiveUp", "give_up")
	cancel := graph.JCP("Cancel", s.cancel, nil, exitDone).Final()
	left := graph.JCP("TimeLeft", s.timeLeft, nil, exitDone).Final()
	alarm := graph.JCP("Alarm", s.alarm, nil, exitDone).Final()
	still := graph.JCP("StillRunning", s.stillRunning, nil, exitDone).Final()

	g := graph.New("timer", exitDone)
	// Errors are collected and reported by Finalize.
	_ = g.AddNode(split, graph.To(toSet, length), graph.To(toCancel, cancel), graph.To(toTimeLeft, left), graph.To(toAlarm, alarm),
		graph.To(toStill, still))
	_ = g.AddNode(length, graph.To(toValid, start), graph.To(toMissing, qn.Initial()),
		graph.To(toOutOfRange, outOfRange), graph.To(toNeverMind, neverMind))
	_ = g.AddSubGraph(qn, graph.To(factory.Success, length), graph.To(factory.NoMatch, giveUp), graph.To(factory.NoInput, giveUp))
	for _, n := range []graph.Node{start, outOfRange, neverMind, giveUp, cancel, left, alarm, still} {
		_ = g.AddNode(n, graph.ToExit(exitDone, exitDone))
	}
	if err := g.Finalize(); err != nil {
		return nil, err
	}
	return g, nil
}

// sayNode is a final node saying one dialog.
func (s *Skill) sayNode(name, dialog string) *graph.JCPNode {
	return graph.JCP(name, func(_ context.Context, d *graph.Data) (*jcp.Action, error) {
		return s.say(d, dialog, nil)
	}, nil, exitDone).Final()
}

func (s *Skill) say(d *graph.Data, dialog string, values map[string]string) (*jcp.Action, error) {
	text, err := s.Render(d.General.Lang, dialog, values)
	if err != nil {
		return nil, err
	}
	return jcp.NewAction(jcp.Say(text)), nil
}

// split routes a launch: a proactive launch is a timer ringing, a
// LISTEN_LAUNCH goes by its intent.
func (s *Skill) split(_ context.Context, d *graph.Data) (graph.ExitResult, error) {
	if d.Request.Type == protocol.TypeProactiveLaunch {
		return graph.ExitResult{Transition: toAlarm, Result: d.Result}, nil
	}
	switch in := d.NLU().IntentName(); in {
	case IntentSet, IntentChange:
		return graph.ExitResult{Transition: toSet, Result: d.Result}, nil
	case IntentCancel, IntentCancelIt:
		return graph.ExitResult{Transition: toCancel, Result: d.Result}, nil
	case IntentTimeLeft:
		return graph.ExitResult{Transition: toTimeLeft, Result: d.Result}, nil
	case IntentStillRunning:
		return graph.ExitResult{Transition: toStill, Result: d.Result}, nil
	default:
		return graph.ExitResult{}, fmt.Errorf("no intent %q", in)
	}
}

// length finds the timer's length: in the launch's duration slot, or in
// the words of the answer to "For how long?". Its result is the
// time.Duration.
func (s *Skill) length(ctx context.Context, d *graph.Data) (graph.ExitResult, error) {
	var text string
	if d.Request.Type == protocol.TypeListenUpdate {
		if d.NLU().IntentName() == graph.IntentCancel {
			return graph.ExitResult{Transition: toNeverMind}, nil
		}
		if asr := d.ASR(); asr != nil {
			text = asr.Text
		}
	} else if v, ok := d.NLU().Entities[SlotDuration].(string); ok {
		text = v
	} else if v, ok := d.NLU().Entities[SlotAmount].(string); ok {
		text = v
	}
	if text == "" {
		return graph.ExitResult{Transition: toMissing}, nil
	}
	dur, err := ParseDuration(text)
	if errors.Is(err, errBareNumber) && d.NLU().IntentName() == IntentChange {
		// "make it five" after a ten minute timer: five minutes; minutes
		// when the timer just set is gone.
		dur, err = ParseDuration(text + " " + unitOf(lengthOf(s.setLast(ctx))))
	}
	switch {
	case errors.Is(err, ErrOutOfRange):
		return graph.ExitResult{Transition: toOutOfRange}, nil
	case err != nil:
		d.Log.Debug("no timer length in the words", "text", text, "err", err)
		return graph.ExitResult{Transition: toMissing}, nil
	}
	return graph.ExitResult{Transition: toValid, Result: dur}, nil
}

// start schedules the timer and says so.
func (s *Skill) start(ctx context.Context, d *graph.Data) (*jcp.Action, error) {
	dur, ok := d.Result.(time.Duration)
	if !ok {
		return nil, fmt.Errorf("start: no timer length (got %T)", d.Result)
	}
	if s.timers == nil {
		return s.say(d, "no_timers_here", nil)
	}
	raw, err := json.Marshal(memo{Seconds: dur.Seconds(), DueMS: s.now().Add(dur).UnixMilli()})
	if err != nil {
		return nil, fmt.Errorf("start: %w", err)
	}
	// "Make it five" replaces the timer just set. When that one is gone
	// (it rang or was cancelled) the person still asked for a timer of
	// that length: it is started, and said to be started, not changed.
	changed := false
	if prev := s.setLast(ctx); d.NLU().IntentName() == IntentChange && prev.ID != "" {
		err := s.timers.Cancel(ctx, prev.ID)
		switch {
		case err == nil:
			changed = true
		case errors.Is(err, skill.ErrNoSuchTimer):
		default:
			// Starting another would leave two running where the person
			// asked for one.
			d.Log.Warn("replacing a timer: cancelling the old one failed", "id", prev.ID, "err", err)
			return s.say(d, "set_failed", nil)
		}
	}
	tm, err := s.timers.Set(ctx, dur, "", raw)
	if err != nil {
		if errors.Is(err, skill.ErrNoScheduler) {
			return s.say(d, "no_timers_here", nil)
		}
		d.Log.Warn("setting a timer failed", "length", dur, "err", err)
		return s.say(d, "set_failed", nil)
	}
	// "Make it five" and "cancel it" now mean this timer.
	id := tm.ID
	if err := skill.SetContext(ctx, skill.ContextWrite{Key: ContextSet, Value: &id, Turns: ChangeTurns, TTL: ChangeTime}); err != nil &&
		!errors.Is(err, skill.ErrNoTurn) {
		return nil, err
	}
	dialog := "started"
	if changed {
		dialog = "changed"
	}
	text, err := s.Render(d.General.Lang, dialog, map[string]string{"duration": SpokenDuration(dur)})
	if err != nil {
		return nil, err
	}
	return jcp.NewAction(jcp.Say("<anim name='" + StartedNod + "' nonBlocking='true'/>" + text)), nil
}

// setLast is the timer just set in the turn's session (the ContextSet
// entry's) while it is pending and at most ChangeTime old; the zero Timer
// once it rang or was cancelled, when it was set longer ago (a context
// kept stale), or when the context names none.
func (s *Skill) setLast(ctx context.Context) store.Timer {
	id, ok := skill.ContextValue(ctx, ContextSet)
	if !ok {
		return store.Timer{}
	}
	for _, t := range s.list() {
		if t.ID == id {
			if s.now().Sub(t.Created) > ChangeTime {
				return store.Timer{}
			}
			return t
		}
	}
	return store.Timer{}
}

// unitOf is the unit a length was said in, for a bare number that follows
// it: "hours", "minutes" or "seconds"; minutes when the length is unknown.
func unitOf(d time.Duration) string {
	h, m, s := durationParts(d)
	switch {
	case d <= 0:
		return "minutes"
	case m == 0 && s == 0 && h > 0:
		return "hours"
	case s != 0 && h == 0 && m == 0:
		return "seconds"
	}
	return "minutes"
}

// lengthOf reads a timer's length from its memo; 0 when it has none.
func lengthOf(t store.Timer) time.Duration {
	var m memo
	if len(t.Memo) == 0 || json.Unmarshal(t.Memo, &m) != nil || m.Seconds <= 0 || m.Seconds > MaxDuration.Seconds() {
		return 0
	}
	return time.Duration(m.Seconds * float64(time.Second))
}

// named renders dialog base_length ("your five minute timer"), or
// base_duration ("your timer for one hour and thirty minutes") for a
// length of several units, or base for a timer of unknown length.
func (s *Skill) named(d *graph.Data, base string, length time.Duration) (string, error) {
	lang := d.General.Lang
	if length <= 0 {
		return s.Render(lang, base, nil)
	}
	if l, ok := SpokenLength(length); ok {
		return s.Render(lang, base+"_length", map[string]string{"length": l})
	}
	return s.Render(lang, base+"_duration", map[string]string{"duration": SpokenDuration(length)})
}

// missed says that a timer of length went off late ago while the robot
// was off.
func (s *Skill) missed(d *graph.Data, length, late time.Duration) (string, error) {
	values := map[string]string{"ago": spokenAgo(late)}
	base := "missed"
	if length > 0 {
		if l, ok := SpokenLength(length); ok {
			base, values["length"] = "missed_length", l
		} else {
			base, values["duration"] = "missed_duration", SpokenDuration(length)
		}
	}
	return s.Render(d.General.Lang, base, values)
}

// spokenAgo says how long ago, as coarsely as people do: minutes within
// the hour, hours within two days, days beyond.
func spokenAgo(d time.Duration) string {
	switch {
	case d < time.Hour:
		return SpokenDuration(d.Round(time.Minute))
	case d < 48*time.Hour:
		return SpokenDuration(d.Round(time.Hour))
	}
	days := int((d + 12*time.Hour) / (24 * time.Hour))
	return NumberWords(days) + " days"
}

// list is the skill's timers, soonest first; none when the robot keeps
// no timers.
func (s *Skill) list() []store.Timer {
	if s.timers == nil {
		return nil
	}
	return s.timers.List()
}

// cancel cancels every timer of the skill, or for "cancel it" the timer
// just set.
func (s *Skill) cancel(ctx context.Context, d *graph.Data) (*jcp.Action, error) {
	if d.NLU().IntentName() == IntentCancelIt {
		// "It" is the timer just set, never another one: when that one
		// has rung already, nothing is cancelled.
		it := s.setLast(ctx)
		if it.ID == "" {
			return s.say(d, "already_done", nil)
		}
		return s.cancelTimers(ctx, d, []store.Timer{it})
	}
	list := s.list()
	if len(list) == 0 {
		return s.say(d, "no_timer", nil)
	}
	return s.cancelTimers(ctx, d, list)
}

// cancelTimers cancels the timers of list and says which.
func (s *Skill) cancelTimers(ctx context.Context, d *graph.Data, list []store.Timer) (*jcp.Action, error) {
	var errs []error
	for _, t := range list {
		// One that rang meanwhile is as good as cancelled.
		if err := s.timers.Cancel(ctx, t.ID); err != nil && !errors.Is(err, skill.ErrNoSuchTimer) {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("cancelling timers: %w", err)
	}
	if len(list) > 1 {
		return s.say(d, "cancelled_many", map[string]string{"count": NumberWords(len(list))})
	}
	text, err := s.named(d, "cancelled", lengthOf(list[0]))
	if err != nil {
		return nil, err
	}
	return jcp.NewAction(jcp.Say(text)), nil
}

// stillRunning says which timers still run after a stop word that named
// none, and how to cancel them; it cancels nothing.
func (s *Skill) stillRunning(_ context.Context, d *graph.Data) (*jcp.Action, error) {
	list := s.list()
	switch len(list) {
	case 0:
		return s.say(d, "no_timer", nil)
	case 1:
		text, err := s.named(d, "still_running", lengthOf(list[0]))
		if err != nil {
			return nil, err
		}
		return jcp.NewAction(jcp.Say(text)), nil
	}
	return s.say(d, "still_running_many", map[string]string{"count": NumberWords(len(list))})
}

// timeLeft says how long until the next timer rings.
func (s *Skill) timeLeft(_ context.Context, d *graph.Data) (*jcp.Action, error) {
	list := s.list()
	if len(list) == 0 {
		return s.say(d, "no_timer", nil)
	}
	next := list[0] // soonest first
	left := next.Due.Sub(s.now()).Round(time.Second)
	if left < time.Second {
		return s.say(d, "ringing", nil)
	}
	if len(list) > 1 {
		return s.say(d, "left_many", map[string]string{"count": NumberWords(len(list)), "left": SpokenDuration(left)})
	}
	return s.say(d, "left_one", map[string]string{"left": SpokenDuration(left)})
}

// alarm rings: the chime and the news, AlarmRepeats times, as one action
// a stop ends.
func (s *Skill) alarm(_ context.Context, d *graph.Data) (*jcp.Action, error) {
	var length time.Duration
	var due time.Time
	if raw := d.Request.Data.Result.Memo; len(raw) > 0 {
		var m memo
		if err := json.Unmarshal(raw, &m); err != nil || m.Seconds <= 0 || m.Seconds > MaxDuration.Seconds() {
			// Still ring: a timer that went off must be heard.
			d.Log.Warn("timer memo unreadable; ringing without its length", "memo", string(raw), "err", err)
		} else {
			length = time.Duration(m.Seconds * float64(time.Second))
			if m.DueMS > 0 {
				due = time.UnixMilli(m.DueMS)
			}
		}
	}
	if late := s.now().Sub(due); !due.IsZero() && late > MissedAfter {
		// The robot was off when it fell due: say so once; a chime now
		// would announce something that is long over.
		text, err := s.missed(d, length, late)
		if err != nil {
			return nil, err
		}
		return jcp.NewAction(jcp.Say(text)), nil
	}
	text, err := s.named(d, "alarm", length)
	if err != nil {
		return nil, err
	}
	rings := make([]jcp.Behavior, s.repeats)
	for i := range rings {
		ring := "<sfx name='" + AlarmSound + "'/>" + text
		if i == 0 {
			ring = "<anim name='" + AlarmDance + "' nonBlocking='true'/>" + ring
		}
		rings[i] = jcp.Say(ring)
	}
	return jcp.NewAction(jcp.Sequence(rings...)), nil
}
