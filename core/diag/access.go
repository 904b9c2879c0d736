package diag

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// Technician mode access limits.
const (
	// MaxWrongPINs wrong PINs in a row lock technician mode out.
	MaxWrongPINs = 3
	// DefaultLockout is the first lockout; each further one doubles, up to
	// MaxLockout. A correct PIN resets both.
	DefaultLockout = 5 * time.Minute
	MaxLockout     = time.Hour
	// DefaultIdleLock locks a session's technician mode after this long
	// without a command.
	DefaultIdleLock = 10 * time.Minute
	// DefaultWrongPINDelay is how long the shell waits before answering a
	// wrong PIN, so guessing within the allowance stays slow too.
	DefaultWrongPINDelay = 2 * time.Second
)

// Errors of an unlock attempt.
var (
	// ErrNoPIN means the robot's configuration has no PIN: technician mode
	// cannot be unlocked.
	ErrNoPIN = errors.New("no technician PIN is configured on this robot")
	// ErrWrongPIN is a wrong PIN; the error says how many tries are left.
	ErrWrongPIN = errors.New("wrong PIN")
	// ErrLockedOut means too many wrong PINs; the error says for how long.
	ErrLockedOut = errors.New("technician mode is locked out after too many wrong PINs")
)

// gate checks PINs for every session of the robot at once, so opening a
// new session does not buy new guesses.
type gate struct {
	hash *pinHash // nil: no PIN configured
	now  func() time.Time

	mu       sync.Mutex
	fails    int       // wrong PINs in a row
	lockouts int       // lockouts since the last correct PIN
	until    time.Time // locked out until then
}

// try checks pin. It returns nil for the right PIN, or an error wrapping
// ErrNoPIN, ErrLockedOut or ErrWrongPIN.
func (g *gate) try(pin string) error {
	if g.hash == nil {
		return ErrNoPIN
	}
	now := g.now()
	g.mu.Lock()
	if now.Before(g.until) {
		left := g.until.Sub(now)
		g.mu.Unlock()
		return fmt.Errorf("%w: try again in %s", ErrLockedOut, roundUp(left))
	}
	g.mu.Unlock()
	// The hash is slow on purpose: compute it outside the lock.
	ok := CheckPIN(pin) == nil && g.hash.verify(pin)
	g.mu.Lock()
	defer g.mu.Unlock()
	if ok {
		g.fails, g.lockouts, g.until = 0, 0, time.Time{}
		return nil
	}
	g.fails++
	if g.fails < MaxWrongPINs {
		left := MaxWrongPINs - g.fails
		return fmt.Errorf("%w (%d %s left)", ErrWrongPIN, left, plural(left, "try", "tries"))
	}
	d := DefaultLockout << min(g.lockouts, 8)
	d = min(d, MaxLockout)
	g.lockouts++
	g.fails = 0
	g.until = now.Add(d)
	return fmt.Errorf("%w: %w for %s", ErrWrongPIN, ErrLockedOut, d)
}

// lockedOut reports the lockout left, or 0.
func (g *gate) lockedOut() time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	if d := g.until.Sub(g.now()); d > 0 {
		return d
	}
	return 0
}

// roundUp shows d to the second above, so "try again in 0s" never happens.
func roundUp(d time.Duration) time.Duration {
	if r := d % time.Second; r != 0 {
		d += time.Second - r
	}
	return d
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
