package vad

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/audio"
)

// sig builds synthetic test signals, deterministically.
type sig struct {
	pcm []int16
	rng *rand.Rand
}

func newSig() *sig { return &sig{rng: rand.New(rand.NewPCG(1, 2))} }

func samples(d time.Duration) int { return int(d * SampleRate / time.Second) }

func amp(db float64) float64 { return 32768 * math.Pow(10, db/20) }

// silence appends digital silence.
func (s *sig) silence(d time.Duration) *sig {
	s.pcm = append(s.pcm, make([]int16, samples(d))...)
	return s
}

// noise appends white noise of RMS level db dBFS.
func (s *sig) noise(d time.Duration, db float64) *sig {
	a := amp(db) * math.Sqrt(3) // uniform noise of RMS a/sqrt(3)
	for range samples(d) {
		s.pcm = append(s.pcm, int16((s.rng.Float64()*2-1)*a))
	}
	return s
}

// tone appends a 440 Hz tone of RMS level db dBFS over noise of level
// noiseDB (math.Inf(-1) for none).
func (s *sig) tone(d time.Duration, db, noiseDB float64) *sig {
	a := amp(db) * math.Sqrt2
	na := amp(noiseDB) * math.Sqrt(3)
	for i := range samples(d) {
		v := a * math.Sin(2*math.Pi*440*float64(i)/SampleRate)
		if !math.IsInf(noiseDB, -1) {
			v += (s.rng.Float64()*2 - 1) * na
		}
		s.pcm = append(s.pcm, int16(max(-32768, min(32767, v))))
	}
	return s
}

// syllables appends on/off bursts: speech-like sound with short gaps.
func (s *sig) syllables(d time.Duration, db float64) *sig {
	for t := time.Duration(0); t < d; t += 160 * time.Millisecond {
		s.tone(100*time.Millisecond, db, math.Inf(-1)).silence(60 * time.Millisecond)
	}
	return s
}

// run feeds pcm in chunks of chunk samples and collects the segments and
// the other events.
func run(t *testing.T, cfg Config, pcm []int16, chunk int) (segs []Segment, starts, dropped int, flushErr error) {
	t.Helper()
	d, err := New(cfg)
	require.NoError(t, err)
	for off := 0; off < len(pcm); off += chunk {
		for _, ev := range d.Feed(pcm[off:min(off+chunk, len(pcm))]) {
			switch ev.Kind {
			case SpeechStart:
				starts++
			case SpeechDropped:
				dropped++
			case SpeechEnd:
				seg := *ev.Segment
				seg.PCM = append([]int16(nil), seg.PCM...)
				segs = append(segs, seg)
			}
		}
	}
	seg, err := d.Flush()
	if seg != nil {
		segs = append(segs, *seg)
	}
	return segs, starts, dropped, err
}

func at(d time.Duration) int64 { return int64(samples(d)) }

// near asserts a stream position is within tol of want.
func near(t *testing.T, want time.Duration, got int64, tol time.Duration, what string) {
	t.Helper()
	assert.InDelta(t, float64(at(want)), float64(got), float64(at(tol)), "%s: want %v, got %v", what, want,
		time.Duration(got)*time.Second/SampleRate)
}

func TestDetectorSynthetic(t *testing.T) {
	type span struct{ start, end time.Duration }
	tests := []struct {
		name    string
		signal  *sig
		want    []span // speech spans, ±40 ms
		reasons []EndReason
		dropped int
		flushed int // starts that Flush ended without a segment
		midUtt  bool
	}{
		{name: "digital silence", signal: newSig().silence(3 * time.Second)},
		{name: "stationary noise alone", signal: newSig().noise(5*time.Second, -40)},
		{name: "tone in silence", signal: newSig().silence(time.Second).tone(time.Second, -20, math.Inf(-1)).silence(time.Second),
			want: []span{{time.Second, 2 * time.Second}}, reasons: []EndReason{EndSilence}},
		{name: "tone in noise", signal: newSig().noise(time.Second, -45).tone(time.Second, -20, -45).noise(time.Second, -45),
			want: []span{{time.Second, 2 * time.Second}}, reasons: []EndReason{EndSilence}},
		{name: "gap shorter than hangover joins words", signal: newSig().silence(time.Second).
			tone(400*time.Millisecond, -20, math.Inf(-1)).silence(150*time.Millisecond).tone(400*time.Millisecond, -20, math.Inf(-1)).silence(time.Second),
			want: []span{{time.Second, 1950 * time.Millisecond}}, reasons: []EndReason{EndSilence}},
		{name: "long pause splits utterances", signal: newSig().silence(time.Second).
			tone(500*time.Millisecond, -20, math.Inf(-1)).silence(1500*time.Millisecond).tone(500*time.Millisecond, -20, math.Inf(-1)).silence(time.Second),
			want: []span{{time.Second, 1500 * time.Millisecond}, {3 * time.Second, 3500 * time.Millisecond}}, reasons: []EndReason{EndSilence, EndSilence}},
		{name: "click shorter than onset", signal: newSig().silence(time.Second).tone(40*time.Millisecond, -10, math.Inf(-1)).silence(time.Second)},
		{name: "burst shorter than min speech is dropped", signal: newSig().silence(time.Second).tone(120*time.Millisecond, -20, math.Inf(-1)).silence(time.Second),
			dropped: 1},
		{name: "too quiet to be speech", signal: newSig().silence(time.Second).tone(time.Second, -65, math.Inf(-1)).silence(time.Second)},
		{name: "max speech cuts", signal: newSig().silence(time.Second).syllables(12*time.Second, -20).silence(time.Second),
			want: []span{{time.Second, 11 * time.Second}, {11 * time.Second, 13 * time.Second}}, reasons: []EndReason{EndMaxSpeech, EndSilence}},
		{name: "stream ends mid-utterance", signal: newSig().silence(time.Second).tone(time.Second, -20, math.Inf(-1)),
			want: []span{{time.Second, 2 * time.Second}}, reasons: []EndReason{EndStream}, midUtt: true},
		{name: "stream ends after the speaker paused", signal: newSig().silence(time.Second).tone(time.Second, -20, math.Inf(-1)).silence(300 * time.Millisecond),
			want: []span{{time.Second, 2 * time.Second}}, reasons: []EndReason{EndSilence}},
		{name: "stream ends after a short burst and a pause", signal: newSig().silence(time.Second).tone(100*time.Millisecond, -20, math.Inf(-1)).silence(300 * time.Millisecond),
			flushed: 1},
	}
	for _, tc := range tests {
		for _, chunk := range []int{FrameSamples, 1000, 77} {
			segs, starts, dropped, err := run(t, Config{}, tc.signal.pcm, chunk)
			if tc.midUtt {
				require.ErrorIs(t, err, ErrMidUtterance, tc.name)
			} else {
				require.NoError(t, err, tc.name)
			}
			require.Len(t, segs, len(tc.want), "%s (chunk %d)", tc.name, chunk)
			assert.Equal(t, len(tc.want)+tc.dropped+tc.flushed, starts, "%s: starts", tc.name)
			assert.Equal(t, tc.dropped, dropped, "%s: dropped", tc.name)
			for i, w := range tc.want {
				s := segs[i]
				tol := 40 * time.Millisecond
				if tc.reasons[i] == EndMaxSpeech || i > 0 && tc.reasons[i-1] == EndMaxSpeech {
					tol = 200 * time.Millisecond // the cut falls between syllables
				}
				near(t, w.start, s.Start, tol+Defaults.Onset, tc.name+": start")
				near(t, w.end, s.End, tol, tc.name+": end")
				assert.Equal(t, tc.reasons[i], s.Reason, tc.name)
				// From is where the audio sits in the stream.
				require.LessOrEqual(t, s.From+int64(len(s.PCM)), int64(len(tc.signal.pcm)), tc.name)
				assert.Equal(t, tc.signal.pcm[s.From:s.From+int64(len(s.PCM))], s.PCM, tc.name+": From")
				// The audio runs from the pre-roll to the hangover.
				pre := min(s.Start, at(Defaults.PreRoll)+int64((Defaults.Onset/FrameDuration)*FrameSamples))
				lenTol := at(Defaults.Hangover + Defaults.Onset + FrameDuration)
				if i > 0 && tc.reasons[i-1] == EndMaxSpeech {
					// After a cut the pre-roll holds only what came since
					// the cut: the audio before went to the utterance cut.
					bare := s.End - s.Start + at(Defaults.Hangover)
					assert.GreaterOrEqual(t, int64(len(s.PCM)), bare-lenTol, tc.name+": audio length")
					assert.LessOrEqual(t, int64(len(s.PCM)), bare+pre+lenTol, tc.name+": audio length")
					continue
				}
				assert.InDelta(t, float64(s.End-s.Start+pre+at(Defaults.Hangover)), float64(len(s.PCM)),
					float64(lenTol), tc.name+": audio length")
			}
		}
	}
}

