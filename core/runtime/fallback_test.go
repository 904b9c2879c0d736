package runtime

import (
	"context"
	"testing"
	"time"

	"github.com/openjibo/jibod/core/intent"
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

	// Which wording lands between the guess floor and the paraphrase
	// tier's threshold moves whenever the skills' templates change (the
	// tier is learnt from them), so the test takes the first of several
	// clock wordings the stack half understands: it checks that such a
	// sentence is asked about, not which one is.
	var unsure string
	for _, s := range []string{"how late", "what hour have we got", "got the hour", "the hour please", "hour check", "time check", "what o'clock"} {
		c, ok, err := r.Intents().Guess(ctx, intent.Query{Hypotheses: intent.Texts(s), Lang: "en-us"})
		require.NoError(t, err)
		if ok && c.IntentName == "time_now" {
			unsure = s
			break
		}
	}
	require.NotEmpty(t, unsure, "no clock wording is half understood")
	asked := said(t, u, unsure)
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
