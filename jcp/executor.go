package jcp

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openjibo/jibod/motion"
)

// Voice speaks plain text.
type Voice interface {
	// Say blocks until text has been spoken. When ctx is cancelled it stops
	// and returns an error wrapping ctx.Err().
	Say(ctx context.Context, text string) error
}

// Lights is the light ring, which the executor lights while speaking.
type Lights interface {
	// Pixels returns the colours shown now, one per pixel.
	Pixels() []color.RGBA
	// Set shows px, one colour per pixel.
	Set(ctx context.Context, px []color.RGBA) error
}

// Listener hears the next turn for a SLIM that asks a question.
type Listener interface {
	// Listen listens with req's contexts and returns what was heard.
	Listen(ctx context.Context, req ListenRequest) (ListenResult, error)
}

// State is the robot's social state, moved by SET_PRESENT_PERSON and
// IMPACT_EMOTION (package jcp/character has one).
type State interface {
	// SetPresentPerson makes p's person the one the robot talks to.
	SetPresentPerson(ctx context.Context, p SetPresentPerson) error
	// ImpactEmotion applies e to the robot's emotion.
	ImpactEmotion(ctx context.Context, e ImpactEmotion) error
}

// Motion moves the body; *motion.Controller is one. Jobs it returns are
// waited for with ctx, and halted (the body decelerates to rest) when ctx
// ends.
type Motion interface {
	LookAt(t motion.Target, o motion.LookOptions) (*motion.Job, error)
	Play(a *motion.Animation, o motion.PlayOptions) (*motion.Job, error)
}

// Attention knows where the person the robot talks to is, so a turn can
// start by facing them (AutoRules, Beat).
type Attention interface {
	// Listener returns where to look to face the listener; false when
	// nobody is known to be there.
	Listener() (motion.Target, bool)
}

// DisplayView is one view put on the screen by a DISPLAY.
type DisplayView struct {
	// Name identifies the view (the DISPLAY's name, or its id).
	Name string
	// Layer is 0..MaxDisplayLayer.
	Layer int
	// View is what to show.
	View View
	// Overlay is "", "dim" or "clear".
	Overlay Overlay
}

// Screen is the display device.
type Screen interface {
	// Show puts v on its layer.
	Show(ctx context.Context, v DisplayView) error
	// Hide takes the view called name off layer.
	Hide(ctx context.Context, layer int, name string) error
}

// Sounds plays the sounds ESML names: <sfx name>, <ssa name> and
// <audio path>.
type Sounds interface {
	// PlaySound plays the sound of kind ("sfx", "ssa" or "audio") called
	// name and returns when it has played. A sound it does not have is an
	// error wrapping ErrNoSound.
	PlaySound(ctx context.Context, kind, name string) error
}

// ErrNoSound is wrapped by Sounds for a sound that does not exist.
var ErrNoSound = errors.New("no such sound")

// lightsRestoreTimeout bounds putting the ring back after speech, which must
// happen even when the run's context has been cancelled.
const lightsRestoreTimeout = time.Second

