package runtime

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/diag"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/builtin/basics"
	"github.com/openjibo/jibod/core/skill/builtin/capabilities"
	"github.com/openjibo/jibod/core/skill/builtin/chitchat"
	"github.com/openjibo/jibod/core/skill/builtin/clock"
	"github.com/openjibo/jibod/core/skill/builtin/fallback"
	"github.com/openjibo/jibod/core/skill/builtin/timer"
	"github.com/openjibo/jibod/core/skill/builtin/volume"
	"github.com/openjibo/jibod/core/skill/local"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/core/skill/wasm/installed"
	"github.com/openjibo/jibod/core/skill/wasm/skillpkg"
)

// SkillDeps is what the built-in skills are given. Each may be left out:
// a skill without what it needs says so when asked.
type SkillDeps struct {
	// Now is the robot's clock.
	Now func() time.Time
	// Sched keeps the timer skill's alarms.
	Sched skill.Scheduler
	// Volume is the body's master volume.
	Volume volume.Control
	// Skills lists the installed skills' manifests, for "what can you do"
	// and the fallback's questions.
	Skills func() []*registry.Manifest
	// Guesser finds what the fallback may ask about; nil: it never asks.
	Guesser fallback.Guesser
	// Offline reports the cloud hub out of reach, for the fallback.
	Offline func() bool
	// Log is the skills' logger.
	Log *slog.Logger
}

// BuiltinSkills builds the skills that ship with the robot, in the order
// they are added to the host.
func BuiltinSkills(d SkillDeps) ([]skill.Skill, error) {
	if d.Now == nil {
		d.Now = time.Now
	}
	var timers timer.Timers
	if d.Sched != nil {
		timers = skill.NewTimers(d.Sched, timer.ID, d.Now)
	}
	var out []skill.Skill
	var errs []error
	add := func(s skill.Skill, err error) {
		if err != nil {
			errs = append(errs, err)
			return
		}
		out = append(out, s)
	}
	add(basics.New(basics.Options{Logger: d.Log}))
	add(clock.New(clock.Options{Now: d.Now, Logger: d.Log}))
	add(timer.New(timer.Options{Timers: timers, Now: d.Now, Logger: d.Log}))
	add(chitchat.New(chitchat.Options{Now: d.Now, Logger: d.Log}))
	add(volume.New(volume.Options{Control: d.Volume, Logger: d.Log}))
	add(capabilities.New(capabilities.Options{Skills: d.Skills, Hidden: []string{fallback.ManifestID}, Now: d.Now, Logger: d.Log}))
	add(fallback.New(fallback.Options{Guesser: d.Guesser, Skills: d.Skills, Offline: d.Offline, Now: d.Now, Logger: d.Log}))
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("built-in skills: %w", err)
	}
	return out, nil
}

// startWasmSkills loads the skill packages installed in the state folder
// into host (package installed); later installs load through the shell's
// `skills sync`. Without a state folder nothing is installed: nil.
func startWasmSkills(ctx context.Context, host *skill.Host, stateDir string, offline bool,
	state func() protocol.RuntimeContext, now func() time.Time, trainer Trainer, log *slog.Logger) (*installed.Skills, error) {
	if !hasState(stateDir) {
		return nil, nil
	}
	// Registered on a bus of its own first: an intent the engines refuse
	// leaves that skill out, not the robot down.
	check := func(ctx context.Context, p *skillpkg.Package) error {
		return checkRegistration(ctx, p, trainer, slog.New(slog.DiscardHandler))
	}
	return installed.Open(ctx, installed.Config{StateDir: stateDir, Host: host, Check: check, Offline: offline,
		State: state, Now: now, Logger: log})
}

// CheckRegistration registers the package's intents with the robot's
// engines on a bus of their own, so a template the engines refuse is
// found before the skill joins a robot.
func CheckRegistration(ctx context.Context, p *skillpkg.Package, log *slog.Logger) error {
	return checkRegistration(ctx, p, nil, log)
}

