package wake

import (
	"encoding/binary"
	"encoding/json"
	"maps"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/audio/internal/fft"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// parity is what scripts/wake/train.py (or finetune.py) computed from a WAV with the
// embedded model: the features of its first frames and every step's logit.
type parity struct {
	WAV      string      `json:"wav"`
	Features [][]float64 `json:"features"`
	Logits   []float64   `json:"logits"`
}

func loadParity(t testing.TB) (parity, []int16) {
	t.Helper()
	b, err := os.ReadFile("testdata/parity.json")
	require.NoError(t, err)
	var p parity
	require.NoError(t, json.Unmarshal(b, &p))
	f, err := os.Open(filepath.Join("..", "testdata", p.WAV))
	require.NoError(t, err)
	defer f.Close()
	clip, err := audio.DecodeWAV(f)
	require.NoError(t, err)
	return p, audio.ToRecognition(clip)
}

// The Go features and scores are the training script's, on the same WAV.
func TestParityWithTrainingScript(t *testing.T) {
	p, pcm := loadParity(t)
	m, err := Default()
	require.NoError(t, err)
	f := newFeatures(m.h)
	n := newNetwork(m)
	frame := make([]float64, m.h.Mels)
	var frames int
	var logits []float64
	for _, s := range pcm {
		if !f.push(s, frame) {
			continue
		}
		if frames < len(p.Features) {
			for i, v := range frame {
				require.InDeltaf(t, p.Features[frames][i], v, 2e-4, "frame %d mel %d", frames, i)
			}
		}
		frames++
		if l, ok := n.frame(frame); ok {
			logits = append(logits, float64(l))
		}
	}
	require.Len(t, logits, len(p.Logits))
	worst := 0.0
	for i := range logits {
		worst = math.Max(worst, math.Abs(logits[i]-p.Logits[i]))
	}
	t.Logf("largest logit difference %g", worst)
	require.Less(t, worst, 2e-3, "largest logit difference")
}

// BenchmarkDetector measures the detector's cost per second of audio
// (always on: every sample of the stream goes through it): cpu-rtf is the
// CPU time of the thread that fed it over the audio fed, whatever else the
// machine runs meanwhile.
func BenchmarkDetector(b *testing.B) {
	_, pcm := loadParity(b)
	d, err := New(Config{})
	require.NoError(b, err)
	sec := pcm[:SampleRate]
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ReportAllocs()
	cpu0, ok0 := threadCPU()
	b.ResetTimer()
	for b.Loop() {
		for off := 0; off < len(sec); off += 320 {
			d.Feed(sec[off : off+320])
		}
	}
	b.StopTimer()
	if cpu1, ok1 := threadCPU(); ok0 && ok1 {
		b.ReportMetric((cpu1-cpu0).Seconds()/float64(b.N), "cpu-rtf")
	}
}

// modelFile rebuilds a model file from a header and tensor bytes.
func modelFile(t testing.TB, h map[string]any, body []byte) []byte {
	t.Helper()
	hb, err := json.Marshal(h)
	require.NoError(t, err)
	out := []byte(magic)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(hb)))
	out = append(out, hb...)
	return append(out, body...)
}

// splitModel returns the embedded model's header (as a map) and tensors.
func splitModel(t testing.TB) (map[string]any, []byte) {
	t.Helper()
	n := binary.LittleEndian.Uint32(defaultModel[len(magic):])
	var h map[string]any
	require.NoError(t, json.Unmarshal(defaultModel[len(magic)+4:len(magic)+4+int(n)], &h))
	return h, defaultModel[len(magic)+4+int(n):]
}