// ExecutorConfig is what an Executor drives and reports to.
type ExecutorConfig struct {
	// Voice speaks PLAY behaviours. Required.
	Voice Voice
	// Lights, if set, shows SpeakingColor while a PLAY speaks and is put
	// back as it was afterwards.
	Lights Lights
	// SpeakingColor is the ring colour while speaking; nil means #00aaff,
	// a light blue.
	SpeakingColor color.Color
	// Listener, if set, listens for SLIMs with a LISTEN. When nil the listen
	// request is returned in Result.Listen for the caller to act on.
	Listener Listener
	// State, if set, performs SET_PRESENT_PERSON and IMPACT_EMOTION; when
	// nil they are reported as skipped.
	State State
	// Motion, if set, runs LOOKAT, PLAY_ANIMATION and ESML animation tags;
	// when nil they are skipped.
	Motion Motion
	// Animations is the library PLAY_ANIMATION and <anim> pick from; nil
	// means motion.Builtin().
	Animations *motion.Library
	// AutoRules, when true, moves the body with its words: every PLAY
	// gets Jibo's automatic embodied speech (see AutoRules) unless its
	// autoRuleConfig or speakOptions turn it off. It needs Motion. The
	// gestures are the runtime's, like the speaking colour: they need no
	// permission of the skill, and one the body cannot make is dropped
	// without a note.
	AutoRules bool
	// Attention, if set, says where the listener is: with AutoRules, a
	// PLAY starts by turning toward them.
	Attention Attention
	// Screen, if set, shows SLIMs' DISPLAYs; when nil they are skipped.
	Screen Screen
	// Sounds, if set, plays ESML's sounds; when nil they are noted and
	// skipped.
	Sounds Sounds
	// Preempt sets how runs share resources (TTS, MOTION, LISTEN,
	// DISPLAYn). Within one run, behaviours always take turns. Across
	// runs, false (the default) makes a newer run wait its turn; true
	// lets it take the resource, cancelling the older holder with an
	// *OverriddenError, as RCP's RESOURCES_OVERRIDDEN does.
	Preempt bool
	// Logger receives logs; nil means slog.Default().
	Logger *slog.Logger
	// Observer, if set, receives every behaviour event. Calls are
	// serialised by the Executor, so Observer need not be safe for
	// concurrent use, but it must return quickly and must not call Run.
	Observer func(Event)
}

// Executor runs JCP actions on a body. One Executor should own a body's
// devices: it arbitrates the singleton resources (TTS, MOTION, LISTEN, the
// display layers) across all of its runs. It is safe for concurrent use.
type Executor struct {
	cfg      ExecutorConfig
	speaking color.RGBA
	log      *slog.Logger
	lib      *motion.Library
	tts      *resource
	motion   *resource
	listen   *resource
	display  [MaxDisplayLayer + 1]*resource
	runs     atomic.Uint64
	inFlight atomic.Int64
	obsMu    sync.Mutex
}

// NewExecutor returns an executor for cfg.
func NewExecutor(cfg ExecutorConfig) (*Executor, error) {
	if cfg.Voice == nil {
		return nil, errors.New("new JCP executor: no Voice configured")
	}
	e := &Executor{
		cfg:      cfg,
		speaking: color.RGBA{R: 0x00, G: 0xaa, B: 0xff, A: 0xff},
		log:      cfg.Logger,
		lib:      cfg.Animations,
		tts:      newResource(ResourceTTS),
		motion:   newResource(ResourceMotion),
		listen:   newResource(ResourceListen),
	}
	for i := range e.display {
		e.display[i] = newResource(ResourceDisplay + strconv.Itoa(i))
	}
	if cfg.SpeakingColor != nil {
		e.speaking = color.RGBAModel.Convert(cfg.SpeakingColor).(color.RGBA)
	}
	if e.log == nil {
		e.log = slog.Default()
	}
	if e.lib == nil {
		lib, err := motion.Builtin()
		if err != nil {
			return nil, fmt.Errorf("new JCP executor: %w", err)
		}
		e.lib = lib
	}
	return e, nil
}

// Busy reports whether an action is running now.
func (e *Executor) Busy() bool { return e.inFlight.Load() > 0 }

// Animations returns the library animations are picked from.
func (e *Executor) Animations() *motion.Library { return e.lib }

// Run validates a and runs it, returning when every behaviour has ended.
//
// Semantics: SEQUENCE runs children in order and stops at the first
// failure. PARALLEL runs children concurrently; it fails as soon as one
// fails (cancelling the others) or, with succeedOnFirst, succeeds as soon
// as one succeeds (cancelling the others) and fails only if none succeeds.
// SLIM shows its display, speaks its PLAY (running the ESML's animation
// and sound tags where they stand in the text) with the ring lit, then
// handles its LISTEN: with a Listener it listens, without one it records
// the request; only the last listen request is returned. LOOKAT and
// PLAY_ANIMATION move the body and succeed when it is back at rest.
// Behaviours this body cannot perform are skipped, which does not fail
// their parent.
//
// Cancelling ctx stops speech, halts motion (the body decelerates to rest
// within its limits) and every running behaviour reports canceled at
// once. An invalid action returns (nil, error) and runs nothing.
// Otherwise the Result is always returned, and the error is nil exactly
// when the run succeeded.
func (e *Executor) Run(ctx context.Context, a *Action) (*Result, error) {
	return e.RunObserved(ctx, a, nil)
}

