package listen

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/audio/vad"
	"github.com/openjibo/jibod/audio/wake"
)

// scriptedWake reports the wake phrase at fixed stream positions, ending
// lag before each.
type scriptedWake struct {
	at  []int64
	lag int64
	pos int64
}

func (s *scriptedWake) Feed(pcm []int16) []wake.Detection {
	var out []wake.Detection
	from := s.pos
	s.pos += int64(len(pcm))
	for _, p := range s.at {
		if p > from && p <= s.pos {
			out = append(out, wake.Detection{At: p, End: p - s.lag, Score: 0.9})
		}
	}
	return out
}

// heardASR answers like fakeASR and keeps how much audio each utterance
// had.
type heardASR struct {
	fakeASR
	mu      sync.Mutex
	lengths []int
}

func (h *heardASR) Recognize(ctx context.Context, pcm []int16) ([]audio.Hypothesis, error) {
	h.mu.Lock()
	h.lengths = append(h.lengths, len(pcm))
	h.mu.Unlock()
	return h.fakeASR.Recognize(ctx, pcm)
}

func TestListenerWithWakeDetector(t *testing.T) {
	// The phrase is said from 1 s to 1.6 s in every case; the detector
	// decides 50 ms after it ends.
	phrase := func() *script { return (&script{}).silence(time.Second).say(600 * time.Millisecond) }
	spot := []time.Duration{1650 * time.Millisecond}
	var w *world
	tests := []struct {
		name     string
		audio    *script
		spot     []time.Duration
		hooks    map[time.Duration]func()
		asr      [][]audio.Hypothesis
		commands [][]any
		wakes    []string
		stops    int
		// heard is how much audio the recogniser had, ±60 ms.
		heard []time.Duration
	}{
		{name: "the phrase, then a command in the same breath: recognised from the audio after the phrase",
			audio: phrase().silence(100 * time.Millisecond).say(800 * time.Millisecond).silence(time.Second), spot: spot,
			asr: [][]audio.Hypothesis{hyp("what time is it")}, commands: [][]any{{"what time is it"}}, wakes: []string{"voice"},
			// The pre-roll, then 1.6 s → 2.5 s and the hangover.
			heard: []time.Duration{vad.Defaults.PreRoll + 900*time.Millisecond + vad.Defaults.Hangover}},
		{name: "the phrase followed by speech no skill knows wakes all the same",
			audio: phrase().silence(100 * time.Millisecond).say(800 * time.Millisecond).silence(time.Second), spot: spot,
			asr: [][]audio.Hypothesis{nil}, wakes: []string{"voice"},
			heard: []time.Duration{vad.Defaults.PreRoll + 900*time.Millisecond + vad.Defaults.Hangover}},
		{name: "the phrase alone, then the command in the window",
			audio: phrase().silence(2 * time.Second).say(800 * time.Millisecond).silence(time.Second), spot: spot,
			asr: [][]audio.Hypothesis{hyp("what time is it")}, commands: [][]any{{"what time is it"}}, wakes: []string{"voice"},
			heard: []time.Duration{vad.Defaults.PreRoll + 800*time.Millisecond + vad.Defaults.Hangover}},
		{name: "speech without the phrase is not even recognised",
			audio: phrase().silence(time.Second)},
		{name: "a sentence recognised with the wake phrase does not wake: the detector decides",
			audio: phrase().silence(time.Second), hooks: map[time.Duration]func(){500 * time.Millisecond: wakeBy(&w, SourceShell)},
			asr: [][]audio.Hypothesis{hyp("hey jibo what time is it")}, commands: [][]any{{"what time is it"}}, wakes: []string{"shell"},
			heard: []time.Duration{vad.Defaults.PreRoll + 600*time.Millisecond + vad.Defaults.Hangover}},
		{name: "the wake button still opens the window",
			audio: phrase().silence(time.Second), hooks: map[time.Duration]func(){500 * time.Millisecond: wakeBy(&w, SourceButton)},
			asr: [][]audio.Hypothesis{hyp("what time is it")}, commands: [][]any{{"what time is it"}}, wakes: []string{"button"},
			heard: []time.Duration{vad.Defaults.PreRoll + 600*time.Millisecond + vad.Defaults.Hangover}},
		{name: "barge-in: the phrase while the robot speaks stops it, and the command after it counts",
			audio: phrase().silence(100 * time.Millisecond).say(800 * time.Millisecond).silence(time.Second), spot: spot,
			hooks: map[time.Duration]func(){500 * time.Millisecond: speaking(&w)},
			asr:   [][]audio.Hypothesis{hyp("stop")}, commands: [][]any{{"stop"}}, wakes: []string{"voice"}, stops: 1,
			heard: []time.Duration{vad.Defaults.PreRoll + 900*time.Millisecond + vad.Defaults.Hangover}},
		{name: "speech while the robot speaks, without the phrase, is ignored",
			audio: phrase().silence(time.Second), hooks: map[time.Duration]func(){500 * time.Millisecond: speaking(&w)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w = newWorld(t)
				src := &hookSource{pcm: tc.audio.pcm, hooks: map[int64]func(){}}
				for d, f := range tc.hooks {
					src.hooks[at(d)] = f
				}
				det := &scriptedWake{lag: at(50 * time.Millisecond)}
				for _, d := range tc.spot {
					det.at = append(det.at, at(d))
				}
				asr := &heardASR{fakeASR: fakeASR{script: tc.asr}}
				l, err := runListener(t, w, src, asr, func(c *Config) { c.Wake = det })
				require.NoError(t, err)
				assert.Equal(t, tc.commands, w.commands())
				assert.Equal(t, tc.wakes, w.wakes())
				assert.Len(t, w.topics(evStop), tc.stops)
				assert.Len(t, w.topics(TopicRecognized), len(tc.asr), "recognised utterances")
				require.Len(t, asr.lengths, len(tc.heard))
				for i, d := range tc.heard {
					assert.InDelta(t, float64(at(d)), float64(asr.lengths[i]), float64(at(60*time.Millisecond)), "audio recognised")
				}
				assert.Equal(t, len(tc.wakes), l.Stats().Wakes)
			})
		})
	}
}

