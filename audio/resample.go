package audio

import (
	"fmt"
	"math"
)

// Limits on the resampler.
const (
	// MaxPhases bounds the resampler's rational ratio: out/in reduced to
	// L/M must have L ≤ MaxPhases (every standard rate from 8 to 192 kHz
	// to 16 kHz has L ≤ 640).
	MaxPhases = 1024
	// MaxTaps bounds the filter length per output sample.
	MaxTaps = 512
)

// stopbandDB is the resampler's stopband attenuation: aliases of what lies
// above the new Nyquist frequency end up at least this far below the
// speech.
const stopbandDB = 70

// Resampler changes the rate of a mono stream by a rational factor L/M with
// a polyphase windowed-sinc (Kaiser) low-pass filter, block by block with
// no seams between blocks. Linear interpolation would fold a 48 kHz
// microphone's 8–16 kHz content (fricatives, fan noise) back into the band
// the recogniser listens to; this filter's transition band is an eighth of
// the lower rate wide and centred on its Nyquist frequency, so for 16 kHz
// output everything below 7 kHz passes and everything above 9 kHz is
// stopped (pocketsphinx's 16 kHz models use 130–6800 Hz).
type Resampler struct {
	in, out int
	l, m, k int
	coef    []float32 // l phases of k taps: coef[p*k+j] = h[p+j*l]
	hist    []float32 // k-1 samples of history, then the new block
	next    int       // index in hist of the newest input the next output uses
	phase   int
}

// NewResampler returns a resampler from rate in to rate out (Hz). Equal
// rates pass samples through unchanged. Rates whose ratio needs more than
// MaxPhases phases are refused (Resample, for whole clips, approximates
// them).
func NewResampler(in, out int) (*Resampler, error) {
	if in <= 0 || out <= 0 {
		return nil, fmt.Errorf("resampling %d Hz to %d Hz: rates must be positive", in, out)
	}
	g := gcd(in, out)
	r := &Resampler{in: in, out: out, l: out / g, m: in / g}
	if r.l == 1 && r.m == 1 {
		return r, nil
	}
	if r.l > MaxPhases {
		return nil, fmt.Errorf("resampling %d Hz to %d Hz needs %d filter phases (limit %d): use a standard device rate", in, out, r.l, MaxPhases)
	}
	lo := min(in, out)
	cutoff := float64(lo) / 2
	width := float64(lo) / 8
	// Kaiser's estimate of the length, in input samples, for the
	// attenuation and transition width wanted.
	taps := int(math.Ceil((stopbandDB - 7.95) / (2.285 * 2 * math.Pi * width / float64(in))))
	taps = max(taps, r.m/r.l+2, 4)
	if taps > MaxTaps {
		return nil, fmt.Errorf("resampling %d Hz to %d Hz needs %d taps per sample (limit %d)", in, out, taps, MaxTaps)
	}
	r.k = taps
	r.coef = design(r.l, r.k, cutoff/float64(in*r.l))
	r.hist = make([]float32, r.k-1, 4*r.k)
	r.next = r.k - 1
	return r, nil
}

// Rates reports the input and output rates (0, 0 for a nil Resampler).
func (r *Resampler) Rates() (in, out int) {
	if r == nil {
		return 0, 0
	}
	return r.in, r.out
}

// Taps is the filter's length per output sample, in input samples
// (0 when the rates are equal): input that far back still shapes the
// output.
func (r *Resampler) Taps() int { return r.k }

// Delay is the filter's group delay in output samples.
func (r *Resampler) Delay() int {
	if r.coef == nil {
		return 0
	}
	return (r.k*r.l - 1) / 2 / r.m
}

// Process appends to dst the output for the next block of input and
// returns it. It allocates only when the block is larger than any before.
func (r *Resampler) Process(dst []int16, in []float32) []int16 {
	if r.coef == nil {
		for _, v := range in {
			dst = append(dst, clamp16(v))
		}
		return dst
	}
	r.hist = append(r.hist, in...)
	k, l, m := r.k, r.l, r.m
	for r.next < len(r.hist) {
		c := r.coef[r.phase*k : r.phase*k+k]
		x := r.hist[r.next-k+1 : r.next+1]
		// c[j] weights the input j samples before the newest one.
		var acc float32
		for j, cj := range c {
			acc += cj * x[k-1-j]
		}
		dst = append(dst, clamp16(acc))
		r.phase += m
		r.next += r.phase / l
		r.phase %= l
	}
	// Keep the k-1 samples before the next one to be used.
	start := r.next - (k - 1)
	n := copy(r.hist, r.hist[start:])
	r.hist = r.hist[:n]
	r.next -= start
	return dst
}

