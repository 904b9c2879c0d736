package sphinx

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestTrimToSpeech(t *testing.T) {
	cat := func(parts ...[]int16) []int16 {
		var out []int16
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	const ms = 16 // samples per millisecond
	speech := tone(800*ms, 3000)
	quiet := noise(300*ms, 30, 3) // 40 dB under the tone
	trail := noise(700*ms, 30, 5) // the silence that ended the utterance
	soft := tone(100*ms, 300)     // a soft onset, 20 dB under the tone
	loudNoise := noise(1800*ms, 3000, 9)
	tests := []struct {
		name   string
		pcm    []int16
		margin time.Duration
		// want is the part of pcm kept, in samples.
		wantFrom, wantTo int
	}{
		{"pre-roll and trailing silence cut to the margin", cat(quiet, speech, trail), 200 * time.Millisecond,
			100 * ms, 1300 * ms},
		{"a wider margin keeps more", cat(quiet, speech, trail), 250 * time.Millisecond,
			50 * ms, 1350 * ms},
		{"the margin never reaches past the audio", cat(quiet, speech, trail), time.Second,
			0, 1800 * ms},
		{"a soft onset 20 dB under the speech counts as speech", cat(quiet, soft, speech, trail), 200 * time.Millisecond,
			100 * ms, 1400 * ms},
		{"negative margin: whole", cat(quiet, speech, trail), -1, 0, 1800 * ms},
		{"default: both cut to 200 ms", cat(quiet, speech, trail), 0, 100 * ms, 1300 * ms},
		{"no level range (speech under loud noise): whole", loudNoise, 200 * time.Millisecond, 0, 1800 * ms},
		{"too short: whole", speech[:10], 200 * time.Millisecond, 0, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lead, trail := trimMargins(tt.margin)
			got := trimToSpeech(tt.pcm, lead, trail)
			want := tt.pcm[tt.wantFrom:tt.wantTo]
			assert.Equal(t, len(want), len(got), "kept %d ms, want %d ms", len(got)/ms, len(want)/ms)
			if len(got) == len(want) && len(got) > 0 {
				// The same samples, not a copy elsewhere.
				assert.Same(t, &want[0], &got[0])
			}
		})
	}
}

func BenchmarkTrimToSpeech(b *testing.B) {
	pcm := append(append(noise(4800, 30, 3), tone(48000, 3000)...), noise(11200, 30, 5)...)
	b.ReportAllocs()
	for b.Loop() {
		trimToSpeech(pcm, 200*time.Millisecond, 200*time.Millisecond)
	}
}