func TestParseRefusesBadModels(t *testing.T) {
	h, body := splitModel(t)
	with := func(k string, v any) map[string]any {
		c := maps.Clone(h)
		c[k] = v
		return c
	}
	detect := func(k string, v any) map[string]any {
		d := maps.Clone(h["detect"].(map[string]any))
		d[k] = v
		return with("detect", d)
	}
	dtype := func(name, dt string) []any {
		var ts []any
		for _, x := range h["tensors"].([]any) {
			c := maps.Clone(x.(map[string]any))
			if c["name"] == name {
				c["dtype"] = dt
			}
			ts = append(ts, c)
		}
		return ts
	}
	nan := slices.Clone(body)
	binary.LittleEndian.PutUint32(nan[8:], math.Float32bits(float32(math.NaN())))
	tests := []struct {
		name string
		file []byte
		want string
	}{
		{"empty", nil, "bad magic"},
		{"another file", []byte("RIFF....WAVEfmt "), "bad magic"},
		{"header longer than the file", append([]byte(magic), 0xff, 0xff, 0, 0), "does not fit"},
		{"header not JSON", append([]byte(magic), 3, 0, 0, 0, '{', '{', '}'), "header: invalid character"},
		{"unknown field", modelFile(t, with("extra", 1), body), "unknown field"},
		{"format", modelFile(t, with("format", 1), body), "format 1"},
		{"sample rate", modelFile(t, with("sample_rate", 8000), body), "sample rate"},
		{"nfft not a power of two", modelFile(t, with("nfft", 500), body), "nfft"},
		{"frame longer than nfft", modelFile(t, with("frame", 1024), body), "frame"},
		{"mel range", modelFile(t, with("fmax", 9000), body), "mel range"},
		{"too many channels", modelFile(t, with("channels", 100000), body), "channels"},
		{"dilation", modelFile(t, with("dilations", []int{1, 2, 4, 8, 1000}), body), "dilation"},
		{"threshold", modelFile(t, detect("threshold", 1.5), body), "threshold"},
		{"smoothing", modelFile(t, detect("smooth", 0), body), "smoothing"},
		{"hold negative", modelFile(t, detect("hold", -1), body), "hold"},
		{"hold too long", modelFile(t, detect("hold", 51), body), "hold"},
		{"tensor shapes", modelFile(t, with("hidden", 16), body), "tensor"},
		{"storage", modelFile(t, with("tensors", dtype("conv0.w", "f16")), body), `dtype "f16"`},
		{"float32 read as int8", modelFile(t, with("tensors", dtype("h2.b", "i8")), body), "h2.b: cut short"},
		{"int4 read as int8", modelFile(t, with("tensors", dtype("conv4.w", "i8")), body), "cut short"},
		{"cut short", modelFile(t, h, body[:len(body)-4]), "cut short"},
		{"trailing bytes", modelFile(t, h, append(slices.Clone(body), 0, 0, 0, 0)), "after the last tensor"},
		{"not a number", modelFile(t, h, nan), "NaN"},
		{"dereverb time", modelFile(t, with("dereverb", map[string]any{"rt60": 0, "delay": 5, "floor": 0.1}), body), "dereverb: rt60"},
		{"dereverb delay", modelFile(t, with("dereverb", map[string]any{"rt60": 3, "delay": 0, "floor": 0.1}), body), "dereverb: delay"},
		{"dereverb floor", modelFile(t, with("dereverb", map[string]any{"rt60": 3, "delay": 5, "floor": 2}), body), "dereverb: floor"},
		{"dereverb field", modelFile(t, with("dereverb", map[string]any{"rt60": 3, "delay": 5, "floor": 0.1, "gain": 1}), body), "unknown field"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.file)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	_, err := Parse(modelFile(t, h, body))
	require.NoError(t, err, "the embedded model rebuilt")
	without := maps.Clone(h)
	delete(without, "dereverb")
	m, err := Parse(modelFile(t, without, body))
	require.NoError(t, err, "a model whose features keep the reverberation")
	assert.Nil(t, newFeatures(m.h).derev)
}

// The Go features with late reverberation taken out are the training
// script's (scripts/wake/model.py dereverb_fixture), whether or not the
// embedded model takes it out.
func TestDereverbParity(t *testing.T) {
	b, err := os.ReadFile("testdata/dereverb.json")
	require.NoError(t, err)
	var want struct {
		WAV      string      `json:"wav"`
		Dereverb dereverb    `json:"dereverb"`
		Frames   []int       `json:"frames"`
		Features [][]float64 `json:"features"`
	}
	require.NoError(t, json.Unmarshal(b, &want))
	f, err := os.Open(filepath.Join("..", "testdata", want.WAV))
	require.NoError(t, err)
	defer f.Close()
	clip, err := audio.DecodeWAV(f)
	require.NoError(t, err)
	m, err := Default()
	require.NoError(t, err)
	h := m.h
	h.Dereverb = &want.Dereverb
	require.NoError(t, h.check())
	feat := newFeatures(h)
	frame := make([]float64, h.Mels)
	var got [][]float64
	for _, s := range audio.ToRecognition(clip) {
		if feat.push(s, frame) {
			got = append(got, slices.Clone(frame))
		}
	}
	for k, n := range want.Frames {
		require.Less(t, n, len(got))
		for i, v := range want.Features[k] {
			require.InDeltaf(t, v, got[n][i], 2e-4, "frame %d mel %d", n, i)
		}
	}
}

// Late reverberation comes out of the features: a sound's onset is kept,
// a tail dying as slowly as a large hall's (11 dB a second) falls much
// faster once the late part is estimated, and steady sound is taken down
// by the same fraction whatever its level (the log features move by a
// constant).
func TestDereverbShortensTails(t *testing.T) {
	h := header{Hop: 160, SampleRate: SampleRate, Mels: 1, Dereverb: &dereverb{RT60: 3, Delay: 5, Floor: 0.1}}
	run := func(e []float64) []float64 {
		d := newDerev(h)
		out := make([]float64, len(e))
		for i, v := range e {
			f := []float64{v}
			d.apply(f)
			out[i] = f[0]
		}
		return out
	}
	db := func(v float64) float64 { return 10 * math.Log10(v) }
	// A burst of 20 frames, then its tail for 2 s.
	e := make([]float64, 220)
	for i := range e {
		e[i] = 1
		if i >= 20 {
			e[i] = math.Pow(10, -11*float64(i-20)/100/10)
		}
	}
	out := run(e)
	assert.InDelta(t, 1, out[0], 1e-12, "the onset")
	assert.InDelta(t, 1, out[4], 1e-12, "nothing is taken before the delay")
	assert.Less(t, db(out[120]), db(e[120])-6, "a second into the tail")
	assert.GreaterOrEqual(t, out[120], 0.1*e[120]*(1-1e-12), "never under the floor")
	quiet, loud := run(slices.Repeat([]float64{2}, 1000)), run(slices.Repeat([]float64{2000}, 1000))
	assert.Less(t, quiet[999], 2.0, "steady sound is taken down")
	assert.InDelta(t, quiet[999]/2, loud[999]/2000, 1e-9, "by the same whatever its level")
}

func FuzzParse(f *testing.F) {
	f.Add(defaultModel)
	f.Add(defaultModel[:len(magic)+4+100])
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Parse(b)
		if err != nil {
			return
		}
		d, err := New(Config{Model: m})
		require.NoError(t, err)
		d.Feed(make([]int16, 4000))
	})
}