// A noise that starts (a fan) is taken in as the floor within one floor
// window; speech over it is still found.
func TestDetectorFloorAdapts(t *testing.T) {
	s := newSig().noise(2*time.Second, -60).noise(6*time.Second, -35).tone(time.Second, -15, -35).noise(2*time.Second, -35)
	segs, _, _, err := run(t, Config{}, s.pcm, 1000)
	require.NoError(t, err)
	require.NotEmpty(t, segs)
	// At most one short false utterance while the floor catches up…
	require.LessOrEqual(t, len(segs), 2)
	if len(segs) == 2 {
		assert.LessOrEqual(t, segs[0].Speech(), Defaults.FloorWindow+Defaults.SilenceTimeout)
	}
	// …and the tone over the new noise is the last one.
	last := segs[len(segs)-1]
	near(t, 8*time.Second, last.Start, 100*time.Millisecond, "tone start")
	near(t, 9*time.Second, last.End, 100*time.Millisecond, "tone end")

	d, err := New(Config{})
	require.NoError(t, err)
	d.Feed(newSig().noise(3*time.Second, -35).pcm)
	// White noise has 3100/8000 of its power in the voice band: 4 dB less.
	assert.InDelta(t, -35-4.1, d.Floor(), 6, "floor follows the noise")
}

func loadWAV(t *testing.T, name string) []int16 {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", name))
	require.NoError(t, err)
	defer f.Close()
	c, err := audio.DecodeWAV(f)
	require.NoError(t, err)
	return audio.ToRecognition(c)
}

// Recorded speech (espeak-ng, committed): each sentence, padded with
// silence or noise, is one utterance covering the words.
func TestDetectorRecordedSpeech(t *testing.T) {
	heyJibo := loadWAV(t, "hey_jibo_what_time.wav")
	timer := loadWAV(t, "set_a_timer.wav")
	speechEnd := func(pcm []int16) time.Duration { // last sample above -50 dBFS
		for i := len(pcm) - 1; i >= 0; i-- {
			if math.Abs(float64(pcm[i])) > amp(-50) {
				return time.Duration(i) * time.Second / SampleRate
			}
		}
		return 0
	}
	mix := func(noiseDB float64, parts ...[]int16) []int16 {
		s := newSig()
		var out []int16
		for _, p := range parts {
			gap := samples(time.Second)
			if p == nil {
				continue
			}
			n := newSig()
			if math.IsInf(noiseDB, -1) {
				n.silence(time.Second)
			} else {
				n.noise(time.Second, noiseDB)
			}
			out = append(out, n.pcm[:gap]...)
			for _, v := range p {
				if !math.IsInf(noiseDB, -1) {
					v = int16(max(-32768, min(32767, float64(v)+(s.rng.Float64()*2-1)*amp(noiseDB)*math.Sqrt(3))))
				}
				out = append(out, v)
			}
		}
		tail := newSig()
		if math.IsInf(noiseDB, -1) {
			tail.silence(time.Second)
		} else {
			tail.noise(time.Second, noiseDB)
		}
		return append(out, tail.pcm...)
	}
	for _, noise := range []float64{math.Inf(-1), -50, -40} {
		pcm := mix(noise, heyJibo, timer)
		segs, _, _, err := run(t, Config{}, pcm, 512)
		require.NoError(t, err)
		require.Len(t, segs, 2, "noise %v dBFS", noise)
		first, second := time.Second, 2*time.Second+time.Duration(len(heyJibo))*time.Second/SampleRate
		near(t, first, segs[0].Start, 150*time.Millisecond, "first sentence start")
		near(t, first+speechEnd(heyJibo), segs[0].End, 150*time.Millisecond, "first sentence end")
		near(t, second, segs[1].Start, 150*time.Millisecond, "second sentence start")
		near(t, second+speechEnd(timer), segs[1].End, 150*time.Millisecond, "second sentence end")
	}
}

