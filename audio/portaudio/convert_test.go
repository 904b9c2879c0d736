package portaudio

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

func TestDownmixAndUpmix(t *testing.T) {
	for _, tc := range []struct {
		name     string
		frames   []int16
		channels int
		want     []float32
	}{
		{"mono", []int16{1, 2, 3}, 1, []float32{1, 2, 3}},
		{"stereo", []int16{2, 4, -6, 6}, 2, []float32{3, 0}},
		{"stereo partial frame ignored", []int16{2, 4, 9}, 2, []float32{3}},
		{"four channels", []int16{1, 2, 3, 6}, 4, []float32{3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Downmix(nil, tc.frames, tc.channels))
		})
	}
	assert.Equal(t, []int16{1, 1, -2, -2}, Upmix(nil, []int16{1, -2}, 2))
	assert.Equal(t, []int16{5}, Upmix(nil, []int16{5}, 1))
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