// Reset forgets the history, as after a gap in the stream.
func (r *Resampler) Reset() {
	if r.coef == nil {
		return
	}
	r.hist = r.hist[:r.k-1]
	clear(r.hist)
	r.next, r.phase = r.k-1, 0
}

// design returns the polyphase table of a Kaiser-windowed sinc low-pass of
// l*k taps at the upsampled rate, cutoff fc in cycles per upsampled sample,
// with gain l (zero-stuffing by l divides the level by l).
func design(l, k int, fc float64) []float32 {
	n := l * k
	beta := 0.1102 * (stopbandDB - 8.7)
	i0b := besselI0(beta)
	centre := float64(n-1) / 2
	coef := make([]float32, n)
	for p := 0; p < l; p++ {
		for j := 0; j < k; j++ {
			i := p + j*l
			t := float64(i) - centre
			s := 2 * fc
			if t != 0 {
				s = math.Sin(2*math.Pi*fc*t) / (math.Pi * t)
			}
			ratio := t / (centre + 0.5)
			w := besselI0(beta*math.Sqrt(max(0, 1-ratio*ratio))) / i0b
			coef[p*k+j] = float32(float64(l) * s * w)
		}
	}
	return coef
}

// besselI0 is the zeroth-order modified Bessel function of the first kind
// (its power series; converges quickly for the β used here).
func besselI0(x float64) float64 {
	sum, term := 1.0, 1.0
	for i := 1; i < 64; i++ {
		f := x / (2 * float64(i))
		term *= f * f
		sum += term
		if term < 1e-12*sum {
			break
		}
	}
	return sum
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func clamp16(v float32) int16 {
	switch {
	case v >= 32767:
		return 32767
	case v <= -32768:
		return -32768
	}
	return int16(math.Round(float64(v)))
}

// Resample changes mono pcm from rate from to rate to with the
// anti-aliasing Resampler, returning len(pcm)*to/from samples aligned with
// the input (the filter's delay taken out). Equal rates, or a rate that is
// not positive, return pcm as is. A ratio the Resampler refuses (an odd
// rate such as 22051 Hz) is treated as the nearest rate it accepts, at
// most 0.5 % away: the speech is that much higher or lower and longer or
// shorter, which nothing that hears it notices.
func Resample(pcm []int16, from, to int) []int16 {
	if from == to || len(pcm) == 0 || from <= 0 || to <= 0 {
		return pcm
	}
	r, err := NewResampler(from, to)
	for d := 1; err != nil && d <= from/200; d++ {
		if r, err = NewResampler(from-d, to); err != nil {
			r, err = NewResampler(from+d, to)
		}
	}
	n := int(int64(len(pcm)) * int64(to) / int64(from))
	if err != nil {
		// Only rates far outside MinRate..MaxRate get here.
		return linear(pcm, n)
	}
	in := make([]float32, len(pcm)+r.k)
	for i, v := range pcm {
		in[i] = float32(v)
	}
	out := r.Process(make([]int16, 0, n+r.Delay()+r.k), in)
	out = out[min(r.Delay(), len(out)):]
	if len(out) < n {
		out = append(out, make([]int16, n-len(out))...)
	}
	return out[:n]
}

// linear resamples pcm to n samples by linear interpolation.
func linear(pcm []int16, n int) []int16 {
	out := make([]int16, n)
	step := float64(len(pcm)) / float64(max(n, 1))
	for i := range out {
		pos := float64(i) * step
		k := min(int(pos), len(pcm)-1)
		frac := pos - float64(k)
		a, b := float64(pcm[k]), float64(pcm[k])
		if k+1 < len(pcm) {
			b = float64(pcm[k+1])
		}
		out[i] = int16(math.Round(a + (b-a)*frac))
	}
	return out
}
