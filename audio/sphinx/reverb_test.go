package sphinx

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
)

// burst is a 2 s clip of noise at noiseAmp with syllables of a 1 kHz tone
// at amp, each 150 ms on and 150 ms off, whose ends fall at decayDB per
// second (0: at once).
func burst(amp, noiseAmp, decayDB float64) []int16 {
	const rate = 16000
	rng := rand.New(rand.NewPCG(1, 2))
	pcm := make([]int16, 2*rate)
	var tail float64
	for i := range pcm {
		t := float64(i) / rate
		on := int(t/0.15)%2 == 1 && t > 0.3 && t < 1.7
		env := 0.0
		switch {
		case on:
			env, tail = 1, 1
		case decayDB > 0:
			tail *= math.Pow(10, -decayDB/20/rate)
			env = tail
		}
		s := amp*env*math.Sin(2*math.Pi*1000*t) + noiseAmp*rng.NormFloat64()
		pcm[i] = int16(max(-32767, min(32767, s)))
	}
	return pcm
}

func TestReverberation(t *testing.T) {
	tests := []struct {
		name     string
		pcm      []int16
		far      bool
		wantZero bool
	}{
		{name: "dry, quiet room", pcm: burst(8000, 3, 0), wantZero: true},
		{name: "dry, noise 10 dB under", pcm: burst(8000, 800, 0), wantZero: true},
		{name: "a room's tail (60 dB a second)", pcm: burst(8000, 3, 60), far: true},
		{name: "silence", pcm: make([]int16, 16000), wantZero: true},
		{name: "too short", pcm: make([]int16, 40)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Reverberation(tt.pcm)
			if tt.wantZero {
				assert.InDelta(t, 0, r, 1)
			}
			assert.Equal(t, tt.far, DefaultFar.far(r), "reverberation %.1f dB", r)
		})
	}
}

func TestFarCheck(t *testing.T) {
	assert.NoError(t, DefaultFar.Check())
	assert.NoError(t, Far{}.Check())
	assert.Error(t, Far{MinReverb: math.NaN()}.Check())
	assert.Error(t, Far{MinReverb: 2, MinConfidence: 1.1}.Check())
	assert.Error(t, Far{MinReverb: 61}.Check())
	var none *Far
	assert.False(t, none.far(30), "no far floor: nothing is far")
}
