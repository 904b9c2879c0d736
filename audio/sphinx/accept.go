package sphinx

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
)

// WordSpan is one word of a hypothesis's alignment, or a silence or
// filler between its words (Filler), as the acceptance model reads it:
// frames [Start, End] of the decoder's 10 ms, its acoustic score
// (relative to the best senone of each frame, in the decoder's log
// units), and how many phones the word's pronunciation has.
type WordSpan struct {
	Word       string
	Start, End int
	Acoustic   int32
	Phones     int
	Filler     bool
}

// The features of a hypothesis the acceptance model reads, in order
// (AcceptFeatureNames): measures of how well the sentence explains the
// speech that the decoder gives without a second search.
const (
	featMeanScore   = iota // acoustic score per frame over the words
	featMinWord            // the worst word's score per frame
	featWordSpread         // deviation of the words' scores per frame
	featCoverage           // share of the loud frames inside words
	featWords              // number of words
	featPhoneFrames        // log of frames per phone over all words
	featShortWord          // log of frames per phone of the shortest word
	featLongWord           // log of frames per phone of the longest word
	featInnerGaps          // share of the words' span spent in silence between them
	featWordShare          // share of the decoded audio inside words
	featFiller             // acoustic score per frame of the silences and fillers
	featSNR                // the utterance's signal-to-noise ratio, dB
	numAcceptFeatures
)

// AcceptFeatureNames name the features of HypothesisFeatures, in order.
var AcceptFeatureNames = [numAcceptFeatures]string{
	"mean_score", "min_word", "word_spread", "coverage", "words", "phone_frames",
	"short_word", "long_word", "inner_gaps", "word_share", "filler_score", "snr",
}

// AcceptFeatures are a hypothesis's features (AcceptFeatureNames).
type AcceptFeatures [numAcceptFeatures]float64

// HypothesisFeatures measures a hypothesis: segs is its alignment,
// coverage the share of the loud frames its words cover,
// decoded the number of frames decoded and snr the utterance's
// signal-to-noise ratio. An empty alignment gives the zero features.
func HypothesisFeatures(segs []WordSpan, coverage float64, decoded int, snr float64) AcceptFeatures {
	var f AcceptFeatures
	var words []WordSpan
	var fillerFrames int
	var fillerScore int64
	for _, s := range segs {
		if s.End < s.Start {
			continue
		}
		if s.Filler {
			fillerFrames += max(s.End-s.Start+1, 1)
			fillerScore += int64(s.Acoustic)
			continue
		}
		words = append(words, s)
	}
	if len(words) == 0 {
		return f
	}
	var frames, phones int
	var score int64
	minWord, short, long := math.Inf(1), math.Inf(1), math.Inf(-1)
	perWord := make([]float64, 0, len(words))
	for _, w := range words {
		n := max(w.End-w.Start+1, 1)
		p := max(w.Phones, 1)
		frames += n
		phones += p
		score += int64(w.Acoustic)
		s := float64(w.Acoustic) / float64(n)
		perWord = append(perWord, s)
		minWord = min(minWord, s)
		fp := float64(n) / float64(p)
		short, long = min(short, fp), max(long, fp)
	}
	mean := float64(score) / float64(frames)
	var spread float64
	for _, s := range perWord {
		spread += (s - mean) * (s - mean)
	}
	span := max(words[len(words)-1].End-words[0].Start+1, 1)
	f[featMeanScore] = mean
	f[featMinWord] = minWord
	f[featWordSpread] = math.Sqrt(spread / float64(len(perWord)))
	f[featCoverage] = coverage
	f[featWords] = float64(len(words))
	f[featPhoneFrames] = math.Log(float64(frames) / float64(phones))
	f[featShortWord] = math.Log(short)
	f[featLongWord] = math.Log(long)
	f[featInnerGaps] = math.Max(0, 1-float64(frames)/float64(span))
	f[featWordShare] = math.Min(1, float64(frames)/float64(max(decoded, 1)))
	if fillerFrames > 0 {
		f[featFiller] = float64(fillerScore) / float64(fillerFrames)
	}
	f[featSNR] = math.Max(0, math.Min(snr, 80))
	return f
}

