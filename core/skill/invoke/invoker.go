package invoke

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/jcp"
)

// Handler answers one skill request. It must honour ctx and must not
// modify req (a retry sends the same request again).
type Handler func(ctx context.Context, req *protocol.Request) (*protocol.Response, error)

// CheckedHandler is a Handler whose answer comes checked: validated once
// where it was made (base.Skill, a decoder of the wire), so the invoker
// takes it as it is.
type CheckedHandler func(ctx context.Context, req *protocol.Request) (*protocol.CheckedResponse, error)

// Checking makes h a CheckedHandler by validating its answer, the one time
// it is: an invalid answer is an error wrapping ErrInvalidResponse, no
// answer stays none.
func Checking(h Handler) CheckedHandler {
	return func(ctx context.Context, req *protocol.Request) (*protocol.CheckedResponse, error) {
		resp, err := h(ctx, req)
		if err != nil || resp == nil {
			return nil, err
		}
		c, err := protocol.CheckResponse(resp)
		if err != nil {
			return nil, &invalidAnswer{err}
		}
		return c, nil
	}
}

// invalidAnswer is an answer Checking found invalid.
type invalidAnswer struct{ err error }

func (e *invalidAnswer) Error() string   { return ErrInvalidResponse.Error() + ": " + e.err.Error() }
func (e *invalidAnswer) Unwrap() []error { return []error{ErrInvalidResponse, e.err} }

// Defaults and bounds of Config.
const (
	DefaultMaxAttempts  = 3
	MaxMaxAttempts      = 5
	DefaultBackoff      = 200 * time.Millisecond
	DefaultMaxBackoff   = 2 * time.Second
	MaxBackoffLimit     = 30 * time.Second
	DefaultMaxAbandoned = 32
)

// Config configures an Invoker.
type Config struct {
	// Recorder takes one Record per call; required. Tee a Log and a
	// FileLog to keep both.
	Recorder Recorder
	// Gate checks each SKILL_ACTION's action against the manifest. Give
	// it the robot's animation library.
	Gate registry.Gate
	// Logger logs panics (with their stack) and late answers; nil means
	// slog.Default().
	Logger *slog.Logger
	// MaxAttempts bounds the calls of one idempotent request:
	// 1..MaxMaxAttempts, 0 means DefaultMaxAttempts.
	MaxAttempts int
	// Backoff is the wait before the first retry, doubled before each
	// next one up to MaxBackoff; 0 means DefaultBackoff and
	// DefaultMaxBackoff. No jitter: one robot has no herd to spread.
	Backoff, MaxBackoff time.Duration
	// MaxAbandoned bounds the calls still running after their timeout
	// (handlers that ignore their context); beyond it calls are refused
	// until some end. 0 means DefaultMaxAbandoned.
	MaxAbandoned int
	// Unmetered lifts calls_per_minute: for a hub's load test, where one
	// simulated robot calls a skill far more often than a person would.
	Unmetered bool
}

// Errors an Invoker's calls wrap, besides the handler's own errors,
// registry.ErrDenied and the context's.
var (
	// ErrTimeout: the skill did not answer within its timeout.
	ErrTimeout = errors.New("timed out")
	// ErrPanic: the skill panicked.
	ErrPanic = errors.New("panicked")
	// ErrInvalidResponse: no response, an invalid one, or an invalid
	// action.
	ErrInvalidResponse = errors.New("invalid response")
	// ErrOverloaded: too many calls are still running past their timeout.
	ErrOverloaded = errors.New("too many calls still running past their timeout")
	// ErrClosed: the invoker is closed.
	ErrClosed = errors.New("invoker closed")
)

// Error is a failed call: which skill, how it ended, and why. Unwrap
// gives the cause (ErrTimeout, ErrPanic, ErrInvalidResponse, a
// *registry.DeniedError, the handler's error, the context's).
type Error struct {
	// Skill is the manifest id.
	Skill string
	// Outcome is how the call ended.
	Outcome Outcome
	// Err is the cause; its text names the skill.
	Err error
}

