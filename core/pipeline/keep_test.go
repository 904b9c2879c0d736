package pipeline

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/session"
)

// memKeeper keeps the intent context in memory, as a state file would.
type memKeeper struct {
	mu    sync.Mutex
	ic    map[string]any
	err   error
	saves int
}

func (k *memKeeper) LoadContext() (map[string]any, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.ic, k.err
}

func (k *memKeeper) SaveContext(_ context.Context, ic map[string]any) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.ic, k.saves = ic, k.saves+1
	return nil
}

func (k *memKeeper) kept() (map[string]any, int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.ic, k.saves
}

// TestKeeperKeepsTheIntentContext: the default session's intent context
// is saved when a round changes it and restored when an orchestrator is
// built, live entries only (CTX-04); an unreadable one starts empty.
func TestKeeperKeepsTheIntentContext(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	k := &memKeeper{ic: map[string]any{
		"timer:set": map[string]any{"value": "t-1", "turns_remaining": float64(2), "expires_at": float64(now.Unix() + 60)},
		"old:set":   map[string]any{"value": "t-0", "expires_at": float64(now.Unix() - 1)},
		"bad":       "not an entry",
	}}
	seen := make(chan session.Session, 1)
	r := newRig(t, Config{Keeper: k, Now: func() time.Time { return now },
		Plugins: []Plugin{&scripted{id: "a", match: &Match{SkillID: "s", IntentName: "x", Slots: map[string]string{}}}},
		Invoker: handlerFunc(func(_ context.Context, d Dispatch) (session.Session, error) {
			seen <- d.Session
			return session.Session{}, nil
		}),
	})
	stored := r.o.DefaultSession()
	_, ok := stored.ContextLookup("timer:set", float64(now.Unix()))
	assert.True(t, ok, "the live entry is back")
	_, ok = stored.ContextLookup("old:set", float64(now.Unix()))
	assert.False(t, ok, "the expired one is not")

	r.utter(t, hello(), nil)
	r.rec.waitHandled(t, 1)
	<-seen
	closeNow(t, r.o) // saves what is pending
	ic, saves := k.kept()
	assert.Equal(t, 1, saves, "the round counted the entry down: saved once")
	assert.Equal(t, map[string]any{"timer:set": map[string]any{"value": "t-1", "turns_remaining": int64(1),
		"expires_at": float64(now.Unix() + 60)}}, ic)

	bad := &memKeeper{err: errors.New("unreadable")}
	r = newRig(t, Config{Keeper: bad})
	v, _ := r.o.DefaultSession().Get(session.FieldIntentContext)
	assert.Empty(t, v)
}

// TestKeptContextIsBounded: a kept entry comes back no longer-lived than
// a skill could set it now; one that would never count down is dropped.
func TestKeptContextIsBounded(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	in := float64(now.Unix() + 60)
	latest := float64(now.Add(MaxContextTTL).Unix())
	tests := []struct {
		name  string
		entry map[string]any
		want  map[string]any // nil: dropped
	}{
		{"within the limits", map[string]any{"value": "t-1", "turns_remaining": float64(2), "expires_at": in},
			map[string]any{"value": "t-1", "turns_remaining": float64(2), "expires_at": in}},
		{"no turns_remaining", map[string]any{"value": "t-1", "expires_at": in}, nil},
		{"turns_remaining null", map[string]any{"value": "t-1", "turns_remaining": nil}, nil},
		{"too many turns", map[string]any{"value": "t-1", "turns_remaining": float64(5000)},
			map[string]any{"value": "t-1", "turns_remaining": float64(MaxContextTurns)}},
		{"too far off", map[string]any{"value": "t-1", "turns_remaining": float64(2), "expires_at": float64(now.Unix() + 10*86400)},
			map[string]any{"value": "t-1", "turns_remaining": float64(2), "expires_at": latest}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := &memKeeper{ic: map[string]any{"timer:set": tt.entry}}
			r := newRig(t, Config{Keeper: k, Now: func() time.Time { return now }})
			v, _ := r.o.DefaultSession().Get(session.FieldIntentContext)
			if tt.want == nil {
				assert.Empty(t, v)
				return
			}
			assert.Equal(t, map[string]any{"timer:set": tt.want}, v)
		})
	}
}

