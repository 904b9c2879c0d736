package runtime

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/console"
	"github.com/openjibo/jibod/core/pipeline"
)

// matched is what the robot's pipeline made of one utterance: the
// ovos.intent.matched of its lifecycle ("skill:intent" and the plugin that
// claimed it), "" when nothing matched, and what the robot said.
func matched(t *testing.T, u *console.Utterer, text string) (intentName, pipelineID string, spoken []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, msgs, err := u.Say(ctx, text)
	require.NoError(t, err, text)
	for _, m := range msgs {
		switch m.Type {
		case pipeline.TopicMatched:
			intentName = m.DataString("skill_id") + ":" + m.DataString("intent_name")
			pipelineID = m.DataString("pipeline_id")
		case pipeline.TopicSpeak:
			spoken = append(spoken, m.DataString("utterance"))
		}
	}
	return intentName, pipelineID, spoken
}

// TestRobotUnderstandsParaphrases: through the robot's real pipeline
// (listener-free: the text input's ovos.utterance.handle), the built-in
// skills understand how people say things: phrasings their templates
// spell ("make it louder", "kill the timer") and phrasings only the
// paraphrase stage understands reach the right intent, and everyday
// sentences no skill is about are claimed by no intent (issue 23): they
// reach the last fallback stage, where the fallback skill answers them, so
// the robot is never silent (FALLBACK-1).
func TestRobotUnderstandsParaphrases(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r := startRobot(t, Config{})
	// The robot learns the skills' intents on its own once they are
	// registered; the test does not wait for that.
	require.NoError(t, r.Intents().Learn(ctx))
	u := utter(t, r)

	require.NotEmpty(t, said(t, u, "set a timer for ten minutes"))
	for _, tt := range []struct {
		say, want, stage string // stage "" for any
	}{
		{"make it louder", "jibo.volume:volume_up", ""},
		{"pipe down a bit", "jibo.volume:volume_down", "paraphrase"},
		{"how long till the timer's done", "jibo.timer:time_left", "paraphrase"},
		{"excuse me what time is it", "jibo.clock:time_now", "paraphrase"},
		{"what do people call you", "jibo.chitchat:who_are_you", "paraphrase"},
		{"kill the timer", "jibo.timer:cancel_timer", ""},
	} {
		got, stage, spoken := matched(t, u, tt.say)
		assert.Equal(t, tt.want, got, "%q", tt.say)
		if tt.stage != "" {
			assert.Equal(t, tt.stage, stage, "%q: the templates do not spell it", tt.say)
		}
		assert.NotEmpty(t, spoken, "%q: the skill answers", tt.say)
	}
	assert.Empty(t, r.Scheduler().List(), "the timer was cancelled")

	for _, say := range []string{"the time machine was a great movie", "turn down the offer", "i turned down the job",
		"she gave me a timer for christmas"} {
		got, stage, spoken := matched(t, u, say)
		assert.Equal(t, "jibo.fallback:fallback", got, "%q is no request (claimed by %s)", say, stage)
		assert.Equal(t, pipeline.FallbackUnknown, stage, "%q: no intent claimed it", say)
		assert.NotEmpty(t, spoken, "%q: the fallback answers", say)
	}
}