func checkRegistration(ctx context.Context, p *skillpkg.Package, trainer Trainer, log *slog.Logger) error {
	loc, err := intent.LoadLocaleTolerant(intent.LocaleLayer{FS: p.Locale, Root: ".", Name: "locale"})
	if err != nil {
		return fmt.Errorf("not installed: %s: locale: %w", p.Dir, err)
	}
	for _, f := range loc.Refused() {
		log.Warn("locale file refused; the rest of the skill installs", "file", f.Path, "reason", strings.Join(f.Reasons, "; "))
	}
	b := bus.New(bus.Options{Logger: log})
	defer b.Close(context.Background())
	st, err := StartIntentStack(b, log, true, trainer)
	if err != nil {
		return fmt.Errorf("not installed: %s: %w", p.Dir, err)
	}
	defer st.Close()
	if _, err := intent.RegisterLocale(ctx, b, loc, p.Manifest.BusID(), 0); err != nil {
		return fmt.Errorf("not installed: %s: registering skills: %w", p.Dir, err)
	}
	if err := st.Learn(ctx); err != nil {
		log.Warn("the paraphrase tier did not learn the skills; the engines alone answer", "err", err)
	}
	return nil
}

// notLoaded lists the installed packages and local skill programs left
// out, for the shell.
func notLoaded(w *installed.Skills, ls *local.Processes) func() []diag.SkillProblem {
	return func() []diag.SkillProblem {
		var out []diag.SkillProblem
		for _, p := range w.NotLoaded() {
			out = append(out, diag.SkillProblem{ID: p.ID, Dir: p.Dir, Error: p.Error})
		}
		for _, f := range ls.Failed() {
			out = append(out, diag.SkillProblem{Dir: f.Program, Error: f.Err.Error()})
		}
		return out
	}
}

// skillSyncer is the shell's `skills sync` over the installed skills.
type skillSyncer struct{ w *installed.Skills }

func (s skillSyncer) SyncSkills(ctx context.Context, ids []string) (diag.SkillSync, error) {
	changes, err := s.w.Sync(ctx, ids...)
	out := diag.SkillSync{StateDir: s.w.StateDir()}
	for _, c := range changes {
		out.Changes = append(out.Changes, diag.SkillChange(c))
	}
	return out, err
}

// unstopped is the robot's answer to a stop word that could mean
// cancelling ("cancel", "stop it") and found nothing to stop: when no
// skill acts in the session (a ringing alarm is stopped, and that says
// enough) and a timer counts down, the stop is done as always, then the
// timer says it still runs and how to cancel it, rather than the robot
// staying silent as if it were cancelled. A word that did not name the
// timer never cancels it.
func (r *Robot) unstopped(_ context.Context, rd pipeline.Round) func(context.Context, pipeline.Dispatch) error {
	if r.host == nil || r.sched == nil || r.host.Running(rd.Session.ID()) || !r.timerPending() {
		return nil
	}
	return func(ctx context.Context, d pipeline.Dispatch) error {
		if !r.timerPending() {
			return nil
		}
		m := bus.Message{Type: d.Message.Type, Data: bus.CopyMap(d.Message.Data), Context: bus.CopyMap(d.Message.Context)}
		m.Context[bus.KeySkillID] = timer.ID
		// Quietly: the stop has been done and said; a failure here is
		// logged by the pipeline, never apologised for after it.
		_, err := r.host.InvokeQuietly(ctx, pipeline.Dispatch{Message: m, SkillID: timer.ID, IntentName: timer.IntentStillRunning,
			PipelineID: d.PipelineID, Lang: d.Lang, Utterance: d.Utterance, Slots: map[string]string{}, Session: d.Session})
		if err != nil {
			return fmt.Errorf("saying a timer still runs: %w", err)
		}
		return nil
	}
}

// timerPending reports whether a timer of the timer skill counts down.
func (r *Robot) timerPending() bool {
	for _, t := range r.sched.List() {
		if t.SkillID == timer.ID {
			return true
		}
	}
	return false
}
