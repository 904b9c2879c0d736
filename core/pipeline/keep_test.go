package pipeline

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"sync"
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
// one before; a disk slower than Close may wait is told to give up, and
// Close says so.
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
		{"a disk slower than close waits", 10 * time.Second, 5 * time.Second, false, "the intent context was not saved before close"},
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
					assert.Zero(t, saves)
					synctest.Wait()
					assert.Equal(t, []int64{9}, k.saved(), "the save was told to give up, and nothing more was tried")
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
		assert.Contains(t, logs.String(), "keeping the intent context")
		assert.Contains(t, logs.String(), "disk full")
		_, saves := k.kept()
		assert.Zero(t, saves)

		r.utter(t, hello(), nil)
		r.rec.waitHandled(t, 1)
		<-k.started
		k.release <- nil
		synctest.Wait()
		ic, saves := k.kept()
		assert.Equal(t, 1, saves, "the next snapshot is saved")
		assert.Equal(t, int64(8), ic["timer:set"].(map[string]any)["turns_remaining"])

		// The same context after a failure: the writer alone, as no
		// utterance hands over an unchanged context.
		w := newKeepWriter(k, slog.New(slog.NewTextHandler(logs, nil)), nil)
		w.start()
		same := map[string]any{"timer:set": map[string]any{"value": "t-2", "turns_remaining": int64(1)}}
		w.submit(same)
		<-k.started
		k.release <- errors.New("disk full")
		synctest.Wait()
		w.submit(same)
		<-k.started
		k.release <- nil
		require.NoError(t, w.flush(context.Background()))
		ic, saves = k.kept()
		assert.Equal(t, 2, saves, "the same context is tried again after the failure")
		assert.Equal(t, same, ic)
	})
}
