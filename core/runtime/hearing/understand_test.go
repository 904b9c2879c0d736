package hearing

import (
	"testing"

	"github.com/openjibo/jibod/audio/eval"
	"github.com/stretchr/testify/assert"
)

// The eval scores a slot by what its skill reads from it where the skill
// has a parser (the timer's length, the volume level), else by its words.
func TestAudioEvalReadsSlotsAsTheirSkills(t *testing.T) {
	tests := []struct {
		name      string
		a, b      eval.Meaning
		wantEqual bool
	}{
		{"singular and plural unit are the same length",
			eval.Meaning{Intent: "jibo.timer:set_timer", Slots: map[string]string{"duration": "two minute"}},
			eval.Meaning{Intent: "jibo.timer:set_timer", Slots: map[string]string{"duration": "two minutes"}}, true},
		{"the same length said otherwise",
			eval.Meaning{Intent: "jibo.timer:set_timer", Slots: map[string]string{"duration": "ninety seconds"}},
			eval.Meaning{Intent: "jibo.timer:set_timer", Slots: map[string]string{"duration": "one minute thirty seconds"}}, true},
		{"another length",
			eval.Meaning{Intent: "jibo.timer:set_timer", Slots: map[string]string{"duration": "thirty seconds"}},
			eval.Meaning{Intent: "jibo.timer:set_timer", Slots: map[string]string{"duration": "forty seconds"}}, false},
		{"a length against words the timer refuses",
			eval.Meaning{Intent: "jibo.timer:set_timer", Slots: map[string]string{"duration": "five minutes"}},
			eval.Meaning{Intent: "jibo.timer:set_timer", Slots: map[string]string{"duration": "the fan of"}}, false},
		{"volume word and digit",
			eval.Meaning{Intent: "jibo.volume:volume_set", Slots: map[string]string{"level": "seven"}},
			eval.Meaning{Intent: "jibo.volume:volume_set", Slots: map[string]string{"level": "7"}}, true},
		{"another volume level",
			eval.Meaning{Intent: "jibo.volume:volume_set", Slots: map[string]string{"level": "seven"}},
			eval.Meaning{Intent: "jibo.volume:volume_set", Slots: map[string]string{"level": "one"}}, false},
		{"other slots stay words",
			eval.Meaning{Intent: "jibo.chitchat:do_you_like", Slots: map[string]string{"thing": "pizza"}},
			eval.Meaning{Intent: "jibo.chitchat:do_you_like", Slots: map[string]string{"thing": "pizzas"}}, false},
		{"a duration slot of another intent stays words",
			eval.Meaning{Intent: "other:set", Slots: map[string]string{"duration": "two minute"}},
			eval.Meaning{Intent: "other:set", Slots: map[string]string{"duration": "two minutes"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := readSlots(tt.a), readSlots(tt.b)
			assert.Equal(t, tt.wantEqual, eval.SameMeaning(a, b), "%v against %v", a, b)
		})
	}
}