// RunObserved is Run with an extra observer for this run's events only, so a
// caller (the skill host) can tie what the body does to the request that
// asked for it. It is called after ExecutorConfig.Observer, under the same
// serialisation, and must return quickly.
func (e *Executor) RunObserved(ctx context.Context, a *Action, observe func(Event)) (*Result, error) {
	if err := a.Validate(); err != nil {
		return nil, fmt.Errorf("run JCP action: %w", err)
	}
	e.inFlight.Add(1)
	defer e.inFlight.Add(-1)
	r := &run{ex: e, id: e.runs.Add(1), obs: observe, res: &Result{Behaviors: []BehaviorResult{}}}
	st, err := r.exec(ctx, a.Behavior)
	r.res.Status = st
	if st == StatusSkipped {
		r.res.Status = StatusSucceeded
	}
	if err != nil {
		r.res.Error = err.Error()
		return r.res, fmt.Errorf("run JCP action: %w", err)
	}
	return r.res, nil
}

// run is the state of one Run.
type run struct {
	ex  *Executor
	id  uint64
	obs func(Event) // per-run observer; may be nil
	mu  sync.Mutex  // guards res and spoke
	res *Result
	// spoke is set by the run's first PLAY: the turn has started.
	spoke bool
}

// turnStarts reports whether this is the run's first PLAY, the one that
// starts the robot's turn, and marks the turn started.
func (r *run) turnStarts() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	first := !r.spoke
	r.spoke = true
	return first
}

// skip is returned by a behaviour this body cannot perform.
type skip string

func (s skip) Error() string { return "skipped: " + string(s) }

// step runs body as behaviour b under its own context (so that a resource
// can be taken from it), recording its start and end and reporting them.
// It returns the behaviour's status, and an error unless it succeeded or
// was skipped.
func (r *run) step(ctx context.Context, b Behavior, body func(ctx context.Context, cancel context.CancelCauseFunc) error) (Status, error) {
	bctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	i := r.begin(b)
	err := body(bctx, cancel)
	var st Status
	var note string
	var s skip
	switch {
	case err == nil:
		st = StatusSucceeded
	case errors.As(err, &s):
		st, note, err = StatusSkipped, string(s), nil
	case bctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		st = StatusCanceled
		if cause := context.Cause(bctx); cause != nil && !errors.Is(err, cause) {
			err = fmt.Errorf("%w (%w)", err, cause)
		}
	default:
		st = StatusFailed
	}
	r.end(i, st, err, note)
	return st, err
}

func (r *run) begin(b Behavior) int {
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.res.Behaviors = append(r.res.Behaviors, BehaviorResult{
		ID: b.BehaviorID(), Type: b.BehaviorType(), Start: now,
	})
	r.emit(Event{Time: now, BehaviorID: b.BehaviorID(), Type: b.BehaviorType(), Kind: EventStarted})
	r.ex.log.Debug("jcp: behaviour started", "id", b.BehaviorID(), "type", b.BehaviorType())
	return len(r.res.Behaviors) - 1
}

func (r *run) end(i int, st Status, err error, note string) {
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	br := &r.res.Behaviors[i]
	br.Status, br.End = st, now
	if note != "" {
		br.Note = joinNote(br.Note, note)
	}
	if err != nil {
		br.Error = err.Error()
	}
	r.emit(Event{Time: now, BehaviorID: br.ID, Type: br.Type, Kind: EventKind(st), Error: br.Error, Note: br.Note})
	r.ex.log.Debug("jcp: behaviour ended", "id", br.ID, "type", br.Type, "status", st, "error", br.Error, "note", br.Note)
}

