package vad

import "math"

// Edges of the voice band the detector measures levels on (the telephone
// band: where speech's energy is, and where its intelligibility lies).
const (
	voiceLowHz  = 300
	voiceHighHz = 3400
)

// biquad is a second-order IIR section (direct form I), coefficients
// normalised by a0.
type biquad struct {
	b0, b1, b2, a1, a2 float64
	x1, x2, y1, y2     float64
}

func (q *biquad) step(x float64) float64 {
	y := q.b0*x + q.b1*q.x1 + q.b2*q.x2 - q.a1*q.y1 - q.a2*q.y2
	q.x2, q.x1 = q.x1, x
	q.y2, q.y1 = q.y1, y
	return y
}

// butterworth returns a second-order Butterworth (Q = 1/√2) high-pass or
// low-pass section at hz for SampleRate, by the bilinear transform (the
// audio EQ cookbook's formulas).
func butterworth(hz float64, high bool) biquad {
	w := 2 * math.Pi * hz / SampleRate
	cos, alpha := math.Cos(w), math.Sin(w)/math.Sqrt2
	a0 := 1 + alpha
	q := biquad{a1: -2 * cos / a0, a2: (1 - alpha) / a0}
	if high {
		q.b0 = (1 + cos) / 2 / a0
		q.b1 = -(1 + cos) / a0
	} else {
		q.b0 = (1 - cos) / 2 / a0
		q.b1 = (1 - cos) / a0
	}
	q.b2 = q.b0
	return q
}

// voiceBand band-passes the stream to 300–3400 Hz (two second-order
// sections each side, 24 dB per octave outside) and measures frame levels
// on it. It keeps its state from frame to frame: the stream is filtered
// as one.
type voiceBand struct {
	sections [4]biquad
}

func newVoiceBand() voiceBand {
	return voiceBand{sections: [4]biquad{
		butterworth(voiceLowHz, true), butterworth(voiceLowHz, true),
		butterworth(voiceHighHz, false), butterworth(voiceHighHz, false),
	}}
}

// level filters frame and returns its RMS level in dBFS over the band
// (silenceDB for digital silence, or what the filter leaves of it).
func (v *voiceBand) level(frame []int16) float64 {
	var sum float64
	for _, s := range frame {
		x := float64(s)
		for i := range v.sections {
			x = v.sections[i].step(x)
		}
		sum += x * x
	}
	if len(frame) == 0 {
		return silenceDB
	}
	ms := sum / float64(len(frame)) / (32768.0 * 32768.0)
	if ms <= 0 {
		return silenceDB
	}
	return max(10*math.Log10(ms), silenceDB)
}
