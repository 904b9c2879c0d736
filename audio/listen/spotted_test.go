package listen

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"math/rand/v2"
	"slices"
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

// aligningASR is a recogniser that aligns the wake phrase (PhraseAligner)
// as told: the phrase's end at end of the audio it is handed (ok and
// err are AlignWake's); it counts its calls and keeps the length of the
// audio it searched last.
type aligningASR struct {
	fakeASR
	end   int
	ok    bool
	err   error
	calls int
	n     int
}

func (a *aligningASR) AlignWake(_ context.Context, pcm []int16) (int, bool, error) {
	a.calls++
	a.n = len(pcm)
	return a.end, a.ok && a.err == nil, a.err
}

// positionTone fills pcm from from on with loud samples that tell their
// position (modulo 30000).
func positionTone(pcm []int16, from int) {
	for i := from; i < len(pcm); i++ {
		pcm[i] = int16(2000 + i%30000)
	}
}

func TestAfterWake(t *testing.T) {
	// alignAs is what the aligner answers.
	type alignAs struct {
		end int
		ok  bool
		err error
	}
	ms := func(d int) int { return int(at(time.Duration(d) * time.Millisecond)) }
	// An utterance whose audio starts at from ms in a quiet room, speech
	// from start to end, audio to end + 200 ms; with pause, 150 ms of
	// silence there. The speech tells its samples' positions (the
	// aligner's fake reads them) and is loud throughout.
	utterance := func(from, start, end, pause int) vad.Segment {
		pcm := make([]int16, ms(end+200-from))
		positionTone(pcm, ms(start-from))
		if pause > 0 {
			clear(pcm[ms(pause-from):ms(pause-from+150)])
		}
		return vad.Segment{PCM: pcm, From: int64(ms(from)), Start: int64(ms(start)), End: int64(ms(end))}
	}
	// inRoom is seg with its pre-roll a steady hum underDB under the
	// loudest 10 ms of the phrase's last 300 ms before the estimate (end,
	// ms): the room the pre-roll hears.
	inRoom := func(seg vad.Segment, end int, underDB float64) vad.Segment {
		const frame = rate / 100
		est := ms(end) - int(seg.From)
		peak := math.Inf(-1)
		for k := est - ms(300); k+frame <= est; k += frame {
			peak = max(peak, vad.Level(seg.PCM[k:k+frame]))
		}
		amp := 32768 * math.Sqrt2 * math.Pow(10, (peak-underDB)/20)
		seg.PCM = slices.Clone(seg.PCM)
		for i := range int(seg.Start - seg.From) {
			seg.PCM[i] = int16(amp * math.Sin(float64(i)*0.3))
		}
		return seg
	}
	errAlign := errors.New("decoder gone")
	tests := []struct {
		name     string
		seg      vad.Segment
		end      int // the detector's estimate, ms
		align    alignAs
		ok       bool
		want     int // samples returned
		cut      int // where the command starts in the utterance's audio; -1 when no speech is cut off
		searched int // samples the aligner searched; 0 when not asked
	}{
		{name: "a pause after the phrase: cut there, the pre-roll in front, no alignment",
			seg: utterance(1000, 1500, 3000, 2000), end: 2000, align: alignAs{ok: true, end: ms(900)},
			ok: true, want: ms(500) + ms(1200), cut: ms(1000)},
		{name: "a pause starting just after the estimate: cut there, no alignment",
			seg: utterance(1000, 1500, 3000, 2020), end: 2000, align: alignAs{ok: true, end: ms(940)},
			ok: true, want: ms(500) + ms(2200) - ms(1020), cut: ms(1020)},
		{name: "quiet only after speech run on from the phrase (a stop's closure): cut where the phrase is aligned",
			seg: utterance(1000, 1500, 3000, 2050), end: 2000, align: alignAs{ok: true, end: ms(940)},
			ok: true, want: ms(500) + ms(2200) - ms(940), cut: ms(940), searched: ms(1500)},
		{name: "too little after the phrase: its own tail",
			seg: utterance(1000, 1500, 3000, 2800), end: 2800, ok: false},
		{name: "run on from the phrase: cut where the phrase is aligned",
			seg: utterance(1000, 1500, 3000, 0), end: 2000, align: alignAs{ok: true, end: ms(940)},
			ok: true, want: ms(500) + ms(2200) - ms(940), cut: ms(940), searched: ms(1500)},
		{name: "run on after earlier speech: the alignment searches from 1.5 s before the estimate",
			seg: utterance(0, 200, 4000, 0), end: 3000, align: alignAs{ok: true, end: ms(1550)},
			ok: true, want: ms(200) + ms(4200) - ms(3050), cut: ms(3050), searched: ms(2000)},
		{name: "run on, the phrase not found: cut at the estimate",
			seg: utterance(1000, 1500, 3000, 0), end: 2000, align: alignAs{},
			ok: true, want: ms(500) + ms(1200), cut: ms(1000), searched: ms(1500)},
		{name: "run on, the alignment failed: cut at the estimate",
			seg: utterance(1000, 1500, 3000, 0), end: 2000, align: alignAs{err: errAlign},
			ok: true, want: ms(500) + ms(1200), cut: ms(1000), searched: ms(1500)},
		{name: "run on, aligned far from the estimate: cut at the estimate",
			seg: utterance(1000, 1500, 3000, 0), end: 2000, align: alignAs{ok: true, end: ms(1100)},
			ok: true, want: ms(500) + ms(1200), cut: ms(1000), searched: ms(1500)},
		{name: "no pre-roll, no room to hear a pause against: cut at the estimate, no alignment",
			seg: utterance(1000, 1000, 3000, 0), end: 2000, align: alignAs{ok: true, end: ms(900)},
			ok: true, want: ms(1200), cut: -1},
		{name: "run on in a loud room, the phrase 14 dB over it: no pause would be heard, cut at the estimate, no alignment",
			seg: inRoom(utterance(1000, 1500, 3000, 0), 2000, 14), end: 2000, align: alignAs{ok: true, end: ms(940)},
			ok: true, want: ms(500) + ms(1200), cut: ms(1000)},
		{name: "run on in a room the phrase stands 16 dB over: cut where the phrase is aligned",
			seg: inRoom(utterance(1000, 1500, 3000, 0), 2000, 16), end: 2000, align: alignAs{ok: true, end: ms(940)},
			ok: true, want: ms(500) + ms(2200) - ms(940), cut: ms(940), searched: ms(1500)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := &aligningASR{end: tc.align.end, ok: tc.align.ok, err: tc.align.err}
			l := &Listener{cfg: Config{Recognizer: a}, log: slog.New(slog.DiscardHandler)}
			got, ok := l.afterWake(t.Context(), tc.seg, int64(ms(tc.end)))
			require.Equal(t, tc.ok, ok)
			if tc.searched > 0 {
				assert.Equal(t, 1, a.calls, "aligned once")
				assert.Equal(t, tc.searched, a.n, "audio searched")
			} else {
				assert.Zero(t, a.calls, "not aligned")
			}
			if !ok {
				return
			}
			require.Equal(t, tc.want, len(got), "samples handed over")
			if tc.cut < 0 {
				return
			}
			// The pre-roll (silence), then the command from the cut on,
			// faded in over spliceFade.
			pre := int(tc.seg.Start - tc.seg.From)
			assert.Zero(t, got[pre], "the fade-in starts from silence")
			k := pre + int(at(spliceFade)) + 10
			assert.Equal(t, tc.seg.PCM[tc.cut+k-pre], got[k], "the command from the cut on")
		})
	}
}

