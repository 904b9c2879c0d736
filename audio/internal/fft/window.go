package fft

import (
	"math"
	"math/bits"
	"sync/atomic"
)

// Hann returns a periodic Hann window of length n,
// w[i] = 0.5 − 0.5·cos(2πi/n): the window a frame is weighed by before
// its transform when only its spectrum is kept.
func Hann(n int) []float64 {
	w := make([]float64, n)
	for i := range w {
		w[i] = hann(i, n)
	}
	return w
}

// SqrtHann returns the square root of a periodic Hann window of length
// n. As analysis and synthesis window at a half-frame hop their product
// sums to one, so a frame taken apart and put back together is unchanged.
func SqrtHann(n int) []float64 {
	w := make([]float64, n)
	for i := range w {
		w[i] = math.Sqrt(hann(i, n))
	}
	return w
}

func hann(i, n int) float64 { return 0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/float64(n)) }

// windows keeps one window of each power-of-two length, by its log2.
type windows [maxBits + 1]atomic.Pointer[[]float64]

// get returns the window of length n, made by build on first use. Lengths
// a plan cannot have are made each time.
func (ws *windows) get(n int, build func(int) []float64) []float64 {
	if n < 1 || n > MaxLen || n&(n-1) != 0 {
		return build(n)
	}
	slot := &ws[bits.TrailingZeros(uint(n))]
	if w := slot.Load(); w != nil {
		return *w
	}
	w := build(n)
	if !slot.CompareAndSwap(nil, &w) {
		return *slot.Load()
	}
	return w
}

// Hann is the cache's Hann window of length n (as Hann makes it), made
// on first use. It is shared: callers only read it.
func (c *Cache) Hann(n int) []float64 { return c.hann.get(n, Hann) }

// SqrtHann is the cache's square-root Hann window of length n (as
// SqrtHann makes it), made on first use. It is shared: callers only read
// it.
func (c *Cache) SqrtHann(n int) []float64 { return c.sqrtHann.get(n, SqrtHann) }