// note adds a remark to behaviour b's result (the last one with its id).
func (r *run) note(b Behavior, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.res.Behaviors) - 1; i >= 0; i-- {
		if br := &r.res.Behaviors[i]; br.ID == b.BehaviorID() {
			br.Note = joinNote(br.Note, text)
			break
		}
	}
	r.emit(Event{Time: time.Now(), BehaviorID: b.BehaviorID(), Type: b.BehaviorType(), Kind: EventNote, Note: text})
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// event reports a progress event of behaviour b.
func (r *run) event(b Behavior, kind EventKind, note string) {
	r.emit(Event{Time: time.Now(), BehaviorID: b.BehaviorID(), Type: b.BehaviorType(), Kind: kind, Note: note})
}

func (r *run) emit(ev Event) {
	if r.ex.cfg.Observer == nil && r.obs == nil {
		return
	}
	r.ex.obsMu.Lock()
	defer r.ex.obsMu.Unlock()
	if r.ex.cfg.Observer != nil {
		r.ex.cfg.Observer(ev)
	}
	if r.obs != nil {
		r.obs(ev)
	}
}

// exec runs any behaviour that Validate accepts at the top of a tree or
// inside SEQUENCE and PARALLEL.
func (r *run) exec(ctx context.Context, b Behavior) (Status, error) {
	return r.step(ctx, b, func(ctx context.Context, cancel context.CancelCauseFunc) error {
		switch b := b.(type) {
		case *SLIM:
			return r.slim(ctx, b)
		case *SequenceBehavior:
			return r.sequence(ctx, b)
		case *ParallelBehavior:
			return r.parallel(ctx, b)
		case *SetPresentPerson:
			if r.ex.cfg.State == nil {
				return skip("no state configured")
			}
			return r.ex.cfg.State.SetPresentPerson(ctx, *b)
		case *ImpactEmotion:
			if r.ex.cfg.State == nil {
				return skip("no state configured")
			}
			return r.ex.cfg.State.ImpactEmotion(ctx, *b)
		case *LookAt:
			return r.lookAt(ctx, cancel, b)
		case *PlayAnimation:
			return r.playAnimation(ctx, cancel, b)
		}
		// Validate rejects everything else; reaching here is a bug.
		return fmt.Errorf("behaviour type %s cannot run here", b.BehaviorType())
	})
}

func (r *run) sequence(ctx context.Context, s *SequenceBehavior) error {
	for _, c := range s.Children {
		if err := ctx.Err(); err != nil {
			return err
		}
		if _, err := r.exec(ctx, c); err != nil {
			return fmt.Errorf("%s %s: %w", c.BehaviorType(), c.BehaviorID(), err)
		}
	}
	return nil
}

func (r *run) parallel(ctx context.Context, p *ParallelBehavior) error {
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type outcome struct {
		child Behavior
		st    Status
		err   error
	}
	done := make(chan outcome, len(p.Children))
	var wg sync.WaitGroup
	for _, c := range p.Children {
		wg.Go(func() {
			st, err := r.exec(cctx, c)
			done <- outcome{c, st, err}
		})
	}
	// The children are always waited for, whatever ends the PARALLEL.
	defer wg.Wait()

	var firstErr error
	won := false
	for range p.Children {
		o := <-done
		switch {
		case o.st == StatusSucceeded && p.SucceedOnFirst && !won:
			won = true
			cancel()
		case o.err != nil && !won && firstErr == nil:
			firstErr = fmt.Errorf("%s %s: %w", o.child.BehaviorType(), o.child.BehaviorID(), o.err)
			if !p.SucceedOnFirst {
				cancel()
			}
		}
	}
	if won {
		return nil
	}
	return firstErr
}

func (r *run) slim(ctx context.Context, s *SLIM) error {
	displayFirst := s.Options == nil || s.Options.DisplayMode != DisplayStartOnListen
	var shown *shownView
	defer func() { r.hide(shown) }()
	if s.Display != nil && displayFirst {
		shown = r.display(ctx, s.Display)
	}
	if s.Play != nil {
		if _, err := r.step(ctx, s.Play, func(ctx context.Context, cancel context.CancelCauseFunc) error {
			return r.play(ctx, cancel, s.Play)
		}); err != nil {
			return fmt.Errorf("play: %w", err)
		}
	}
	if s.Display != nil && !displayFirst {
		shown = r.display(ctx, s.Display)
	}
	if s.Listen != nil {
		if _, err := r.step(ctx, s.Listen, func(ctx context.Context, cancel context.CancelCauseFunc) error {
			return r.listenFor(ctx, cancel, s.ID, s.Listen)
		}); err != nil {
			return fmt.Errorf("listen: %w", err)
		}
	}
	return nil
}

