package audio

import (
	"fmt"
	"math"
	"math/cmplx"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func tone(rate int, hz, amp float64, n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(amp * math.Sin(2*math.Pi*hz*float64(i)/float64(rate)))
	}
	return out
}

// level is the amplitude of the hz component of x (a single-bin DFT).
func level(x []int16, rate int, hz float64) float64 {
	var s complex128
	for i, v := range x {
		s += complex(float64(v), 0) * cmplx.Exp(complex(0, -2*math.Pi*hz*float64(i)/float64(rate)))
	}
	return 2 * cmplx.Abs(s) / float64(len(x))
}

// resampleInBlocks runs in through r in blocks of the sizes given, cycling.
func resampleInBlocks(r *Resampler, in []float32, sizes ...int) []int16 {
	var out []int16
	for i, off := 0, 0; off < len(in); i++ {
		n := min(sizes[i%len(sizes)], len(in)-off)
		out = r.Process(out, in[off:off+n])
		off += n
	}
	return out
}

func TestResamplerKeepsTheBand(t *testing.T) {
	for _, tc := range []struct{ in, out int }{
		{48000, 16000}, {44100, 16000}, {96000, 16000}, {192000, 16000},
		{22050, 16000}, {32000, 16000}, {8000, 16000}, {11025, 16000},
		{16000, 16000}, {16000, 48000}, {22050, 44100},
	} {
		t.Run(fmt.Sprintf("%d-to-%d", tc.in, tc.out), func(t *testing.T) {
			r, err := NewResampler(tc.in, tc.out)
			require.NoError(t, err)
			in := tone(tc.in, 1000, 10000, tc.in) // one second
			out := resampleInBlocks(r, in, 1, 7, 160, 4096, 333)
			want := tc.out // one second in, one second out
			assert.InDelta(t, want, len(out), float64(r.k+1), "output length")
			// Leave out the filter's start-up at both ends.
			body := out[2*r.Delay()+r.k : len(out)-r.k]
			assert.InDelta(t, 10000, level(body, tc.out, 1000), 100, "1 kHz passes within 1 %%")
		})
	}
}

func TestResamplerStopsAliases(t *testing.T) {
	for _, tc := range []struct {
		in, out int
		hz      float64 // the tone fed in
		alias   float64 // where its alias would land
	}{
		{48000, 16000, 12000, 4000},
		{48000, 16000, 9500, 6500},
		{44100, 16000, 10000, 6000},
		{96000, 16000, 20000, 4000},
		{8000, 16000, 3000, 5000}, // upsampling: the image at 8k-3k
	} {
		t.Run(fmt.Sprintf("%d-to-%d-%.0fHz", tc.in, tc.out, tc.hz), func(t *testing.T) {
			r, err := NewResampler(tc.in, tc.out)
			require.NoError(t, err)
			out := r.Process(nil, tone(tc.in, tc.hz, 10000, tc.in))
			body := out[r.k : len(out)-r.k]
			// 60 dB down from 10000, allowing for int16 rounding.
			assert.Less(t, level(body, tc.out, tc.alias), 10.0)
		})
	}
}

func TestResamplerBlocksJoinSeamlessly(t *testing.T) {
	whole, err := NewResampler(44100, 16000)
	require.NoError(t, err)
	blocks, err := NewResampler(44100, 16000)
	require.NoError(t, err)
	in := tone(44100, 1234, 12000, 44100/2)
	a := whole.Process(nil, in)
	b := resampleInBlocks(blocks, in, 1, 2, 3, 441, 1000, 17)
	assert.Equal(t, a, b)

	blocks.Reset()
	whole2, _ := NewResampler(44100, 16000)
	assert.Equal(t, whole2.Process(nil, in), blocks.Process(nil, in), "Reset starts afresh")
}

func TestResamplerRefuses(t *testing.T) {
	for _, tc := range []struct {
		in, out int
		want    string
	}{
		{0, 16000, "rates must be positive"},
		{16000, -1, "rates must be positive"},
		{44056, 16000, "filter phases"}, // 2000/5507: not a device rate
		{192000, 8, "taps per sample"},
	} {
		_, err := NewResampler(tc.in, tc.out)
		require.Error(t, err, "%d to %d", tc.in, tc.out)
		assert.Contains(t, err.Error(), tc.want)
	}
}

func TestResamplerPassThroughAndClamp(t *testing.T) {
	r, err := NewResampler(16000, 16000)
	require.NoError(t, err)
	assert.Equal(t, []int16{1, -2, 32767, -32768}, r.Process(nil, []float32{1.2, -2.4, 40000, -40000}))
	assert.Zero(t, r.Delay())
}