// A short word in noise: only its core clears the threshold, its soft
// start and end only the edge threshold. The edges make it long enough to
// be speech, and widen its span, but never start or prolong an utterance.
func TestDetectorWordEdges(t *testing.T) {
	// White noise at -45 dBFS is about -49 in the voice band; a -43 dBFS
	// tone over it stands about 8 dB above the floor: an edge, not loud.
	const noiseDB, softDB, loudDB = -45, -43, -20
	word := newSig().noise(time.Second, noiseDB).
		tone(80*time.Millisecond, softDB, noiseDB).tone(140*time.Millisecond, loudDB, noiseDB).tone(80*time.Millisecond, softDB, noiseDB).
		noise(1500*time.Millisecond, noiseDB)
	tests := []struct {
		name       string
		cfg        Config
		signal     *sig
		start, end time.Duration // zero: no utterance
		dropped    int
	}{
		{name: "soft edges make a short word speech", signal: word,
			start: 1000 * time.Millisecond, end: 1300 * time.Millisecond},
		{name: "without edges its core alone is too short", cfg: Config{EdgeThresholdDB: 10}, signal: word,
			dropped: 1},
		{name: "soft sound alone is not speech",
			signal: newSig().noise(time.Second, noiseDB).tone(2*time.Second, softDB, noiseDB).noise(time.Second, noiseDB)},
		// The utterance ends SilenceTimeout and Hangover after the loud
		// part, 2 s in, though the soft tone goes on to 3.3 s.
		{name: "a soft tail does not hold the utterance open",
			signal: newSig().noise(time.Second, noiseDB).tone(300*time.Millisecond, loudDB, noiseDB).
				tone(2*time.Second, softDB, noiseDB).noise(time.Second, noiseDB),
			start: 1000 * time.Millisecond, end: 2000 * time.Millisecond},
	}
	for _, tc := range tests {
		segs, _, dropped, err := run(t, tc.cfg, tc.signal.pcm, 1000)
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.dropped, dropped, tc.name)
		if tc.end == 0 {
			assert.Len(t, segs, 0, tc.name)
			continue
		}
		require.Len(t, segs, 1, tc.name)
		near(t, tc.start, segs[0].Start, 40*time.Millisecond, tc.name+": start")
		near(t, tc.end, segs[0].End, 40*time.Millisecond, tc.name+": end")
	}
}

func TestConfigValidate(t *testing.T) {
	for _, c := range []Config{
		{ThresholdDB: 0.5}, {ThresholdDB: 100}, {EdgeThresholdDB: 0.5}, {EdgeThresholdDB: 12},
		{ThresholdDB: 6, EdgeThresholdDB: 8}, {MinLevelDB: -120}, {MinLevelDB: 3},
		{FloorWindow: time.Millisecond}, {FloorWindow: time.Minute}, {Onset: 2 * time.Second},
		{Hangover: -time.Second}, {SilenceTimeout: time.Millisecond}, {MaxSpeech: 500 * time.Millisecond},
		{MaxSpeech: 2 * time.Minute}, {MinSpeech: 20 * time.Second}, {PreRoll: 3 * time.Second},
	} {
		_, err := New(c)
		assert.Error(t, err, "%+v", c)
	}
	_, err := New(Config{})
	assert.NoError(t, err)
	// A threshold under the default edge takes the edge with it.
	d, err := New(Config{ThresholdDB: 3})
	require.NoError(t, err)
	assert.Equal(t, 3.0, d.Config().EdgeThresholdDB)
}

func BenchmarkDetectorFrame(b *testing.B) {
	d, err := New(Config{})
	require.NoError(b, err)
	pcm := newSig().noise(time.Second, -40).syllables(2*time.Second, -20).pcm
	frames := len(pcm) / FrameSamples
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		k := i % frames
		d.Feed(pcm[k*FrameSamples : (k+1)*FrameSamples])
	}
}

// babble appends a speech-like background: syllables of random length
// and level (db ± 6 dB) over a second talker's murmur 15 dB down, as two
// other people talking, with a faint room noise.
func (s *sig) babble(d time.Duration, db float64) *sig {
	end := len(s.pcm) + samples(d)
	for len(s.pcm) < end {
		on := time.Duration(60+s.rng.IntN(200)) * time.Millisecond
		off := time.Duration(20+s.rng.IntN(80)) * time.Millisecond
		s.tone(on, db+12*s.rng.Float64()-6, db-30).tone(off, db-15, db-30)
	}
	s.pcm = s.pcm[:end]
	return s
}

// TestDetectorEndsOverBabble is issue 24 item 2: with other people
// talking (a television) the utterance ends when the person speaking to
// the robot stops, 10 dB over the babble, not at MaxSpeech; babble alone
// is no endless utterance; and the background margin changes nothing
// over steady noise.
func TestDetectorEndsOverBabble(t *testing.T) {
	s := newSig().babble(8*time.Second, -40)
	speechAt := time.Duration(len(s.pcm)) * time.Second / SampleRate
	for range 10 { // 1.6 s of syllables 10 dB over the babble, babble in the gaps
		s.tone(100*time.Millisecond, -30, -70).babble(60*time.Millisecond, -40)
	}
	speechEnd := time.Duration(len(s.pcm)) * time.Second / SampleRate
	s.babble(6*time.Second, -40)

	segs, _, _, err := run(t, Config{}, s.pcm, 320)
	require.NoError(t, err)
	var speech *Segment
	for i := range segs {
		assert.Equal(t, EndSilence, segs[i].Reason, "no utterance runs to the cap")
		if segs[i].End > at(speechAt) && segs[i].Start < at(speechEnd) {
			require.Nil(t, speech, "the speech is one utterance")
			speech = &segs[i]
		}
	}
	require.NotNil(t, speech, "the speech is heard")
	near(t, speechAt, speech.Start, 300*time.Millisecond, "start")
	near(t, speechEnd, speech.End, 300*time.Millisecond, "end")

	off, _, _, _ := run(t, Config{BackgroundMarginDB: -1}, s.pcm, 320)
	assert.True(t, slices.ContainsFunc(off, func(s Segment) bool { return s.Reason == EndMaxSpeech }),
		"without the background margin the babble is one endless utterance")

	// Steady noise: speech 8 dB over pink-ish noise is heard as before.
	steady := newSig().noise(3*time.Second, -40).tone(time.Second, -33, -40).noise(2*time.Second, -40)
	with, _, _, _ := run(t, Config{}, steady.pcm, 320)
	without, _, _, _ := run(t, Config{BackgroundMarginDB: -1}, steady.pcm, 320)
	require.Len(t, with, 1)
	assert.Equal(t, without[0].Start, with[0].Start)
	assert.Equal(t, without[0].End, with[0].End)
}

