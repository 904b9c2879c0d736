package fft

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dft is the transform by its definition, to check the fast one against.
func dft(x []complex128, sign float64) []complex128 {
	n := len(x)
	out := make([]complex128, n)
	for k := range n {
		for t, v := range x {
			out[k] += v * cmplx.Rect(1, sign*2*math.Pi*float64(k*t%n)/float64(n))
		}
	}
	return out
}

func random(n int, seed uint64) []complex128 {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := make([]complex128, n)
	for i := range x {
		x[i] = complex(rng.NormFloat64(), rng.NormFloat64())
	}
	return x
}

// TestMatchesDefinition: for every length the audio code might use, both
// directions agree with the sums they are defined by.
func TestMatchesDefinition(t *testing.T) {
	for _, n := range []int{1, 2, 4, 8, 64, 512} {
		x := random(n, uint64(n))
		p, err := New(n)
		require.NoError(t, err)

		got := append([]complex128(nil), x...)
		p.Forward(got)
		want := dft(x, -1)
		for k := range n {
			assert.InDelta(t, 0, cmplx.Abs(got[k]-want[k]), 1e-9*float64(n), "n=%d forward bin %d", n, k)
		}

		got = append([]complex128(nil), x...)
		p.Inverse(got)
		want = dft(x, 1)
		for k := range n {
			assert.InDelta(t, 0, cmplx.Abs(got[k]-want[k]/complex(float64(n), 0)), 1e-9, "n=%d inverse bin %d", n, k)
		}
	}
}

// TestRoundTrip: Inverse gives Forward's input back, and a real tone
// lands in its bin and its mirror.
func TestRoundTrip(t *testing.T) {
	p := MustNew(64)
	x := make([]complex128, 64)
	for i := range x {
		x[i] = complex(math.Sin(2*math.Pi*5*float64(i)/64), 0)
	}
	y := append([]complex128(nil), x...)
	p.Forward(y)
	assert.InDelta(t, -32, imag(y[5]), 1e-9, "a sine of 5 cycles is in bin 5")
	assert.InDelta(t, 32, imag(y[59]), 1e-9, "and its mirror")
	assert.InDelta(t, 0, cmplx.Abs(y[7]), 1e-9)
	p.Inverse(y)
	for i := range x {
		assert.InDelta(t, real(x[i]), real(y[i]), 1e-12)
		assert.InDelta(t, 0, imag(y[i]), 1e-12)
	}
}

// TestLongerSlice: only the plan's length is transformed; what follows
// it is left alone.
func TestLongerSlice(t *testing.T) {
	p := MustNew(8)
	x := random(10, 3)
	tail := append([]complex128(nil), x[8:]...)
	want := append([]complex128(nil), x[:8]...)
	p.Forward(x)
	p.Forward(want[:8])
	assert.Equal(t, want, x[:8])
	assert.Equal(t, tail, x[8:])
	assert.Panics(t, func() { p.Forward(make([]complex128, 7)) }, "a short frame is a bug in the caller")
}

// TestNewRefuses: lengths that are not powers of two, or out of bounds,
// are refused with the length named.
func TestNewRefuses(t *testing.T) {
	for _, n := range []int{0, -4, 3, 12, 1000, 2 * MaxLen} {
		_, err := New(n)
		assert.ErrorContains(t, err, "fft length", "n=%d", n)
	}
	assert.Panics(t, func() { MustNew(6) })
}

// TestNoAllocs: transforming allocates nothing, which the per-frame
// callers (enhancement, noise suppression) rely on.
func TestNoAllocs(t *testing.T) {
	p := MustNew(512)
	x := random(512, 4)
	allocs := testing.AllocsPerRun(10, func() {
		p.Forward(x)
		p.Inverse(x)
	})
	assert.Zero(t, allocs)
}

// BenchmarkForward512 transforms one frame of the audio code's length.
func BenchmarkForward512(b *testing.B) {
	p := MustNew(512)
	x := random(512, 5)
	b.ReportAllocs()
	for b.Loop() {
		p.Forward(x)
	}
}

// BenchmarkInverse512 is BenchmarkForward512's inverse.
func BenchmarkInverse512(b *testing.B) {
	p := MustNew(512)
	x := random(512, 5)
	b.ReportAllocs()
	for b.Loop() {
		p.Inverse(x)
	}
}

// TestCacheKeepsOnePlanPerLength: a Cache hands out the same plan for a
// length every time, from any goroutine, refuses what New refuses, and
// its plans transform as New's do.
func TestCacheKeepsOnePlanPerLength(t *testing.T) {
	var c Cache
	got := make([]*Plan, 8)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() { got[i] = c.MustPlan(512) })
	}
	wg.Wait()
	for _, p := range got {
		assert.Same(t, got[0], p)
	}
	other, err := c.Plan(64)
	require.NoError(t, err)
	assert.NotSame(t, got[0], other)
	again, err := c.Plan(64)
	require.NoError(t, err)
	assert.Same(t, other, again)

	for _, bad := range []int{0, -8, 3, 100, MaxLen * 2} {
		_, err := c.Plan(bad)
		assert.Error(t, err, "length %d", bad)
	}

	x := random(512, 7)
	a, b := append([]complex128(nil), x...), append([]complex128(nil), x...)
	got[0].Forward(a)
	MustNew(512).Forward(b)
	assert.Equal(t, b, a)
	assert.Zero(t, testing.AllocsPerRun(20, func() { _ = c.MustPlan(512) }), "a cached plan is not made again")
}
