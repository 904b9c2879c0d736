package sphinx

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestWithoutDigitalSilence(t *testing.T) {
	run := func(n int, v int16) []int16 {
		out := make([]int16, n)
		for i := range out {
			out[i] = v
		}
		return out
	}
	cat := func(parts ...[]int16) []int16 {
		var out []int16
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	speech := run(100, 500)
	short := run(digitalSilence-1, 0)
	long := run(digitalSilence, 1)
	tests := []struct {
		name   string
		in     []int16
		wanted []int16
	}{
		{"nothing to take", cat(speech, short, speech), cat(speech, short, speech)},
		{"lead and tail", cat(long, speech, long), speech},
		{"inside", cat(speech, long, long, speech), cat(speech, speech)},
		{"all silence", cat(long, long), []int16{}},
		{"empty", nil, nil},
	}
	for _, tt := range tests {
		got := withoutDigitalSilence(tt.in)
		assert.Equal(t, len(tt.wanted), len(got), tt.name)
		assert.Equal(t, tt.wanted, got, tt.name)
	}
}