func TestNewValidates(t *testing.T) {
	for _, c := range []Config{{Threshold: -0.1}, {Threshold: 1}, {Threshold: math.NaN()}, {Refractory: -time.Second}, {Refractory: time.Hour}} {
		_, err := New(c)
		assert.Error(t, err, "%+v", c)
	}
	d, err := New(Config{Threshold: 0.7, Refractory: 2 * time.Second})
	require.NoError(t, err)
	assert.Equal(t, 0.7, d.Threshold())
	assert.Equal(t, int64(100), d.refractory, "2 s of 20 ms steps")
}

// withRule is the embedded model deciding by the mean of smooth steps
// (hold 0) or by hold steps in a row.
func withRule(t *testing.T, smooth, hold int) *Model {
	t.Helper()
	m, err := Default()
	require.NoError(t, err)
	c := *m
	c.h.Detect.Smooth, c.h.Detect.Hold = smooth, hold
	return &c
}

// The decision (issue 24's wake word): the model's rule turns
// the network's step probabilities into wakes, once, then nothing during
// the refractory period. A score that spikes over babble or a decoy does
// not wake; a phrase's score held up does, even a little under the level
// one step would need.
func TestDecision(t *testing.T) {
	logit := func(p float64) float32 { return float32(math.Log(p / (1 - p))) }
	run := func(p float64, n int) []float64 { return slices.Repeat([]float64{p}, n) }
	cat := func(parts ...[]float64) []float64 { return slices.Concat(parts...) }
	tests := []struct {
		name         string
		smooth, hold int
		probs        []float64
		wakes        []int // steps
	}{
		{"mean: nothing", 3, 0, []float64{0.1, 0.2, 0.1, 0.3, 0.2}, nil},
		{"mean: one step alone is smoothed away", 3, 0, []float64{0.1, 0.99, 0.1, 0.1}, nil},
		{"mean: a run wakes at its third step", 3, 0, []float64{0.1, 0.9, 0.9, 0.9, 0.9, 0.9, 0.1}, []int{3}},
		{"mean: again after the refractory period", 3, 0, cat(run(0.9, 3), run(0, 50), run(0.9, 3)), []int{2, 55}},
		{"mean: not within it", 3, 0, cat(run(0.9, 3), run(0, 40), run(0.9, 3)), []int{2}},
		{"hold: nothing", 3, 5, []float64{0.1, 0.2, 0.1, 0.3, 0.2, 0.4}, nil},
		{"hold: a spike does not wake", 3, 5, cat(run(0.1, 3), run(0.99, 3), run(0.1, 5)), nil},
		{"hold: four steps are not enough", 3, 5, cat(run(0.1, 2), run(0.95, 4), run(0.1, 5)), nil},
		{"hold: a run just over the threshold wakes at its fifth step", 3, 5, cat(run(0.1, 2), run(0.81, 7)), []int{6}},
		{"hold: a dip starts the count again", 3, 5, cat(run(0.9, 3), []float64{0.5}, run(0.9, 5)), []int{8}},
		{"hold: again after the refractory period", 3, 5, cat(run(0.9, 5), run(0, 50), run(0.9, 5)), []int{4, 59}},
		{"hold: not within it", 3, 5, cat(run(0.9, 5), run(0, 40), run(0.9, 5)), []int{4}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := New(Config{Model: withRule(t, tc.smooth, tc.hold), Threshold: 0.8, Refractory: time.Second})
			require.NoError(t, err)
			var got []int
			for i, p := range tc.probs {
				d.events = d.events[:0]
				d.score(logit(max(p, 1e-6)))
				if len(d.events) > 0 {
					got = append(got, i)
					assert.GreaterOrEqual(t, d.events[0].Score, 0.8)
				}
			}
			assert.Equal(t, tc.wakes, got)
		})
	}
}

