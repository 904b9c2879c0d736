package runtime

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRobotAsksWhenHalfUnderstood: what nothing claimed but the intent
// stack half understood (a paraphrase too unsure to act on) is asked about
// by the fallback skill, and "yes" does it; a request missing its part is
// asked for it; junk gets no question, only "I didn't understand"
// (FALLBACK-1).
func TestRobotAsksWhenHalfUnderstood(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r := startRobot(t, Config{})
	// The robot learns the skills' intents on its own once they are
	// registered; the test does not wait for that.
	require.NoError(t, r.Intents().Learn(ctx))
	u := utter(t, r)

	asked := said(t, u, "what hour have we got")
	require.Len(t, asked, 1)
	assert.Regexp(t, `^(Were you asking about|Did you mean something about) the clock\?$`, asked[0])
	answer := said(t, u, "yes")
	require.Len(t, answer, 1)
	assert.Regexp(t, clockAnswer, answer[0], "yes does what it was asked about")

	for _, junk := range []string{"flibbertigibbet", "the cat sat on the mat"} {
		got := said(t, u, junk)
		require.Len(t, got, 1, junk)
		assert.NotRegexp(t, `asking about|mean something about`, got[0], "%q is no half-understanding", junk)
	}
}
