// Package schedule fires proactive skill launches at their due time, such
// as the timer skill's alarm, also across restarts of jibod: every timer is
// persisted before it is armed, and on start the timers left in the store
// are armed again, those already due firing at once.
//
// # Delivery: at least once
//
// A fired timer is deleted from the store after Fire returns, not before.
// So an alarm always rings even when jibod dies while it rings: after a
// crash in the middle of Fire, the next start finds the timer overdue and
// fires it once more (and it is logged as late). The other choice, deleting
// first, would lose an alarm to a crash at the wrong moment, which is worse
// for a timer than ringing twice. A Fire that ends because Run's context
// ended (a clean shutdown) counts as fired. Timers due while jibod was down
// fire once, at start, however late; Fire can tell from Timer.Due.
//
// # Goroutines
//
// Run is the owner: one goroutine and one time.Timer armed for the
// earliest due timer. Each Fire runs in a goroutine Run starts and waits
// for, at most Config.MaxConcurrentFires at once; timers due while all
// slots are busy fire, in due order, as slots free up. Schedule, Cancel and
// List are safe from any goroutine, before or while Run runs.
//
// Waiting uses Go's monotonic clock, so a timer set for five minutes rings
// five minutes later even if the wall clock is stepped meanwhile; due times
// are stored as wall-clock times, so after a restart they are measured
// against the wall clock the board has then.
package schedule

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/openjibo/jibod/core/skill/store"
)

// Limits.
const (
	// MaxTimers bounds the timers scheduled at once (the store's limit).
	MaxTimers = store.MaxTimers
	// MaxHorizon bounds how far ahead a timer may be due.
	MaxHorizon = 24 * time.Hour
	// DefaultMaxConcurrentFires is the default bound on Fire calls running
	// at once.
	DefaultMaxConcurrentFires = 4
	// MaxConcurrentFires is the largest accepted Config.MaxConcurrentFires.
	MaxConcurrentFires = 16
	// LateAfter is how long after its due time a fire is logged as late.
	LateAfter = time.Second
)

// Errors; each is wrapped with what was being done.
var (
	// ErrNotFound: Cancel of a timer that is not scheduled.
	ErrNotFound = errors.New("no such timer")
	// ErrExists: Schedule of an id that is already scheduled.
	ErrExists = errors.New("timer already scheduled")
	// ErrInvalid: Schedule of a timer that fails validation, is due in the
	// past or beyond MaxHorizon.
	ErrInvalid = errors.New("invalid timer")
	// ErrFull: Schedule beyond MaxTimers.
	ErrFull = errors.New("too many timers")
	// ErrRunning: a second Run while one runs.
	ErrRunning = errors.New("scheduler already running")
)

// Store persists timers; *store.Store is one.
type Store interface {
	PutTimer(t store.Timer) error
	DeleteTimer(id string) error
	Timers() ([]store.Timer, error)
}

// Config wires a Scheduler.
type Config struct {
	// Store keeps the timers across restarts. Required.
	Store Store
	// Fire launches the timer's skill; it must honour ctx, which ends when
	// the timer is cancelled or Run's context ends. Required.
	Fire func(ctx context.Context, t store.Timer)
	// Now is the wall clock; nil means time.Now.
	Now func() time.Time
	// Logger; nil means slog.Default().
	Logger *slog.Logger
	// MaxConcurrentFires bounds Fire calls running at once; 0 means
	// DefaultMaxConcurrentFires.
	MaxConcurrentFires int
}

// Scheduler arms timers and fires them when due. Build one with New.
type Scheduler struct {
	cfg  Config
	log  *slog.Logger
	wake chan struct{} // capacity 1: a pending "look again" for Run

	mu      sync.Mutex
	timers  map[string]*entry
	firing  int
	running bool
}

type entry struct {
	t      store.Timer
	firing bool
	cancel context.CancelFunc // set while firing
}