// Error returns the cause's text, which names the skill.
func (e *Error) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// OutcomeOf returns the outcome an error of Call reports: OutcomeOK for
// nil, OutcomeFailed for an error that is not an *Error.
func OutcomeOf(err error) Outcome {
	if err == nil {
		return OutcomeOK
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Outcome
	}
	return OutcomeFailed
}

// Reply is what a call produced.
type Reply struct {
	// Response is the skill's valid answer; nil when the call failed.
	Response *protocol.Response
	// Action is a SKILL_ACTION's JCP action, parsed, checked and
	// permitted once here: the body runs it as it is
	// (jcp.Executor.RunChecked). Nil for any other answer or a null
	// action (the skill is done).
	Action *jcp.Checked
	// Record is the call's record, as given to the Recorder; always set.
	Record Record
}

// Invoker calls skills for the host: within the manifest's timeout, with
// panics contained, the answer validated and its action checked against
// the manifest, idempotent intents retried on transient failures, and one
// Record per call. It is safe for concurrent use.
type Invoker struct {
	cfg Config
	log *slog.Logger

	wg        sync.WaitGroup // every handler goroutine
	abandoned atomic.Int64   // handler goroutines still running past their timeout
	closed    atomic.Bool

	rateMu sync.Mutex
	rates  map[string]*window
}

