package enhance

import (
	"fmt"
	"math"
	"slices"
)

// MaxSamples is the longest audio Enhance processes (60 s at 16 kHz);
// longer audio is returned as it is, as is audio shorter than a frame.
const MaxSamples = 60 * 16000

// DefaultFloor is the least gain Filter gives a band: what the network
// takes for background is turned down by at most this much (about 14 dB),
// which keeps the talker's quiet sounds it mistakes for background and
// leaves the decoder a background it can model rather than holes.
const DefaultFloor = 0.2

// Filter enhances utterances with a model, turning no band down under
// its floor. It is safe for concurrent use.
type Filter struct {
	m     *Model
	floor float64
}

// NewFilter returns a filter of m whose least gain is floor, in [0, 1]
// (1 changes nothing).
func NewFilter(m *Model, floor float64) (*Filter, error) {
	if m == nil {
		return nil, fmt.Errorf("speech enhancement: no model")
	}
	if !(floor >= 0 && floor <= 1) {
		return nil, fmt.Errorf("speech enhancement: floor %g not in [0, 1]", floor)
	}
	return &Filter{m: m, floor: floor}, nil
}

// Enhance appends pcm, its dominant talker kept and the rest turned
// down, to dst[:0] and returns it; dst may be pcm itself. Once a
// filter's buffers have grown to an utterance's length, it allocates
// nothing more for utterances as long.
func (f *Filter) Enhance(dst, pcm []int16) []int16 {
	return f.m.enhance(dst, pcm, f.floor)
}

// scratch is one enhancement's working memory, reused across calls.
type scratch struct {
	buf    []complex128 // one frame's spectrum
	energy []float64    // one frame's band energies
	level  []float64    // each frame's log energy
	sorted []float64
	feats  []float32 // [frames][bands]
	h, y   []float32 // the layers' outputs in turn, [frames][channels]
	gains  []float32 // [frames][bands]
	bin    []float64 // one frame's bin gains
	out    []float64 // the resynthesis, [samples]
}

func (m *Model) scratch() *scratch {
	s, _ := m.pool.Get().(*scratch)
	if s == nil {
		s = new(scratch)
	}
	return s
}

// frames is how many whole frames pcm holds.
func (m *Model) frames(n int) int {
	if n < m.h.NFFT {
		return 0
	}
	return (n-m.h.NFFT)/m.h.Hop + 1
}

func (m *Model) enhance(dst, pcm []int16, floor float64) []int16 {
	n := len(pcm)
	t := m.frames(n)
	if t < 2 || n > MaxSamples || floor >= 1 {
		return append(dst[:0], pcm...)
	}
	s := m.scratch()
	defer m.pool.Put(s)
	return m.process(s, dst, pcm, floor)
}

// process is enhance with working memory s, which it grows as needed.
func (m *Model) process(s *scratch, dst, pcm []int16, floor float64) []int16 {
	n, t := len(pcm), m.frames(len(pcm))
	m.analyse(s, pcm)
	nfft, hop, bands := m.h.NFFT, m.h.Hop, m.h.Bands
	s.out = grow(s.out, n)
	clear(s.out)
	s.bin = grow(s.bin, nfft/2+1)
	for f := range t {
		g := s.gains[f*bands : (f+1)*bands]
		for k, w := range m.weights {
			lo, hi := max(float64(g[w.band]), floor), max(float64(g[w.band+1]), floor)
			s.bin[k] = (1-w.share)*lo + w.share*hi
		}
		m.spectrum(s.buf, pcm[f*hop:f*hop+nfft])
		for k := range nfft/2 + 1 {
			s.buf[k] *= complex(s.bin[k], 0)
			if k > 0 && k < nfft/2 {
				s.buf[nfft-k] = complex(real(s.buf[k]), -imag(s.buf[k]))
			}
		}
		m.fft.Inverse(s.buf)
		for i, w := range m.window {
			s.out[f*hop+i] += real(s.buf[i]) * w
		}
	}
	dst = slices.Grow(dst[:0], n)[:n]
	// The first and last half frames have one window only: they keep
	// their samples rather than fade.
	end := (t-1)*hop + nfft - hop
	for i := range n {
		if i < hop || i >= end {
			dst[i] = pcm[i]
			continue
		}
		dst[i] = int16(max(-32768, min(32767, math.Round(s.out[i]*32768))))
	}
	return dst
}

// spectrum puts frame's windowed spectrum (full scale 1.0) in buf.
func (m *Model) spectrum(buf []complex128, frame []int16) {
	for i, v := range frame {
		buf[i] = complex(float64(v)/32768*m.window[i], 0)
	}
	m.fft.Forward(buf)
}