// TestDetectorFindsTheSpeakerInBabble is issue 24 item 2: a stream that
// starts with other people talking has no background yet, so its first
// seconds are taken for speech. Judged again against the background as
// known at its end, an utterance of the babble alone is marked
// BackgroundOnly, and one that ran on from the babble into the person's
// words gives where the person began (SpeakerStart) and stopped; over
// steady noise nothing is judged again.
func TestDetectorFindsTheSpeakerInBabble(t *testing.T) {
	speaker := func(s *sig) (from, to time.Duration) {
		from = time.Duration(len(s.pcm)) * time.Second / SampleRate
		for range 10 { // 1.6 s of syllables 12 dB over the babble
			s.tone(100*time.Millisecond, -28, -70).babble(60*time.Millisecond, -40)
		}
		return from, time.Duration(len(s.pcm)) * time.Second / SampleRate
	}
	t.Run("babble alone", func(t *testing.T) {
		s := newSig().babble(12*time.Second, -40)
		segs, _, _, _ := run(t, Config{}, s.pcm, 320)
		require.NotEmpty(t, segs, "the babble is taken for speech while its level is learnt")
		for _, seg := range segs {
			assert.True(t, seg.BackgroundOnly, "%v–%v is the babble alone", seg.Start, seg.End)
		}
	})
	t.Run("babble running into speech", func(t *testing.T) {
		s := newSig().babble(4*time.Second, -40)
		from, to := speaker(s)
		s.babble(6*time.Second, -40)
		segs, _, _, _ := run(t, Config{}, s.pcm, 320)
		var speech *Segment
		for i := range segs {
			if segs[i].End > at(from) && segs[i].Start < at(to) {
				speech = &segs[i]
			}
		}
		require.NotNil(t, speech, "the speech is heard")
		assert.False(t, speech.BackgroundOnly)
		assert.Less(t, speech.Start, at(from-time.Second), "the utterance began in the babble")
		near(t, from, speech.SpeakerStart, 200*time.Millisecond, "speaker's start")
		near(t, to, speech.SpeakerEnd, 300*time.Millisecond, "speaker's end")
	})
	t.Run("babble starting with the speech", func(t *testing.T) {
		// Too little babble before the person to know the room: the
		// utterance runs on into the babble after them, and where they
		// stopped is where the level stepped down to it.
		s := newSig().babble(400*time.Millisecond, -40)
		from, to := speaker(s)
		s.babble(8*time.Second, -40)
		segs, _, _, _ := run(t, Config{}, s.pcm, 320)
		require.NotEmpty(t, segs)
		speech := segs[0]
		assert.False(t, speech.BackgroundOnly)
		assert.Less(t, speech.Start, at(from+200*time.Millisecond), "the utterance began with the person")
		assert.Greater(t, speech.End, at(to+time.Second), "it ran on into the babble")
		// A loud moment of the babble soon after them can pass for their
		// last syllable; a second of the babble after it is not theirs.
		assert.GreaterOrEqual(t, speech.SpeakerEnd, at(to-300*time.Millisecond), "the speaker's end is not before their last syllable")
		assert.LessOrEqual(t, speech.SpeakerEnd, speech.End-at(speakerGap), "a second or more of babble after the speaker")
		part := speech.SpeakerPart(Defaults.PreRoll)
		assert.Equal(t, speech.From, part.From, "the start kept")
		assert.Equal(t, speech.SpeakerEnd, part.End, "cut where the person stopped")
	})
	t.Run("steady noise", func(t *testing.T) {
		s := newSig().noise(3*time.Second, -40).tone(time.Second, -33, -40).noise(2*time.Second, -40)
		segs, _, _, _ := run(t, Config{}, s.pcm, 320)
		require.Len(t, segs, 1)
		assert.False(t, segs[0].BackgroundOnly)
		assert.Equal(t, segs[0].Start, segs[0].SpeakerStart)
		assert.Equal(t, segs[0].End, segs[0].SpeakerEnd)
	})
}

// talk appends a person talking on without a pause: syllables of level db
// with short gaps of noise at gapDB.
func (s *sig) talk(d time.Duration, db, gapDB float64) *sig {
	end := len(s.pcm) + samples(d)
	for len(s.pcm) < end {
		on := time.Duration(60+s.rng.IntN(200)) * time.Millisecond
		off := time.Duration(20+s.rng.IntN(80)) * time.Millisecond
		s.tone(on, db+12*s.rng.Float64()-6, gapDB).noise(off, gapDB)
	}
	s.pcm = s.pcm[:end]
	return s
}

// TestDetectorNoBeatFromTheRoomsOwnSounds: in a quiet room, a person's
// own talk, knocking, clapping or a child's shouting is no beat: the
// person who speaks after it, or over it, is heard.
func TestDetectorNoBeatFromTheRoomsOwnSounds(t *testing.T) {
	quiet := func() *sig { return newSig().noise(8*time.Second, -70) }
	knocks := func(s *sig, n int) *sig {
		for range n {
			s.tone(30*time.Millisecond, -20, math.Inf(-1)).noise(670*time.Millisecond, -70)
		}
		return s
	}
	claps := quiet()
	for range 14 {
		claps.noise(20*time.Millisecond, -15).noise(480*time.Millisecond, -70)
	}
	shouts := quiet()
	for range 7 {
		shouts.talk(300*time.Millisecond, -15, -70).noise(600*time.Millisecond, -70)
	}
	knockedOver := knocks(quiet(), 20).noise(3*time.Second, -70)
	knockedOver.over(samples(16*time.Second), newSig().talk(3*time.Second, -30, math.Inf(-1)).pcm)
	tests := []struct {
		name     string
		signal   *sig
		from, to time.Duration // the person to be heard
	}{
		{name: "a person talks 6 s, pauses 0.8 s, goes on",
			signal: quiet().talk(6*time.Second, -30, -70).noise(800*time.Millisecond, -70).talk(2*time.Second, -30, -70).noise(3*time.Second, -70),
			from:   14800 * time.Millisecond, to: 16800 * time.Millisecond},
		{name: "a person talks 6 s, pauses 1.5 s, goes on",
			signal: quiet().talk(6*time.Second, -30, -70).noise(1500*time.Millisecond, -70).talk(2*time.Second, -30, -70).noise(3*time.Second, -70),
			from:   15500 * time.Millisecond, to: 17500 * time.Millisecond},
		{name: "knocking for 7 s, then a person",
			signal: knocks(quiet(), 10).talk(2*time.Second, -30, -70).noise(3*time.Second, -70),
			from:   15 * time.Second, to: 17 * time.Second},
		{name: "a person over knocking",
			signal: knockedOver, from: 16 * time.Second, to: 19 * time.Second},
		{name: "clapping that stops as the person starts",
			signal: claps.noise(500*time.Millisecond, -70).talk(2*time.Second, -30, -70).noise(3*time.Second, -70),
			from:   15500 * time.Millisecond, to: 17500 * time.Millisecond},
		{name: "a child shouting for 6 s, then the parent",
			signal: shouts.noise(300*time.Millisecond, -70).talk(2*time.Second, -30, -70).noise(3*time.Second, -70),
			from:   14600 * time.Millisecond, to: 16600 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			segs, _, _, err := run(t, Config{}, tc.signal.pcm, 1000)
			require.NoError(t, err)
			heard := false
			for _, s := range segs {
				if !s.BackgroundOnly && s.SpeakerStart <= at(tc.from+100*time.Millisecond) && s.SpeakerEnd >= at(tc.to-200*time.Millisecond) {
					heard = true
				}
			}
			assert.True(t, heard, "the person heard (%d utterances)", len(segs))
		})
	}
}