// closeNow closes o, giving it a minute.
func closeNow(t *testing.T, o *Orchestrator) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(t, o.Close(ctx))
}

// slowKeeper is a disk that takes its time: each save notes the turns
// left on the context's entry, then waits for the test to let it finish
// (or, with took set, for took to pass) or for its context to end.
type slowKeeper struct {
	memKeeper
	release chan error
	took    time.Duration
	turns   []int64 // the snapshots saves were given, in order
	started chan struct{}
}

func (k *slowKeeper) SaveContext(ctx context.Context, ic map[string]any) error {
	k.mu.Lock()
	e, _ := ic["timer:set"].(map[string]any)
	n, _ := e["turns_remaining"].(int64)
	k.turns = append(k.turns, n)
	k.mu.Unlock()
	select {
	case k.started <- struct{}{}:
	default:
	}
	var err error
	if k.took > 0 {
		select {
		case <-time.After(k.took):
		case <-ctx.Done():
			return ctx.Err()
		}
	} else {
		select {
		case err = <-k.release:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if err != nil {
		return err
	}
	return k.memKeeper.SaveContext(ctx, ic)
}

func (k *slowKeeper) saved() []int64 {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]int64(nil), k.turns...)
}

// keptTimer is a kept context whose one entry counts down each utterance
// from turns, so each utterance changes the context.
func keptTimer(now time.Time, turns float64) map[string]any {
	return map[string]any{"timer:set": map[string]any{"value": "t-1", "turns_remaining": turns,
		"expires_at": float64(now.Add(time.Hour).Unix())}}
}

// lockedBuffer is a log sink the writer may write to while a test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestKeptContextIsSavedOffTheTurn: a save that takes its time holds back
// no utterance (each is handled while the disk is still busy); snapshots
// made meanwhile do not queue up: only the latest is saved next.
func TestKeptContextIsSavedOffTheTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		now := time.Now()
		k := &slowKeeper{memKeeper: memKeeper{ic: keptTimer(now, 10)}, release: make(chan error), started: make(chan struct{}, 1)}
		r := newRig(t, Config{Keeper: k, Now: time.Now,
			Plugins: []Plugin{&scripted{id: "a", match: &Match{SkillID: "s", IntentName: "x", Slots: map[string]string{}}}}})
		r.utter(t, hello(), nil)
		r.rec.waitHandled(t, 1) // fails after 10 s of fake time if the turn waits for the disk
		<-k.started
		for range 2 {
			r.utter(t, hello(), nil)
			r.rec.waitHandled(t, 1)
		}
		synctest.Wait()
		assert.Equal(t, []int64{9}, k.saved(), "the first save is still on the disk")
		k.release <- nil
		<-k.started
		synctest.Wait()
		assert.Equal(t, []int64{9, 7}, k.saved(), "the snapshot of 8 turns was replaced by that of 7 before it was saved")
		k.release <- nil
		closeNow(t, r.o)
		ic, saves := k.kept()
		assert.Equal(t, 2, saves)
		assert.Equal(t, int64(7), ic["timer:set"].(map[string]any)["turns_remaining"])
	})
}

