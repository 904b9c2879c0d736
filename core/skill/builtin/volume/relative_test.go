package volume

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// "Turn the volume down a bit" is a change, not a level it cannot read;
// "a lot" moves further.
func TestRelativeChange(t *testing.T) {
	k := &knob{v: 0.5}
	r := newRig(t, k)
	for _, st := range []struct {
		say   string
		said  string
		level int
	}{
		{"turn the volume down a bit", "Volume 4.", 4},
		{"set the volume lower", "Volume 3.", 3},
		{"volume up a lot", "Volume 6.", 6},
		{"volume up a lot", "Volume 9.", 9},
		{"volume up a lot", "Volume 10.", 10},
		{"volume higher", "I'm already as loud as I go.", 10},
		{"turn it down a lot", "Volume 7.", 7},
		{"set the volume to loud", "I can set my volume from zero to ten.", 7},
	} {
		turn := r.Say(st.say)
		require.NoError(t, turn.Err, st.say)
		assert.Equal(t, []string{st.said}, turn.Said, st.say)
		assert.Equal(t, st.level, LevelOf(k.Volume()), st.say)
	}
}

func TestRelative(t *testing.T) {
	for _, tt := range []struct {
		text string
		step int
		ok   bool
	}{
		{"down a bit", -1, true}, {"a little louder", 1, true}, {"up a lot", 3, true}, {"way down", -3, true},
		{"7", 0, false}, {"loud", 0, false}, {"", 0, false},
	} {
		step, ok := Relative(tt.text)
		assert.Equal(t, tt.ok, ok, tt.text)
		assert.Equal(t, tt.step, step, tt.text)
	}
}
