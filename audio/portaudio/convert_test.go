package portaudio

import (
	"math"
	"math/cmplx"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDownmixAndUpmix(t *testing.T) {
	for _, tc := range []struct {
		name     string
		frames   []int16
		channels int
		want     []float32
	}{
		{"mono", []int16{1, 2, 3}, 1, []float32{1, 2, 3}},
		{"stereo", []int16{2, 4, -6, 6}, 2, []float32{3, 0}},
		{"stereo partial frame ignored", []int16{2, 4, 9}, 2, []float32{3}},
		{"four channels", []int16{1, 2, 3, 6}, 4, []float32{3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Downmix(nil, tc.frames, tc.channels))
		})
	}
	assert.Equal(t, []int16{1, 1, -2, -2}, Upmix(nil, []int16{1, -2}, 2))
	assert.Equal(t, []int16{5}, Upmix(nil, []int16{5}, 1))
}

// level is the amplitude of the hz component of x (a single-bin DFT).
func level(x []int16, rate int, hz float64) float64 {
	var s complex128
	for i, v := range x {
		s += complex(float64(v), 0) * cmplx.Exp(complex(0, -2*math.Pi*hz*float64(i)/float64(rate)))
	}
	return 2 * cmplx.Abs(s) / float64(len(x))
}