// analyse fills s.feats and s.gains for pcm (at least two frames).
func (m *Model) analyse(s *scratch, pcm []int16) {
	t := m.frames(len(pcm))
	nfft, hop, bands, ch := m.h.NFFT, m.h.Hop, m.h.Bands, m.h.Channels
	s.buf = grow(s.buf, nfft)
	s.energy = grow(s.energy, bands)
	s.level = grow(s.level, t)
	s.sorted = grow(s.sorted, t)
	s.feats = grow(s.feats, t*bands)
	s.h = grow(s.h, t*ch)
	s.y = grow(s.y, t*ch)
	s.gains = grow(s.gains, t*bands)

	// Log band energies, less the utterance's level: the mean log energy
	// of its louder half of frames.
	for f := range t {
		m.spectrum(s.buf, pcm[f*hop:f*hop+nfft])
		clear(s.energy)
		for k, w := range m.weights {
			p := real(s.buf[k])*real(s.buf[k]) + imag(s.buf[k])*imag(s.buf[k])
			s.energy[w.band] += (1 - w.share) * p
			s.energy[w.band+1] += w.share * p
		}
		sum := 0.0
		row := s.feats[f*bands : (f+1)*bands]
		for b, e := range s.energy {
			le := math.Log(e + m.h.Eps)
			row[b] = float32(le)
			sum += le
		}
		s.level[f] = sum / float64(bands)
	}
	copy(s.sorted, s.level)
	slices.Sort(s.sorted)
	med := s.sorted[t/2]
	sum, count := 0.0, 0
	for _, l := range s.level {
		if l >= med {
			sum += l
			count++
		}
	}
	level := float32(sum / float64(count))
	for i := range s.feats {
		s.feats[i] -= level
	}

	m.first.apply(s.h, s.feats, t, false)
	x, y := s.h, s.y
	for i := range m.layers {
		m.layers[i].apply(y, x, t, true)
		x, y = y, x
	}
	m.out.apply(s.gains, x, t, false)
	for i, v := range s.gains {
		s.gains[i] = sigmoid(v)
	}
}

// apply sets y ([t][c.out]) to the convolution of x ([t][c.in]), through
// a ReLU unless c is 1x1, plus x itself when residual (c.in == c.out).
func (c *conv) apply(y, x []float32, t int, residual bool) {
	half := (c.width - 1) / 2 * c.dilation
	relu := c.width > 1
	for f := range t {
		row := y[f*c.out : (f+1)*c.out]
		copy(row, c.b)
		for j := range c.width {
			src := f - half + j*c.dilation
			if src < 0 || src >= t {
				continue
			}
			c.tap(row, x[src*c.in:(src+1)*c.in], j)
		}
		if relu {
			for o, v := range row {
				row[o] = max(v, 0)
			}
		}
		if residual {
			for o := range row {
				row[o] += x[f*c.in+o]
			}
		}
	}
}

// tap adds tap j's weights times one frame's values in to row, each
// output's sum taken over the inputs in order. Four outputs at a time:
// their sums are independent, so the processor runs them side by side,
// and each input is loaded once for the four; every sum is added up as
// one at a time would be, to the same bits.
func (c *conv) tap(row, in []float32, j int) {
	n, stride := c.in, c.width*c.in
	o := 0
	for ; o+4 <= c.out; o += 4 {
		base := (o*c.width + j) * n
		in := in[:n]
		// Resliced to in's length, so that the loop needs no bounds checks.
		w0 := c.w[base:][:len(in)]
		w1 := c.w[base+stride:][:len(in)]
		w2 := c.w[base+2*stride:][:len(in)]
		w3 := c.w[base+3*stride:][:len(in)]
		var a0, a1, a2, a3 float32
		for i, v := range in {
			a0 += w0[i] * v
			a1 += w1[i] * v
			a2 += w2[i] * v
			a3 += w3[i] * v
		}
		row[o] += a0
		row[o+1] += a1
		row[o+2] += a2
		row[o+3] += a3
	}
	for ; o < c.out; o++ {
		w := c.w[(o*c.width+j)*n : (o*c.width+j+1)*n]
		acc := float32(0)
		for i, v := range w {
			acc += v * in[i]
		}
		row[o] += acc
	}
}

func sigmoid(v float32) float32 { return float32(1 / (1 + math.Exp(-float64(v)))) }

// grow returns s with length n, reusing its memory when it is enough.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
