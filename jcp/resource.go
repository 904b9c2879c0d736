package jcp

import (
	"context"
	"fmt"
	"sync"
)

// The singleton resources behaviours take (spec/jibo.md §3.3): one holder
// at a time.
const (
	ResourceTTS    = "TTS"
	ResourceMotion = "MOTION"
	ResourceListen = "LISTEN"
	// ResourceDisplay is the prefix of the per-layer display resources,
	// DISPLAY0..DISPLAY4.
	ResourceDisplay = "DISPLAY"
)

// OverriddenError is why a behaviour lost a resource to a newer action
// (ExecutorConfig.Preempt). It reads as a cancellation: errors.Is(err,
// context.Canceled) holds.
type OverriddenError struct {
	// Resource is what was taken, e.g. "TTS".
	Resource string
	// By describes the behaviour that took it, e.g. "PLAY 1f2e… of run 7".
	By string
}

// Error names the resource and the new holder.
func (e *OverriddenError) Error() string {
	return fmt.Sprintf("%s overridden by %s", e.Resource, e.By)
}

// Unwrap makes an override a cancellation.
func (e *OverriddenError) Unwrap() error { return context.Canceled }

// claim is one behaviour's hold on, or wait for, a resource.
type claim struct {
	run     *run
	b       Behavior
	cancel  context.CancelCauseFunc // cancels the behaviour (preemption)
	granted chan struct{}
}

func (c *claim) describe() string {
	return fmt.Sprintf("%s %s of run %d", c.b.BehaviorType(), c.b.BehaviorID(), c.run.id)
}

// resource is a singleton with a FIFO of waiters.
type resource struct {
	name string

	mu     sync.Mutex
	holder *claim
	queue  []*claim
}

func newResource(name string) *resource { return &resource{name: name} }

// acquire takes r for behaviour b of run, which runs under cancel. When r
// is held: within the same run, or across runs without preempt, the
// claimant waits its turn and is told who holds it (a "blocked" event);
// across runs with preempt, the holder is cancelled with an
// *OverriddenError and told so (an "overridden" event), and the claimant
// goes first. release gives the resource to the next waiter.
func (r *resource) acquire(ctx context.Context, run *run, b Behavior, cancel context.CancelCauseFunc, preempt bool) (release func(), err error) {
	c := &claim{run: run, b: b, cancel: cancel, granted: make(chan struct{})}
	r.mu.Lock()
	if r.holder == nil {
		r.holder = c
		r.mu.Unlock()
		return func() { r.release(c) }, nil
	}
	holder := r.holder
	if preempt && holder.run != run {
		r.queue = append([]*claim{c}, r.queue...)
		r.mu.Unlock()
		by := c.describe()
		holder.run.event(holder.b, EventOverridden, fmt.Sprintf("%s taken by %s", r.name, by))
		if holder.cancel != nil {
			holder.cancel(&OverriddenError{Resource: r.name, By: by})
		}
	} else {
		r.queue = append(r.queue, c)
		r.mu.Unlock()
		run.event(b, EventBlocked, fmt.Sprintf("waiting for %s, held by %s", r.name, holder.describe()))
	}
	select {
	case <-c.granted:
		return func() { r.release(c) }, nil
	case <-ctx.Done():
		r.mu.Lock()
		select {
		case <-c.granted:
			// Granted just as the wait ended: pass it on.
			r.mu.Unlock()
			r.release(c)
		default:
			for i, q := range r.queue {
				if q == c {
					r.queue = append(r.queue[:i], r.queue[i+1:]...)
					break
				}
			}
			r.mu.Unlock()
		}
		return nil, fmt.Errorf("wait for %s: %w", r.name, context.Cause(ctx))
	}
}

// tryAcquire takes r only if it is free; cancel is how a newer run can
// take it back (ExecutorConfig.Preempt).
func (r *resource) tryAcquire(run *run, b Behavior, cancel context.CancelCauseFunc) (release func(), holder string, ok bool) {
	c := &claim{run: run, b: b, cancel: cancel, granted: make(chan struct{})}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.holder != nil {
		return nil, r.holder.describe(), false
	}
	r.holder = c
	return func() { r.release(c) }, "", true
}

func (r *resource) release(c *claim) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.holder != c {
		return
	}
	r.holder = nil
	if len(r.queue) > 0 {
		r.holder = r.queue[0]
		r.queue = r.queue[1:]
		close(r.holder.granted)
	}
}