// New returns an invoker.
func New(cfg Config) (*Invoker, error) {
	if cfg.Recorder == nil {
		return nil, errors.New("skill invoker: no recorder")
	}
	switch {
	case cfg.MaxAttempts == 0:
		cfg.MaxAttempts = DefaultMaxAttempts
	case cfg.MaxAttempts < 1 || cfg.MaxAttempts > MaxMaxAttempts:
		return nil, fmt.Errorf("skill invoker: max attempts %d is outside 1..%d", cfg.MaxAttempts, MaxMaxAttempts)
	}
	if cfg.Backoff == 0 {
		cfg.Backoff = DefaultBackoff
	}
	if cfg.MaxBackoff == 0 {
		cfg.MaxBackoff = max(DefaultMaxBackoff, cfg.Backoff)
	}
	if cfg.Backoff < 0 || cfg.MaxBackoff < cfg.Backoff || cfg.MaxBackoff > MaxBackoffLimit {
		return nil, fmt.Errorf("skill invoker: backoff %s up to %s: want 0 < backoff ≤ max backoff ≤ %s",
			cfg.Backoff, cfg.MaxBackoff, MaxBackoffLimit)
	}
	switch {
	case cfg.MaxAbandoned == 0:
		cfg.MaxAbandoned = DefaultMaxAbandoned
	case cfg.MaxAbandoned < 0:
		return nil, fmt.Errorf("skill invoker: max abandoned %d is negative", cfg.MaxAbandoned)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Invoker{cfg: cfg, log: log.With("component", "skill-invoker"), rates: map[string]*window{}}, nil
}

// Close refuses new calls and waits, bounded by ctx, for every handler
// still running (including abandoned ones) to return.
func (iv *Invoker) Close(ctx context.Context) error {
	iv.closed.Store(true)
	done := make(chan struct{})
	go func() { // ends when the handlers do; Close waits for it or ctx
		iv.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("closing skill invoker: %d calls still running: %w", iv.abandoned.Load(), context.Cause(ctx))
	}
}

// Call sends req to the skill m through h and returns its checked answer:
// CallChecked with Checking(h).
func (iv *Invoker) Call(ctx context.Context, m *registry.Manifest, h Handler, req *protocol.Request) (Reply, error) {
	if h == nil {
		return Reply{}, errors.New("skill invoker: call needs a manifest, a handler and a request")
	}
	return iv.CallChecked(ctx, m, Checking(h), req)
}

// CallChecked sends req to the skill m through h and returns its answer,
// which h checked.
//
// Before calling: a PROACTIVE_LAUNCH needs the proactive permission, and
// the skill's calls_per_minute must not be spent (both: OutcomeDenied).
// Each attempt gets the manifest's timeout. A LISTEN_LAUNCH or
// LISTEN_UPDATE whose NLU intent the manifest declares idempotent is
// retried after a timeout or a handler error, up to Config.MaxAttempts,
// with backoff; nothing else is retried (an ERROR answer, an invalid one,
// a panic, a refusal). An ERROR answer is returned with a nil error and
// OutcomeErrorResponse: the host reports it. A SKILL_ACTION's action is
// parsed and checked with the Gate: an invalid action is OutcomeInvalid, a
// forbidden one OutcomeDenied, and then nothing of it is returned. A
// handler error wrapping registry.ErrDenied (a sandboxed skill's refused
// host call) is OutcomeDenied, one wrapping ErrInvalidResponse (an answer
// that does not decode) OutcomeInvalid.
//
// Every call, whatever its outcome, gives one Record to the Recorder and
// returns it in Reply.Record. An error is an *Error.
func (iv *Invoker) CallChecked(ctx context.Context, m *registry.Manifest, h CheckedHandler, req *protocol.Request) (Reply, error) {
	if m == nil || h == nil || req == nil {
		return Reply{}, errors.New("skill invoker: call needs a manifest, a handler and a request")
	}
	start := time.Now()
	rec := NewRecord(m, req, start)
	resp, action, attempts, err := iv.call(ctx, m, h, req)
	rec.Attempts = attempts
	rec.Duration = time.Since(start)
	rec.Outcome = OutcomeOf(err)
	if resp != nil {
		rec.ResponseType = clip(resp.Type, MaxRecordField)
		if err == nil && resp.Type == protocol.TypeError {
			rec.Outcome = OutcomeErrorResponse
			rec.Error = clip(resp.Error.Message, MaxRecordError)
		}
	}
	if err != nil {
		rec.Error = clip(err.Error(), MaxRecordError)
		resp, action = nil, nil
	}
	iv.cfg.Recorder.Record(rec)
	return Reply{Response: resp, Action: action, Record: rec}, err
}

func (iv *Invoker) call(ctx context.Context, m *registry.Manifest, h CheckedHandler, req *protocol.Request) (
	resp *protocol.Response, action *jcp.Checked, attempts int, err error) {
	id := m.ID
	fail := func(o Outcome, err error) error { return &Error{Skill: id, Outcome: o, Err: err} }
	if iv.closed.Load() {
		return nil, nil, 0, fail(OutcomeFailed, fmt.Errorf("skill %s: %w", id, ErrClosed))
	}
	if req.Type == protocol.TypeProactiveLaunch {
		if err := registry.Require(m, registry.PermProactive, "a PROACTIVE_LAUNCH starts the skill without being asked"); err != nil {
			return nil, nil, 0, fail(OutcomeDenied, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, 0, fail(OutcomeCancelled, fmt.Errorf("skill %s: call cancelled: %w", id, context.Cause(ctx)))
	}
	if err := iv.admit(m, time.Now()); err != nil {
		return nil, nil, 0, fail(OutcomeDenied, err)
	}

	maxAttempts := 1
	if req.Type == protocol.TypeListenLaunch || req.Type == protocol.TypeListenUpdate {
		if m.Idempotent(intentOf(req)) {
			maxAttempts = iv.cfg.MaxAttempts
		}
	}
	timeout := m.EffectiveTimeout()
	backoff := iv.cfg.Backoff
	for attempts = 1; ; attempts++ {
		var o Outcome
		var c *protocol.CheckedResponse
		c, o, err = iv.attempt(ctx, id, timeout, h, req)
		resp = c.Response()
		if err == nil {
			break
		}
		transient := o == OutcomeTimeout || o == OutcomeFailed
		if !transient || attempts >= maxAttempts || ctx.Err() != nil || errors.Is(err, ErrOverloaded) {
			if maxAttempts > 1 && transient {
				err = fmt.Errorf("%w (after %d attempts)", err, attempts)
			}
			return nil, nil, attempts, fail(o, err)
		}
		iv.log.Info("retrying idempotent skill call", "skill", id, "intent", intentOf(req), "attempt", attempts, "err", err)
		t := time.NewTimer(backoff)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, nil, attempts, fail(OutcomeCancelled,
				fmt.Errorf("skill %s: call cancelled while waiting to retry (%w): %w", id, err, context.Cause(ctx)))
		}
		backoff = min(2*backoff, iv.cfg.MaxBackoff)
	}

	if resp.Type == protocol.TypeSkillAction {
		action, err = iv.checkAction(m, resp.Action.Action)
		if err != nil {
			return resp, nil, attempts, err
		}
	}
	return resp, action, attempts, nil
}

// checkAction parses and validates a SKILL_ACTION's action, the one time
// it is, and checks it against m.
func (iv *Invoker) checkAction(m *registry.Manifest, raw []byte) (*jcp.Checked, error) {
	if isNull(raw) {
		return nil, nil
	}
	a, err := jcp.ParseChecked(raw)
	if err != nil {
		return nil, &Error{Skill: m.ID, Outcome: OutcomeInvalid,
			Err: fmt.Errorf("skill %s: %w: data.action: %w", m.ID, ErrInvalidResponse, err)}
	}
	if err := iv.cfg.Gate.CheckSized(m, a, len(raw)); err != nil {
		if errors.Is(err, registry.ErrDenied) {
			return nil, &Error{Skill: m.ID, Outcome: OutcomeDenied, Err: err}
		}
		return nil, &Error{Skill: m.ID, Outcome: OutcomeInvalid,
			Err: fmt.Errorf("skill %s: %w: data.action: %w", m.ID, ErrInvalidResponse, err)}
	}
	return a, nil
}

// isNull reports whether a raw action is absent or null: the skill is done.
func isNull(raw []byte) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// result is what a handler goroutine hands back.
type result struct {
	resp  *protocol.CheckedResponse
	err   error
	panic any
}

// Call states, for handing a late handler's goroutine over to the invoker.
const (
	running int32 = iota
	finished
	abandoned
)

// attempt makes one call in a goroutine of its own, so a handler that
// ignores its context cannot hold the caller past the timeout: at the
// deadline (counted from when the handler was ready, when it Prepares;
// Prepare's limit before) the call is abandoned (counted until it
// returns, its answer dropped) and the caller goes on.
func (iv *Invoker) attempt(ctx context.Context, id string, timeout time.Duration, h CheckedHandler, req *protocol.Request) (
	*protocol.CheckedResponse, Outcome, error) {
	if n := iv.abandoned.Load(); n >= int64(iv.cfg.MaxAbandoned) {
		return nil, OutcomeFailed, fmt.Errorf("skill %s: %w (%d)", id, ErrOverloaded, n)
	}
	clk := newClock(ctx, timeout)
	defer clk.stop()
	cctx, _, _ := clk.current()
	done := make(chan result, 1)
	var state atomic.Int32
	iv.wg.Add(1)
	go func() {
		defer iv.wg.Done()
		var r result
		func() {
			defer func() {
				if p := recover(); p != nil {
					iv.log.Error("skill panicked", "skill", id, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
					r = result{panic: p}
				}
			}()
			r.resp, r.err = h(cctx, req)
		}()
		done <- r
		if !state.CompareAndSwap(running, finished) {
			iv.abandoned.Add(-1)
			iv.log.Warn("skill answered after its timeout; answer dropped", "skill", id)
		}
	}()

	var r result
	// late says what ran out: the skill's timeout, or the limit of its
	// getting ready (Prepare).
	late := func(preparing bool, limit time.Duration) string {
		if preparing {
			return fmt.Sprintf("not ready to answer within %s", limit)
		}
		return fmt.Sprintf("no answer within %s", limit)
	}
wait:
	for {
		phase, preparing, limit := clk.current()
		select {
		case r = <-done:
			break wait
		case <-clk.changed:
		case <-phase.Done():
			if p, _, _ := clk.current(); p != phase {
				continue // the handler moved on to its next phase just now
			}
			iv.abandoned.Add(1)
			if state.CompareAndSwap(running, abandoned) {
				if ctx.Err() != nil {
					return nil, OutcomeCancelled, fmt.Errorf("skill %s: call cancelled: %w", id, context.Cause(ctx))
				}
				return nil, OutcomeTimeout, fmt.Errorf("skill %s: %w: %s", id, ErrTimeout, late(preparing, limit))
			}
			iv.abandoned.Add(-1) // it finished just now after all
			r = <-done
			break wait
		}
	}
	phase, preparing, limit := clk.current()
	switch {
	case r.panic != nil:
		return nil, OutcomePanic, fmt.Errorf("skill %s: %w: %v", id, ErrPanic, r.panic)
	case errors.As(r.err, new(*invalidAnswer)):
		return nil, OutcomeInvalid, fmt.Errorf("skill %s: %w", id, r.err)
	case r.err != nil && ctx.Err() != nil:
		return nil, OutcomeCancelled, fmt.Errorf("skill %s: call cancelled: %w", id, r.err)
	case r.err != nil && errors.Is(phase.Err(), context.DeadlineExceeded):
		return nil, OutcomeTimeout, fmt.Errorf("skill %s: %w: %s: %w", id, ErrTimeout, late(preparing, limit), r.err)
	// A handler that is a sandbox (a Wasm module) reports what its guest
	// did: a refused host call, an answer that does not decode.
	case errors.Is(r.err, registry.ErrDenied):
		return nil, OutcomeDenied, r.err // a *registry.DeniedError names the skill
	case errors.Is(r.err, ErrInvalidResponse):
		return nil, OutcomeInvalid, fmt.Errorf("skill %s: %w", id, r.err)
	case r.err != nil:
		return nil, OutcomeFailed, fmt.Errorf("skill %s: %w", id, r.err)
	case r.resp.Response() == nil:
		return nil, OutcomeInvalid, fmt.Errorf("skill %s: %w: no response and no error", id, ErrInvalidResponse)
	}
	return r.resp, OutcomeOK, nil
}

// window is a skill's calls in the last minute: a ring of call times, as
// many as calls_per_minute.
type window struct {
	times []time.Time
	next  int
	n     int
}

// maxRateWindows bounds the rate windows kept; stale ones are dropped
// beyond it.
const maxRateWindows = 4 * registry.MaxSkills

// admit counts a call to m at now, refusing it when calls_per_minute calls
// were admitted in the minute before.
func (iv *Invoker) admit(m *registry.Manifest, now time.Time) error {
	if iv.cfg.Unmetered {
		return nil
	}
	limit := m.EffectiveLimits().CallsPerMinute
	iv.rateMu.Lock()
	defer iv.rateMu.Unlock()
	w := iv.rates[m.ID]
	if w == nil || len(w.times) != limit {
		if len(iv.rates) >= maxRateWindows {
			iv.sweep(now)
		}
		w = &window{times: make([]time.Time, limit)}
		iv.rates[m.ID] = w
	}
	if w.n == limit {
		oldest := w.times[w.next]
		if now.Sub(oldest) < time.Minute {
			return &registry.DeniedError{Skill: m.ID, Limit: "calls_per_minute",
				Reason:     fmt.Sprintf("%d calls in the last minute, limit %d", limit, limit),
				RetryAfter: oldest.Add(time.Minute).Sub(now)}
		}
	} else {
		w.n++
	}
	w.times[w.next] = now
	w.next = (w.next + 1) % limit
	return nil
}

// sweep drops windows with no call in the last minute; rateMu is held.
func (iv *Invoker) sweep(now time.Time) {
	for id, w := range iv.rates {
		last := w.times[(w.next-1+len(w.times))%len(w.times)]
		if now.Sub(last) >= time.Minute {
			delete(iv.rates, id)
		}
	}
}
