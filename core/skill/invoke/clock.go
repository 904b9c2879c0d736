package invoke

import (
	"context"
	"sync"
	"time"
)

// clock times one attempt. Its phase is the context the handler works in:
// at first the skill's timeout from the call; while the handler gets
// ready (Prepare) the handler's own limit; then the skill's timeout again,
// counted from when it was ready. The attempt ends when its phase does.
type clock struct {
	outer   context.Context
	timeout time.Duration
	// changed has a token when the phase is replaced, for the invoker
	// waiting on the old one.
	changed chan struct{}

	mu        sync.Mutex
	phase     context.Context
	preparing bool          // the phase is Prepare's
	limit     time.Duration // the phase's length
	cancels   []context.CancelFunc
	prepared  bool // Prepare ran (once per attempt)
}

type clockKey struct{}

func newClock(outer context.Context, timeout time.Duration) *clock {
	c := &clock{outer: outer, timeout: timeout, changed: make(chan struct{}, 1)}
	c.start(timeout, false)
	return c
}

// start begins a phase of length d and returns its context, carrying
// the clock.
func (c *clock) start(d time.Duration, preparing bool) context.Context {
	ctx, cancel := context.WithTimeout(c.outer, d)
	ctx = context.WithValue(ctx, clockKey{}, c)
	c.mu.Lock()
	c.phase, c.preparing, c.limit = ctx, preparing, d
	c.cancels = append(c.cancels, cancel)
	c.mu.Unlock()
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
func (c *clock) claim(ctx context.Context) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.prepared || ctx != c.phase || ctx.Err() != nil {
		return false
	}
	c.prepared = true
	return true
}

// stop ends every phase.
func (c *clock) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, cancel := range c.cancels {
		cancel()
	}
}

// Prepare runs ready, a handler's getting ready to answer (a sandbox
// waiting for its previous call to end and a fresh instance to start),
// bounded by limit instead of the skill's timeout, and returns the
// context to answer in: the skill's timeout counts from when ready
// returned. The host's own preparations are so not charged to the skill's
// answer, and a preparation slower than the timeout on a loaded machine
// still ends, leaving the skill ready. A handler calls it first, with the
// context the invoker gave it, at most once; otherwise (or outside an
// Invoker's call) ready runs in ctx and ctx is returned.
func Prepare(ctx context.Context, limit time.Duration, ready func(context.Context) error) (context.Context, error) {
	c, _ := ctx.Value(clockKey{}).(*clock)
	if c == nil || !c.claim(ctx) {
		return ctx, ready(ctx)
	}
	pctx := c.start(limit, true)
	if err := ready(pctx); err != nil {
		return pctx, err
	}
	return c.start(c.timeout, false), nil
}
