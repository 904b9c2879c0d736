package hub

import (
	"math/rand/v2"
	"time"
)

// backoff is the reconnect delay: exponential from min to max, doubling
// per failed attempt, with jitter so robots that lost the same hub do not
// all come back at once. Each delay is drawn uniformly from [d/2, d] of
// the step's d ("equal jitter"): never less than half the step, so a hub
// that is down is not hammered, and spread over the other half.
type backoff struct {
	min, max time.Duration
	cur      time.Duration
	// rand returns a number in [0, 1); nil means math/rand/v2.
	rand func() float64
}

// next returns the delay before the next attempt and steps up.
func (b *backoff) next() time.Duration {
	switch {
	case b.cur == 0:
		b.cur = b.min
	case b.cur < b.max:
		b.cur = min(b.cur*2, b.max)
	}
	r := rand.Float64
	if b.rand != nil {
		r = b.rand
	}
	half := b.cur / 2
	return half + time.Duration(r()*float64(b.cur-half))
}

// reset starts again from min after a success.
func (b *backoff) reset() { b.cur = 0 }
