package jcp

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"log/slog"
	"sync"
	"time"
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
// IMPACT_EMOTION.
type State interface {
	// SetPresentPerson makes p's person the one the robot talks to.
	SetPresentPerson(ctx context.Context, p SetPresentPerson) error
	// ImpactEmotion applies e to the robot's emotion.
	ImpactEmotion(ctx context.Context, e ImpactEmotion) error
}

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
	// Logger receives logs; nil means slog.Default().
	Logger *slog.Logger
	// Observer, if set, receives every behaviour event. Calls are
	// serialised by the Executor, so Observer need not be safe for
	// concurrent use, but it must return quickly and must not call Run.
	Observer func(Event)
}

// Executor runs JCP actions on a body. One Executor should own a body's
// devices: it arbitrates the speech (TTS) and LISTEN resources across all
// of its runs, so concurrent runs take turns to speak rather than talk over
// each other. It is safe for concurrent use.
type Executor struct {
	cfg      ExecutorConfig
	speaking color.RGBA
	log      *slog.Logger
	tts      resource
	listen   resource
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
		tts:      newResource("TTS"),
		listen:   newResource("LISTEN"),
	}
	if cfg.SpeakingColor != nil {
		e.speaking = color.RGBAModel.Convert(cfg.SpeakingColor).(color.RGBA)
	}
	if e.log == nil {
		e.log = slog.Default()
	}
	return e, nil
}

// resource is a singleton the robot has one of (RCP's TTS, LISTEN): one
// holder at a time, waiting honours the context so a loser never deadlocks.
type resource struct {
	name string
	held chan struct{}
}

func newResource(name string) resource {
	return resource{name: name, held: make(chan struct{}, 1)}
}

// acquire waits for the resource; release it with the returned function.
func (r resource) acquire(ctx context.Context) (func(), error) {
	select {
	case r.held <- struct{}{}:
		return func() { <-r.held }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("wait for %s: %w", r.name, ctx.Err())
	}
}

// Run validates a and runs it, returning when every behaviour has ended.
//
// Semantics: SEQUENCE runs children in order and stops at the first
// failure. PARALLEL runs children concurrently; it fails as soon as one
// fails (cancelling the others) or, with succeedOnFirst, succeeds as soon
// as one succeeds (cancelling the others) and fails only if none succeeds.
// SLIM shows its display (skipped: no display device), speaks its PLAY with
// the ring lit, then handles its LISTEN: with a Listener it listens, without
// one it records the request; only the last listen request is returned.
//
// Cancelling ctx stops speech and every running behaviour reports
// canceled. An invalid action returns (nil, error) and runs nothing.
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
	r := &run{ex: e, obs: observe, res: &Result{Behaviors: []BehaviorResult{}}}
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
	obs func(Event) // per-run observer; may be nil
	mu  sync.Mutex  // guards res
	res *Result
}

// skip is returned by a behaviour this body cannot perform.
type skip string

func (s skip) Error() string { return "skipped: " + string(s) }

// step runs body as behaviour b, recording its start and end and reporting
// them. It returns the behaviour's status, and an error unless it
// succeeded or was skipped.
func (r *run) step(ctx context.Context, b Behavior, body func(context.Context) error) (Status, error) {
	i := r.begin(b)
	err := body(ctx)
	var st Status
	var note string
	var s skip
	switch {
	case err == nil:
		st = StatusSucceeded
	case errors.As(err, &s):
		st, note, err = StatusSkipped, string(s), nil
	case ctx.Err() != nil:
		st = StatusCanceled
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
	br.Status, br.End, br.Note = st, now, note
	if err != nil {
		br.Error = err.Error()
	}
	r.emit(Event{Time: now, BehaviorID: br.ID, Type: br.Type, Kind: EventKind(st), Error: br.Error, Note: note})
	r.ex.log.Debug("jcp: behaviour ended", "id", br.ID, "type", br.Type, "status", st, "error", br.Error, "note", note)
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
	return r.step(ctx, b, func(ctx context.Context) error {
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
	if s.Display != nil && displayFirst {
		r.display(ctx, s.Display)
	}
	if s.Play != nil {
		if _, err := r.step(ctx, s.Play, func(ctx context.Context) error { return r.play(ctx, s.Play) }); err != nil {
			return fmt.Errorf("play: %w", err)
		}
	}
	if s.Display != nil && !displayFirst {
		r.display(ctx, s.Display)
	}
	if s.Listen != nil {
		if _, err := r.step(ctx, s.Listen, func(ctx context.Context) error { return r.listenFor(ctx, s.ID, s.Listen) }); err != nil {
			return fmt.Errorf("listen: %w", err)
		}
	}
	return nil
}

func (r *run) display(ctx context.Context, d *Display) {
	_, _ = r.step(ctx, d, func(context.Context) error { return skip("no display device") })
}

func (r *run) play(ctx context.Context, p *Play) error {
	doc, err := ParseESML(p.ESML)
	if err != nil {
		return fmt.Errorf("parse ESML: %w", err)
	}
	release, err := r.ex.tts.acquire(ctx)
	if err != nil {
		return err
	}
	defer release()
	restore := r.ex.cueLights(ctx)
	defer restore()
	if doc.Text != "" {
		r.emit(Event{Time: time.Now(), BehaviorID: p.ID, Type: TypePlay, Kind: EventSpeaking, Text: doc.Text})
	}

	for _, seg := range doc.Segments() {
		if seg.Text != "" {
			if err := r.ex.cfg.Voice.Say(ctx, seg.Text); err != nil {
				return fmt.Errorf("say: %w", err)
			}
		}
		if seg.Pause > 0 {
			if err := sleep(ctx, seg.Pause); err != nil {
				return fmt.Errorf("pause: %w", err)
			}
		}
	}
	if doc.Text != "" {
		r.mu.Lock()
		r.res.Spoken = append(r.res.Spoken, doc.Text)
		r.mu.Unlock()
	}
	return nil
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

func (r *run) listenFor(ctx context.Context, slimID string, l *Listen) error {
	req := ListenRequest{
		SLIMID:     slimID,
		BehaviorID: l.ID,
		Contexts:   append([]string(nil), l.Contexts...),
		Intents:    l.Intents,
	}
	if li := r.ex.cfg.Listener; li != nil {
		release, err := r.ex.listen.acquire(ctx)
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
