package registry

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/fstest"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func manifest(id string, perms ...Permission) *Manifest {
	m := &Manifest{ID: id, Version: "1.0.0", Name: "Skill " + id, Description: "A skill for tests.",
		Permissions: perms, SafetyLevel: SafetyLow}
	m.SafetyLevel = m.ImpliedSafetyLevel()
	return m
}

func TestRegistryAddGetList(t *testing.T) {
	r := New()
	require.NoError(t, r.Add(manifest("jibo/timer", PermSpeech, PermListen, PermTimers)))
	require.NoError(t, r.Add(manifest("jibo/clock", PermSpeech)))
	require.NoError(t, r.Add(manifest("acme/dance", PermMotion, PermLED)))

	err := r.Add(manifest("jibo/clock"))
	assert.ErrorIs(t, err, ErrExists)
	assert.EqualError(t, err, "adding skill jibo/clock: already exists")

	err = r.Add(&Manifest{ID: "clock"})
	assert.ErrorIs(t, err, ErrInvalid)
	assert.Equal(t, 3, r.Len())

	m, err := r.Get("jibo/timer")
	require.NoError(t, err)
	assert.Equal(t, DefaultTimeout, m.Timeout, "stored normalized")
	byBus, err := r.Get("jibo.timer")
	require.NoError(t, err)
	assert.Equal(t, m, byBus, "bus ids are accepted")

	_, err = r.Get("jibo/weather")
	assert.ErrorIs(t, err, ErrNotFound)
	_, err = r.Get("weather")
	assert.ErrorIs(t, err, ErrInvalid)

	ids := func(ms []*Manifest) []string {
		var out []string
		for _, m := range ms {
			out = append(out, m.ID)
		}
		return out
	}
	assert.Equal(t, []string{"acme/dance", "jibo/clock", "jibo/timer"}, ids(r.List()))
	speakers, err := r.ListByPermission(PermSpeech)
	require.NoError(t, err)
	assert.Equal(t, []string{"jibo/clock", "jibo/timer"}, ids(speakers))
	movers, err := r.ListByPermission(PermMotion)
	require.NoError(t, err)
	assert.Equal(t, []string{"acme/dance"}, ids(movers))
	none, err := r.ListByPermission(PermDisplay)
	require.NoError(t, err)
	assert.Empty(t, none)
	_, err = r.ListByPermission("camera")
	assert.ErrorIs(t, err, ErrInvalid)
}

func TestRegistryReturnsCopies(t *testing.T) {
	r := New()
	orig := manifest("jibo/clock", PermSpeech)
	require.NoError(t, r.Add(orig))
	orig.Permissions[0] = PermMotion // the caller's value is not retained

	m, err := r.Get("jibo/clock")
	require.NoError(t, err)
	m.Permissions[0] = PermMotion
	r.List()[0].Permissions[0] = PermMotion

	again, err := r.Get("jibo/clock")
	require.NoError(t, err)
	assert.Equal(t, []Permission{PermSpeech}, again.Permissions)
}

func TestRegistryAddAllIsAllOrNothing(t *testing.T) {
	r := New()
	require.NoError(t, r.Add(manifest("jibo/clock")))
	err := r.AddAll(manifest("jibo/timer"), &Manifest{ID: "bad"}, manifest("jibo/clock"), manifest("jibo/timer"))
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrInvalid)
	assert.ErrorIs(t, err, ErrExists)
	assert.Contains(t, err.Error(), "adding skill 2: invalid manifest: id")
	assert.Contains(t, err.Error(), "adding skill jibo/clock: already exists")
	assert.Contains(t, err.Error(), "adding skill jibo/timer: given twice")
	assert.Equal(t, 1, r.Len(), "nothing was added")

	require.NoError(t, r.AddAll(manifest("jibo/timer"), manifest("jibo/volume")))
	assert.Equal(t, 3, r.Len())
}

func TestRegistryRemoveReplace(t *testing.T) {
	ctx := context.Background()
	r := New()
	require.NoError(t, r.Add(manifest("jibo/clock", PermSpeech)))

	up := manifest("jibo/clock", PermSpeech, PermDisplay)
	up.Version = "1.1.0"
	require.NoError(t, r.Replace(ctx, up))
	m, err := r.Get("jibo/clock")
	require.NoError(t, err)
	assert.Equal(t, "1.1.0", m.Version)

	assert.ErrorIs(t, r.Replace(ctx, manifest("jibo/timer")), ErrNotFound)
	assert.ErrorIs(t, r.Replace(ctx, &Manifest{ID: "jibo/clock"}), ErrInvalid)

	require.NoError(t, r.Remove(ctx, "jibo.clock"), "bus ids are accepted")
	_, err = r.Get("jibo/clock")
	assert.ErrorIs(t, err, ErrNotFound)
	assert.ErrorIs(t, r.Remove(ctx, "jibo/clock"), ErrNotFound)
	assert.ErrorIs(t, r.Remove(ctx, "clock"), ErrInvalid)
}

func TestLeaseSnapshot(t *testing.T) {
	r := New()
	require.NoError(t, r.Add(manifest("jibo/clock", PermSpeech)))
	l, err := r.Acquire("jibo.clock")
	require.NoError(t, err)
	assert.Equal(t, "jibo/clock", l.Manifest().ID)
	assert.Equal(t, 1, r.Leases("jibo/clock"))
	l.Release()
	l.Release() // a second release does nothing
	assert.Equal(t, 0, r.Leases("jibo/clock"))

	_, err = r.Acquire("jibo/timer")
	assert.ErrorIs(t, err, ErrNotFound)
	_, err = r.Acquire("timer")
	assert.ErrorIs(t, err, ErrInvalid)
	assert.Equal(t, 0, r.Leases("timer"))
}

