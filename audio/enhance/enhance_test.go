package enhance

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// parity is scripts/enhance/train.py's fixture: a mixture, its features
// and the gains its numpy forward pass of the stored weights gives.
type parity struct {
	PCM      []int16     `json:"pcm"`
	Features [][]float32 `json:"features"`
	Gains    [][]float32 `json:"gains"`
}

func loadParity(t testing.TB) parity {
	t.Helper()
	b, err := os.ReadFile("testdata/parity.json")
	require.NoError(t, err)
	var p parity
	require.NoError(t, json.Unmarshal(b, &p))
	require.NotEmpty(t, p.Gains)
	return p
}

func TestFeaturesAndGainsMatchTheTrainingScript(t *testing.T) {
	m, err := Default()
	require.NoError(t, err)
	p := loadParity(t)
	s := new(scratch)
	m.analyse(s, p.PCM)
	bands := m.h.Bands
	require.Equal(t, len(p.Gains), m.frames(len(p.PCM)))
	worstF, worstG := 0.0, 0.0
	for f := range p.Gains {
		for b := range bands {
			worstF = max(worstF, math.Abs(float64(s.feats[f*bands+b]-p.Features[f][b])))
			worstG = max(worstG, math.Abs(float64(s.gains[f*bands+b]-p.Gains[f][b])))
		}
	}
	assert.Less(t, worstF, 2e-3, "largest feature difference")
	assert.Less(t, worstG, 2e-3, "largest gain difference")
}

func newFilterMust(t *testing.T, m *Model) *Filter {
	t.Helper()
	f, err := NewFilter(m, DefaultFloor)
	require.NoError(t, err)
	return f
}

func noisy(n int) []int16 {
	r := rand.New(rand.NewPCG(1, 2))
	pcm := make([]int16, n)
	for i := range pcm {
		pcm[i] = int16(3000*math.Sin(float64(i)*0.05)*math.Sin(float64(i)*0.0007) + r.NormFloat64()*500)
	}
	return pcm
}

func TestEnhanceAllocatesNothingOnceGrown(t *testing.T) {
	m, err := Default()
	require.NoError(t, err)
	pcm := noisy(3 * 16000)
	s := new(scratch)
	dst := m.process(s, nil, pcm, DefaultFloor)
	// The filter's pool of working memory is left out: under -race a
	// sync.Pool drops some of what it is given.
	allocs := testing.AllocsPerRun(5, func() { dst = m.process(s, dst, pcm, DefaultFloor) })
	assert.Zero(t, allocs)
	assert.Equal(t, newFilterMust(t, m).Enhance(nil, pcm), dst, "the filter gives the same")
}

func TestEnhanceKeepsLengthAndLeavesWhatItCannotFilter(t *testing.T) {
	m, err := Default()
	require.NoError(t, err)
	pcm := noisy(2 * 16000)
	for _, tc := range []struct {
		name    string
		floor   float64
		pcm     []int16
		changed bool
	}{
		{"floor 1 changes nothing", 1, pcm, false},
		{"shorter than two frames", DefaultFloor, pcm[:700], false},
		{"longer than MaxSamples", DefaultFloor, make([]int16, MaxSamples+1), false},
		{"noise turned down", 0, pcm, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := NewFilter(m, tc.floor)
			require.NoError(t, err)
			out := f.Enhance(nil, tc.pcm)
			require.Len(t, out, len(tc.pcm))
			if tc.changed {
				assert.Less(t, energy(out), energy(tc.pcm))
			} else {
				assert.Equal(t, tc.pcm, out)
			}
		})
	}
}

func energy(pcm []int16) float64 {
	e := 0.0
	for _, v := range pcm {
		e += float64(v) * float64(v)
	}
	return e
}

func TestNewFilterRefusesBadFloors(t *testing.T) {
	m, err := Default()
	require.NoError(t, err)
	for _, floor := range []float64{-0.1, 1.5, math.NaN()} {
		_, err := NewFilter(m, floor)
		assert.ErrorContains(t, err, "floor", floor)
	}
	_, err = NewFilter(nil, 0.5)
	assert.ErrorContains(t, err, "no model")
}

func TestParseRefusesMalformedModels(t *testing.T) {
	good := defaultModel
	hdrLen := int(binary.LittleEndian.Uint32(good[len(magic):]))
	withHeader := func(edit func(h map[string]any)) []byte {
		var h map[string]any
		require.NoError(t, json.Unmarshal(good[len(magic)+4:len(magic)+4+hdrLen], &h))
		edit(h)
		hb, err := json.Marshal(h)
		require.NoError(t, err)
		out := append([]byte(magic), binary.LittleEndian.AppendUint32(nil, uint32(len(hb)))...)
		out = append(out, hb...)
		return append(out, good[len(magic)+4+hdrLen:]...)
	}
	nan := append([]byte(nil), good...)
	binary.LittleEndian.PutUint32(nan[len(nan)-4:], math.Float32bits(float32(math.NaN())))
	for _, tc := range []struct {
		name, want string
		b          []byte
	}{
		{"empty", "bad magic", nil},
		{"other magic", "bad magic", append([]byte("JIBOWAKE"), good[len(magic):]...)},
		{"cut short", "cut short", good[:len(good)-10]},
		{"trailing bytes", "after the last tensor", append(append([]byte(nil), good...), 0)},
		{"header too long", "does not fit", append([]byte(magic), 0xff, 0xff, 0xff, 0x7f)},
		{"other rate", "sample rate", withHeader(func(h map[string]any) { h["sample_rate"] = 8000 })},
		{"too many bands", "bands", withHeader(func(h map[string]any) { h["bands"] = 1000 })},
		{"unknown field", "unknown field", withHeader(func(h map[string]any) { h["extra"] = 1 })},
		{"tensor shapes", "tensor 0", withHeader(func(h map[string]any) { h["channels"] = 65 })},
		{"NaN bias", "holds NaN", nan},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.b)
			assert.ErrorContains(t, err, tc.want)
		})
	}
}