// TestDetectorCountingInAQuietRoom: a person counting, or saying the same
// word again and again, in a quiet room starts each word at the same
// period; their words are no beat: every word, the sentence after them,
// and counting on inside one utterance, are heard whole.
func TestDetectorCountingInAQuietRoom(t *testing.T) {
	type span struct{ from, to time.Duration }
	now := func(s *sig) time.Duration { return time.Duration(len(s.pcm)) * time.Second / SampleRate }
	// count appends n words of length w every period p and returns their
	// spans.
	count := func(s *sig, n int, w, p time.Duration, db float64) []span {
		var words []span
		for range n {
			from := now(s)
			s.talk(w, db, -70)
			words = append(words, span{from, now(s)})
			s.noise(p-w, -70)
		}
		return words
	}
	// sentence appends a sentence of 3 s and returns its span.
	sentence := func(s *sig, db float64) span {
		from := now(s)
		s.talk(3*time.Second, db, -70)
		return span{from, now(s)}
	}
	type tc struct {
		name   string
		signal *sig
		heard  []span // each to be heard whole in one utterance
	}
	var tests []tc
	{
		s := newSig().noise(8*time.Second, -70)
		words := count(s, 15, 300*time.Millisecond, 1150*time.Millisecond, -30)
		s.noise(3*time.Second, -70)
		tests = append(tests, tc{"15 words every 1.15 s", s, words})
	}
	for _, c := range []struct {
		p, w        time.Duration
		wordDB, sDB float64
	}{
		{time.Second, 250 * time.Millisecond, -30, -30},
		{time.Second, 250 * time.Millisecond, -25, -35},
		{1200 * time.Millisecond, 400 * time.Millisecond, -30, -30},
		{1200 * time.Millisecond, 400 * time.Millisecond, -25, -35},
	} {
		s := newSig().noise(8*time.Second, -70)
		words := count(s, 12, c.w, c.p, c.wordDB)
		said := sentence(s, c.sDB)
		s.noise(3*time.Second, -70)
		tests = append(tests, tc{fmt.Sprintf("counting at %v dB every %v, then a sentence at %v dB", c.wordDB, c.p, c.sDB),
			s, append(words, said)})
	}
	{
		s := newSig().noise(8*time.Second, -70)
		words := count(s, 12, 300*time.Millisecond, time.Second, -30)
		on := count(s, 6, 500*time.Millisecond, time.Second, -30)
		s.noise(3*time.Second, -70)
		tests = append(tests, tc{"counting, then counting on inside one utterance", s,
			append(words, span{on[0].from, on[len(on)-1].to})})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			segs, _, _, err := run(t, Config{}, tc.signal.pcm, 320)
			require.NoError(t, err)
			for _, want := range tc.heard {
				heard := false
				for _, s := range segs {
					if !s.BackgroundOnly && s.SpeakerStart <= at(want.from+100*time.Millisecond) && s.SpeakerEnd >= at(want.to-100*time.Millisecond) {
						heard = true
					}
				}
				assert.True(t, heard, "%v–%v heard whole (%d utterances)", want.from, want.to, len(segs))
			}
		})
	}
}

// TestDetectorLongTalkInAQuietRoom: a person talking on for longer than
// the background window in a quiet room fills the window with their own
// voice; their utterance is still theirs, not the background's, and goes
// on to MaxSpeech, because it is judged against the room as it was
// before they began.
func TestDetectorLongTalkInAQuietRoom(t *testing.T) {
	for _, talk := range []time.Duration{5 * time.Second, 7 * time.Second, 9 * time.Second, 12 * time.Second} {
		t.Run(talk.String(), func(t *testing.T) {
			s := newSig().noise(6*time.Second, -70).talk(talk, -30, -70).noise(2*time.Second, -70)
			segs, _, _, _ := run(t, Config{}, s.pcm, 320)
			require.NotEmpty(t, segs, "the talk is heard")
			for _, seg := range segs {
				assert.False(t, seg.BackgroundOnly, "%v–%v is the person talking", seg.Start, seg.End)
				assert.Equal(t, seg.Start, seg.SpeakerStart, "nothing of the segment is the room")
				assert.Equal(t, seg.End, seg.SpeakerEnd, "nothing of the segment is the room")
			}
			first := segs[0]
			near(t, 6*time.Second, first.Start, 100*time.Millisecond, "start")
			if talk < Defaults.MaxSpeech {
				assert.Equal(t, EndSilence, first.Reason, "the utterance ends when the person stops")
				near(t, 6*time.Second+talk, first.End, 300*time.Millisecond, "end")
				return
			}
			assert.Equal(t, EndMaxSpeech, first.Reason, "the utterance is cut at its longest")
			assert.Greater(t, first.Speech(), Defaults.MaxSpeech-time.Second, "the talk is heard up to the cut")
		})
	}
}

// TestDetectorTelevisionStartsInAQuietRoom: a television that starts
// talking in a quiet room is an utterance the room's background does not
// end; it is cut at MaxSpeech, and from then on it is the room: no
// endless run of utterances.
func TestDetectorTelevisionStartsInAQuietRoom(t *testing.T) {
	s := newSig().noise(8*time.Second, -70).babble(30*time.Second, -40)
	segs, _, _, err := run(t, Config{}, s.pcm, 320)
	require.NoError(t, err)
	require.Len(t, segs, 1, "one utterance, then the television is the room")
	assert.Equal(t, EndMaxSpeech, segs[0].Reason)
	near(t, 8*time.Second, segs[0].Start, 100*time.Millisecond, "start")
}

