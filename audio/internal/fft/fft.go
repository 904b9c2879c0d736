// Package fft is the radix-2 fast Fourier transform the audio packages
// share: a plan per length whose tables are worked out once, so that
// transforming a frame allocates nothing.
package fft

import (
	"fmt"
	"math"
	"math/bits"
	"math/cmplx"
	"sync/atomic"
)

// MaxLen bounds a plan's length: far above any audio frame, small enough
// that a plan's tables stay a few megabytes.
const MaxLen = 1 << 16

// Plan transforms complex frames of one length in place. It is read-only
// once made and safe for concurrent use.
type Plan struct {
	n   int
	rev []int32 // rev[i] is i with its bits reversed
	// fwd holds, for each butterfly size 2, 4, …, n in turn, its size/2
	// factors exp(-2πik/size); inv their conjugates. Each stage reads
	// its factors in order, which keeps the inner loop on one cache line.
	fwd, inv []complex128
}

// New plans transforms of length n, a power of two from 1 to MaxLen.
func New(n int) (*Plan, error) {
	if n < 1 || n > MaxLen || n&(n-1) != 0 {
		return nil, fmt.Errorf("fft length %d: want a power of two from 1 to %d", n, MaxLen)
	}
	p := &Plan{n: n, rev: make([]int32, n),
		fwd: make([]complex128, 0, n-1), inv: make([]complex128, 0, n-1)}
	bits := 0
	for 1<<bits < n {
		bits++
	}
	for i := range n {
		r := 0
		for b := range bits {
			if i&(1<<b) != 0 {
				r |= 1 << (bits - 1 - b)
			}
		}
		p.rev[i] = int32(r)
	}
	for size := 2; size <= n; size <<= 1 {
		for k := range size / 2 {
			// Each factor worked out on its own rather than by a
			// recurrence, whose rounding errors would add up.
			w := cmplx.Rect(1, -2*math.Pi*float64(k)/float64(size))
			p.fwd = append(p.fwd, w)
			p.inv = append(p.inv, cmplx.Conj(w))
		}
	}
	return p, nil
}

// Cache keeps one plan per length, and the windows of that length, made
// on first use, for code that transforms frames of a few fixed lengths
// again and again (each utterance) and should not work the tables out
// each time. Its zero value is ready; it is safe for concurrent use.
type Cache struct {
	plans          [maxBits + 1]atomic.Pointer[Plan] // by log2 of the length
	hann, sqrtHann windows
}

// maxBits is log2(MaxLen).
const maxBits = 16

// Plan returns the cache's plan of length n, making it on first use; n
// is as for New. Two callers racing on a new length may both make it;
// one plan is kept.
func (c *Cache) Plan(n int) (*Plan, error) {
	if n < 1 || n > MaxLen || n&(n-1) != 0 {
		return New(n)
	}
	slot := &c.plans[bits.TrailingZeros(uint(n))]
	if p := slot.Load(); p != nil {
		return p, nil
	}
	p, err := New(n)
	if err != nil {
		return nil, err
	}
	if !slot.CompareAndSwap(nil, p) {
		p = slot.Load()
	}
	return p, nil
}

// MustPlan is Plan for a length fixed in the code; it panics on a length
// New refuses.
func (c *Cache) MustPlan(n int) *Plan {
	p, err := c.Plan(n)
	if err != nil {
		panic(err)
	}
	return p
}

// MustNew is New for a length fixed in the code; it panics on a length
// New refuses.
func MustNew(n int) *Plan {
	p, err := New(n)
	if err != nil {
		panic(err)
	}
	return p
}

// Forward replaces x[:n] with its discrete Fourier transform,
// X[k] = Σ x[t]·exp(-2πikt/n). It panics if x is shorter than the plan's length.
func (p *Plan) Forward(x []complex128) { p.transform(x[:p.n], p.fwd) }

// Inverse undoes Forward: it replaces x[:n] with
// (1/n)·Σ X[k]·exp(2πikt/n). It panics if x is shorter than the plan's length.
func (p *Plan) Inverse(x []complex128) {
	x = x[:p.n]
	p.transform(x, p.inv)
	s := complex(1/float64(p.n), 0)
	for i := range x {
		x[i] *= s
	}
}

func (p *Plan) transform(x []complex128, tw []complex128) {
	n := p.n
	for i, r := range p.rev {
		if int32(i) < r {
			x[i], x[r] = x[r], x[i]
		}
	}
	for size := 2; size <= n; size <<= 1 {
		half := size / 2
		w := tw[:half]
		tw = tw[half:]
		for start := 0; start < n; start += size {
			lo, hi := x[start:start+half], x[start+half:start+size]
			for k := range half {
				a, b := lo[k], hi[k]*w[k]
				lo[k], hi[k] = a+b, a-b
			}
		}
	}
}