// The registry is read-only while requests are processed: Remove and
// Replace wait for the skill's leases, and meanwhile new requests for it are
// refused rather than queued.
func TestUpdateWaitsForLeases(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := New()
		require.NoError(t, r.Add(manifest("jibo/clock", PermSpeech)))
		require.NoError(t, r.Add(manifest("jibo/timer", PermSpeech)))
		l1, err := r.Acquire("jibo/clock")
		require.NoError(t, err)
		l2, err := r.Acquire("jibo/clock")
		require.NoError(t, err)

		up := manifest("jibo/clock", PermSpeech)
		up.Version = "2.0.0"
		done := make(chan error, 1)
		go func() { done <- r.Replace(context.Background(), up) }()
		synctest.Wait()

		select {
		case err := <-done:
			t.Fatalf("Replace returned %v with leases held", err)
		default:
		}
		_, err = r.Acquire("jibo/clock")
		assert.ErrorIs(t, err, ErrBusy, "no new requests while an update waits")
		assert.ErrorIs(t, r.Remove(context.Background(), "jibo/clock"), ErrBusy, "one update at a time")
		other, err := r.Acquire("jibo/timer")
		require.NoError(t, err, "other skills are unaffected")
		other.Release()
		assert.Equal(t, "1.0.0", l1.Manifest().Version, "a lease keeps its snapshot")

		l1.Release()
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("Replace returned %v with a lease held", err)
		default:
		}
		l2.Release()
		require.NoError(t, <-done)

		l3, err := r.Acquire("jibo/clock")
		require.NoError(t, err)
		assert.Equal(t, "2.0.0", l3.Manifest().Version)
		assert.Equal(t, "1.0.0", l2.Manifest().Version, "old snapshots are untouched")
		l3.Release()
	})
}

func TestUpdateGivesUpWithContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := New()
		require.NoError(t, r.Add(manifest("jibo/clock", PermSpeech)))
		l, err := r.Acquire("jibo/clock")
		require.NoError(t, err)

		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		err = r.Remove(ctx, "jibo/clock")
		require.ErrorIs(t, err, context.DeadlineExceeded)
		assert.EqualError(t, err, "removing skill jibo/clock: 1 requests still in flight: context deadline exceeded")

		// Nothing changed: the skill is there and takes requests again.
		_, err = r.Get("jibo/clock")
		require.NoError(t, err)
		l2, err := r.Acquire("jibo/clock")
		require.NoError(t, err)
		l.Release()
		l2.Release()
		require.NoError(t, r.Remove(context.Background(), "jibo/clock"))
		assert.Equal(t, 0, r.Len())
	})
}

func TestRegistryConcurrentUse(t *testing.T) {
	r := New()
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := range 8 {
		id := fmt.Sprintf("acme/skill-%d", i)
		require.NoError(t, r.Add(manifest(id, PermSpeech)))
		wg.Go(func() {
			for range 200 {
				if l, err := r.Acquire(id); err == nil {
					_ = l.Manifest().Allows(PermSpeech)
					l.Release()
				} else if !errors.Is(err, ErrBusy) && !errors.Is(err, ErrNotFound) {
					t.Errorf("acquire: %v", err)
				}
			}
		})
		wg.Go(func() {
			for j := range 20 {
				m := manifest(id, PermSpeech)
				m.Version = fmt.Sprintf("1.0.%d", j)
				if err := r.Replace(ctx, m); err != nil && !errors.Is(err, ErrBusy) {
					t.Errorf("replace: %v", err)
				}
				_, _ = r.ListByPermission(PermSpeech)
			}
		})
	}
	wg.Wait()
	assert.Equal(t, 8, r.Len())
	for _, m := range r.List() {
		assert.Equal(t, 0, r.Leases(m.ID))
	}
}

func TestLoadDir(t *testing.T) {
	fsys := fstest.MapFS{
		"skills/timer.json":  {Data: []byte(timerManifest)},
		"skills/clock.json":  {Data: []byte(`{"id": "jibo/clock", "version": "1.0.0", "name": "Clock", "description": "Tells the time.", "safety_level": "low"}`)},
		"skills/broken.json": {Data: []byte(`{"id": "jibo/broken", "version": "1.0"}`)},
		"skills/again.json":  {Data: []byte(timerManifest)},
		"skills/notes.txt":   {Data: []byte("not a manifest")},
		"skills/sub/x.json":  {Data: []byte("{}")},
	}
	ms, err := LoadDir(fsys, "skills")
	require.Error(t, err)
	// Every problem is reported, each naming its file.
	assert.ErrorIs(t, err, ErrInvalid)
	assert.ErrorIs(t, err, ErrExists)
	assert.Contains(t, err.Error(), "skills/broken.json: invalid manifest: version")
	assert.Contains(t, err.Error(), "skills/timer.json: skill jibo/timer is also defined by skills/again.json")
	require.Len(t, ms, 2)
	assert.Equal(t, "jibo/timer", ms[0].ID) // again.json, first by name
	assert.Equal(t, "jibo/clock", ms[1].ID)

	ok, err := LoadDir(fstest.MapFS{"s/clock.json": fsys["skills/clock.json"]}, "s")
	require.NoError(t, err)
	require.Len(t, ok, 1)
	r := New()
	require.NoError(t, r.AddAll(ok...))

	_, err = LoadDir(fsys, "missing")
	assert.Error(t, err)
}