// TestDetectorCommandThenOtherTalk: a person gives a command in a quiet
// room and, with no pause or a short one, a television is turned on or
// someone else talks, 10 dB or more under them. The room was held fixed
// for the command, so the utterance runs on to MaxSpeech; the speaker's
// part ends with the command, and the recogniser is given the command,
// not seconds of the other talk.
func TestDetectorCommandThenOtherTalk(t *testing.T) {
	const command = 3 * time.Second
	tests := []struct {
		name    string
		pause   time.Duration
		otherDB float64
	}{
		{name: "command then television, no pause", otherDB: -40},
		{name: "command then babble, no pause", otherDB: -50},
		{name: "command then television after 300 ms", pause: 300 * time.Millisecond, otherDB: -40},
		{name: "command then babble after 600 ms", pause: 600 * time.Millisecond, otherDB: -45},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSig().noise(8*time.Second, -70).talk(command, -30, -70)
			if tc.pause > 0 {
				s.noise(tc.pause, -70)
			}
			s.babble(20*time.Second, tc.otherDB)
			segs, _, _, _ := run(t, Config{}, s.pcm, 320)
			require.NotEmpty(t, segs, "the command is heard")
			seg := segs[0]
			near(t, 8*time.Second, seg.Start, 100*time.Millisecond, "start")
			assert.Equal(t, seg.Start, seg.SpeakerStart, "the speaker began with the utterance")
			near(t, 8*time.Second+command, seg.SpeakerEnd, 600*time.Millisecond, "the speaker's end")
			part := seg.SpeakerPart(Defaults.PreRoll)
			heard := time.Duration(len(part.PCM)) * time.Second / SampleRate
			assert.InDelta(t, command.Seconds(), heard.Seconds(), 0.8, "the recogniser gets the command, not the talk after it")
		})
	}
}

// TestDetectorSofterTalkerThenOtherTalk: voices trail off. A person
// whose voice falls 5 dB a little way into a long sentence and who talks
// on, then a television 15 dB under their first words: the utterance
// runs to MaxSpeech and the speaker's part ends where the person
// stopped, not where their voice fell.
func TestDetectorSofterTalkerThenOtherTalk(t *testing.T) {
	tests := []struct {
		name       string
		loud, soft time.Duration
		otherDB    float64
	}{
		{name: "falls after 1.5 s, talks on 2.5 s, television", loud: 1500 * time.Millisecond, soft: 2500 * time.Millisecond, otherDB: -45},
		{name: "falls after 2 s, talks on 3 s, babble", loud: 2 * time.Second, soft: 3 * time.Second, otherDB: -50},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSig().noise(8*time.Second, -70).talk(tc.loud, -30, -70).talk(tc.soft, -35, -70).babble(20*time.Second, tc.otherDB)
			said := tc.loud + tc.soft
			segs, _, _, _ := run(t, Config{}, s.pcm, 320)
			require.NotEmpty(t, segs, "the sentence is heard")
			seg := segs[0]
			assert.Equal(t, EndMaxSpeech, seg.Reason, "the television runs on in the utterance")
			near(t, 8*time.Second+said, seg.SpeakerEnd, 600*time.Millisecond, "the speaker's end")
			part := seg.SpeakerPart(Defaults.PreRoll)
			heard := time.Duration(len(part.PCM)) * time.Second / SampleRate
			assert.InDelta(t, said.Seconds(), heard.Seconds(), 0.8, "the recogniser gets the whole sentence, its softer end too")
		})
	}
}

// speakerRiseReference is speakerRise written plainly (each candidate
// sorts the rest of the segment again): the fast one must agree with it.
func speakerRiseReference(levels []float64, before, window int) (first, last int) {
	if len(levels) <= before {
		return -1, -1
	}
	type candidate struct {
		first, last int
		rise        float64
	}
	var cands []candidate
	best := math.Inf(-1)
	for k := before; k < len(levels); k++ {
		sorted := slices.Sorted(slices.Values(levels[:k]))
		p90 := sorted[len(sorted)*9/10]
		threshold := p90 + riseDB
		if levels[k] < threshold {
			continue
		}
		if f, l := denseRun(levels[k:], threshold, window); f == 0 {
			rest := slices.Sorted(slices.Values(levels[k:]))
			if rise := rest[len(rest)*9/10] - p90; rise >= riseDB {
				cands = append(cands, candidate{first: k, last: k + l, rise: rise})
				best = max(best, rise)
			}
		}
	}
	for _, c := range cands {
		if c.rise >= best-riseDB {
			return c.first, c.last
		}
	}
	return -1, -1
}

func TestSpeakerRiseAgreesWithThePlainReading(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 300 {
		n := 1 + rng.IntN(400)
		levels := make([]float64, n)
		room := -50 + 10*rng.Float64()
		from := rng.IntN(n)
		for k := range levels {
			levels[k] = room + 8*rng.Float64()
			if k >= from && rng.IntN(4) > 0 {
				levels[k] += 3 + 15*rng.Float64()
			}
			if rng.IntN(20) == 0 {
				levels[k] = silenceDB
			}
			if rng.IntN(10) == 0 && k > 0 {
				levels[k] = levels[k-1] // ties
			}
		}
		before := 1 + rng.IntN(60)
		wf, wl := speakerRiseReference(levels, before, 10)
		f, l := speakerRise(levels, before, 10)
		require.Equal(t, [2]int{wf, wl}, [2]int{f, l}, "case %d", i)
	}
}

// TestSegmentSpeakerPart: a second or more of background before or after
// the speaker's syllables is cut off (the pre-roll kept before them, a
// short tail after); less than that is left as it is.
func TestSegmentSpeakerPart(t *testing.T) {
	s := func(d time.Duration) int64 { return at(d) }
	seg := Segment{PCM: make([]int16, s(8*time.Second)), From: s(10 * time.Second),
		Start: s(10500 * time.Millisecond), End: s(17500 * time.Millisecond)}
	tests := []struct {
		name                     string
		speakerStart, speakerEnd time.Duration
		from, to, start, end     time.Duration
	}{
		{"the speaker is the whole segment", 10500 * time.Millisecond, 17500 * time.Millisecond,
			10 * time.Second, 18 * time.Second, 10500 * time.Millisecond, 17500 * time.Millisecond},
		{"less than a second before and after", 11400 * time.Millisecond, 16600 * time.Millisecond,
			10 * time.Second, 18 * time.Second, 10500 * time.Millisecond, 17500 * time.Millisecond},
		{"background before", 13 * time.Second, 17500 * time.Millisecond,
			12500 * time.Millisecond, 18 * time.Second, 13 * time.Second, 17500 * time.Millisecond},
		{"background after", 10500 * time.Millisecond, 15 * time.Second,
			10 * time.Second, 15300 * time.Millisecond, 10500 * time.Millisecond, 15 * time.Second},
		{"background both sides", 13 * time.Second, 15 * time.Second,
			12500 * time.Millisecond, 15300 * time.Millisecond, 13 * time.Second, 15 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := seg
			in.SpeakerStart, in.SpeakerEnd = s(tc.speakerStart), s(tc.speakerEnd)
			got := in.SpeakerPart(500 * time.Millisecond)
			assert.Equal(t, s(tc.from), got.From)
			assert.Equal(t, s(tc.to), got.From+int64(len(got.PCM)))
			assert.Equal(t, s(tc.start), got.Start)
			assert.Equal(t, s(tc.end), got.End)
		})
	}
}