// TestKeptContextFlushedOnClose: the last context is on disk when the
// orchestrator closes, even on a slow disk that was still busy with the
// one before; a disk slower than Close may wait is told to give up, the
// last context is still tried once within its own bound, and Close says
// it was not saved.
func TestKeptContextFlushedOnClose(t *testing.T) {
	tests := []struct {
		name    string
		took    time.Duration
		wait    time.Duration
		saved   bool
		errText string
	}{
		{"a quick disk", time.Millisecond, time.Minute, true, ""},
		{"a slow disk", 2 * time.Second, 5 * time.Second, true, ""},
		{"a disk slower than close waits", 10 * time.Second, 5 * time.Second, false, "the last intent context was not saved at close"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				now := time.Now()
				k := &slowKeeper{memKeeper: memKeeper{ic: keptTimer(now, 10)}, took: tt.took, started: make(chan struct{}, 1)}
				r := newRig(t, Config{Keeper: k, Now: time.Now,
					Plugins: []Plugin{&scripted{id: "a", match: &Match{SkillID: "s", IntentName: "x", Slots: map[string]string{}}}}})
				r.utter(t, hello(), nil)
				r.rec.waitHandled(t, 1)
				<-k.started // the disk is busy with the snapshot of 9 turns
				r.utter(t, hello(), nil)
				r.rec.waitHandled(t, 1) // the snapshot of 8 waits
				ctx, cancel := context.WithTimeout(context.Background(), tt.wait)
				defer cancel()
				err := r.o.Close(ctx)
				ic, saves := k.kept()
				if !tt.saved {
					assert.ErrorContains(t, err, tt.errText)
					assert.ErrorIs(t, err, context.DeadlineExceeded)
					assert.Zero(t, saves)
					assert.Equal(t, []int64{9, 8}, k.saved(), "the save under way gave up, and the last was tried once more")
					return
				}
				require.NoError(t, err)
				assert.Equal(t, []int64{9, 8}, k.saved())
				assert.Equal(t, 2, saves)
				assert.Equal(t, int64(8), ic["timer:set"].(map[string]any)["turns_remaining"], "the last context is on disk")
			})
		})
	}
}

// TestKeptContextSaveFails: a failed save is logged and holds nothing
// up; the next snapshot is saved, and so is the same context again when
// nothing newer came since the failure.
func TestKeptContextSaveFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		now := time.Now()
		logs := &lockedBuffer{}
		k := &slowKeeper{memKeeper: memKeeper{ic: keptTimer(now, 10)}, release: make(chan error), started: make(chan struct{}, 1)}
		r := newRig(t, Config{Keeper: k, Now: time.Now, Logger: slog.New(slog.NewTextHandler(logs, nil)),
			Plugins: []Plugin{&scripted{id: "a", match: &Match{SkillID: "s", IntentName: "x", Slots: map[string]string{}}}}})
		r.utter(t, hello(), nil)
		r.rec.waitHandled(t, 1)
		<-k.started
		k.release <- errors.New("disk full")
		synctest.Wait()
		assert.Contains(t, logs.String(), "intent context not saved")
		assert.Contains(t, logs.String(), "disk full")
		_, saves := k.kept()
		assert.Zero(t, saves)

		// A wake that came during the failed save may try it once more
		// before the next utterance's context; the disk works again.
		r.utter(t, hello(), nil)
		r.rec.waitHandled(t, 1)
		for idle := false; !idle; {
			synctest.Wait()
			select {
			case <-k.started:
				k.release <- nil
			default:
				idle = true
			}
		}
		ic, saves := k.kept()
		assert.LessOrEqual(t, saves, 2)
		assert.Equal(t, int64(8), ic["timer:set"].(map[string]any)["turns_remaining"], "the next context is saved")
		saved := saves

		// The same context after a failure: the writer alone, as every
		// utterance changes the rig's context.
		same := map[string]any{"timer:set": map[string]any{"value": "t-2", "turns_remaining": int64(1)}}
		w := newKeepWriter(k, slog.New(slog.NewTextHandler(logs, nil)), func() map[string]any { return same })
		w.start()
		w.submit()
		<-k.started
		k.release <- errors.New("disk full")
		synctest.Wait()
		w.submit()
		<-k.started
		k.release <- nil
		require.NoError(t, w.flush(context.Background()))
		ic, saves = k.kept()
		assert.Equal(t, saved+1, saves, "the same context is tried again after the failure")
		assert.Equal(t, same, ic)
	})
}

// TestKeptContextNewestWins: turns that committed in one order and woke
// the writer in the other leave the newest context kept, not the one the
// later waker saw when it committed.
func TestKeptContextNewestWins(t *testing.T) {
	k := &memKeeper{}
	r := newRig(t, Config{Keeper: k})
	set := func(v string) {
		s, _, err := session.Parse(map[string]any{session.FieldSessionID: session.DefaultID,
			session.FieldIntentContext: map[string]any{"timer:set": map[string]any{"value": v, "turns_remaining": int64(2)}}})
		require.NoError(t, err)
		r.o.store.Merge(s)
	}
	set("t-1") // the first turn commits
	set("t-2") // the second commits
	r.o.keepContext()
	r.o.keepContext() // the first wakes the writer last
	closeNow(t, r.o)
	ic, _ := k.kept()
	require.Contains(t, ic, "timer:set")
	assert.Equal(t, "t-2", ic["timer:set"].(map[string]any)["value"])
}