// AcceptModel decides whether a hypothesis is acted on: a small network
// (a logistic regression when it has no hidden layer) over the
// hypothesis's features, trained on espeak-ng speech by
// scripts/train-accept.py, giving the probability that the sentence is
// what was said, or means the same.
type AcceptModel struct {
	// Features name the inputs in order; they must be AcceptFeatureNames.
	Features []string `json:"features"`
	// Mean and Scale standardise each input: (x - Mean) / Scale.
	Mean  []float64 `json:"mean"`
	Scale []float64 `json:"scale"`
	// Hidden is the hidden layer (tanh), one row of weights per unit
	// over the inputs, and HiddenBias its biases; empty for none.
	Hidden     [][]float64 `json:"hidden,omitempty"`
	HiddenBias []float64   `json:"hidden_bias,omitempty"`
	// Out weighs the hidden units (or the inputs, without a hidden
	// layer) into the logit, plus OutBias.
	Out     []float64 `json:"out"`
	OutBias float64   `json:"out_bias"`
	// Threshold is the probability from which a hypothesis is acted on,
	// chosen on the tuning set.
	Threshold float64 `json:"threshold"`
	// FloorVeto, when set, is the probability from which a hypothesis
	// that also passes the recogniser's confidence and coverage floors is
	// acted on, below Threshold: the floors keep what they let through
	// unless the model finds it unlikely. 0 leaves the floors out.
	FloorVeto float64 `json:"floor_veto,omitempty"`
}

// maxHidden bounds an acceptance model's hidden units.
const maxHidden = 64

//go:embed accept.json
var acceptJSON []byte

// DefaultAcceptModel is the trained acceptance model committed with the
// package (audio/sphinx/accept.json; docs/hearing.md says how it was
// made and why the robot does not use it by default).
func DefaultAcceptModel() (*AcceptModel, error) {
	return ParseAcceptModel(acceptJSON)
}

// ParseAcceptModel reads and checks an acceptance model in JSON.
func ParseAcceptModel(data []byte) (*AcceptModel, error) {
	var m AcceptModel
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("acceptance model: %w", err)
	}
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("acceptance model: %w", err)
	}
	return &m, nil
}

func (m *AcceptModel) check() error {
	if !slices.Equal(m.Features, AcceptFeatureNames[:]) {
		return fmt.Errorf("features %q, want %q", m.Features, AcceptFeatureNames)
	}
	n := len(m.Features)
	if len(m.Mean) != n || len(m.Scale) != n {
		return fmt.Errorf("%d means and %d scales for %d features", len(m.Mean), len(m.Scale), n)
	}
	finite := func(xs ...float64) bool {
		for _, x := range xs {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return false
			}
		}
		return true
	}
	for i, s := range m.Scale {
		if !(s > 0) || !finite(s, m.Mean[i]) {
			return fmt.Errorf("feature %s: mean %g, scale %g", m.Features[i], m.Mean[i], s)
		}
	}
	if len(m.Hidden) > maxHidden || len(m.HiddenBias) != len(m.Hidden) {
		return fmt.Errorf("%d hidden units with %d biases (at most %d)", len(m.Hidden), len(m.HiddenBias), maxHidden)
	}
	for i, row := range m.Hidden {
		if len(row) != n || !finite(row...) || !finite(m.HiddenBias[i]) {
			return fmt.Errorf("hidden unit %d: %d weights for %d features, or not finite", i, len(row), n)
		}
	}
	want := n
	if len(m.Hidden) > 0 {
		want = len(m.Hidden)
	}
	if len(m.Out) != want || !finite(m.Out...) || !finite(m.OutBias) {
		return fmt.Errorf("%d output weights, want %d, finite", len(m.Out), want)
	}
	if !(m.Threshold > 0 && m.Threshold < 1) {
		return errors.New("threshold not in (0, 1)")
	}
	if !(m.FloorVeto >= 0 && m.FloorVeto <= m.Threshold) {
		return errors.New("floor veto not in [0, threshold]")
	}
	return nil
}

// Probability is the model's estimate that the hypothesis with features
// f is right.
func (m *AcceptModel) Probability(f AcceptFeatures) float64 {
	x := make([]float64, len(f))
	for i := range f {
		x[i] = (f[i] - m.Mean[i]) / m.Scale[i]
	}
	if len(m.Hidden) > 0 {
		h := make([]float64, len(m.Hidden))
		for j, row := range m.Hidden {
			s := m.HiddenBias[j]
			for i, w := range row {
				s += w * x[i]
			}
			h[j] = math.Tanh(s)
		}
		x = h
	}
	z := m.OutBias
	for i, w := range m.Out {
		z += w * x[i]
	}
	return 1 / (1 + math.Exp(-z))
}

// AcceptConfidence maps a probability p the model accepts (p at or over
// its threshold t) onto a hypothesis confidence in [0.8, 1], and one it
// refuses onto [0, 0.8): the intent stack multiplies its matches by the
// recogniser's confidence and claims only scores of 0.5 and more
// (docs/intents.md), so a sentence accepted at the threshold must carry
// what the confidence floor of 0.8 let through before.
func AcceptConfidence(p, t float64) float64 {
	if p >= t {
		return 0.8 + 0.2*(p-t)/(1-t)
	}
	return 0.8 * p / t
}