// TestCommandSofterThanTheWakeInATelevisionRoom: a television has
// talked for seconds (the room is known and speech-like); the person
// calls "hey jibo" loudly and gives the command 9 dB softer, still 14 dB
// over the television, and stops; the utterance ends on silence where
// they stopped. The recogniser must get the whole command, wake-spotted
// (SpeakerHead) or not (SpeakerPart).
func TestCommandSofterThanTheWakeInATelevisionRoom(t *testing.T) {
	s := newSig().babble(8*time.Second, -45)
	for range 5 { // 0.8 s of the wake phrase
		s.tone(100*time.Millisecond, -22, -70).babble(60*time.Millisecond, -45)
	}
	for range 13 { // 2.1 s of the command
		s.tone(100*time.Millisecond, -31, -70).babble(60*time.Millisecond, -45)
	}
	said := at(time.Duration(len(s.pcm)) * time.Second / SampleRate)
	s.babble(6*time.Second, -45)
	segs, _, _, _ := run(t, Config{}, s.pcm, 320)
	var seg *Segment
	for i := range segs {
		if !segs[i].BackgroundOnly {
			seg = &segs[i]
		}
	}
	require.NotNil(t, seg)
	head, part := seg.SpeakerHead(), seg.SpeakerPart(Defaults.PreRoll)
	require.GreaterOrEqual(t, head.From+int64(len(head.PCM)), said-at(300*time.Millisecond), "the command kept (wake spotted)")
	require.GreaterOrEqual(t, part.From+int64(len(part.PCM)), said-at(300*time.Millisecond), "the command kept")
}

// beat appends music with a beat that falls silent between beats: every
// period a 100 ms burst of noise of level db, decaying, then faint hiss
// 50 dB under it until the next beat.
func (s *sig) beat(d, period time.Duration, db float64) *sig {
	end := len(s.pcm) + samples(d)
	for len(s.pcm) < end {
		s.noise(40*time.Millisecond, db).noise(30*time.Millisecond, db-6).noise(30*time.Millisecond, db-12).
			noise(period-100*time.Millisecond, db-50)
	}
	s.pcm = s.pcm[:end]
	return s
}

// over adds b's samples to s's from sample at on.
func (s *sig) over(at int, b []int16) *sig {
	for i, v := range b {
		if at+i >= len(s.pcm) {
			break
		}
		s.pcm[at+i] = int16(max(-32768, min(32767, int32(s.pcm[at+i])+int32(v))))
	}
	return s
}

// TestDetectorEndsOverABeat is issue 24 item 2 for music with a beat:
// its notes and drums fall silent between beats, so its typical level is
// that silence, which every beat stands far over. The utterance of a
// person speaking over it ends when they stop (where the music began
// with them, once its beat is learnt), not at MaxSpeech, and the part
// recognised ends near their last word; the music alone is no endless
// utterance.
func TestDetectorEndsOverABeat(t *testing.T) {
	tests := []struct {
		name   string
		lead   time.Duration // music before the person
		period time.Duration
		snrDB  float64 // the person's syllables over the beats
		// endTol is how far after the person's end the utterance may end:
		// where the music began with them, it is learnt once the
		// background window has heard it whole.
		endTol time.Duration
	}{
		{name: "music known, 150 bpm, 10 dB", lead: 8 * time.Second, period: 400 * time.Millisecond, snrDB: 10, endTol: time.Second},
		{name: "music known, 120 bpm, 10 dB", lead: 8 * time.Second, period: 500 * time.Millisecond, snrDB: 10, endTol: time.Second},
		{name: "music known, 80 bpm, 10 dB", lead: 8 * time.Second, period: 750 * time.Millisecond, snrDB: 10, endTol: time.Second},
		{name: "music known, 120 bpm, 8 dB", lead: 8 * time.Second, period: 500 * time.Millisecond, snrDB: 8, endTol: time.Second},
		{name: "music began with the person, 120 bpm", lead: 400 * time.Millisecond, period: 500 * time.Millisecond, snrDB: 10, endTol: 5 * time.Second},
		{name: "music began with the person, 150 bpm", lead: 900 * time.Millisecond, period: 400 * time.Millisecond, snrDB: 10, endTol: 5 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSig().beat(tc.lead+2*time.Second+10*time.Second, tc.period, -35)
			person := newSig()
			for range 12 { // 1.9 s of syllables
				person.tone(100*time.Millisecond, -35+tc.snrDB, math.Inf(-1)).silence(60 * time.Millisecond)
			}
			from, to := tc.lead, tc.lead+time.Duration(len(person.pcm))*time.Second/SampleRate
			s.over(samples(from), person.pcm)

			segs, _, _, err := run(t, Config{}, s.pcm, 320)
			require.NoError(t, err)
			var speech *Segment
			for i := range segs {
				assert.Equal(t, EndSilence, segs[i].Reason, "no utterance runs to the cap (%v)", time.Duration(segs[i].End)*time.Second/SampleRate)
				if segs[i].End > at(from) && segs[i].Start < at(to) {
					require.Nil(t, speech, "the person is one utterance")
					speech = &segs[i]
				}
			}
			require.NotNil(t, speech, "the person is heard")
			assert.False(t, speech.BackgroundOnly)
			assert.Less(t, speech.End, at(to+tc.endTol), "the utterance ends when the person stops")
			part := speech.SpeakerPart(Defaults.PreRoll)
			assert.LessOrEqual(t, part.From, at(from), "the part recognised holds the person's first syllable")
			near(t, to, part.From+int64(len(part.PCM)), 500*time.Millisecond, "the part recognised ends with the person")
		})
	}
	t.Run("the beat alone", func(t *testing.T) {
		s := newSig().beat(20*time.Second, 500*time.Millisecond, -35)
		segs, _, _, _ := run(t, Config{}, s.pcm, 320)
		for _, seg := range segs {
			assert.Equal(t, EndSilence, seg.Reason, "no utterance runs to the cap")
			assert.Less(t, seg.Start, at(6*time.Second), "once the window is full the beat is the room")
		}
	})
}