// shownView is a DISPLAY on the screen, held until its SLIM ends.
type shownView struct {
	v       DisplayView
	keep    bool
	release func()
}

// display runs a SLIM's DISPLAY: it takes the layer and shows the view,
// which stays until the SLIM ends (and after, with keepDisplay). A display
// that fails does not fail the SLIM: the words matter more.
func (r *run) display(ctx context.Context, d *Display) *shownView {
	var shown *shownView
	_, _ = r.step(ctx, d, func(ctx context.Context, cancel context.CancelCauseFunc) error {
		dev := r.ex.cfg.Screen
		if dev == nil {
			return skip("no display device")
		}
		if d.Visible != nil && !*d.Visible {
			return skip("not visible")
		}
		view, err := ParseView(d.View)
		if err != nil {
			return fmt.Errorf("view: %w", err)
		}
		layer := 0
		if d.Layer != nil {
			layer = *d.Layer
		}
		name := d.Name
		if name == "" {
			name = d.ID
		}
		release, err := r.ex.display[layer].acquire(ctx, r, d, cancel, r.ex.cfg.Preempt)
		if err != nil {
			return err
		}
		v := DisplayView{Name: name, Layer: layer, View: view, Overlay: d.Overlay}
		if err := dev.Show(ctx, v); err != nil {
			release()
			return fmt.Errorf("show: %w", err)
		}
		shown = &shownView{v: v, keep: d.KeepDisplay != nil && *d.KeepDisplay, release: release}
		return nil
	})
	return shown
}

// hide ends a SLIM's display: the view goes unless it was to be kept, and
// the layer is free again.
func (r *run) hide(s *shownView) {
	if s == nil {
		return
	}
	defer s.release()
	if s.keep {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), lightsRestoreTimeout)
	defer cancel()
	if err := r.ex.cfg.Screen.Hide(ctx, s.v.Layer, s.v.Name); err != nil {
		r.ex.log.Warn("jcp: hide display", "name", s.v.Name, "error", err)
	}
}

// cueLights shows the speaking colour and returns how to put the ring back.
// The ring is a cue, not the point: failures are logged, never fatal.
func (e *Executor) cueLights(ctx context.Context) (restore func()) {
	l := e.cfg.Lights
	if l == nil {
		return func() {}
	}
	before := l.Pixels()
	if len(before) == 0 {
		return func() {}
	}
	cue := make([]color.RGBA, len(before))
	for i := range cue {
		cue[i] = e.speaking
	}
	if err := l.Set(ctx, cue); err != nil {
		e.log.Warn("jcp: light ring speaking cue", "error", err)
		return func() {}
	}
	return func() {
		// Put the ring back even when the run was cancelled.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lightsRestoreTimeout)
		defer cancel()
		if err := l.Set(rctx, before); err != nil {
			e.log.Warn("jcp: restore light ring after speech", "error", err)
		}
	}
}

func (r *run) listenFor(ctx context.Context, cancel context.CancelCauseFunc, slimID string, l *Listen) error {
	req := ListenRequest{
		SLIMID:     slimID,
		BehaviorID: l.ID,
		Contexts:   append([]string(nil), l.Contexts...),
		Intents:    l.Intents,
	}
	if li := r.ex.cfg.Listener; li != nil {
		release, err := r.ex.listen.acquire(ctx, r, l, cancel, r.ex.cfg.Preempt)
		if err != nil {
			return err
		}
		heard, err := li.Listen(ctx, req)
		release()
		if err != nil {
			return err
		}
		req.Heard = &heard
	}
	r.mu.Lock()
	r.res.Listen = &req
	r.mu.Unlock()
	return nil
}

// sleep waits for d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