// Fed in any pieces, the stream gives the same wakes.
func TestFeedChunking(t *testing.T) {
	_, pcm := loadParity(t)
	var want []Detection
	for _, chunk := range []int{len(pcm), 320, 160, 77, 1} {
		d, err := New(Config{Threshold: 0.05})
		require.NoError(t, err)
		var got []Detection
		for off := 0; off < len(pcm); off += chunk {
			got = append(got, d.Feed(pcm[off:min(off+chunk, len(pcm))])...)
		}
		assert.Equal(t, int64(len(pcm)), d.Pos())
		if want == nil {
			want = got
			require.NotEmpty(t, want, "a low threshold wakes somewhere")
			continue
		}
		assert.Equal(t, want, got, "chunk %d", chunk)
	}
}

// room returns pcm as heard across a living room: through an impulse
// response of direct sound and a diffuse tail (seeded noise decaying by
// 60 dB over rt60 seconds), the direct sound drr dB relative to the tail
// (the direct-to-reverberant ratio), peaking at peakDB (dBFS), over a
// faint hiss at -80 dBFS.
func room(pcm []int16, rt60, drr, peakDB float64) []int16 {
	rng := rand.New(rand.NewPCG(1, 2))
	h := make([]float64, int(rt60*SampleRate))
	tail := 0.0
	for i := int(0.003 * SampleRate); i < len(h); i++ {
		h[i] = rng.NormFloat64() * math.Exp(-6.9*float64(i)/SampleRate/rt60)
		tail += h[i] * h[i]
	}
	h[0] = math.Sqrt(tail * math.Pow(10, drr/10))
	n := 1
	for n < len(pcm)+len(h) {
		n <<= 1
	}
	x, hz := make([]complex128, n), make([]complex128, n)
	for i, s := range pcm {
		x[i] = complex(float64(s), 0)
	}
	for i, v := range h {
		hz[i] = complex(v, 0)
	}
	t := fft.MustNew(n)
	t.Forward(x)
	t.Forward(hz)
	// The product, conjugated, transformed forward and conjugated again is
	// the inverse transform times n.
	for k := range n {
		x[k] = cmplx.Conj(x[k] * hz[k])
	}
	t.Forward(x)
	y := make([]float64, len(pcm)+len(h))
	for i := range y {
		y[i] = real(x[i])
	}
	peak := 0.0
	for _, v := range y {
		peak = max(peak, math.Abs(v))
	}
	gain := 32768 * math.Pow(10, peakDB/20) / peak
	out := make([]int16, len(y))
	for i, v := range y {
		out[i] = int16(math.Round(v*gain + rng.NormFloat64()*32768*math.Pow(10, -80.0/20)))
	}
	return out
}

// Someone across the room, in an ordinary living room (reverberation
// 0.5 s, more of the room than of the voice, a quiet 40 dB under full
// scale at the microphone), wakes the robot with the phrase; the decoy
// does not wake it there either (issue 24: a wake word heard far from the
// microphone, decoys refused).
func TestWakesAcrossTheRoom(t *testing.T) {
	load := func(name string) []int16 {
		f, err := os.Open(filepath.Join("..", "testdata", name))
		require.NoError(t, err)
		defer f.Close()
		c, err := audio.DecodeWAV(f)
		require.NoError(t, err)
		return audio.ToRecognition(c)
	}
	wakes := func(pcm []int16) int {
		d, err := New(Config{})
		require.NoError(t, err)
		pcm = append(slices.Clone(pcm), make([]int16, SampleRate)...)
		return len(d.Feed(pcm))
	}
	tests := []struct {
		file string
		want int
	}{
		{"hey_jibo_what_time.wav", 1},
		{"hey_jibo_unknown.wav", 1},
		{"hey_jimbo_decoy.wav", 0},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			assert.Equal(t, tc.want, wakes(room(load(tc.file), 0.5, -3, -40)))
		})
	}
}

// TestEmbeddedRule: the embedded model wakes by its held rule, five
// 20 ms steps at its threshold or over (docs/config.md, jibod's
// --wake-threshold help).
func TestEmbeddedRule(t *testing.T) {
	m, err := Default()
	require.NoError(t, err)
	assert.Equal(t, 5, m.Hold())
	assert.Equal(t, 20*time.Millisecond, m.Step())
	assert.Equal(t, 0.78, m.Threshold())
}
