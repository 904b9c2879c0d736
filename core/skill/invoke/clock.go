package invoke

import (
	"context"
	"sync"
	"time"

	"github.com/openjibo/jibod/core/skill/registry"
)

// MaxPrepareLimit bounds the limit a handler gives Prepare: waiting for a
// previous call (at most a skill's longest timeout) and then starting
// afresh (the same again). An attempt so lasts at most this plus the
// skill's timeout.
const MaxPrepareLimit = 2 * registry.MaxTimeout

// clock times one attempt. Its phase is the context the handler works in:
// at first the skill's timeout from the call; while the handler gets
// ready (Prepare) the handler's own limit; then the skill's timeout again,
// counted from when it was ready. The attempt ends when its phase does.
// Every phase derives from base, which stop cancels, so a phase begun
// after the attempt was given up comes back cancelled.
type clock struct {
	base    context.Context
	timeout time.Duration
	// changed has a token when the phase is replaced, for the invoker
	// waiting on the old one.
	changed chan struct{}

	mu        sync.Mutex
	phase     context.Context
	preparing bool          // the phase is Prepare's
	limit     time.Duration // the phase's length
	cancels   []func()
	prepared  bool // Prepare ran (once per attempt)
	stopped   bool
}

type clockKey struct{}

func newClock(outer context.Context, timeout time.Duration) *clock {
	base, cancel := context.WithCancel(outer)
	c := &clock{base: base, timeout: timeout, changed: make(chan struct{}, 1), cancels: []func(){cancel}}
	ctx, cancelPhase := context.WithTimeout(base, timeout)
	c.phase, c.limit = context.WithValue(ctx, clockKey{}, c), timeout
	c.cancels = append(c.cancels, cancelPhase)
	return c
}

// start begins a phase of length d in the values of vals (the handler's
// context) and returns its context: it ends at d, or when base does.
func (c *clock) start(vals context.Context, d time.Duration, preparing bool) context.Context {
	parent, cancelParent := context.WithCancelCause(context.WithoutCancel(vals))
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		cancelParent(context.Cause(c.base))
		return parent
	}
	unlink := context.AfterFunc(c.base, func() { cancelParent(context.Cause(c.base)) })
	deadline := time.Now().Add(d)
	if bd, ok := c.base.Deadline(); ok && bd.Before(deadline) {
		deadline = bd
	}
	ctx, cancel := context.WithDeadline(parent, deadline)
	c.phase, c.preparing, c.limit = ctx, preparing, d
	c.cancels = append(c.cancels, func() { unlink(); cancel(); cancelParent(nil) })
	select {
	case c.changed <- struct{}{}:
	default:
	}
	return ctx
}

// current is the phase the attempt is in, whether it is Prepare's, and
// its length.
func (c *clock) current() (context.Context, bool, time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.phase, c.preparing, c.limit
}

// claim reports whether Prepare may run now: once per attempt, and only
// while the first phase lasts.
func (c *clock) claim() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.prepared || c.stopped || c.phase.Err() != nil {
		return false
	}
	c.prepared = true
	return true
}

// stop ends every phase, and any begun later.
func (c *clock) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped = true
	for _, cancel := range c.cancels[1:] {
		cancel()
	}
	c.cancels[0]() // base, last: its phases are unlinked from it already
}

// Prepare runs ready, a handler's getting ready to answer (a sandbox
// waiting for its previous call to end and a fresh instance to start),
// bounded by limit (at most MaxPrepareLimit) instead of the skill's
// timeout, and returns the context to answer in: the skill's timeout
// counts from when ready returned. The host's own preparations are so not
// charged to the skill's answer, and a preparation slower than the
// timeout on a loaded machine still ends, leaving the skill ready. Both
// contexts keep ctx's values. A handler calls it first, with the context
// the invoker gave it (or one derived from it), at most once; otherwise
// (or outside an Invoker's call) ready runs in ctx and ctx is returned.
// When the call was given up while ready ran, the context returned is
// done already: the handler should give back what ready took and return.
func Prepare(ctx context.Context, limit time.Duration, ready func(context.Context) error) (context.Context, error) {
	c, _ := ctx.Value(clockKey{}).(*clock)
	if c == nil || ctx.Err() != nil || !c.claim() {
		return ctx, ready(ctx)
	}
	pctx := c.start(ctx, min(limit, MaxPrepareLimit), true)
	if err := ready(pctx); err != nil {
		return pctx, err
	}
	return c.start(ctx, c.timeout, false), nil
}
