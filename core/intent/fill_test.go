package intent

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestFillsABareValue: an utterance that is only a value completes the
// built-in intents whose requests are about a slot it fills whole ("five
// minutes" sets a timer; "cancel the five minute timer" only may say
// one), typed or listed, never a partial value or a blacklisted one.
func TestFillsABareValue(t *testing.T) {
	st := builtinSkillsStack(t)
	firstUtterance := func(skillID, intentName string) bool {
		return intentName != "change_timer" // gated on a timer just set (CTX-11)
	}
	tests := []struct {
		say  string
		keep func(skillID, intentName string) bool
		want []Fill
	}{
		{"five minutes", firstUtterance, []Fill{{"jibo.timer", "set_timer", "duration", "five minutes"}}},
		{"an hour and a half", firstUtterance, []Fill{{"jibo.timer", "set_timer", "duration", "an hour and a half"}}},
		{"five", firstUtterance, []Fill{{"jibo.volume", "volume_set", "level", "five"}}},
		{"five minutes", nil, []Fill{
			{"jibo.timer", "change_timer", "duration", "five minutes"},
			{"jibo.timer", "set_timer", "duration", "five minutes"},
		}},
		{"five minutes please", firstUtterance, nil}, // more than a value
		{"minutes", firstUtterance, nil},
		{"off", firstUtterance, nil},                                                        // a level's blacklisted value
		{"jazz", firstUtterance, []Fill{{"jibo.chitchat", "do_you_like", "thing", "jazz"}}}, // a listed value
		{"flibbertigibbet", firstUtterance, nil},
		{"", firstUtterance, nil},
	}
	for _, tt := range tests {
		t.Run(tt.say, func(t *testing.T) {
			assert.Equal(t, tt.want, st.Templates.Fills(tt.say, "en-us", "", tt.keep))
		})
	}
}