func TestAfterWake(t *testing.T) {
	ms := func(d int) int64 { return at(time.Duration(d) * time.Millisecond) }
	// An utterance whose audio starts at 1 s, speech from 1.5 s to 3 s.
	pcm := make([]int16, ms(2200))
	for i := range pcm {
		pcm[i] = 1000
	}
	seg := vad.Segment{PCM: pcm, From: ms(1000), Start: ms(1500), End: ms(3000)}
	tests := []struct {
		name   string
		end    int64
		ok     bool
		want   int64 // samples returned
		splice int64 // where the two pieces meet
	}{
		{"the command after the phrase, the pre-roll in front", ms(2000), true, ms(500) + ms(1200), ms(500)},
		{"too little after the phrase: its own tail", ms(2800), false, 0, 0},
		{"just enough", ms(3000) - at(minAfterWake), true, ms(500) + ms(3200) - ms(3000) + at(minAfterWake), ms(500)},
		{"a phrase that ended in the pre-roll keeps all the speech", ms(1200), true, ms(2200), ms(200)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := afterWake(seg, tc.end)
			require.Equal(t, tc.ok, ok)
			assert.Len(t, got, int(tc.want))
			if ok {
				// Joined with short fades: the middle is untouched.
				assert.Equal(t, int16(1000), got[len(got)/2])
				assert.Zero(t, got[tc.splice], "the fade-in starts from silence")
			}
		})
	}
}

func TestSettle(t *testing.T) {
	ms := func(d int) int { return int(at(time.Duration(d) * time.Millisecond)) }
	// tone, then silence, then tone again: the phrase's vowel, the pause,
	// the command.
	build := func(vowel, pause, next int) []int16 {
		s := &script{}
		s.say(time.Duration(vowel) * time.Millisecond).silence(time.Duration(pause) * time.Millisecond).say(time.Duration(next) * time.Millisecond)
		return s.pcm
	}
	tests := []struct {
		name     string
		pcm      []int16
		cut, got int
	}{
		{"a vowel's tail left: moved into the pause", build(500, 300, 500), ms(460), ms(500)},
		{"already in the pause: stays", build(500, 300, 500), ms(560), ms(560)},
		{"no pause: stays", build(500, 0, 500), ms(460), ms(460)},
		{"the pause too far off: stays", build(700, 300, 500), ms(460), ms(460)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.got, settle(tc.pcm, tc.cut))
		})
	}
}

// TestListenerHearsTheCommandAfterTheWakeNotTheTalkAfterIt is issue 24's
// item 2 where other people start talking with the person, too late for
// the detector to know the room: "hey jibo" and the command, then the
// talk goes on. The utterance runs on into the talk; the command after
// the wake phrase is recognised up to the person's last syllable, not
// with seconds of the talk after it.
func TestListenerHearsTheCommandAfterTheWakeNotTheTalkAfterIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(7, 8))
		s := (&script{}).babble(400*time.Millisecond, 300, rng)
		phraseEnd := 400*time.Millisecond + 600*time.Millisecond
		s.say(600*time.Millisecond).babble(100*time.Millisecond, 300, rng)
		for range 8 { // 1.3 s of syllables 26 dB over the talk
			s.say(100*time.Millisecond).babble(60*time.Millisecond, 300, rng)
		}
		s.babble(8*time.Second, 300, rng)
		w := newWorld(t)
		asr := &heardASR{fakeASR: fakeASR{script: [][]audio.Hypothesis{hyp("what time is it")}}}
		src := &hookSource{pcm: s.pcm, hooks: map[int64]func(){}}
		det := &scriptedWake{at: []int64{at(phraseEnd + 50*time.Millisecond)}, lag: at(50 * time.Millisecond)}
		_, err := runListener(t, w, src, asr, func(c *Config) {
			c.Wake = det
			c.Logger = testLogger()
		})
		require.NoError(t, err)
		assert.Equal(t, []string{"voice"}, w.wakes())
		assert.Equal(t, [][]any{{"what time is it"}}, w.commands(), "the command is heard")
		require.Len(t, asr.lengths, 1)
		heard := time.Duration(asr.lengths[0]) * time.Second / rate
		assert.Less(t, heard, vad.Defaults.PreRoll+2*time.Second, "the command without the talk after it (heard %v)", heard)
	})
}
