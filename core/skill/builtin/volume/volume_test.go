package volume

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/builtin/internal/rig"
)

// knob is a master volume that remembers every setting.
type knob struct {
	mu   sync.Mutex
	v    float64
	set  []float64
	fail error
}

func (k *knob) Volume() float64 {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.v
}

func (k *knob) SetVolume(_ context.Context, v float64) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.fail != nil {
		return k.fail
	}
	k.v = v
	k.set = append(k.set, v)
	return nil
}

func newRig(t *testing.T, k *knob) *rig.Rig {
	r := rig.New(t, rig.Options{})
	opts := Options{Rand: func(int) int { return 0 }}
	if k != nil {
		opts.Control = k
	}
	s, err := New(opts)
	require.NoError(t, err)
	r.Add(s)
	return r
}

type step struct {
	say    string
	intent string
	said   []string
	level  int // the level after the turn
}

// conversation is a run of turns from a starting volume.
type conversation struct {
	name  string
	start float64
	steps []step
}

// runConversations has each conversation with a fresh skill and checks
// every turn's intent, answer and the level after it.
func runConversations(t *testing.T, tests []conversation) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := &knob{v: tt.start}
			r := newRig(t, k)
			for _, st := range tt.steps {
				turn := r.Say(st.say)
				require.NoError(t, turn.Err, st.say)
				assert.Equal(t, ID+":"+st.intent, turn.Dispatched, st.say)
				assert.Equal(t, st.said, turn.Said, st.say)
				assert.Equal(t, st.level, LevelOf(k.Volume()), st.say)
			}
		})
	}
}

func TestVolume(t *testing.T) {
	tests := []conversation{
		{"up and down", 0.5, []step{
			{"turn it up", IntentUp, []string{"Volume 6."}, 6},
			{"louder", IntentUp, []string{"Volume 7."}, 7},
			{"quieter", IntentDown, []string{"Volume 6."}, 6},
			{"turn the volume down", IntentDown, []string{"Volume 5."}, 5},
			{"what's the volume", IntentGet, []string{"My volume is 5."}, 5},
		}},
		{"at the top", 1, []step{
			{"volume up", IntentUp, []string{"I'm already as loud as I go."}, 10},
		}},
		{"set a level", 0.3, []step{
			{"set the volume to 7", IntentSet, []string{"Volume 7."}, 7},
			{"set the volume to ten", IntentSet, []string{"Volume 10."}, 10},
			{"set the volume to max", IntentSet, []string{"Volume 10."}, 10},
			{"volume 40 percent", IntentSet, []string{"Volume 4."}, 4},
			{"set the volume to 11", IntentSet, []string{"I can set my volume from zero to ten."}, 4},
			{"set the volume to loud", IntentSet, []string{"I can set my volume from zero to ten."}, 4},
		}},
		{"mute and unmute", 0.8, []step{
			{"mute", IntentMute, nil, 0},
			{"what's the volume", IntentGet, []string{"I'm muted right now."}, 0},
			{"unmute", IntentUnmute, []string{"Volume 8."}, 8},
		}},
		{"down to silence and back up", 0.1, []step{
			{"turn it down", IntentDown, nil, 0},
			{"turn it down", IntentDown, nil, 0},
			{"turn it up", IntentUp, []string{"Volume 1."}, 1},
		}},
		{"unmute without a level before", 0, []step{
			{"unmute", IntentUnmute, []string{"Volume 5."}, 5},
		}},
	}
	runConversations(t, tests)
}

// TestConfirmedAtNewVolume: a new level is confirmed with a beep, played
// through the master volume after it changed.
func TestConfirmedAtNewVolume(t *testing.T) {
	k := &knob{v: 0.5}
	r := newRig(t, k)
	require.NoError(t, r.Say("louder").Err)
	assert.Equal(t, []float64{0.6}, k.set, "set before the answer runs")
	assert.Equal(t, []string{"sfx:" + ConfirmSound}, r.Sounds.Played())
	require.NoError(t, r.Say("mute").Err)
	assert.Equal(t, []string{"sfx:" + ConfirmSound}, r.Sounds.Played(), "muting makes no sound")
}

func TestFailures(t *testing.T) {
	r := newRig(t, nil)
	turn := r.Say("louder")
	require.NoError(t, turn.Err)
	assert.Equal(t, []string{"Sorry, I can't change my volume on this robot."}, turn.Said)

	k := &knob{v: 0.5, fail: errors.New("mixer gone")}
	turn = newRig(t, k).Say("louder")
	assert.ErrorContains(t, turn.Err, "setting the volume to 6: mixer gone")
	assert.Equal(t, []string{"Sorry, something went wrong with the volume."}, turn.Said, "the robot says it failed")
}