// TestKeptContextSavedWithASpentCtx: Close's ctx may be used up before
// the writer is flushed; the last context is still tried, and kept.
func TestKeptContextSavedWithASpentCtx(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := &slowKeeper{took: time.Millisecond, started: make(chan struct{}, 2)}
		ic := map[string]any{"timer:set": map[string]any{"value": "t-1", "turns_remaining": int64(2)}}
		w := newKeepWriter(k, slog.New(slog.DiscardHandler), func() map[string]any { return ic })
		w.start()
		w.submit()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		require.NoError(t, w.flush(ctx))
		kept, saves := k.kept()
		assert.Equal(t, 1, saves)
		assert.Equal(t, ic, kept)
	})
}

// stuckKeeper is a disk that never finishes: each save waits for its ctx
// to end, or, when ignoring it (a write the kernel cannot interrupt),
// takes took regardless.
type stuckKeeper struct {
	memKeeper
	ignoring bool
	took     time.Duration
	started  chan struct{}
	active   atomic.Int32
}

func (k *stuckKeeper) SaveContext(ctx context.Context, ic map[string]any) error {
	k.active.Add(1)
	defer k.active.Add(-1)
	k.started <- struct{}{}
	if k.ignoring {
		time.Sleep(k.took)
		return k.memKeeper.SaveContext(ctx, ic)
	}
	<-ctx.Done()
	return ctx.Err()
}

// TestKeptContextCloseWaitsForTheWriter: when Close's ctx ends during a
// save, Close still waits for the writer, so no save runs on after it,
// and it reports what the saves came to.
func TestKeptContextCloseWaitsForTheWriter(t *testing.T) {
	tests := []struct {
		name     string
		ignoring bool
		saved    bool
		tries    int
	}{
		{"a save that gives up when told", false, false, 2},
		{"a save that cannot be interrupted", true, true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				k := &stuckKeeper{ignoring: tt.ignoring, took: 3 * time.Second, started: make(chan struct{}, 2)}
				ic := map[string]any{"timer:set": map[string]any{"value": "t-1", "turns_remaining": int64(2)}}
				w := newKeepWriter(k, slog.New(slog.DiscardHandler), func() map[string]any { return ic })
				w.start()
				w.submit()
				<-k.started
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				err := w.flush(ctx)
				assert.Zero(t, k.active.Load(), "no save runs on after close")
				assert.Len(t, k.started, tt.tries-1, "saves tried after the first")
				kept, _ := k.kept()
				if tt.saved {
					require.NoError(t, err)
					assert.Equal(t, ic, kept)
					return
				}
				assert.ErrorIs(t, err, context.DeadlineExceeded, "the last try had its own bound")
				assert.Nil(t, kept)
			})
		})
	}
}

// TestKeptContextCloseGivesUpOnAStuckDisk: a save the kernel cannot
// interrupt (a dying SD card) holds Close only until stuckWriterBound
// after Close's ctx ends, so the rest of shutdown still runs; a second
// Close says the writer never stopped.
func TestKeptContextCloseGivesUpOnAStuckDisk(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := &stuckKeeper{ignoring: true, took: time.Hour, started: make(chan struct{}, 2)}
		ic := map[string]any{"timer:set": map[string]any{"value": "t-1", "turns_remaining": int64(2)}}
		w := newKeepWriter(k, slog.New(slog.DiscardHandler), func() map[string]any { return ic })
		w.start()
		w.submit()
		<-k.started
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err := w.flush(ctx)
		require.ErrorContains(t, err, "did not stop")
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Equal(t, int32(1), k.active.Load(), "the stuck save is left to finish on its own")
		assert.ErrorContains(t, w.flush(context.Background()), "did not stop at an earlier close")
		<-w.done // the hour passes in the bubble's time
	})
}