// BenchmarkResample48kTo16k converts one second of 48 kHz audio in 20 ms
// blocks, the capture path's work per second.
func BenchmarkResample48kTo16k(b *testing.B) {
	benchResample(b, 48000)
}

// BenchmarkResample44kTo16k is the same from 44.1 kHz (160 phases).
func BenchmarkResample44kTo16k(b *testing.B) {
	benchResample(b, 44100)
}

func benchResample(b *testing.B, rate int) {
	r, err := NewResampler(rate, 16000)
	require.NoError(b, err)
	in := tone(rate, 440, 8000, rate)
	block := rate / 50
	out := make([]int16, 0, 1024)
	b.SetBytes(int64(2 * len(in)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for off := 0; off+block <= len(in); off += block {
			out = r.Process(out[:0], in[off:off+block])
		}
	}
}

// toneInt16 is tone as int16 samples.
func toneInt16(rate int, hz, amp float64, n int) []int16 {
	out := make([]int16, n)
	for i, v := range tone(rate, hz, amp, n) {
		out[i] = int16(v)
	}
	return out
}

func TestResampleWholeClip(t *testing.T) {
	db := func(x float64) float64 { return 20 * math.Log10(x/10000) }
	for _, tc := range []struct {
		name     string
		from, to int
		hz       float64
		minDB    float64 // level out, relative to the 10000 put in
		maxDB    float64
	}{
		// In band: within 1 dB.
		{"48k 1 kHz passes", 48000, 16000, 1000, -1, 1},
		{"48k 6 kHz passes", 48000, 16000, 6000, -1, 1},
		{"44.1k 3 kHz passes", 44100, 16000, 3000, -1, 1},
		{"22.05k 5 kHz passes", 22050, 16000, 5000, -1, 1},
		{"8k 3 kHz passes upwards", 8000, 16000, 3000, -1, 1},
		{"odd rate 22051 1 kHz passes", 22051, 16000, 1000, -1, 1},
		// Above the new Nyquist frequency: at least 40 dB down, measured
		// where the linear interpolation used to put the alias.
		{"48k 12 kHz stopped (alias at 4 kHz)", 48000, 16000, 12000, -200, -40},
		{"48k 10 kHz stopped (alias at 6 kHz)", 48000, 16000, 10000, -200, -40},
		{"44.1k 9.5 kHz stopped (alias at 6.5 kHz)", 44100, 16000, 9500, -200, -40},
		{"22.05k 10 kHz stopped (alias at 6 kHz)", 22050, 16000, 10000, -200, -40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := toneInt16(tc.from, tc.hz, 10000, tc.from) // one second
			out := Resample(in, tc.from, tc.to)
			require.Len(t, out, tc.to, "one second in, one second out")
			at := tc.hz
			if tc.hz > float64(tc.to)/2 {
				at = float64(tc.to) - tc.hz // where the alias lands
			}
			body := out[tc.to/20 : len(out)-tc.to/20] // without the ends
			got := db(max(level(body, tc.to, at), 1e-3))
			assert.GreaterOrEqual(t, got, tc.minDB)
			assert.LessOrEqual(t, got, tc.maxDB)
		})
	}
}

func TestResampleLengthsAndAlignment(t *testing.T) {
	assert.Nil(t, Resample(nil, 48000, 16000))
	same := []int16{1, 2, 3}
	assert.Equal(t, same, Resample(same, 16000, 16000), "equal rates: as is")
	assert.Equal(t, same, Resample(same, 0, 16000), "a rate that is not positive: as is")
	for _, tc := range []struct{ n, from, to, want int }{
		{1, 48000, 16000, 0}, {3, 48000, 16000, 1}, {100, 44100, 16000, 36},
		{7, 8000, 16000, 14}, {44101, 44100, 16000, 16000}, {5, 22051, 16000, 3},
	} {
		assert.Len(t, Resample(make([]int16, tc.n), tc.from, tc.to), tc.want, "%d samples %d→%d", tc.n, tc.from, tc.to)
	}
	// A click stays where it was: the filter's delay is taken out.
	in := make([]int16, 48000)
	in[24000] = 30000
	out := Resample(in, 48000, 16000)
	peak := 0
	for i, v := range out {
		if v > out[peak] {
			peak = i
		}
	}
	assert.InDelta(t, 8000, peak, 1)
}

// BenchmarkResampleClip converts a 3 s 44.1 kHz clip, as a WAV file is
// converted for recognition.
func BenchmarkResampleClip(b *testing.B) {
	in := toneInt16(44100, 440, 8000, 3*44100)
	b.SetBytes(int64(2 * len(in)))
	b.ReportAllocs()
	for b.Loop() {
		Resample(in, 44100, 16000)
	}
}