func TestParseLevel(t *testing.T) {
	good := map[string]int{"0": 0, "7": 7, "10": 10, "seven": 7, "Ten": 10, "max": 10, "maximum": 10, "half": 5,
		"zero": 0, "70 percent": 7, "75%": 8, "ten percent": 1, "level 3": 3, " 4 ": 4}
	for in, want := range good {
		got, err := ParseLevel(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "11", "-1", "loud", "150 percent", "seventy", "7.5", "1e3"} {
		_, err := ParseLevel(in)
		assert.ErrorIs(t, err, ErrBadLevel, in)
	}
}

// TestMutingIsNoLevel: what means silence is read as muting, never as a
// level, and no level word is read as muting.
func TestMutingIsNoLevel(t *testing.T) {
	for _, in := range []string{"mute", "Mute", "to mute", "on mute", "muted", "silent", "off", " to off "} {
		assert.True(t, Muting(in), in)
		_, err := ParseLevel(in)
		assert.ErrorIs(t, err, ErrBadLevel, in)
	}
	for _, in := range []string{"", "0", "zero", "min", "seven", "loud", "unmute", "on", "mute mute"} {
		assert.False(t, Muting(in), in)
	}
}

func TestManifest(t *testing.T) {
	s, err := New(Options{})
	require.NoError(t, err)
	m := rig.Manifest(t, s, ID)
	assert.False(t, m.Idempotent(IntentUp), "louder twice is two steps")
}

// TestHowPeopleSayIt: relative volume in people's words, a level said with
// the words around it, and "off"/"back on" understood as muting, never as
// a level (issue 23).
func TestHowPeopleSayIt(t *testing.T) {
	tests := []conversation{
		{"louder", 0.5, []step{
			{"make it louder", IntentUp, []string{"Volume 6."}, 6},
			{"boost the volume", IntentUp, []string{"Volume 7."}, 7},
			{"a little louder please", IntentUp, []string{"Volume 8."}, 8},
			{"i can't hear you", IntentUp, []string{"Volume 9."}, 9},
			{"crank it up", IntentUp, []string{"Volume 10."}, 10},
			{"speak up", IntentUp, []string{"I'm already as loud as I go."}, 10},
		}},
		{"quieter", 0.9, []step{
			{"turn it down a bit", IntentDown, []string{"Volume 8."}, 8},
			{"a bit softer", IntentDown, []string{"Volume 7."}, 7},
			{"hush", IntentDown, []string{"Volume 6."}, 6},
			{"you're too loud", IntentDown, []string{"Volume 5."}, 5},
			{"not so loud", IntentDown, []string{"Volume 4."}, 4},
			{"could you be a little quieter", IntentDown, []string{"Volume 3."}, 3},
		}},
		{"off and back on", 0.6, []step{
			{"turn your sound off", IntentMute, nil, 0},
			{"turn the volume back on", IntentUnmute, []string{"Volume 6."}, 6},
			{"volume off", IntentMute, nil, 0},
			{"volume on", IntentUnmute, []string{"Volume 6."}, 6},
			{"be quiet", IntentMute, nil, 0},
			{"you can talk again", IntentUnmute, []string{"Volume 6."}, 6},
		}},
		{"levels in a sentence", 0.5, []step{
			{"volume at 4", IntentSet, []string{"Volume 4."}, 4},
			{"set your volume to two please", IntentSet, []string{"Volume 2."}, 2},
			{"put the volume on eight", IntentSet, []string{"Volume 8."}, 8},
			{"can you put the volume at level 3", IntentSet, []string{"Volume 3."}, 3},
			{"max volume", IntentMax, []string{"Volume 10."}, 10},
			{"turn it all the way up", IntentMax, []string{"I'm already as loud as I go."}, 10},
		}},
		{"on mute", 0.6, []step{
			{"turn the volume on mute", IntentMute, nil, 0},
			{"turn the volume back on", IntentUnmute, []string{"Volume 6."}, 6},
			{"put the volume on mute", IntentMute, nil, 0},
			{"volume on", IntentUnmute, []string{"Volume 6."}, 6},
			{"set the volume to mute", IntentMute, nil, 0},
			{"unmute", IntentUnmute, []string{"Volume 6."}, 6},
			{"put yourself on mute please", IntentMute, nil, 0},
		}},
		{"a level said as muting", 0.6, []step{
			{"set the volume to silent", IntentSet, nil, 0},
			{"turn the mute off", IntentUnmute, []string{"Volume 6."}, 6},
			{"put the volume on silent", IntentMute, nil, 0},
			{"take yourself off mute", IntentUnmute, []string{"Volume 6."}, 6},
			{"unmute", IntentUnmute, []string{"Volume 6."}, 6},
			{"set the volume to loud", IntentSet, []string{"I can set my volume from zero to ten."}, 6},
		}},
		{"asking", 0.7, []step{
			{"how loud are you right now", IntentGet, []string{"My volume is 7."}, 7},
			{"what volume are you on", IntentGet, []string{"My volume is 7."}, 7},
		}},
	}
	runConversations(t, tests)
}
