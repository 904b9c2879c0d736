package sphinx

import (
	"cmp"
	"math"
	"slices"
)

// Background measure: how much the spectral shape of an utterance's
// quiet frames changes from one frame to the next.
const (
	bgN      = 512 // 32 ms at 16 kHz
	bgHop    = bgN / 2
	bgBands  = 16 // of 16 bins (500 Hz) each, DC left out
	bgBins   = (bgN / 2) / bgBands
	bgQuiet  = 0.3 // the fraction of frames taken for the background
	bgFrames = 8   // fewest quiet frames to measure on
)

// backgroundFluctuation measures what an utterance's background is: over
// its quietest frames (the background between and around the words), the
// standard deviation in time of each band's level relative to the
// frame's mean band level, in dB, averaged over the bands. Steady noise
// (fans, pink, brown or white noise) keeps its spectral shape, so only
// the estimate's own scatter remains; other people talking and music
// change theirs with every syllable and note. A steady noise whose level alone changes keeps its
// shape and measures as steady. Digital silence measures 0. It returns 0
// for pcm too short to measure.
func backgroundFluctuation(pcm []int16) float64 {
	frames := (len(pcm)-bgN)/bgHop + 1
	if len(pcm) < bgN || frames < bgFrames {
		return 0
	}
	win := plans.Hann(bgN)
	levels := make([][bgBands]float64, frames)
	total := make([]float64, frames)
	buf := make([]complex128, bgN)
	plan := plans.MustPlan(bgN)
	for f := range frames {
		for i := range buf {
			buf[i] = complex(float64(pcm[f*bgHop+i])*win[i], 0)
		}
		plan.Forward(buf)
		for b := range bgBands {
			var e float64
			for k := 1 + b*bgBins; k < 1+(b+1)*bgBins; k++ {
				e += sqAbs(buf[k])
			}
			total[f] += e
			levels[f][b] = 10 * math.Log10(e+1)
		}
	}
	order := make([]int, frames)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(total[a], total[b]) })
	quiet := order[:max(bgFrames, int(float64(frames)*bgQuiet))]
	// shape: each band's level less the frame's mean band level
	var mean [bgBands]float64
	shape := make([][bgBands]float64, len(quiet))
	for i, f := range quiet {
		var m float64
		for b := range bgBands {
			m += levels[f][b]
		}
		m /= bgBands
		for b := range bgBands {
			shape[i][b] = levels[f][b] - m
			mean[b] += shape[i][b]
		}
	}
	var sum float64
	for b := range bgBands {
		mean[b] /= float64(len(quiet))
		var v float64
		for i := range shape {
			d := shape[i][b] - mean[b]
			v += d * d
		}
		sum += math.Sqrt(v / float64(len(quiet)))
	}
	return sum / bgBands
}
