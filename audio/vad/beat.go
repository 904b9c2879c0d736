package vad

import (
	"math"
	"slices"
	"time"
)

// Music with a beat whose notes and drums fall silent between beats is
// quiet most of the time: its typical level is the silence between
// beats, every beat stands far over it, and an utterance said over it
// never ends. What tells it from a person's talk is that it repeats:
// its onsets come at one steady period, beat after beat, where talk's
// syllables come at varying rates. So the detector tracks the onsets'
// periodicity (beatTracker), and where a beat holds it knows, for each
// frame, what the music sounded like one, two, … periods before: a frame
// is loud only where it stands over that too. A person's words between
// the beats, or louder than them, are heard; the beats, when the person
// has stopped, are not.

// The beat's period lies within beatMinLag..beatMaxLag frames
// (0.3–1.2 s: 50 to 200 beats a minute); faster repetition is the rate of
// syllables, not of a beat.
const (
	beatMinLag = int(300 * time.Millisecond / FrameDuration)
	beatMaxLag = int(1200 * time.Millisecond / FrameDuration)
)

// beatWindow is how much of the stream the periodicity is measured over:
// several periods even of the slowest beat.
const beatWindow = 4 * time.Second

// beatEvery is how often (in frames) the periodicity is measured again.
const beatEvery = 5

// beatPeak is how high the onsets' autocorrelation (1 at lag 0) must be at
// the period and at twice it; beatOver how far at the period it must stand
// over its typical value over all lags and over its value at half the
// period (else the repetition is faster than a beat).
const (
	beatPeak = 0.4
	beatOver = 0.3
)

// beatHold is how many measurements in a row must find the beat before
// it is taken for one (with the window, some 5.5 s of steady repetition:
// a few knocks or shouts in a row are no beat); beatRelease how many in a
// row must miss it before it is let go.
const (
	beatHold    = 15
	beatRelease = 10
)

// beatMarginDB is how far over the music's level at the same point of
// earlier beats a frame must be to be loud where a beat holds.
const beatMarginDB = 6

// beatTracker measures the periodicity of the onsets of the levels it is
// given and predicts a frame's level from the same point of the periods
// before it. Its memory is fixed when it is made; it allocates nothing
// after.
type beatTracker struct {
	ring  []float64 // the levels learnt, beatWindow of frames
	pos   int       // next write index
	n     int       // levels in the ring
	since int       // frames since the last measurement
	// quiet is the level under which frames count as silence for the
	// onsets (MinLevelDB): hiss between beats makes no onsets.
	quiet float64

	onset []float64 // scratch: the onset envelope, oldest first
	corr  []float64 // scratch: its autocorrelation by lag
	sort  []float64 // scratch for percentiles

	run, miss int     // measurements in a row that found, missed a beat
	held      bool    // a beat holds
	period    float64 // its period in frames (fractional)
	// peak is the loudest level the beat predicts over a period.
	peak float64
}

func newBeatTracker(quiet float64) *beatTracker {
	n := int(beatWindow / FrameDuration)
	return &beatTracker{
		ring:  make([]float64, n),
		quiet: quiet,
		onset: make([]float64, n),
		corr:  make([]float64, 2*beatMaxLag+2),
		sort:  make([]float64, 0, 2*n),
	}
}

// at is the level learnt back frames before the next one (back ≥ 1).
func (b *beatTracker) at(back int) float64 {
	return b.ring[(b.pos-back+2*len(b.ring))%len(b.ring)]
}

// predict is the level the beat predicts for the next frame: over the
// periods the ring holds, the frame at the same point, and of those the
// lowest third (the person's own words over some of them are not the
// music). ok is false where no beat holds.
func (b *beatTracker) predict() (level float64, ok bool) {
	if !b.held {
		return 0, false
	}
	return b.predictBack(0), true
}

// predictBack is predict for the frame back frames before the next one.
func (b *beatTracker) predictBack(back int) float64 {
	b.sort = b.sort[:0]
	for k := 1; ; k++ {
		at := back + int(math.Round(float64(k)*b.period))
		if at+1 > b.n {
			break
		}
		b.sort = append(b.sort, b.at(at))
	}
	if len(b.sort) == 0 {
		return silenceDB
	}
	slices.Sort(b.sort)
	return b.sort[len(b.sort)/3]
}

// push learns the next frame's level and measures the periodicity every
// beatEvery frames.
func (b *beatTracker) push(level float64) {
	b.ring[b.pos] = level
	b.pos = (b.pos + 1) % len(b.ring)
	b.n = min(b.n+1, len(b.ring))
	b.since++
	if b.since < beatEvery || b.n < len(b.ring) {
		return
	}
	b.since = 0
	period, found := b.measure()
	switch {
	case found:
		b.run, b.miss = b.run+1, 0
		if b.run >= beatHold {
			b.held, b.period = true, period
			b.peak = b.loudest()
		}
	default:
		b.run, b.miss = 0, b.miss+1
		if b.miss >= beatRelease {
			b.held = false
		}
	}
}

