package listen

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/audio/wake"
)

func loadWAV(t *testing.T, name string) []int16 {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", name))
	require.NoError(t, err)
	defer f.Close()
	c, err := audio.DecodeWAV(f)
	require.NoError(t, err)
	return audio.ToRecognition(c)
}

// The wake word detector through the real listener, on espeak-ng speech
// of a voice the network was not trained on: "hey jibo" followed by a
// sentence no skill knows opens the command window (and the sentence is
// recognised from the audio after the phrase: the recogniser here knows
// no sentence, as the robot's grammar would not), so "set a timer" said
// next is a command without the phrase. A decoy ("Hey Jimbo, …") opens
// nothing, and nothing is recognised.
func TestWakeWordEndToEnd(t *testing.T) {
	second := func(files ...string) []int16 {
		var pcm []int16
		for _, f := range files {
			pcm = append(pcm, loadWAV(t, f)...)
			pcm = append(pcm, make([]int16, rate)...)
		}
		return pcm
	}
	tests := []struct {
		name     string
		pcm      []int16
		asr      [][]audio.Hypothesis
		wakes    []string
		commands [][]any
		// firstBelow bounds the first utterance's audio recognised: what
		// follows the phrase, not the phrase.
		firstBelow int
	}{
		{name: "hey jibo and a sentence no skill knows, then a command in the window",
			pcm: second("hey_jibo_unknown.wav", "set_a_timer.wav"), asr: [][]audio.Hypothesis{nil, hyp("set a timer")},
			wakes: []string{"voice"}, commands: [][]any{{"set a timer"}}, firstBelow: len(loadWAV(t, "hey_jibo_unknown.wav")) - rate/2},
		{name: "hey jibo and a command",
			pcm: second("hey_jibo_what_time.wav"), asr: [][]audio.Hypothesis{hyp("what time is it")},
			wakes: []string{"voice"}, commands: [][]any{{"what time is it"}}},
		{name: "a decoy opens nothing",
			pcm: second("hey_jimbo_decoy.wav", "set_a_timer.wav")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newWorld(t)
				defer w.bus.Close(context.Background())
				det, err := wake.New(wake.Config{})
				require.NoError(t, err)
				asr := &heardASR{fakeASR: fakeASR{script: tc.asr}}
				_, err = runListener(t, w, audio.NewClipSource(tc.pcm, false), asr, func(c *Config) { c.Wake = det })
				require.NoError(t, err)
				assert.Equal(t, tc.wakes, w.wakes())
				assert.Equal(t, tc.commands, w.commands())
				assert.Equal(t, len(tc.asr), asr.calls, "utterances recognised")
				if tc.firstBelow > 0 {
					require.NotEmpty(t, asr.lengths)
					assert.Less(t, asr.lengths[0], tc.firstBelow, "the phrase is cut off")
				}
			})
		})
	}
}