// TestDetectorNoBeatFromTalkOrIrregularKnocks: a person's talk, however
// long, and knocks or claps that come at no steady period are no beat:
// the sentence said after them is heard whole.
func TestDetectorNoBeatFromTalkOrIrregularKnocks(t *testing.T) {
	sentence := loadWAV(t, "hey_jibo_what_time.wav")
	var long []int16
	for len(long) < samples(11*time.Second) {
		long = append(long, sentence...)
	}
	said := func(s *sig) time.Duration { return time.Duration(len(s.pcm)) * time.Second / SampleRate }
	// A recorded sentence said over and over for 11 s from the stream's
	// start, a pause, and the sentence once more.
	enroll := newSig()
	enroll.pcm = append(enroll.pcm, long...)
	enroll.noise(time.Second, -70)
	enrollFrom := said(enroll)
	enroll.pcm = append(enroll.pcm, sentence...)
	enrollTo := said(enroll) - 300*time.Millisecond // the recording ends in silence
	enroll.noise(3*time.Second, -70)
	// Synthetic talk for 11 s from the stream's start, a pause, more talk.
	talk := newSig().talk(11*time.Second, -30, -70).noise(time.Second, -70).talk(2*time.Second, -30, -70).noise(3*time.Second, -70)
	irregular := func(s *sig, d time.Duration, knock func(*sig)) *sig {
		end := len(s.pcm) + samples(d)
		rng := rand.New(rand.NewPCG(3, 4))
		for len(s.pcm) < end {
			knock(s)
			s.noise(time.Duration(150+rng.IntN(900))*time.Millisecond, -70)
		}
		return s
	}
	knock := func(s *sig) { s.tone(60*time.Millisecond, -20, math.Inf(-1)) }
	clap := func(s *sig) { s.noise(40*time.Millisecond, -15).noise(40*time.Millisecond, -25) }
	knocked := irregular(newSig().noise(8*time.Second, -70), 10*time.Second, knock).talk(2*time.Second, -30, -70).noise(3*time.Second, -70)
	clapped := irregular(newSig().noise(8*time.Second, -70), 10*time.Second, clap)
	clapFrom := said(clapped)
	clapped.talk(2*time.Second, -30, -70).noise(3*time.Second, -70)
	knockedOver := irregular(newSig().noise(8*time.Second, -70), 14*time.Second, knock).noise(3*time.Second, -70)
	knockedOver.over(samples(16*time.Second), newSig().talk(3*time.Second, -30, math.Inf(-1)).pcm)
	tests := []struct {
		name     string
		signal   *sig
		from, to time.Duration // the person to be heard
		// whole: the utterance holds the sentence (after talk from the
		// stream's start the room is that talk, and the speaker's bounds
		// are judged against it).
		whole bool
	}{
		{name: "a sentence said over and over for 11 s from the start, a pause, the sentence",
			signal: enroll, from: enrollFrom, to: enrollTo, whole: true},
		{name: "talk for 11 s from the start, a pause, talk",
			signal: talk, from: 12 * time.Second, to: 14 * time.Second},
		{name: "irregular knocking for 10 s, then a person",
			signal: knocked, from: 18 * time.Second, to: 20 * time.Second},
		{name: "irregular clapping for 10 s, then a person",
			signal: clapped, from: clapFrom, to: clapFrom + 2*time.Second},
		{name: "a person over irregular knocking",
			signal: knockedOver, from: 16 * time.Second, to: 19 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			segs, _, _, err := run(t, Config{}, tc.signal.pcm, 1000)
			require.NoError(t, err)
			heard := false
			for _, s := range segs {
				from, to := s.SpeakerStart, s.SpeakerEnd
				if tc.whole {
					from, to = s.Start, s.End
				}
				if !s.BackgroundOnly && from <= at(tc.from+100*time.Millisecond) && to >= at(tc.to-200*time.Millisecond) {
					heard = true
				}
			}
			assert.True(t, heard, "the person heard (%d utterances)", len(segs))
		})
	}
}

// tick appends a metronome's tick: a 1 kHz click decaying over 80 ms.
func (s *sig) tick(db float64) *sig {
	for i := range samples(80 * time.Millisecond) {
		v := amp(db) * math.Sqrt2 * math.Exp(-float64(i)/float64(samples(25*time.Millisecond))) * math.Sin(2*math.Pi*1000*float64(i)/SampleRate)
		s.pcm = append(s.pcm, int16(v))
	}
	return s
}

// TestDetectorMetronomeIsABeat: a metronome's ticks are a beat, though
// each is short and the room between them quiet: once it has gone on,
// it makes no utterance that runs to the cap, and a person speaking over
// it is heard, their utterance ending when they stop.
func TestDetectorMetronomeIsABeat(t *testing.T) {
	for _, period := range []time.Duration{500 * time.Millisecond, 700 * time.Millisecond} {
		t.Run(period.String(), func(t *testing.T) {
			s := newSig().noise(8*time.Second, -70)
			for len(s.pcm) < samples(40*time.Second) {
				s.tick(-25).noise(period-80*time.Millisecond, -70)
			}
			from := 30 * time.Second
			person := newSig().talk(2*time.Second, -30, math.Inf(-1))
			s.over(samples(from), person.pcm)
			to := from + 2*time.Second
			segs, _, _, err := run(t, Config{}, s.pcm, 320)
			require.NoError(t, err)
			var speech *Segment
			for i := range segs {
				if segs[i].Start > at(20*time.Second) {
					assert.Equal(t, EndSilence, segs[i].Reason, "no utterance runs to the cap once the ticks are known (%v)", time.Duration(segs[i].Start)*time.Second/SampleRate)
				}
				if !segs[i].BackgroundOnly && segs[i].End > at(from) && segs[i].Start < at(to) {
					speech = &segs[i]
				}
			}
			require.NotNil(t, speech, "the person is heard")
			assert.LessOrEqual(t, speech.SpeakerStart, at(from+100*time.Millisecond))
			assert.GreaterOrEqual(t, speech.SpeakerEnd, at(to-200*time.Millisecond))
			assert.Less(t, speech.End, at(to+time.Second), "the utterance ends when the person stops")
		})
	}
}
