// Package wake spots the wake phrase ("hey jibo") in the audio stream,
// whatever is said after it: a small network over log-mel features scores
// every 20 ms whether the phrase has just ended, and a score held over a
// threshold for some steps (or, for older models, a smoothed one) wakes
// the robot. It runs always on, in pure Go, on the same
// 16 kHz mono stream the voice activity detector sees.
//
// The network was trained on espeak-ng voices only (scripts/wake/train.py,
// then finetune.py) and its weights are embedded; docs/hearing.md has what
// it gives and how to retrain it.
package wake

import (
	"fmt"
	"math"
	"time"
)

// SampleRate is the rate the detector works at (audio.SampleRate).
const SampleRate = 16000

// Limits on the configuration.
const (
	MaxRefractory = 10 * time.Second
)

// Config tunes a Detector.
type Config struct {
	// Model is the network; nil means the embedded one (Default).
	Model *Model
	// Threshold is the score that wakes, in (0, 1); 0 means the model's
	// own, chosen with its rule. With a model that holds (the embedded
	// one does), every held step's probability must reach it, not their
	// mean, so a value that suited a mean rule is much stricter here.
	Threshold float64
	// Refractory is how long after a wake nothing wakes again; 0 means
	// the model's own.
	Refractory time.Duration
}

// Detection is one wake.
type Detection struct {
	// At is the stream position (samples fed) where the wake was decided.
	At int64
	// End is where the phrase most likely ended: At less the typical
	// delay of a decision, so what was said after the phrase starts
	// there.
	End int64
	// Score is the score that woke: the least probability of the held
	// steps, or the smoothed one.
	Score float64
}

// Detector spots the wake phrase in a stream. It is not safe for
// concurrent use: one goroutine feeds it.
type Detector struct {
	m          *Model
	feat       *features
	net        *network
	threshold  float64
	refractory int64 // steps
	endLag     int64 // samples
	hold       bool  // the least of the last steps decides, not their mean

	pos   int64
	frame []float64
	// probs holds the last held or smoothed steps' probabilities, a ring.
	probs     []float64
	probAt    int
	step      int64 // steps made
	lastWake  int64 // step of the last wake
	events    []Detection
	lastScore float64
}

// New builds a detector.
func New(cfg Config) (*Detector, error) {
	m := cfg.Model
	if m == nil {
		var err error
		if m, err = Default(); err != nil {
			return nil, err
		}
	}
	th := cfg.Threshold
	if th == 0 {
		th = m.h.Detect.Threshold
	}
	if !(th > 0 && th < 1) {
		return nil, fmt.Errorf("wake: threshold %v outside (0, 1)", th)
	}
	if cfg.Refractory < 0 || cfg.Refractory > MaxRefractory {
		return nil, fmt.Errorf("wake: refractory %v outside 0..%v", cfg.Refractory, MaxRefractory)
	}
	step := int64(m.stepSamples())
	refr := int64(m.h.Detect.Refractory)
	if cfg.Refractory > 0 {
		refr = int64(cfg.Refractory) * SampleRate / int64(time.Second) / step
	}
	window := m.h.Detect.Smooth
	if m.h.Detect.Hold > 0 {
		window = m.h.Detect.Hold
	}
	return &Detector{m: m, feat: newFeatures(m.h), net: newNetwork(m), threshold: th, refractory: refr,
		endLag: int64(m.h.Detect.EndLagMs) * SampleRate / 1000, hold: m.h.Detect.Hold > 0,
		frame: make([]float64, m.h.Mels), probs: make([]float64, window), lastWake: math.MinInt64 / 2}, nil
}

// Threshold is the threshold in use.
func (d *Detector) Threshold() float64 { return d.threshold }

// Pos is the number of samples fed so far.
func (d *Detector) Pos() int64 { return d.pos }

// Score is the score the last step decided on: the least of the held
// steps' probabilities, or their mean for a model without a hold (for
// meters and tuning).
func (d *Detector) Score() float64 { return d.lastScore }

// Feed consumes pcm (any length) and returns the wakes in it. The slice
// returned is valid until the next Feed.
func (d *Detector) Feed(pcm []int16) []Detection {
	d.events = d.events[:0]
	for _, s := range pcm {
		d.pos++
		if !d.feat.push(s, d.frame) {
			continue
		}
		logit, ok := d.net.frame(d.frame)
		if !ok {
			continue
		}
		d.score(logit)
	}
	return d.events
}

// score takes one step's probability into the score and decides.
func (d *Detector) score(logit float32) {
	p := 1 / (1 + math.Exp(-float64(logit)))
	d.probs[d.probAt] = p
	d.probAt = (d.probAt + 1) % len(d.probs)
	var s float64
	if d.hold {
		s = 1.0
		for _, v := range d.probs {
			s = min(s, v)
		}
	} else {
		for _, v := range d.probs {
			s += v
		}
		s /= float64(len(d.probs))
	}
	d.lastScore = s
	if s >= d.threshold && d.step-d.lastWake > d.refractory {
		d.lastWake = d.step
		d.events = append(d.events, Detection{At: d.pos, End: max(d.pos-d.endLag, 0), Score: s})
	}
	d.step++
}