func TestPauseHeard(t *testing.T) {
	// A phrase at a steady level over a room at another: a pause would be
	// heard only where the room lies pauseHeardDB under the phrase.
	level := func(amp float64, n int) []int16 {
		pcm := make([]int16, n)
		for i := range pcm {
			pcm[i] = int16(amp * math.Sin(float64(i)*0.3))
		}
		return pcm
	}
	phrase := level(10000, int(at(time.Second)))
	tests := []struct {
		name string
		room []int16
		want bool
	}{
		{"a quiet room", make([]int16, int(at(500*time.Millisecond))), true},
		{"a room 20 dB under the phrase", level(1000, int(at(500*time.Millisecond))), true},
		{"a room 12 dB under the phrase (10 dB noise, far off)", level(2512, int(at(500*time.Millisecond))), false},
		{"no pre-roll", nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, pauseHeard(tc.room, phrase))
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
		paused   bool
	}{
		{"a vowel's tail left: moved into the pause", build(500, 300, 500), ms(460), ms(500), true},
		{"already in the pause: stays", build(500, 300, 500), ms(560), ms(560), true},
		{"no pause: stays", build(500, 0, 500), ms(460), ms(460), false},
		{"a stop's closure is too short for a pause", build(500, 60, 500), ms(460), ms(500), false},
		{"the pause too far off: stays", build(700, 300, 500), ms(460), ms(460), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, paused := settle(tc.pcm, tc.cut)
			assert.Equal(t, tc.got, got)
			assert.Equal(t, tc.paused, paused)
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
