package sphinx

import (
	"math"
	"slices"

	"github.com/openjibo/jibod/audio"
)

// DefaultFloorBelow is how far below an utterance's speech level (dB)
// withNoiseFloor puts its noise floor.
const DefaultFloorBelow = 25.0

// floorFrame is the frame levels are measured on: the decoder's 10 ms.
const floorFrame = audio.SampleRate / 100

// withNoiseFloor returns pcm with a faint, deterministic white noise added
// when its quiet parts are far quieter than its speech: more than below
// dB under the level of its loud frames (the 90th percentile of 10 ms
// levels). The noise is put at exactly that depth. Otherwise, and for
// audio with no speech-like level at all, it returns pcm itself.
//
// Why: pocketsphinx's front end and its batch cepstral mean normalisation
// expect a recording's noise floor. Over digital silence or a pristine
// synthetic voice the silence frames' log energies fall far below
// anything the model was trained on, and the normalised speech frames
// move with them: clean synthetic speech was recognised far worse than
// the same speech under light noise (docs/hearing.md). A microphone's own
// noise is already above the floor, so real
// audio passes unchanged.
func withNoiseFloor(pcm []int16, below float64) []int16 {
	n := len(pcm) / floorFrame
	if n < 2 {
		return pcm
	}
	db := frameLevels(pcm)
	slices.Sort(db)
	speech, quiet := db[n*9/10], db[n/10]
	target := speech - below
	// Below 20 dB (an RMS of 10 LSB) nothing is speech; within 3 dB the
	// floor is already where it should be.
	if speech < 20 || quiet >= target-3 {
		return pcm
	}
	// Noise of RMS sigma from the sum of four uniform variables in [-1, 1)
	// (variance 4/3), close enough to Gaussian, from a fixed seed, so the
	// same audio always decodes the same.
	sigma := math.Pow(10, target/20)
	scale := sigma / math.Sqrt(4.0/3.0)
	out := make([]int16, len(pcm))
	state := uint64(0x9e3779b97f4a7c15)
	uniform := func() float64 {
		// xorshift64*
		state ^= state >> 12
		state ^= state << 25
		state ^= state >> 27
		return float64((state*0x2545f4914f6cdd1d)>>11)/(1<<52) - 1
	}
	for i, v := range pcm {
		x := float64(v) + scale*(uniform()+uniform()+uniform()+uniform())
		out[i] = int16(max(-32768, min(32767, math.Round(x))))
	}
	return out
}

// frameLevels is pcm's level per 10 ms frame (the decoder's), in dB over
// one LSB RMS; a partial last frame is left out.
func frameLevels(pcm []int16) []float64 {
	n := len(pcm) / floorFrame
	db := make([]float64, n)
	for f := range n {
		var sum float64
		for _, v := range pcm[f*floorFrame : (f+1)*floorFrame] {
			sum += float64(v) * float64(v)
		}
		db[f] = 10 * math.Log10(sum/floorFrame+1)
	}
	return db
}