// loudest is the loudest level predict gives over the last period.
func (b *beatTracker) loudest() float64 {
	peak := silenceDB
	for back := range int(math.Round(b.period)) {
		if back >= b.n {
			break
		}
		peak = max(peak, b.predictBack(back))
	}
	return peak
}

// forget lets the beat go, to be learnt again from what follows.
func (b *beatTracker) forget() {
	b.held, b.run, b.miss = false, 0, 0
}

// measure takes the onset envelope (each frame's rise in level over the
// one before, over quiet) and its autocorrelation, and finds a beat: the
// highest peak in the beat's range, or the shortest repetition within it
// that divides it, standing beatPeak high and beatOver over the typical
// value and over half its lag (else it repeats faster than a beat), with
// a peak at twice its lag as well. period is the highest peak's lag,
// refined between frames.
func (b *beatTracker) measure() (period float64, found bool) {
	n := len(b.ring)
	prev := max(b.at(n), b.quiet)
	mean := 0.0
	for i := range n {
		v := max(b.at(n-i), b.quiet)
		b.onset[i] = max(0, v-prev)
		prev = v
		mean += b.onset[i]
	}
	// Smoothed over three frames: a beat whose period is not a whole
	// number of frames still meets itself a period on.
	last := 0.0
	for i := range n - 1 {
		here := b.onset[i]
		b.onset[i] = (last + 2*here + b.onset[i+1]) / 4
		last = here
	}
	b.onset[n-1] = (last + 2*b.onset[n-1]) / 4
	mean /= float64(n)
	energy := 0.0
	for i := range b.onset {
		b.onset[i] -= mean
		energy += b.onset[i] * b.onset[i]
	}
	if energy == 0 {
		return 0, false
	}
	energy /= float64(n)
	for lag := 1; lag < len(b.corr); lag++ {
		sum := 0.0
		for i := lag; i < n; i++ {
			sum += b.onset[i] * b.onset[i-lag]
		}
		b.corr[lag] = sum / float64(n-lag) / energy
	}
	best := beatMinLag
	for lag := beatMinLag; lag <= beatMaxLag; lag++ {
		if b.corr[lag] > b.corr[best] {
			best = lag
		}
	}
	// A bar's pattern may repeat more strongly than its beats: the
	// beat is the shortest repetition in the range.
	lag := best
	for lag/2 >= beatMinLag {
		h := lag / 2
		if b.corr[h+1] > b.corr[h] {
			h++
		}
		if b.corr[h] < beatPeak {
			break
		}
		lag = h
	}
	peak := b.corr[lag]
	twice := max(b.corr[2*lag-1], b.corr[2*lag], b.corr[2*lag+1])
	half := max(b.corr[lag/2], b.corr[(lag+1)/2])
	b.sort = append(b.sort[:0], b.corr[beatMinLag:2*beatMaxLag+1]...)
	slices.Sort(b.sort)
	typical := b.sort[len(b.sort)/2]
	if peak < beatPeak || twice < beatPeak || peak-typical < beatOver || peak-half < beatOver {
		return 0, false
	}
	// The level is predicted over the highest peak's lag (a bar, where
	// its beats differ), refined by the parabola through it and its
	// neighbours.
	l, c, r := b.corr[best-1], b.corr[best], b.corr[best+1]
	shift := 0.0
	if den := l - 2*c + r; den < 0 {
		shift = max(-0.5, min(0.5, 0.5*(l-r)/den))
	}
	return float64(best) + shift, true
}

// judge marks where levels (an utterance's frames, a frame apart, begun
// before the beat held) stand beatMarginDB over what the beat predicts
// for them from the same point of the periods before and after them
// within levels, and over threshold: into out, as margins (≥ 0 where
// loud) for denseRun.
func (b *beatTracker) judge(levels []float64, threshold float64, out []float64) []float64 {
	out = out[:0]
	for i, l := range levels {
		b.sort = b.sort[:0]
		for k := 1; ; k++ {
			back := int(math.Round(float64(k) * b.period))
			if back > i && i+back >= len(levels) {
				break
			}
			if back <= i {
				b.sort = append(b.sort, levels[i-back])
			}
			if i+back < len(levels) {
				b.sort = append(b.sort, levels[i+back])
			}
		}
		margin := l - threshold
		if len(b.sort) >= 2 {
			slices.Sort(b.sort)
			margin = min(margin, l-b.sort[len(b.sort)/3]-beatMarginDB)
		}
		out = append(out, margin)
	}
	return out
}

// unlearn replaces the last back frames learnt with level: what they
// held was not the room.
func (b *beatTracker) unlearn(back int, level float64) {
	for i := 1; i <= min(back, b.n); i++ {
		b.ring[(b.pos-i+len(b.ring))%len(b.ring)] = level
	}
}
