package transform

import (
	"context"
	"fmt"
	"math"
)

// DCBlock removes a constant offset from the signal (a one-pole high-pass
// at about 13 Hz). Cheap microphones and their converters often add one; it
// would otherwise count as energy in every frame and blunt the detector.
type DCBlock struct {
	x1, y1 float64 // the filter's memory: last input and output
}

// dcPole sets the corner frequency: (1-R)·rate/2π ≈ 13 Hz at 16 kHz.
const dcPole = 0.995

// DCBlockID and DCBlockPriority place the filter first.
const (
	DCBlockID       = "dc-block"
	DCBlockPriority = 10
)

var _ Transformer = (*DCBlock)(nil)

// ID names the transformer.
func (*DCBlock) ID() string { return DCBlockID }

// Priority runs it before anything that measures level.
func (*DCBlock) Priority() int { return DCBlockPriority }

// TransformAudio filters in.PCM in place.
func (f *DCBlock) TransformAudio(_ context.Context, in Chunk) (Chunk, error) {
	for i, s := range in.PCM {
		x := float64(s)
		y := x - f.x1 + dcPole*f.y1
		f.x1, f.y1 = x, y
		in.PCM[i] = clip(y)
	}
	return in, nil
}

// Gain multiplies the signal by a fixed gain, clipping at full scale: for
// a microphone that is too quiet (or too hot) for the detector's levels.
type Gain struct {
	q int64 // gain in Q12 fixed point
	g float64
}

// GainID and GainPriority place the gain after DC removal.
const (
	GainID       = "gain"
	GainPriority = 20
	// MaxGainDB bounds the gain either way.
	MaxGainDB = 40
)

var _ Transformer = (*Gain)(nil)

// NewGain returns a gain of db decibels (-MaxGainDB..MaxGainDB).
func NewGain(db float64) (*Gain, error) {
	if math.IsNaN(db) || db < -MaxGainDB || db > MaxGainDB {
		return nil, fmt.Errorf("audio gain %v dB outside -%d..%d", db, MaxGainDB, MaxGainDB)
	}
	g := math.Pow(10, db/20)
	return &Gain{g: g, q: int64(math.Round(g * 4096))}, nil
}

// ID names the transformer.
func (*Gain) ID() string { return GainID }

// Priority runs it after DC removal.
func (*Gain) Priority() int { return GainPriority }

// TransformAudio scales in.PCM in place.
func (g *Gain) TransformAudio(_ context.Context, in Chunk) (Chunk, error) {
	for i, s := range in.PCM {
		v := (int64(s) * g.q) >> 12
		in.PCM[i] = int16(max(-32768, min(32767, v)))
	}
	return in, nil
}

func clip(v float64) int16 {
	return int16(max(-32768, min(32767, math.Round(v))))
}
