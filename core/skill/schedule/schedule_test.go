package schedule

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/store"
)

// memStore is an in-memory Store whose writes can be made to fail.
type memStore struct {
	mu        sync.Mutex
	timers    map[string]store.Timer
	putErr    error
	deleteErr error
}

func newMemStore(ts ...store.Timer) *memStore {
	m := &memStore{timers: map[string]store.Timer{}}
	for _, t := range ts {
		m.timers[t.ID] = t
	}
	return m
}

func (m *memStore) PutTimer(t store.Timer) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.putErr != nil {
		return m.putErr
	}
	m.timers[t.ID] = t
	return nil
}

func (m *memStore) DeleteTimer(id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.deleteErr != nil {
		return m.deleteErr
	}
	delete(m.timers, id)
	return nil
}

func (m *memStore) Timers() ([]store.Timer, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]store.Timer, 0, len(m.timers))
	for _, t := range m.timers {
		out = append(out, t)
	}
	slices.SortFunc(out, byDue)
	return out, nil
}

func (m *memStore) ids() []string {
	ts, _ := m.Timers()
	return ids(ts)
}

func ids(ts []store.Timer) []string {
	out := []string{}
	for _, t := range ts {
		out = append(out, t.ID)
	}
	return out
}

// fired records Fire calls; block makes each call wait for its context or
// a release.
type fired struct {
	mu      sync.Mutex
	calls   []store.Timer
	done    []string
	running int
	most    int
	release chan struct{}
}

func (f *fired) fire(ctx context.Context, t store.Timer) {
	f.mu.Lock()
	f.calls = append(f.calls, t)
	f.running++
	f.most = max(f.most, f.running)
	f.mu.Unlock()
	if f.release != nil {
		select {
		case <-f.release:
		case <-ctx.Done():
		}
	}
	f.mu.Lock()
	f.running--
	f.done = append(f.done, t.ID)
	f.mu.Unlock()
}

func (f *fired) ids() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return ids(f.calls)
}

type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// harness runs a scheduler inside a synctest bubble.
type harness struct {
	s     *Scheduler
	store *memStore
	fired *fired
	logs  *logBuffer
	stop  func() // cancels Run and waits for it to return
}

func start(t *testing.T, st *memStore, f *fired, maxFires int) *harness {
	t.Helper()
	logs := &logBuffer{}
	s, err := New(Config{Store: st, Fire: f.fire, Logger: slog.New(slog.NewTextHandler(logs, nil)), MaxConcurrentFires: maxFires})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	synctest.Wait()
	return &harness{s: s, store: st, fired: f, logs: logs, stop: func() {
		cancel()
		require.NoError(t, <-done)
	}}
}

func timer(id string, in time.Duration) store.Timer {
	return store.Timer{ID: id, SkillID: "timer", BusSession: "default", Lang: "en-US",
		Due: time.Now().Add(in), Memo: json.RawMessage(`{"timer":"` + id + `"}`), Label: "pasta"}
}

func TestTimerFiresAtItsDueTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, newMemStore(), &fired{}, 0)
		defer h.stop()
		id, err := h.s.Schedule(t.Context(), timer("", 5*time.Minute))
		require.NoError(t, err)
		assert.Regexp(t, `^t-[0-9a-f]{16}$`, id, "a fresh id")
		assert.Equal(t, []string{id}, h.store.ids(), "persisted before armed")

		time.Sleep(5*time.Minute - time.Millisecond)
		synctest.Wait()
		assert.Empty(t, h.fired.ids(), "not before it is due")

		time.Sleep(time.Millisecond)
		synctest.Wait()
		require.Equal(t, []string{id}, h.fired.ids())
		got := h.fired.calls[0]
		assert.JSONEq(t, `{"timer":""}`, string(got.Memo))
		assert.Equal(t, "pasta", got.Label)
		assert.Empty(t, h.store.ids(), "deleted once Fire returned")
		assert.Empty(t, h.s.List())
		assert.Contains(t, h.logs.String(), "timer fired")
		assert.NotContains(t, h.logs.String(), "late")
	})
}

