package skill

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/skill/protocol"
)

func TestSpokenName(t *testing.T) {
	for _, tt := range []struct{ name, want string }{
		{"Timer", "the timer"},
		{"What I can do", "what I can do"},
		{"NASA Facts", "NASA Facts"},
		{"  Clock  ", "the clock"},
		{"", ""},
	} {
		assert.Equal(t, tt.want, SpokenName(&Manifest{Name: tt.name}), tt.name)
	}
	assert.Empty(t, SpokenName(nil))
}

// A skill that fails is apologised for aloud, derived from its dispatch
// (PIPE-28), so the console and the speaker both hear it; a stop is no
// failure and a shutdown has nobody to tell.
func TestFailureIsSaidAloud(t *testing.T) {
	failing := &fakeSkill{id: "t.s", handle: func(context.Context, *protocol.Request) (*protocol.Response, error) {
		return nil, errors.New("db down")
	}}
	r := newHostRig(t, failing)
	_, err := r.host.Invoke(context.Background(), dispatch("t.s", "x"))
	require.ErrorContains(t, err, "db down")
	assert.Equal(t, []string{"Sorry, something went wrong with the t.s."}, r.voice.said)
	select {
	case m := <-r.msgs:
		assert.Equal(t, pipeline.TopicSpeak, m.Type)
		assert.Equal(t, "Sorry, something went wrong with the t.s.", m.DataString("utterance"))
		assert.Equal(t, "u1", m.Context["utterance_id"], "derived from the dispatch")
	case <-time.After(10 * time.Second): // a hang guard
		t.Fatal("no speak on the bus")
	}

	// The robot shutting down cancels the turn: nothing is said.
	r = newHostRig(t, &fakeSkill{id: "t.s", handle: func(ctx context.Context, _ *protocol.Request) (*protocol.Response, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = r.host.Invoke(ctx, dispatch("t.s", "x"))
	require.Error(t, err)
	assert.Empty(t, r.voice.said)
}

// A turn the robot adds after another answer (a stop word's "your timer
// still runs") fails without an apology following that answer.
func TestInvokeQuietlyDoesNotApologise(t *testing.T) {
	failing := &fakeSkill{id: "t.s", handle: func(context.Context, *protocol.Request) (*protocol.Response, error) {
		return nil, errors.New("db down")
	}}
	r := newHostRig(t, failing)
	_, err := r.host.InvokeQuietly(context.Background(), dispatch("t.s", "x"))
	require.ErrorContains(t, err, "db down")
	assert.Empty(t, r.voice.said)
}
