package sphinx

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/openjibo/jibod/audio"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// noisyTone is 3 s of white noise with a 440 Hz tone in its middle
// second, at the tone-to-noise ratio snr (dB).
func noisyTone(snr float64) (mixed, tone []int16) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 3 * 16000
	mixed, tone = make([]int16, n), make([]int16, n)
	amp := 3000.0
	sigma := amp / math.Sqrt2 / math.Pow(10, snr/20)
	for i := range n {
		var s float64
		if i >= 16000 && i < 32000 {
			s = amp * math.Sin(2*math.Pi*440*float64(i)/16000)
		}
		tone[i] = int16(s)
		mixed[i] = int16(max(-32768, min(32767, s+sigma*rng.NormFloat64())))
	}
	return mixed, tone
}

func rmsDB(pcm []int16) float64 {
	var sum float64
	for _, v := range pcm {
		sum += float64(v) * float64(v)
	}
	return 10 * math.Log10(sum/float64(len(pcm))+1)
}

// TestDenoise: in noisy speech-like audio the noise between the sounds
// is suppressed and the sound kept; audio whose sound stands far enough
// over its noise, or too short to learn the noise from, is not touched.
func TestDenoise(t *testing.T) {
	mixed, tone := noisyTone(5)
	out := denoise(mixed, 20)
	require.Len(t, out, len(mixed))
	// The noise alone (the first second, less its first half frame).
	before, after := rmsDB(mixed[denoiseN:16000]), rmsDB(out[denoiseN:16000])
	assert.Greater(t, before-after, 10.0, "noise suppressed: %.1f dB → %.1f dB", before, after)
	// The tone: what is left differs from it by much less than the noise
	// did.
	diff := func(a []int16) float64 {
		d := make([]int16, 16000)
		for i := range d {
			d[i] = a[16000+i] - tone[16000+i]
		}
		return rmsDB(d)
	}
	assert.Less(t, diff(out), diff(mixed)-6, "the tone is kept, the noise on it reduced")

	clean, _ := noisyTone(40)
	assert.Equal(t, clean, denoise(clean, 20), "40 dB over its noise: untouched")
	assert.Equal(t, mixed, denoise(mixed, 0), "off")
	short := mixed[:4*denoiseN]
	assert.Equal(t, short, denoise(short, 20), "too short to learn the noise from")
}

func BenchmarkDenoise(b *testing.B) {
	mixed, _ := noisyTone(5)
	b.SetBytes(int64(2 * len(mixed)))
	for b.Loop() {
		denoise(mixed, 20)
	}
}

// readSpeech reads a test recording of espeak-ng speech.
func readSpeech(t *testing.T, name string) []int16 {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", name))
	require.NoError(t, err)
	defer f.Close()
	clip, err := audio.DecodeWAV(f)
	require.NoError(t, err)
	return audio.ToRecognition(clip)
}

// overTalkers is a command said 10 dB over two other talkers, who talk
// before, during and after it, as the listener hands it over: the
// command with half a second of the talkers either side, and where the
// command starts.
func overTalkers(t *testing.T) (mixed []int16, speechFrom int) {
	t.Helper()
	speech := readSpeech(t, "set_a_timer.wav")
	a, b := readSpeech(t, "hey_jibo_unknown.wav"), readSpeech(t, "hey_jibo_what_time.wav")
	lead := 8000
	n := len(speech) + 2*lead
	talkers := make([]float64, n)
	for i := range talkers {
		talkers[i] = float64(a[(i+3000)%len(a)]) + float64(b[(i+11000)%len(b)])
	}
	var ps, pb float64
	for _, v := range speech {
		ps += float64(v) * float64(v)
	}
	for _, v := range talkers {
		pb += v * v
	}
	gain := math.Sqrt(ps/float64(len(speech))/(pb/float64(n))) / math.Pow(10, 10.0/20)
	mixed = make([]int16, n)
	for i := range mixed {
		v := talkers[i] * gain
		if j := i - lead; j >= 0 && j < len(speech) {
			v += float64(speech[j])
		}
		mixed[i] = int16(max(-32768, min(32767, math.Round(v))))
	}
	return mixed, lead
}

// Other people talking fall silent between their words, so the quiet
// tenth of a command said over them reads like a quiet room's: the
// suppression's threshold must not take such a command for a clean one.
// By default the command over talkers is suppressed, a clean one is not
// touched.
func TestDenoiseOverOtherTalkers(t *testing.T) {
	mixed, from := overTalkers(t)
	snr := quietSNR(mixed)
	require.Greater(t, snr, 13.0, "the talkers' gaps read as a quiet room (pink noise at 10 dB measures 13)")
	require.Less(t, snr, DefaultDenoiseBelowSNR)
	assert.Equal(t, mixed, denoise(mixed, 10), "a threshold for steady noise takes it for clean")

	out := denoise(mixed, DefaultDenoiseBelowSNR)
	require.Len(t, out, len(mixed))
	// The talkers alone, before the command (less the first half frame,
	// which is kept as it was).
	before, after := rmsDB(mixed[denoiseHop:from]), rmsDB(out[denoiseHop:from])
	assert.Less(t, after, before, "the talkers before the command are suppressed")

	clean := readSpeech(t, "set_a_timer.wav")
	assert.Equal(t, clean, denoise(clean, DefaultDenoiseBelowSNR), "clean speech is not touched")
}

// denoise is denoiseAt of pcm with its own quietSNR.
func denoise(pcm []int16, maxSNR float64) []int16 {
	return denoiseAt(pcm, quietSNR(pcm), maxSNR)
}

// TestDenoiseKeepsNothingBetweenUtterances: the suppression's working
// memory, kept from one utterance to the next, carries nothing over: an
// utterance comes out the same after a longer and a shorter one as on
// its own, and another utterance of its length after it as on its own.
func TestDenoiseKeepsNothingBetweenUtterances(t *testing.T) {
	a, _ := noisyTone(5)
	b, _ := noisyTone(0)
	long := append(append([]int16{}, b...), b...)
	short := b[:len(b)/3]
	first := denoiseAt(a, 5, 30)
	otherFirst := slices.Clone(denoiseAt(b, 0, 30))
	denoiseAt(long, 0, 30)
	denoiseAt(short, 0, 30)
	assert.Equal(t, first, denoiseAt(a, 5, 30))
	assert.Equal(t, otherFirst, denoiseAt(b, 0, 30))
}
