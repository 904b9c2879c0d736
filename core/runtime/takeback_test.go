package runtime

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/session"
)

// TestTakingBackATimerAtItsQuestion: "set a timer", "For how long?", and
// a word that takes the request back. The stop plugin stops the skill
// holding the question (STOP-03.5/6, response mode cleared, STOP-03.8)
// and the skill, whose answer rules read the words as "cancel",
// acknowledges; the conversation is over and no timer is set. "Stop"
// only stops.
func TestTakingBackATimerAtItsQuestion(t *testing.T) {
	const noTimer = `^OK, no timer then\.$`
	tests := []struct {
		say      string
		dispatch string
		said     string // a regexp the robot's one line matches; "" for none
	}{
		{"cancel", "jibo.timer:stop", noTimer},
		{"never mind", "jibo.timer:stop", noTimer},
		{"cancel please", "jibo.timer:stop", noTimer},
		{"forget it", "jibo.timer:response", noTimer},
		{"stop", "jibo.timer:stop", ""},
	}
	for _, tt := range tests {
		t.Run(tt.say, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			r := startRobot(t, Config{})
			require.NoError(t, r.Intents().Learn(ctx))
			u := utter(t, r)
			assert.Equal(t, []string{"For how long?"}, said(t, u, "set a timer"))
			_, msgs, err := u.Say(ctx, tt.say)
			require.NoError(t, err)
			var matched string
			var lines []string
			var handled bus.Message
			for _, m := range msgs {
				switch m.Type {
				case pipeline.TopicMatched:
					matched = m.DataString("skill_id") + ":" + m.DataString("intent_name")
				case pipeline.TopicSpeak:
					lines = append(lines, m.DataString("utterance"))
				case pipeline.TopicHandlerError, pipeline.TopicUnmatched:
					t.Fatalf("%q: %s %v", tt.say, m.Type, m.Data)
				case pipeline.TopicHandled:
					handled = m
				}
			}
			assert.Equal(t, tt.dispatch, matched)
			if tt.said == "" {
				assert.Empty(t, lines)
			} else if assert.Len(t, lines, 1) {
				assert.Regexp(t, tt.said, lines[0])
			}
			sess, _, err := session.FromMessage(handled)
			require.NoError(t, err)
			_, asking := sess.ResponseMode()
			assert.False(t, asking, "the question is over")
			convs, err := r.conversations.Conversations()
			require.NoError(t, err)
			assert.Empty(t, convs, "no conversation kept")
			// The length said next is no answer: no timer is set.
			said(t, u, "five minutes")
			assert.Empty(t, r.sched.List(), "no timer")
		})
	}
}