// New builds a scheduler holding the timers already in the store; Run arms
// them.
func New(cfg Config) (*Scheduler, error) {
	switch {
	case cfg.Store == nil:
		return nil, errors.New("timer scheduler: no store")
	case cfg.Fire == nil:
		return nil, errors.New("timer scheduler: no Fire function")
	case cfg.MaxConcurrentFires < 0 || cfg.MaxConcurrentFires > MaxConcurrentFires:
		return nil, fmt.Errorf("timer scheduler: %d concurrent fires outside [1, %d]", cfg.MaxConcurrentFires, MaxConcurrentFires)
	}
	if cfg.MaxConcurrentFires == 0 {
		cfg.MaxConcurrentFires = DefaultMaxConcurrentFires
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	stored, err := cfg.Store.Timers()
	if err != nil {
		return nil, fmt.Errorf("timer scheduler: loading stored timers: %w", err)
	}
	s := &Scheduler{cfg: cfg, log: log.With("component", "timers"), wake: make(chan struct{}, 1),
		timers: make(map[string]*entry, len(stored))}
	for _, t := range stored {
		s.timers[t.ID] = &entry{t: t}
	}
	return s, nil
}

// Schedule persists t and arms it, returning its id; an empty t.ID gets a
// fresh one, a zero t.Created the current time. t.Due must lie in the
// future, at most MaxHorizon ahead. Nothing is armed unless the store kept
// the timer.
func (s *Scheduler) Schedule(ctx context.Context, t store.Timer) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("scheduling timer: %w", err)
	}
	if t.ID == "" {
		t.ID = newID()
	}
	now := s.cfg.Now()
	if t.Created.IsZero() {
		t.Created = now
	}
	what := fmt.Sprintf("scheduling timer %q for skill %q", t.ID, t.SkillID)
	if err := t.Validate(); err != nil {
		return "", fmt.Errorf("%s: %w: %w", what, ErrInvalid, err)
	}
	if !t.Due.After(now) {
		return "", fmt.Errorf("%s: %w: due %s is not in the future", what, ErrInvalid, t.Due.Format(time.RFC3339))
	}
	if t.Due.Sub(now) > MaxHorizon {
		return "", fmt.Errorf("%s: %w: due %s is more than %v ahead", what, ErrInvalid, t.Due.Format(time.RFC3339), MaxHorizon)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.timers[t.ID]; dup {
		return "", fmt.Errorf("%s: %w", what, ErrExists)
	}
	if len(s.timers) >= MaxTimers {
		return "", fmt.Errorf("%s: %w: %d scheduled, limit %d", what, ErrFull, len(s.timers), MaxTimers)
	}
	// Persist under the lock, so the count check and the insert are one
	// step; a write is one small fsync'd transaction.
	if err := s.cfg.Store.PutTimer(t); err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	s.timers[t.ID] = &entry{t: t}
	s.poke()
	s.log.Info("timer scheduled", "id", t.ID, "skill_id", t.SkillID, "due", t.Due.Format(time.RFC3339), "label", t.Label)
	return t.ID, nil
}

