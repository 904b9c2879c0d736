package runtime

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRobotAsAnOwnerMeansIt: conversations an owner has with the robot,
// typed, and what the robot says back, each from a fresh robot. A
// request that names two opposite actions asks for neither; a negation
// said in full ("do not") is read as its contraction; after the robot
// asked about a topic and heard yes, a bare value completes the one
// request of that skill's that is about it. An opposite said after a
// negation or as the state a request changes ("up, not down", "on, it is
// off") is no second request. "Cancel it" cancels the timer just set,
// and nothing when none was.
func TestRobotAsAnOwnerMeansIt(t *testing.T) {
	type step struct {
		say  string
		want string // a regexp the robot's one line matches
	}
	const (
		notUnderstood = `(?i)not sure|didn't|don't know|beyond me|catch|follow|understand`
		volume6       = `^(OK, )?[Vv]olume 6\.$`
	)
	tests := []struct {
		name  string
		steps []step
	}{
		{"switched off and on is no unmute", []step{
			{"turn it off and on again", notUnderstood},
		}},
		{"mute then unmute in one breath is neither", []step{
			{"mute then unmute", notUnderstood},
		}},
		{"up, not down turns it up", []step{
			{"turn the volume up, not down", `^(OK, )?[Vv]olume 7\.$`},
		}},
		{"on, it is off unmutes", []step{
			{"turn the sound on, it is off", volume6},
		}},
		{"off and on, it is on, is still neither", []step{
			{"turn it off and on again, it is on", notUnderstood},
		}},
		{"cancel it right after a timer cancels that timer", []step{
			{"set a timer for ten minutes", `ten minutes, starting now\.$`},
			{"cancel it", `^OK, I cancelled your ten minute timer\.$`},
			{"how long is left on my timer", `(?i)no timer|don't have a timer`},
		}},
		{"cancel it with no timer just set cancels nothing", []step{
			{"cancel it", notUnderstood},
		}},
		{"do not be quiet unmutes", []step{
			{"do not be quiet", volume6},
		}},
		{"do not be silent unmutes", []step{
			{"do not be silent", volume6},
		}},
		{"do not set a timer sets none", []step{
			{"do not set a timer", notUnderstood},
			{"how long is left on my timer", `(?i)no timer|don't have a timer`},
		}},
		{"the timer, yes, five minutes sets it", []step{
			{"the timer", `^(Were you asking about|Did you mean something about) the timer\?$`},
			{"yes", `(?i)I can set timers`},
			{"five minutes", `five minutes, starting now\.$`},
		}},
		{"the volume, yes, five sets the volume", []step{
			{"about the volume", `about the volume\?$`},
			{"yes", `^I can turn my volume up or down, set it from zero to ten, and turn my sound off\. (What|Which) would you like\?$`},
			{"five", `^(OK, )?[Vv]olume 5\.$`},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			r := startRobot(t, Config{})
			require.NoError(t, r.Intents().Learn(ctx))
			u := utter(t, r)
			for _, s := range tt.steps {
				got := said(t, u, s.say)
				require.Len(t, got, 1, "%q: %v", s.say, got)
				assert.Regexp(t, s.want, got[0], s.say)
			}
		})
	}
}
