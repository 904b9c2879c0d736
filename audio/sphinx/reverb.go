package sphinx

import (
	"fmt"
	"math"
	"slices"
)

// Far says when the recogniser takes speech for far from the
// microphone (in a reverberant room, or across one), where the acoustic
// model hears the words smeared by the room: a far utterance it refuses
// is told to the listener (audio.Unheard), which asks the speaker to
// come closer, and MinConfidence, where set, is the confidence floor a
// far utterance must reach.
type Far struct {
	// MinReverb is the reverberation (Reverberation, dB) from which an
	// utterance counts as far; 0 or less never.
	MinReverb float64
	// MinConfidence is the confidence floor for an utterance that counts
	// as far, where it is higher than the recogniser's own (in [0, 1]).
	MinConfidence float64
}

// DefaultFar is when the recogniser takes speech for far: it then asks
// no more of it, but says so (audio.Unheard) when it refuses it.
var DefaultFar = Far{MinReverb: 2}

// Check validates f.
func (f Far) Check() error {
	if math.IsNaN(f.MinReverb) || f.MinReverb > MaxReverb || f.MinReverb < -MaxReverb {
		return fmt.Errorf("far: reverberation %v, want within ±%v dB", f.MinReverb, MaxReverb)
	}
	if !(f.MinConfidence >= 0 && f.MinConfidence <= 1) {
		return fmt.Errorf("far: confidence floor %v, want in [0, 1]", f.MinConfidence)
	}
	return nil
}

// far reports whether an utterance of reverberation reverb counts as far.
func (f *Far) far(reverb float64) bool {
	return f != nil && f.MinReverb > 0 && reverb >= f.MinReverb
}

// MaxReverb bounds Far.MinReverb either way (dB).
const MaxReverb = 60

const (
	// reverbStep is the span over which the level's rises and falls are
	// compared: long enough for a dry word's end to reach the noise, short
	// against a room's decay.
	reverbStep = 5 // frames of 10 ms
	// reverbOverFloor is how far over the utterance's quiet frames one end
	// of a step must be for the step to count: steps within the noise
	// measure the noise.
	reverbOverFloor = 6.0
	// reverbQuantile picks the steepest steps but a few.
	reverbQuantile = 0.95
	// reverbMinSteps is the fewest rising and falling steps measured.
	reverbMinSteps = 5
	// reverbMaxStep is the most a step counts for: a room whose sound
	// falls 20 dB in 50 ms (a reverberation time of about 0.15 s) is as
	// dry as speech needs.
	reverbMaxStep = 20.0
)

// Reverberation measures how much more steeply an utterance's level
// rises than it falls, in dB over 50 ms: the 95th percentile of rises
// less that of falls, among steps whose louder end stands 6 dB over the
// utterance's quiet frames, each percentile counted up to half the
// utterance's range over those frames and at most 20 dB; 0 when too
// little of it stands over them. A room adds a decaying tail to every
// sound, so where a word ends the level falls only as fast as the room
// lets it, while a word's onset still rises as fast as the speaker
// makes it. Noise caps the rises and the falls alike (both end in it),
// and so do the caps: near speech, in noise or not, measures about 0
// whatever its own onsets and offsets, and speech in a reverberant room
// measures more. Far speech in loud noise may measure 0: the noise hides
// its tail.
func Reverberation(pcm []int16) float64 {
	db := frameLevels(pcm)
	if len(db) <= reverbStep {
		return 0
	}
	sorted := slices.Clone(db)
	slices.Sort(sorted)
	floor := sorted[len(sorted)/10]
	limit := min(reverbMaxStep, (quantile(sorted, reverbQuantile)-floor)/2)
	var ups, downs []float64
	for i := 0; i+reverbStep < len(db); i++ {
		a, b := db[i], db[i+reverbStep]
		if max(a, b) < floor+reverbOverFloor {
			continue
		}
		if d := b - a; d > 0 {
			ups = append(ups, d)
		} else {
			downs = append(downs, -d)
		}
	}
	if len(ups) < reverbMinSteps || len(downs) < reverbMinSteps {
		return 0
	}
	return min(quantile(ups, reverbQuantile), limit) - min(quantile(downs, reverbQuantile), limit)
}

// quantile is xs's q-quantile (the nearest rank below); xs is sorted in
// place.
func quantile(xs []float64, q float64) float64 {
	slices.Sort(xs)
	return xs[int(q*float64(len(xs)-1))]
}
