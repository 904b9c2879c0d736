package wasm

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// throwAway leaves s without an instance, as a failed call does.
func throwAway(s *Skill) {
	s.sem <- struct{}{}
	s.drop(context.Background())
	<-s.sem
}

// semFree reports whether nobody holds s's turn.
func semFree(s *Skill) bool {
	select {
	case s.sem <- struct{}{}:
		<-s.sem
		return true
	default:
		return false
	}
}

// A start cut short by the call's own deadline (its wait for the previous
// call took the time) is not the module's failure: it is not counted and
// does not claim the start-up limit ran out; the next call starts afresh.
func TestStartCutShortByTheCallIsNotCounted(t *testing.T) {
	r := newRig(t, Config{MaxFailures: 1})
	s := r.load(t, hostileManifest(""), hostileWasm)
	throwAway(s)
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	err := s.ready(ctx)
	require.Error(t, err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.NotContains(t, err.Error(), "start-up limit")
	assert.Equal(t, 0, s.Status().Failures)
	assert.NoError(t, s.Status().Disabled)
	reply, err := r.call(s, "ok", nil)
	require.NoError(t, err, "ready gave the turn back, and the next call starts afresh")
	assert.Equal(t, "All is well.", spoken(t, reply))
}

// A panic while getting ready gives the turn back: the next call is not
// left waiting forever.
func TestPanicWhileGettingReadyGivesTheTurnBack(t *testing.T) {
	r := newRig(t, Config{})
	s := r.load(t, hostileManifest(""), hostileWasm)
	s.sem <- struct{}{}
	md := s.mod
	s.mod = nil // ready's look at the instance panics
	<-s.sem
	assert.Panics(t, func() { _ = s.ready(context.Background()) })
	assert.True(t, semFree(s), "ready gave the turn back")
	s.sem <- struct{}{}
	s.mod = md
	<-s.sem
	reply, err := r.call(s, "ok", nil)
	require.NoError(t, err)
	assert.Equal(t, "All is well.", spoken(t, reply))
}
