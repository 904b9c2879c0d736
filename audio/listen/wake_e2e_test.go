package listen

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"testing/synctest"
	"time"

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

// fakeVoice says lines as the body would: a speaking event each.
type fakeVoice struct {
	mu   sync.Mutex
	said []string
}

func (v *fakeVoice) Say(_ context.Context, text string, speaking func(string)) error {
	v.mu.Lock()
	v.said = append(v.said, text)
	v.mu.Unlock()
	speaking(text)
	return nil
}

// Issue 24, "rejection instead of forcing": "hey jibo" and a sentence
// the recogniser does not understand makes the robot ask ("Sorry, what
// was that?", spoken and on the bus as ovos.utterance.speak) and listen
// again without the wake phrase; it asks once, so a room that keeps
// talking does not keep it asking; no command is sent for what it did
// not understand.
func TestAskAgainWhenNotUnderstood(t *testing.T) {
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
		asked    []string
		commands [][]any
	}{
		{name: "not understood: asked",
			pcm: second("hey_jibo_unknown.wav"), asr: [][]audio.Hypothesis{nil},
			asked: []string{AskAgain}},
		{name: "said again and understood: a command without the wake phrase",
			pcm: second("hey_jibo_unknown.wav", "set_a_timer.wav"), asr: [][]audio.Hypothesis{nil, hyp("set a timer")},
			asked: []string{AskAgain}, commands: [][]any{{"set a timer"}}},
		{name: "not understood twice: asked once",
			pcm: second("hey_jibo_unknown.wav", "set_a_timer.wav"), asr: [][]audio.Hypothesis{nil, nil},
			asked: []string{AskAgain}},
		{name: "a decoy: nothing said",
			pcm: second("hey_jimbo_decoy.wav")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newWorld(t)
				det, err := wake.New(wake.Config{})
				require.NoError(t, err)
				voice := &fakeVoice{}
				asr := &heardASR{fakeASR: fakeASR{script: tc.asr}}
				l, err := runListener(t, w, audio.NewClipSource(tc.pcm, false), asr, func(c *Config) { c.Wake = det; c.Voice = voice })
				require.NoError(t, err)
				assert.Equal(t, tc.asked, voice.said, "what the robot said")
				var spoken []string
				for _, m := range w.topics(evSpeak) {
					if u := m.DataString("utterance"); u == AskAgain {
						spoken = append(spoken, u)
					}
				}
				assert.Equal(t, tc.asked, spoken, "told as spoken words (on the bus: ovos.utterance.speak)")
				assert.Equal(t, tc.commands, w.commands())
				assert.Equal(t, len(tc.asked), l.Stats().Asked)
			})
		})
	}
}

// With the wake word detector listening, the wake button and the shell's
// `audio listen` still open the command window: "set a timer" said after
// either, without the wake phrase, is a command.
func TestButtonAndShellWakeWithTheDetector(t *testing.T) {
	for _, source := range []string{SourceButton, SourceShell} {
		t.Run(source, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newWorld(t)
				det, err := wake.New(wake.Config{})
				require.NoError(t, err)
				pcm := append(make([]int16, rate), loadWAV(t, "set_a_timer.wav")...)
				pcm = append(pcm, make([]int16, rate)...)
				src := &hookSource{pcm: pcm, hooks: map[int64]func(){at(500 * time.Millisecond): wakeBy(&w, source)}}
				asr := &fakeASR{script: [][]audio.Hypothesis{hyp("set a timer")}}
				_, err = runListener(t, w, src, asr, func(c *Config) { c.Wake = det })
				require.NoError(t, err)
				assert.Equal(t, []string{source}, w.wakes())
				assert.Equal(t, [][]any{{"set a timer"}}, w.commands())
			})
		})
	}
}
