package builtin_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/intent"
)

// TestCommonWordingsParse: wordings people commonly use for the built-in
// skills' intents are templates, so the intent engines parse them (not
// only the paraphrase tier's guess, which speech does not act on). Each
// is parsed as its own intent by the engines alone and by the robot's
// stack, with the slot value said, and no other intent takes it. This
// test checks the engines only; that the speech grammar made from the
// templates holds such sentences is audio/grammar's to check.
func TestCommonWordingsParse(t *testing.T) {
	st := newStages(t)
	tests := []struct {
		utterance, want string
		slots           map[string]string
	}{
		{"put a timer on for ten minutes", "jibo.timer:set_timer", map[string]string{"duration": "10m"}},
		{"put a new countdown on for five minutes please", "jibo.timer:set_timer", map[string]string{"duration": "5m"}},
		{"can i have a timer for twenty minutes", "jibo.timer:set_timer", map[string]string{"duration": "20m"}},
		{"can i get a countdown for one hour please", "jibo.timer:set_timer", map[string]string{"duration": "1h"}},
		{"i dont want the timer anymore", "jibo.timer:cancel_timer", nil},
		{"i do not want my timer now", "jibo.timer:cancel_timer", nil},
		{"how long does the timer have left", "jibo.timer:time_left", nil},
		{"how much time has my countdown got to go", "jibo.timer:time_left", nil},
		{"how long has the timer got", "jibo.timer:time_left", nil},
		{"how long is left on my timer", "jibo.timer:time_left", nil},
		{"how long to go on the timer", "jibo.timer:time_left", nil},
		{"lower your voice", "jibo.volume:volume_down", nil},
		{"soften your voice a bit please", "jibo.volume:volume_down", nil},
		{"raise your voice a little", "jibo.volume:volume_up", nil},
		{"be quiet for a bit", "jibo.volume:mute", nil},
		{"keep quiet for now", "jibo.volume:mute", nil},
		{"what time is it please", "jibo.clock:time_now", nil},
		// Two groups changed or more: templates of their own, so that the
		// speech grammar holds them (audio/grammar's
		// TestBuiltinGrammarHoldsTwoChangeWordings).
		{"put the volume at six", "jibo.volume:volume_set", map[string]string{"level": "6"}},
		{"set the volume at four please", "jibo.volume:volume_set", map[string]string{"level": "4"}},
		{"turn the volume to seven", "jibo.volume:volume_set", map[string]string{"level": "7"}},
		{"turn the volume on please", "jibo.volume:unmute", nil},
		{"put the volume on please", "jibo.volume:unmute", nil},
		{"turn the sound up a little", "jibo.volume:volume_up", nil},
		{"could you speak up please", "jibo.volume:volume_up", nil},
		{"turn the volume down a bit please", "jibo.volume:volume_down", nil},
		{"could you turn it down please", "jibo.volume:volume_down", nil},
		{"switch the sound back on", "jibo.volume:unmute", nil},
		{"stop my timer please", "jibo.timer:cancel_timer", nil},
		{"turn off my timer", "jibo.timer:cancel_timer", nil},
		{"how long does my timer have left", "jibo.timer:time_left", nil},
		{"when will my timer go off", "jibo.timer:time_left", nil},
		{"could you check the time for me", "jibo.clock:time_now", nil},
		{"can you tell me the time for me", "jibo.clock:time_now", nil},
	}
	for _, tt := range tests {
		t.Run(tt.utterance, func(t *testing.T) {
			for name, got := range map[string]understood{
				"engines": st.claim(t, st.templates, tt.utterance),
				"robot":   st.claim(t, st.robot, tt.utterance),
			} {
				assert.Equal(t, tt.want, got.intent, name)
				c := paraphraseCase{utterance: tt.utterance, want: []string{tt.want}, slots: tt.slots}
				assert.True(t, slotsRight(c, got.slots), "%s: slots %v, want %v", name, got.slots, tt.slots)
			}
		})
	}
}

// TestMuteAndUnmuteBothWays: muting and unmuting said the ways people
// say them, each beside its opposite ("turn mute on" mutes, "turn mute
// off" unmutes, as "turn the sound off" mutes and "turn the sound on"
// unmutes). Each is a template, parsed surely by the engines alone and by
// the robot's stack: before they were, the paraphrase tier took "turn the
// mute off" and "cancel mute" for muting and "put the volume on silent"
// for unmuting, the opposite action.
func TestMuteAndUnmuteBothWays(t *testing.T) {
	st := newStages(t)
	const mute, unmute = "jibo.volume:mute", "jibo.volume:unmute"
	tests := []struct{ say, want string }{
		{"put the volume on silent", mute},
		{"put the volume on", unmute},
		{"put yourself on silent", mute},
		{"go on mute", mute},
		{"come off mute", unmute},
		{"get off mute please", unmute},
		{"turn on mute", mute},
		{"turn off mute", unmute},
		{"turn on the mute", mute},
		{"turn off the mute", unmute},
		{"turn mute on", mute},
		{"turn mute off", unmute},
		{"turn the mute on", mute},
		{"turn the mute off", unmute},
		{"switch on mute", mute},
		{"switch off mute", unmute},
		{"switch mute on", mute},
		{"switch mute off", unmute},
		{"mute on", mute},
		{"mute off", unmute},
		{"sound off", mute},
		{"sound on", unmute},
		{"turn the sound off", mute},
		{"turn the sound on", unmute},
		{"take yourself off mute", unmute},
		{"put yourself on mute", mute},
		{"put the volume on mute", mute},
		{"cancel mute", unmute},
		{"cancel the mute please", unmute},
		{"stop muting", unmute},
		{"stop muting yourself", unmute},
		{"unmute yourself please", unmute},
		{"mute yourself please", mute},
	}
	for _, tt := range tests {
		t.Run(tt.say, func(t *testing.T) {
			for name, s := range map[string]*intent.Stack{"engines": st.templates, "robot": st.robot} {
				m, band, _, err := s.Claim(context.Background(), st.query(tt.say))
				require.NoError(t, err)
				require.NotNil(t, m, name)
				assert.Equal(t, tt.want, m.SkillID+":"+m.IntentName, name)
				assert.Equal(t, intent.BandHigh, band, "%s: %s", name, m.Why)
			}
		})
	}
}