// BenchmarkEnhance3s enhances a 3 s utterance; rtf is the CPU time per
// second of audio.
func BenchmarkEnhance3s(b *testing.B) {
	m, err := Default()
	require.NoError(b, err)
	f, err := NewFilter(m, DefaultFloor)
	require.NoError(b, err)
	pcm := noisy(3 * 16000)
	dst := f.Enhance(nil, pcm)
	b.ResetTimer()
	for range b.N {
		dst = f.Enhance(dst, pcm)
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)/3, "rtf")
}

// naiveApply is conv.apply one output at a time, each output's sum over
// its inputs in order: what the network's layers compute.
func naiveApply(c *conv, y, x []float32, t int, residual bool) {
	half := (c.width - 1) / 2 * c.dilation
	for f := range t {
		row := y[f*c.out : (f+1)*c.out]
		copy(row, c.b)
		for j := range c.width {
			src := f - half + j*c.dilation
			if src < 0 || src >= t {
				continue
			}
			in := x[src*c.in : (src+1)*c.in]
			for o := range c.out {
				w := c.w[(o*c.width+j)*c.in : (o*c.width+j+1)*c.in]
				acc := float32(0)
				for i, v := range w {
					acc += v * in[i]
				}
				row[o] += acc
			}
		}
		for o, v := range row {
			if c.width > 1 {
				row[o] = max(v, 0)
			}
			if residual {
				row[o] += x[f*c.in+o]
			}
		}
	}
}

// TestConvolutionsSumAsOneOutputAtATime: the layers, four outputs at a
// time, give the same bits as one output at a time (so the enhanced audio,
// and what the recogniser decides on it, stay as they were), whatever the
// number of outputs, the width and the dilation.
func TestConvolutionsSumAsOneOutputAtATime(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct{ in, out, width, dilation int }{
		{32, 64, 5, 1}, {64, 64, 3, 2}, {64, 64, 3, 8}, {64, 32, 1, 1}, {7, 6, 3, 1}, {5, 3, 1, 1},
	} {
		w := make([]float32, tc.in*tc.out*tc.width)
		for i := range w {
			w[i] = float32(rng.NormFloat64() * 0.3)
		}
		b := make([]float32, tc.out)
		for i := range b {
			b[i] = float32(rng.NormFloat64())
		}
		c := newConv(w, b, tc.in, tc.width, tc.dilation)
		const frames = 23
		x := make([]float32, frames*tc.in)
		for i := range x {
			x[i] = float32(rng.NormFloat64() * 4)
		}
		residual := tc.in == tc.out
		got, want := make([]float32, frames*tc.out), make([]float32, frames*tc.out)
		c.apply(got, x, frames, residual)
		naiveApply(&c, want, x, frames, residual)
		assert.Equal(t, want, got, "%+v", tc)
	}
}

// BenchmarkConvolutions runs the default model's layers on 3 s of
// features, four outputs at a time and one at a time (naiveApply) in
// turn, in one process, so that both see the same load: blocked-s and
// naive-s are the seconds each took per 3 s, blocked/naive their ratio.
func BenchmarkConvolutions(b *testing.B) {
	m, err := Default()
	require.NoError(b, err)
	pcm := noisy(3 * 16000)
	s := m.scratch()
	m.analyse(s, pcm)
	t := m.frames(len(pcm))
	layers := append([]conv{m.first}, m.layers...)
	layers = append(layers, m.out)
	var took [2]time.Duration
	for b.Loop() {
		for i, naive := range []bool{true, false} {
			start := time.Now()
			x, y := s.feats, s.h
			for k := range layers {
				c := &layers[k]
				out := y[:t*c.out]
				if naive {
					naiveApply(c, out, x, t, c.in == c.out)
				} else {
					c.apply(out, x, t, c.in == c.out)
				}
				x, y = out, s.y
				if k%2 == 1 {
					y = s.h
				}
			}
			took[i] += time.Since(start)
		}
	}
	naive, blocked := took[0].Seconds()/float64(b.N), took[1].Seconds()/float64(b.N)
	b.ReportMetric(naive, "naive-s")
	b.ReportMetric(blocked, "blocked-s")
	b.ReportMetric(blocked/naive, "blocked/naive")
}