func TestTimerScheduledBeforeRunFires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fired{}
		s, err := New(Config{Store: newMemStore(), Fire: f.fire})
		require.NoError(t, err)
		_, err = s.Schedule(t.Context(), timer("early", time.Minute))
		require.NoError(t, err)
		time.Sleep(2 * time.Minute)
		assert.Empty(t, f.ids(), "nothing fires without Run")
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error)
		go func() { done <- s.Run(ctx) }()
		synctest.Wait()
		assert.Equal(t, []string{"early"}, f.ids())
		cancel()
		require.NoError(t, <-done)
	})
}

func TestTimersFireInDueOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, newMemStore(), &fired{}, 1)
		defer h.stop()
		for _, tm := range []store.Timer{timer("c", 3*time.Minute), timer("a", time.Minute), timer("b", 2*time.Minute), timer("a2", time.Minute)} {
			_, err := h.s.Schedule(t.Context(), tm)
			require.NoError(t, err)
		}
		assert.Equal(t, []string{"a", "a2", "b", "c"}, ids(h.s.List()), "List: soonest first, ties by id")
		time.Sleep(90 * time.Second)
		synctest.Wait()
		assert.Equal(t, []string{"a", "a2"}, h.fired.ids())
		time.Sleep(10 * time.Minute)
		synctest.Wait()
		assert.Equal(t, []string{"a", "a2", "b", "c"}, h.fired.ids())
	})
}

func TestCancelledTimerNeverFires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, newMemStore(), &fired{}, 0)
		defer h.stop()
		_, err := h.s.Schedule(t.Context(), timer("soon", time.Minute))
		require.NoError(t, err)
		_, err = h.s.Schedule(t.Context(), timer("later", 2*time.Minute))
		require.NoError(t, err)
		require.NoError(t, h.s.Cancel(t.Context(), "soon"))
		assert.Equal(t, []string{"later"}, h.store.ids())

		err = h.s.Cancel(t.Context(), "soon")
		require.ErrorIs(t, err, ErrNotFound)
		assert.Contains(t, err.Error(), `cancelling timer "soon": no such timer`)

		time.Sleep(time.Hour)
		synctest.Wait()
		assert.Equal(t, []string{"later"}, h.fired.ids())
	})
}

func TestCancelWhileFiringEndsTheLaunch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fired{release: make(chan struct{})}
		h := start(t, newMemStore(), f, 0)
		defer h.stop()
		_, err := h.s.Schedule(t.Context(), timer("alarm", time.Minute))
		require.NoError(t, err)
		time.Sleep(time.Minute)
		synctest.Wait()
		require.Equal(t, []string{"alarm"}, f.ids())
		assert.Equal(t, []string{"alarm"}, ids(h.s.List()), "listed while it rings")
		assert.Equal(t, []string{"alarm"}, h.store.ids(), "kept on disk until Fire returns: at least once")

		require.NoError(t, h.s.Cancel(t.Context(), "alarm"), `"stop" while the alarm rings`)
		synctest.Wait()
		assert.Equal(t, []string{"alarm"}, f.done, "Fire's context ended")
		assert.Empty(t, h.store.ids())
		assert.Empty(t, h.s.List())
	})
}

func TestRestartFiresOverdueTimersOnceAndLate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Left in the store by a jibod that was down when they fell due.
		st := newMemStore(timer("missed", -10*time.Minute), timer("just", -time.Millisecond), timer("future", time.Hour))
		h := start(t, st, &fired{}, 0)
		defer h.stop()
		assert.ElementsMatch(t, []string{"missed", "just"}, h.fired.ids(), "overdue ones fire at start")
		assert.Equal(t, []string{"future"}, st.ids())
		logs := h.logs.String()
		assert.Regexp(t, `msg="timers restored" .*count=3 overdue=2`, logs)
		assert.Regexp(t, `msg="timer fired late" .*id=missed .* late=true late_by=10m0s`, logs)
		assert.Regexp(t, `msg="timer fired" .*id=just`, logs, "a millisecond is not late")

		time.Sleep(time.Hour)
		synctest.Wait()
		assert.ElementsMatch(t, []string{"missed", "just", "future"}, h.fired.ids(), "each once")
	})
}

func TestShutdownWaitsForRunningFires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fired{release: make(chan struct{})}
		h := start(t, newMemStore(), f, 0)
		_, err := h.s.Schedule(t.Context(), timer("alarm", time.Minute))
		require.NoError(t, err)
		_, err = h.s.Schedule(t.Context(), timer("later", time.Hour))
		require.NoError(t, err)
		time.Sleep(time.Minute)
		synctest.Wait()
		require.Equal(t, []string{"alarm"}, f.ids())

		h.stop() // returns only after Fire has returned
		assert.Equal(t, []string{"alarm"}, f.done)
		assert.Equal(t, []string{"later"}, h.store.ids(), "the rung alarm is gone, the pending one kept for the next start")
	})
}

func TestFireConcurrencyIsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fired{release: make(chan struct{})}
		h := start(t, newMemStore(), f, 2)
		defer h.stop()
		for i := range 5 {
			_, err := h.s.Schedule(t.Context(), timer(fmt.Sprintf("t%d", i), time.Minute+time.Duration(i)*time.Second))
			require.NoError(t, err)
		}
		time.Sleep(time.Hour)
		synctest.Wait()
		assert.Equal(t, []string{"t0", "t1"}, f.ids(), "two slots, soonest first")
		for range 3 {
			f.release <- struct{}{}
			synctest.Wait()
		}
		assert.Equal(t, []string{"t0", "t1", "t2", "t3", "t4"}, f.ids(), "the rest as slots free up")
		f.release <- struct{}{}
		f.release <- struct{}{}
		synctest.Wait()
		assert.Equal(t, 2, f.most)
		assert.Empty(t, h.store.ids())
	})
}

func TestPanickingFireIsContained(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var got []string
		logs := &logBuffer{}
		st := newMemStore()
		s, err := New(Config{Store: st, Logger: slog.New(slog.NewTextHandler(logs, nil)),
			Fire: func(_ context.Context, t store.Timer) {
				got = append(got, t.ID)
				if t.ID == "bad" {
					panic("skill exploded")
				}
			}, MaxConcurrentFires: 1})
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error)
		go func() { done <- s.Run(ctx) }()
		_, err = s.Schedule(ctx, timer("bad", time.Minute))
		require.NoError(t, err)
		_, err = s.Schedule(ctx, timer("good", 2*time.Minute))
		require.NoError(t, err)
		time.Sleep(time.Hour)
		synctest.Wait()
		assert.Equal(t, []string{"bad", "good"}, got, "the scheduler carried on")
		assert.Regexp(t, `msg="timer launch panicked" .*id=bad`, logs.String())
		assert.Contains(t, logs.String(), `panic="skill exploded"`)
		assert.Empty(t, st.ids())
		cancel()
		require.NoError(t, <-done)
	})
}

func TestScheduleRefuses(t *testing.T) {
	for _, tc := range []struct {
		name  string
		timer func() store.Timer
		ctx   func(context.Context) context.Context
		want  error
		msg   string
	}{
		{"due now", func() store.Timer { return timer("x", 0) }, nil, ErrInvalid, "is not in the future"},
		{"due in the past", func() store.Timer { return timer("x", -time.Second) }, nil, ErrInvalid, "is not in the future"},
		{"beyond the horizon", func() store.Timer { return timer("x", MaxHorizon+time.Second) }, nil, ErrInvalid, "is more than 24h0m0s ahead"},
		{"no skill", func() store.Timer { tm := timer("x", time.Minute); tm.SkillID = ""; return tm }, nil, ErrInvalid, "skillID: required"},
		{"bad id", func() store.Timer { return timer("no spaces", time.Minute) }, nil, ErrInvalid, `id: "no spaces"`},
		{"memo not an object", func() store.Timer { tm := timer("x", time.Minute); tm.Memo = json.RawMessage(`"a"`); return tm }, nil, ErrInvalid, "memo: want a JSON object or null"},
		{"duplicate id", func() store.Timer { return timer("taken", time.Minute) }, nil, ErrExists, `timer "taken" for skill "timer": timer already scheduled`},
		{"context ended", func() store.Timer { return timer("x", time.Minute) }, func(ctx context.Context) context.Context {
			c, cancel := context.WithCancel(ctx)
			cancel()
			return c
		}, context.Canceled, "scheduling timer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := start(t, newMemStore(), &fired{}, 0)
				defer h.stop()
				_, err := h.s.Schedule(t.Context(), timer("taken", time.Hour))
				require.NoError(t, err)
				ctx := t.Context()
				if tc.ctx != nil {
					ctx = tc.ctx(ctx)
				}
				_, err = h.s.Schedule(ctx, tc.timer())
				require.ErrorIs(t, err, tc.want)
				assert.Contains(t, err.Error(), tc.msg)
				assert.Equal(t, []string{"taken"}, h.store.ids(), "nothing stored")
				assert.Equal(t, []string{"taken"}, ids(h.s.List()), "nothing armed")
			})
		})
	}
}

func TestScheduleCountLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, newMemStore(), &fired{}, 0)
		defer h.stop()
		for i := range MaxTimers {
			_, err := h.s.Schedule(t.Context(), timer(fmt.Sprintf("t%02d", i), time.Hour))
			require.NoError(t, err)
		}
		_, err := h.s.Schedule(t.Context(), timer("extra", time.Hour))
		require.ErrorIs(t, err, ErrFull)
		assert.Contains(t, err.Error(), "64 scheduled, limit 64")
		require.NoError(t, h.s.Cancel(t.Context(), "t00"))
		_, err = h.s.Schedule(t.Context(), timer("extra", time.Hour))
		require.NoError(t, err, "room again after a cancel")
	})
}

func TestStoreFailuresLeaveNothingHalfDone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newMemStore()
		h := start(t, st, &fired{}, 0)
		defer h.stop()
		diskErr := errors.New("disk full")

		st.putErr = diskErr
		_, err := h.s.Schedule(t.Context(), timer("a", time.Minute))
		require.ErrorIs(t, err, diskErr)
		assert.Empty(t, h.s.List(), "not armed when not persisted")
		st.putErr = nil

		_, err = h.s.Schedule(t.Context(), timer("b", time.Minute))
		require.NoError(t, err)
		st.deleteErr = diskErr
		err = h.s.Cancel(t.Context(), "b")
		require.ErrorIs(t, err, diskErr)
		assert.Equal(t, []string{"b"}, ids(h.s.List()), "still armed when the store kept it")

		// A fired timer the store cannot forget is reported: it would
		// fire again after a restart.
		time.Sleep(time.Minute)
		synctest.Wait()
		assert.Equal(t, []string{"b"}, h.fired.ids())
		assert.Empty(t, h.s.List())
		assert.Contains(t, h.logs.String(), "fired timer stays in the state file and will fire again after a restart")
	})
}

func TestNewAndRunRefuseMisuse(t *testing.T) {
	fire := func(context.Context, store.Timer) {}
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"no store", Config{Fire: fire}, "no store"},
		{"no fire", Config{Store: newMemStore()}, "no Fire function"},
		{"too many fires", Config{Store: newMemStore(), Fire: fire, MaxConcurrentFires: 17}, "17 concurrent fires outside [1, 16]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.cfg)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	synctest.Test(t, func(t *testing.T) {
		h := start(t, newMemStore(), &fired{}, 0)
		defer h.stop()
		require.ErrorIs(t, h.s.Run(t.Context()), ErrRunning)
	})
}

// The alarm survives a restart of jibod with the real state file: set
// before the restart, due while jibod is down, it rings at the next start.
func TestAlarmSurvivesRestartWithStateFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "skills.db")
	synctest.Test(t, func(t *testing.T) {
		st, err := store.Open(path, store.Options{})
		require.NoError(t, err)
		var got []store.Timer
		fire := func(_ context.Context, t store.Timer) { got = append(got, t) }
		s, err := New(Config{Store: st, Fire: fire})
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error)
		go func() { done <- s.Run(ctx) }()
		_, err = s.Schedule(ctx, timer("pasta", 5*time.Minute))
		require.NoError(t, err)
		cancel()
		require.NoError(t, <-done)
		require.NoError(t, st.Close())

		time.Sleep(20 * time.Minute) // jibod is down

		st, err = store.Open(path, store.Options{})
		require.NoError(t, err)
		defer st.Close()
		s, err = New(Config{Store: st, Fire: fire})
		require.NoError(t, err)
		assert.Equal(t, []string{"pasta"}, ids(s.List()))
		ctx, cancel = context.WithCancel(t.Context())
		go func() { done <- s.Run(ctx) }()
		synctest.Wait()
		require.Len(t, got, 1)
		assert.Equal(t, "pasta", got[0].ID)
		assert.Equal(t, 15*time.Minute, time.Since(got[0].Due), "Fire can tell how late it is")
		left, err := st.Timers()
		require.NoError(t, err)
		assert.Empty(t, left)
		cancel()
		require.NoError(t, <-done)
	})
}
