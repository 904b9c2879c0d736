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

// TestRobotAsksAboutATopic: a fragment that only names a skill's topic
// ("about my timer") is asked about by the topic, not acted on; "yes"
// says what the skill can do and asks which, still acting on nothing (the
// timer runs on); the answer is the request. "No" lets it go.
func TestRobotAsksAboutATopic(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r := startRobot(t, Config{})
	require.NoError(t, r.Intents().Learn(ctx))
	u := utter(t, r)

	require.Regexp(t, `starting now`, said(t, u, "set a timer for ten minutes"))
	asked := said(t, u, "about my timer")
	require.Len(t, asked, 1)
	assert.Regexp(t, `^(Were you asking about|Did you mean something about) your timer\?$`, asked[0], "whose it is, from the robot's side")
	offer := said(t, u, "yes")
	require.Len(t, offer, 1)
	assert.Regexp(t, `^I can set timers, say how much time is left, and ring when one is done\. (What|Which) would you like\?$`, offer[0])
	left := said(t, u, "how long is left")
	require.Len(t, left, 1)
	assert.Regexp(t, `left on your timer|to go`, left[0], "the answer is the request, and the timer still runs")

	asked = said(t, u, "what about the volume")
	require.Len(t, asked, 1)
	assert.Regexp(t, `about the volume\?$`, asked[0])
	bye := said(t, u, "no")
	require.Len(t, bye, 1)
	assert.Regexp(t, `never mind|no problem`, bye[0])
	assert.Regexp(t, `left on your timer|to go`, said(t, u, "how long is left on my timer"), "nothing cancelled the timer")

	// "it" after yes is the topic; another topic is asked about.
	said(t, u, "about my timer")
	said(t, u, "yes")
	assert.Equal(t, []string{"OK, I cancelled your ten minute timer."}, said(t, u, "cancel it"))
	said(t, u, "about my timer")
	said(t, u, "yes")
	other := said(t, u, "the volume")
	require.Len(t, other, 1)
	assert.Regexp(t, `^(Were you asking|Did you mean something) about the volume\?$`, other[0])
	said(t, u, "about my timer")
	assert.Regexp(t, `five minutes, starting now`, said(t, u, "yes set a timer for five minutes"), "yes and the request")
}
