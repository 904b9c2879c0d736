package sphinx

import (
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// levelDB is the RMS level of pcm in dB over one LSB, as withNoiseFloor
// measures frames.
func levelDB(pcm []int16) float64 {
	var sum float64
	for _, v := range pcm {
		sum += float64(v) * float64(v)
	}
	return 10 * math.Log10(sum/float64(len(pcm))+1)
}

func tone(n int, amp float64) []int16 {
	out := make([]int16, n)
	for i := range out {
		out[i] = int16(amp * math.Sin(2*math.Pi*440*float64(i)/16000))
	}
	return out
}

func noise(n int, amp float64, seed uint64) []int16 {
	out := make([]int16, n)
	for i := range out {
		seed = seed*6364136223846793005 + 1442695040888963407
		out[i] = int16(amp * (float64(seed>>11)/(1<<52) - 1))
	}
	return out
}

func TestWithNoiseFloor(t *testing.T) {
	cat := func(parts ...[]int16) []int16 {
		var out []int16
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	speech := tone(16000, 3000)    // about 67 dB over one LSB
	silence := make([]int16, 8000) // digital silence
	room := noise(8000, 300, 7)    // a microphone's floor, ~22 dB under the tone
	tests := []struct {
		name    string
		in      []int16
		changed bool
	}{
		{"digital silence around speech gets a floor", cat(silence, speech, silence), true},
		{"a microphone's own noise is left alone", cat(room, speech, room), false},
		{"silence alone is left alone", cat(silence, silence), false},
		{"too short to measure", speech[:100], false},
		{"empty", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := withNoiseFloor(tt.in, DefaultFloorBelow)
			require.Len(t, got, len(tt.in))
			if !tt.changed {
				assert.True(t, slices.Equal(tt.in, got), "unchanged")
				return
			}
			// The silence now sits DefaultFloorBelow under the speech
			// (within 2 dB), and the speech is not audibly changed.
			quiet := levelDB(got[:8000])
			loud := levelDB(got[8000:24000])
			assert.InDelta(t, levelDB(speech)-DefaultFloorBelow, quiet, 2)
			assert.InDelta(t, levelDB(speech), loud, 0.1)
			// Deterministic: the same audio decodes the same.
			assert.True(t, slices.Equal(got, withNoiseFloor(tt.in, DefaultFloorBelow)), "deterministic")
		})
	}
}

func BenchmarkWithNoiseFloor(b *testing.B) {
	pcm := append(append(make([]int16, 8000), tone(32000, 3000)...), make([]int16, 8000)...)
	b.SetBytes(int64(2 * len(pcm)))
	for b.Loop() {
		withNoiseFloor(pcm, DefaultFloorBelow)
	}
}