// Cancel removes a scheduled timer, from the store first; if the store
// fails, the timer stays armed. Cancelling a timer that is firing ends its
// Fire call's context. An unknown id fails with ErrNotFound.
func (s *Scheduler) Cancel(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("cancelling timer %q: %w", id, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.timers[id]
	if !ok {
		return fmt.Errorf("cancelling timer %q: %w", id, ErrNotFound)
	}
	if e.firing {
		// Its goroutine deletes it when Fire returns.
		e.cancel()
		s.log.Info("firing timer cancelled", "id", id, "skill_id", e.t.SkillID)
		return nil
	}
	if err := s.cfg.Store.DeleteTimer(id); err != nil {
		return fmt.Errorf("cancelling timer %q: %w", id, err)
	}
	delete(s.timers, id)
	s.poke()
	s.log.Info("timer cancelled", "id", id, "skill_id", e.t.SkillID)
	return nil
}

// List returns the scheduled timers, firing ones included, soonest first
// (ties by id).
func (s *Scheduler) List() []store.Timer {
	s.mu.Lock()
	out := make([]store.Timer, 0, len(s.timers))
	for _, e := range s.timers {
		out = append(out, e.t)
	}
	s.mu.Unlock()
	// sort.Slice, not slices.SortFunc: a generic sort over a struct type
	// adds its own copy of the sort code to the binary (docs/size.md).
	sort.Slice(out, func(i, j int) bool { return byDue(out[i], out[j]) < 0 })
	return out
}

func byDue(a, b store.Timer) int {
	if c := a.Due.Compare(b.Due); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// Run fires timers as they fall due until ctx ends, then waits for the
// Fire calls in flight (their context ends with ctx) and returns nil.
// Timers overdue when Run starts fire at once. Close the store only after
// Run has returned: fired timers are deleted from it until then.
func (s *Scheduler) Run(ctx context.Context) error {
	s.mu.Lock()
	if s.running {
		s.mu.Unlock()
		return ErrRunning
	}
	s.running = true
	now := s.cfg.Now()
	overdue := 0
	for _, e := range s.timers {
		if !e.t.Due.After(now) {
			overdue++
		}
	}
	if len(s.timers) > 0 {
		s.log.Info("timers restored", "count", len(s.timers), "overdue", overdue)
	}
	s.mu.Unlock()

	var wg sync.WaitGroup
	defer func() {
		wg.Wait()
		s.mu.Lock()
		s.running = false
		s.mu.Unlock()
	}()
	alarm := time.NewTimer(time.Hour)
	alarm.Stop()
	defer alarm.Stop()
	for {
		wait, armed := s.startDue(ctx, &wg)
		if armed {
			alarm.Reset(wait)
		} else {
			alarm.Stop()
		}
		select {
		case <-ctx.Done():
			return nil
		case <-alarm.C:
		case <-s.wake:
		}
	}
}

// startDue starts Fire for the due timers, soonest first, while slots are
// free, and returns how long until the next one falls due; false when
// there is nothing to wait for (no timers, or every slot busy).
func (s *Scheduler) startDue(ctx context.Context, wg *sync.WaitGroup) (time.Duration, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	waiting := make([]*entry, 0, len(s.timers))
	for _, e := range s.timers {
		if !e.firing {
			waiting = append(waiting, e)
		}
	}
	slices.SortFunc(waiting, func(a, b *entry) int { return byDue(a.t, b.t) })
	now := s.cfg.Now()
	for _, e := range waiting {
		if s.firing >= s.cfg.MaxConcurrentFires {
			return 0, false // a finishing Fire wakes Run
		}
		if e.t.Due.After(now) {
			return e.t.Due.Sub(now), true
		}
		fctx, cancel := context.WithCancel(ctx)
		e.firing, e.cancel = true, cancel
		s.firing++
		wg.Add(1)
		go s.fire(fctx, cancel, wg, e.t, now)
	}
	return 0, false
}

// fire runs one Fire call, then forgets the timer.
func (s *Scheduler) fire(ctx context.Context, cancel context.CancelFunc, wg *sync.WaitGroup, t store.Timer, now time.Time) {
	defer wg.Done()
	defer cancel()
	attrs := []any{"id", t.ID, "skill_id", t.SkillID, "due", t.Due.Format(time.RFC3339), "label", t.Label}
	if late := now.Sub(t.Due); late > LateAfter {
		s.log.Warn("timer fired late", append(attrs, "late", true, "late_by", late.Round(time.Second).String())...)
	} else {
		s.log.Info("timer fired", attrs...)
	}
	s.callFire(ctx, t, attrs)
	if err := s.cfg.Store.DeleteTimer(t.ID); err != nil {
		s.log.Error("fired timer stays in the state file and will fire again after a restart",
			append(attrs, "error", err)...)
	}
	s.mu.Lock()
	delete(s.timers, t.ID)
	s.firing--
	s.mu.Unlock()
	s.poke()
}

// callFire calls Fire, containing a panic so one bad skill launch does not
// take the robot down.
func (s *Scheduler) callFire(ctx context.Context, t store.Timer, attrs []any) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("timer launch panicked", append(attrs, "panic", fmt.Sprint(r))...)
		}
	}()
	s.cfg.Fire(ctx, t)
}

// poke tells Run to look again, without blocking.
func (s *Scheduler) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// newID returns a fresh timer id.
func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return "t-" + hex.EncodeToString(b[:])
}
