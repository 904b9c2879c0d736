package fft

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The windows are the periodic Hann and its square root, as the audio
// packages each wrote them before sharing these: bit for bit, so the
// recognisers' decisions do not move.
func TestWindowsAreHann(t *testing.T) {
	const n = 512
	var c Cache
	hann, sqrtHann := c.Hann(n), c.SqrtHann(n)
	for i := range n {
		want := 0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/n)
		assert.Equal(t, math.Float64bits(want), math.Float64bits(hann[i]), "Hann[%d]", i)
		assert.Equal(t, math.Float64bits(math.Sqrt(want)), math.Float64bits(sqrtHann[i]), "SqrtHann[%d]", i)
	}
	assert.Equal(t, 0.0, hann[0])
	assert.Equal(t, 1.0, hann[n/2])
	// Analysis times synthesis window at a half-frame hop sums to one.
	for i := range n / 2 {
		assert.InDelta(t, 1, sqrtHann[i]*sqrtHann[i]+sqrtHann[i+n/2]*sqrtHann[i+n/2], 1e-12)
	}
	assert.Equal(t, Hann(400), c.Hann(400), "a length no plan has is made each time")
	assert.Len(t, c.SqrtHann(400), 400)
}

// A cached window is made once: later calls share it and allocate nothing.
func TestCachedWindowsAreMadeOnce(t *testing.T) {
	var c Cache
	first := c.SqrtHann(512)
	assert.Same(t, &first[0], &c.SqrtHann(512)[0])
	assert.NotSame(t, &first[0], &c.Hann(512)[0], "each kind has its own")
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		_ = c.SqrtHann(512)
		_ = c.Hann(512)
	}))
}

func BenchmarkCachedWindow512(b *testing.B) {
	var c Cache
	b.ReportAllocs()
	for b.Loop() {
		_ = c.SqrtHann(512)
	}
}
