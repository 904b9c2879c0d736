package runtime

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/builtin/timer"
)

// TestHearingPartsSeeTheRobotsSession: the ear's claims on a transcript
// are made in the orchestrator's own session, so once the timer skill
// has set a timer its follow-up context (CTX-11) is live there, as the
// pipeline will see it for the next utterance.
func TestHearingPartsSeeTheRobotsSession(t *testing.T) {
	r := startRobot(t, Config{})
	p := r.HearingParts()
	require.NotNil(t, p.Session)
	key := timer.ID + ":" + timer.ContextSet
	_, live := p.Session().ContextLookup(key, float64(time.Now().Unix()))
	assert.False(t, live, "no timer set yet")

	said(t, utter(t, r), "set a timer for five minutes")
	_, live = p.Session().ContextLookup(key, float64(time.Now().Unix()))
	assert.True(t, live, "the timer skill's follow-up context is live in the session the ear claims in")
}
