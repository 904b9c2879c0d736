package wake

import (
	"math"

	"github.com/openjibo/jibod/audio/internal/fft"
)

// features turns a stream of samples into log-mel frames, as
// scripts/wake/model.py's logmel does: frame k covers samples
// [k·hop, k·hop+frame), under a periodic Hann window, zero-padded to nfft;
// its power spectrum goes through triangular filters evenly spaced on the
// HTK mel scale; when the model says so, an estimate of the late
// reverberation is taken out of those energies (dereverb), and the log of
// each filter's energy (plus a floor) is the feature.
type features struct {
	frame, hop, nfft int
	floor            float64

	window []float64
	mel    []melFilter
	plan   *fft.Plan // of nfft/2 points: a real transform of nfft packed in half
	// twCos, twSin are e^{-2πik/nfft}, k < nfft/2, for unpacking it.
	twCos, twSin []float64

	buf   []float64    // the last frame's samples, a ring
	at    int          // next write index in buf
	since int          // samples since the last frame was made
	z     []complex128 // scratch
	power []float64
	derev *derev // nil: none
}

// derev takes late reverberation out of mel energies as model.py's
// dereverb does: the energies from delay frames back on, averaged with a
// room's decay (a per frame) and decayed over the delay (ad), are taken
// off each band, which keeps at least floor of its energy.
type derev struct {
	a, ad, floor float64
	past         [][]float64 // the last delay frames' energies, a ring
	at           int         // the slot of the frame delay frames back
	filled       bool        // whether past holds delay frames yet
	r            []float64   // the averaged late energy per band
}

func newDerev(h header) *derev {
	d := h.Dereverb
	a := math.Exp(-6 * math.Ln10 / d.RT60 * float64(h.Hop) / float64(h.SampleRate))
	r := &derev{a: a, ad: math.Pow(a, float64(d.Delay)), floor: d.Floor, past: make([][]float64, d.Delay), r: make([]float64, h.Mels)}
	for i := range r.past {
		r.past[i] = make([]float64, h.Mels)
	}
	return r
}

// apply takes the late reverberation out of one frame's energies e, in
// place.
func (d *derev) apply(e []float64) {
	old := d.past[d.at]
	for i, v := range e {
		if d.filled {
			d.r[i] = d.a*d.r[i] + (1-d.a)*old[i]
		} else {
			d.r[i] *= d.a
		}
		old[i] = v
		e[i] = max(v-d.ad*d.r[i], d.floor*v)
	}
	d.at++
	if d.at == len(d.past) {
		d.at, d.filled = 0, true
	}
}

// melFilter is one triangular filter: weights over bins [from, from+len).
type melFilter struct {
	from    int
	weights []float64
}

func newFeatures(h header) *features {
	half := h.NFFT / 2
	f := &features{frame: h.Frame, hop: h.Hop, nfft: h.NFFT, floor: h.LogFloor,
		window: fft.Hann(h.Frame), plan: fft.MustNew(half),
		twCos: make([]float64, half), twSin: make([]float64, half),
		buf: make([]float64, h.Frame), z: make([]complex128, half),
		power: make([]float64, half+1)}
	for k := range half {
		a := -2 * math.Pi * float64(k) / float64(h.NFFT)
		f.twCos[k], f.twSin[k] = math.Cos(a), math.Sin(a)
	}
	f.mel = melFilters(h)
	if h.Dereverb != nil {
		f.derev = newDerev(h)
	}
	f.since = f.hop - f.frame // the first frame needs a whole frame of samples
	return f
}

func hzToMel(hz float64) float64 { return 2595 * math.Log10(1+hz/700) }
func melToHz(m float64) float64  { return 700 * (math.Pow(10, m/2595) - 1) }

// melFilters builds the filterbank as model.py's filterbank does.
func melFilters(h header) []melFilter {
	bins := h.NFFT/2 + 1
	lo, hi := hzToMel(h.FMin), hzToMel(h.FMax)
	pts := make([]float64, h.Mels+2)
	for i := range pts {
		pts[i] = melToHz(lo + (hi-lo)*float64(i)/float64(h.Mels+1))
	}
	out := make([]melFilter, h.Mels)
	for i := range out {
		l, c, r := pts[i], pts[i+1], pts[i+2]
		var ws []float64
		from := -1
		for b := range bins {
			hz := float64(b) * float64(h.SampleRate) / float64(h.NFFT)
			w := max(0, min((hz-l)/(c-l), (r-hz)/(r-c)))
			if w <= 0 {
				if from >= 0 {
					break
				}
				continue
			}
			if from < 0 {
				from = b
			}
			ws = append(ws, w)
		}
		if from < 0 {
			from = 0
		}
		out[i] = melFilter{from: from, weights: ws}
	}
	return out
}

// push adds one sample; it reports whether a frame is complete, whose
// features are then written to dst.
func (f *features) push(s int16, dst []float64) bool {
	f.buf[f.at] = float64(s) / 32768
	f.at++
	if f.at == f.frame {
		f.at = 0
	}
	f.since++
	if f.since < f.hop {
		return false
	}
	f.since = 0
	f.compute(dst)
	return true
}

// compute writes the features of the last frame's samples (oldest at
// f.at) to dst.
func (f *features) compute(dst []float64) {
	// The windowed frame, zero-padded to nfft, packed as nfft/2 complex
	// numbers: even samples real, odd ones imaginary.
	clear(f.z)
	for n := range f.frame {
		v := f.buf[(f.at+n)%f.frame] * f.window[n]
		if n%2 == 0 {
			f.z[n/2] = complex(v, imag(f.z[n/2]))
		} else {
			f.z[n/2] = complex(real(f.z[n/2]), v)
		}
	}
	f.plan.Forward(f.z)
	// Unpacked: X[k] = E[k] + e^{-2πik/nfft}·O[k], where E and O, the
	// transforms of the even and odd samples, are the conjugate-symmetric
	// and antisymmetric parts of the packed transform Z.
	half := f.nfft / 2
	for k := 0; k <= half; k++ {
		zr, zi := real(f.z[k%half]), imag(f.z[k%half])
		cr, ci := real(f.z[(half-k)%half]), -imag(f.z[(half-k)%half]) // conj(Z[half-k])
		er, ei := (zr+cr)/2, (zi+ci)/2
		odr, odi := (zi-ci)/2, -(zr-cr)/2 // (Z - conj)/(2i)
		c, s := 1.0, 0.0
		if k < half {
			c, s = f.twCos[k], f.twSin[k]
		} else {
			c = -1 // e^{-iπ}
		}
		xr := er + c*odr - s*odi
		xi := ei + c*odi + s*odr
		f.power[k] = xr*xr + xi*xi
	}
	for i, m := range f.mel {
		e := 0.0
		for k, w := range m.weights {
			e += w * f.power[m.from+k]
		}
		dst[i] = e
	}
	if f.derev != nil {
		f.derev.apply(dst)
	}
	for i, e := range dst {
		dst[i] = math.Log(e + f.floor)
	}
}
