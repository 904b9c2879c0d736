package pipeline

import (
	"sync"
	"time"
)

// Circuit-breaker defaults (PIPE-10): a plugin whose match raises, panics or
// times out this many times in a row is skipped for the cool-down, then
// given one trial call; a success closes the breaker again.
const (
	DefaultBreakerThreshold = 5
	DefaultBreakerCooldown  = time.Minute
)

// breaker tracks one plugin's run of consecutive failures.
type breaker struct {
	threshold int
	cooldown  time.Duration

	mu        sync.Mutex
	fails     int
	openUntil time.Time // zero: closed
	trial     bool      // a half-open trial call is out
}

// allow reports whether the plugin may be called at now. After the
// cool-down exactly one caller gets a trial; the others keep skipping it
// until that trial reports.
func (b *breaker) allow(now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.openUntil.IsZero() {
		return true
	}
	if now.Before(b.openUntil) || b.trial {
		return false
	}
	b.trial = true
	return true
}

// record notes a call's outcome and reports whether it opened the breaker.
func (b *breaker) record(now time.Time, failed bool) (opened bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	wasTrial := b.trial
	b.trial = false
	if !failed {
		b.fails, b.openUntil = 0, time.Time{}
		return false
	}
	b.fails++
	if wasTrial || b.fails >= b.threshold {
		b.openUntil = now.Add(b.cooldown)
		return true
	}
	return false
}
