package sphinx

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHypothesisFeatures: what the acceptance model reads of an
// alignment — its words' scores and lengths, the silences between them
// and around them.
func TestHypothesisFeatures(t *testing.T) {
	segs := []WordSpan{
		{Word: "<sil>", Start: 0, End: 19, Acoustic: -200, Filler: true},
		{Word: "set", Start: 20, End: 39, Acoustic: -600, Phones: 3},      // -30 a frame, 6.7 frames a phone
		{Word: "<sil>", Start: 40, End: 49, Acoustic: -100, Filler: true}, // a pause between words
		{Word: "a", Start: 50, End: 54, Acoustic: -250, Phones: 1},        // -50 a frame, 5 frames a phone
		{Word: "timer", Start: 55, End: 79, Acoustic: -1000, Phones: 5},   // -40 a frame, 5 frames a phone
		{Word: "(NULL)", Start: 80, End: 79, Filler: true},                // no frames: left out
	}
	f := HypothesisFeatures(segs, 0.9, 100, 30)
	assert.InDelta(t, -1850.0/50, f[featMeanScore], 1e-9)
	assert.InDelta(t, -50.0, f[featMinWord], 1e-9)
	mean := -1850.0 / 50
	spread := math.Sqrt(((-30-mean)*(-30-mean) + (-50-mean)*(-50-mean) + (-40-mean)*(-40-mean)) / 3)
	assert.InDelta(t, spread, f[featWordSpread], 1e-9)
	assert.Equal(t, 0.9, f[featCoverage])
	assert.Equal(t, 3.0, f[featWords])
	assert.InDelta(t, math.Log(50.0/9), f[featPhoneFrames], 1e-9)
	assert.InDelta(t, math.Log(5.0), f[featShortWord], 1e-9)
	assert.InDelta(t, math.Log(20.0/3), f[featLongWord], 1e-9)
	assert.InDelta(t, 10.0/60, f[featInnerGaps], 1e-9)
	assert.InDelta(t, 0.5, f[featWordShare], 1e-9)
	assert.InDelta(t, -300.0/30, f[featFiller], 1e-9)
	assert.Equal(t, 30.0, f[featSNR])

	assert.Equal(t, AcceptFeatures{}, HypothesisFeatures(segs[:1], 0, 100, 30), "no words: nothing to measure")
	assert.Equal(t, 80.0, HypothesisFeatures(segs, 1, 100, math.Inf(1))[featSNR], "digital silence's SNR is bounded")
}

// testModel is a logistic regression over two features.
func testModel() AcceptModel {
	n := len(AcceptFeatureNames)
	m := AcceptModel{Features: AcceptFeatureNames[:], Mean: make([]float64, n), Scale: make([]float64, n),
		Out: make([]float64, n), Threshold: 0.5}
	for i := range m.Scale {
		m.Scale[i] = 1
	}
	m.Mean[featMeanScore], m.Scale[featMeanScore] = -40, 10
	m.Out[featMeanScore] = 2 // a better score per frame: likelier right
	m.Out[featCoverage] = 3  // more of the speech explained: likelier right
	m.OutBias = -3
	return m
}

// TestAcceptModelProbability: a better fit scores higher, and a hidden
// layer computes what the training script's network does.
func TestAcceptModelProbability(t *testing.T) {
	m := testModel()
	var good, bad AcceptFeatures
	good[featMeanScore], good[featCoverage] = -30, 1 // z = 2 + 3 - 3 = 2
	bad[featMeanScore], bad[featCoverage] = -60, 0.5 // z = -4 + 1.5 - 3 = -5.5
	assert.InDelta(t, 1/(1+math.Exp(-2)), m.Probability(good), 1e-12)
	assert.InDelta(t, 1/(1+math.Exp(5.5)), m.Probability(bad), 1e-12)

	h := testModel()
	n := len(AcceptFeatureNames)
	h.Hidden = [][]float64{make([]float64, n), make([]float64, n)}
	h.Hidden[0][featMeanScore] = 1
	h.Hidden[1][featCoverage] = -1
	h.HiddenBias = []float64{0, 0.5}
	h.Out, h.OutBias = []float64{2, -1}, 0.25
	z := 2*math.Tanh(1) - math.Tanh(-1+0.5) + 0.25
	assert.InDelta(t, 1/(1+math.Exp(-z)), h.Probability(good), 1e-12)
}

// TestParseAcceptModel: a model file is checked before it decides
// anything; each bad one is named.
func TestParseAcceptModel(t *testing.T) {
	tests := []struct {
		name   string
		change func(*AcceptModel)
		err    string
	}{
		{"good", func(*AcceptModel) {}, ""},
		{"other features", func(m *AcceptModel) { m.Features = m.Features[1:] }, "features"},
		{"a zero scale", func(m *AcceptModel) { m.Scale[3] = 0 }, "feature coverage"},
		{"means missing", func(m *AcceptModel) { m.Mean = m.Mean[:2] }, "2 means"},
		{"output weights missing", func(m *AcceptModel) { m.Out = m.Out[:1] }, "1 output weights"},
		{"hidden units without biases", func(m *AcceptModel) { m.Hidden = [][]float64{m.Out} }, "1 hidden units with 0 biases"},
		{"a short hidden unit", func(m *AcceptModel) { m.Hidden, m.HiddenBias = [][]float64{{1}}, []float64{0} }, "hidden unit 0"},
		{"threshold 1", func(m *AcceptModel) { m.Threshold = 1 }, "threshold"},
		{"threshold missing", func(m *AcceptModel) { m.Threshold = 0 }, "threshold"},
		{"a floor veto", func(m *AcceptModel) { m.FloorVeto = 0.3 }, ""},
		{"a floor veto over the threshold", func(m *AcceptModel) { m.FloorVeto = 0.6 }, "floor veto"},
		{"a negative floor veto", func(m *AcceptModel) { m.FloorVeto = -0.1 }, "floor veto"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := testModel()
			m.Mean, m.Scale, m.Out = append([]float64(nil), m.Mean...), append([]float64(nil), m.Scale...), append([]float64(nil), m.Out...)
			tt.change(&m)
			data, err := json.Marshal(m)
			require.NoError(t, err)
			got, err := ParseAcceptModel(data)
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, m, *got)
		})
	}
	_, err := ParseAcceptModel([]byte(`{"features": [`))
	assert.ErrorContains(t, err, "acceptance model")
	_, err = ParseAcceptModel([]byte(`{"features": [], "mean": [NaN]}`))
	assert.Error(t, err)
}

// TestDefaultAcceptModel: the committed model loads, and a sentence that
// fits the speech well and explains all of it is acted on while one
// forced onto a little of it is not.
func TestDefaultAcceptModel(t *testing.T) {
	m, err := DefaultAcceptModel()
	require.NoError(t, err)
	fit := HypothesisFeatures([]WordSpan{
		{Word: "<sil>", Start: 0, End: 29, Acoustic: -300, Filler: true},
		{Word: "what", Start: 30, End: 49, Acoustic: -500, Phones: 3},
		{Word: "time", Start: 50, End: 79, Acoustic: -750, Phones: 3},
		{Word: "is", Start: 80, End: 94, Acoustic: -300, Phones: 2},
		{Word: "it", Start: 95, End: 109, Acoustic: -300, Phones: 2},
		{Word: "<sil>", Start: 110, End: 139, Acoustic: -300, Filler: true},
	}, 1, 140, 60)
	forced := HypothesisFeatures([]WordSpan{
		{Word: "<sil>", Start: 0, End: 99, Acoustic: -9000, Filler: true},
		{Word: "mute", Start: 100, End: 129, Acoustic: -3000, Phones: 3},
		{Word: "<sil>", Start: 130, End: 299, Acoustic: -15000, Filler: true},
	}, 0.2, 300, 15)
	assert.GreaterOrEqual(t, m.Probability(fit), m.Threshold)
	assert.Less(t, m.Probability(forced), m.Threshold)
}

// TestAcceptConfidence: an accepted sentence carries at least what the
// confidence floor let through (0.8), a refused one less, in order.
func TestAcceptConfidence(t *testing.T) {
	assert.InDelta(t, 0.8, AcceptConfidence(0.4, 0.4), 1e-12)
	assert.InDelta(t, 1.0, AcceptConfidence(1, 0.4), 1e-12)
	assert.InDelta(t, 0.9, AcceptConfidence(0.7, 0.4), 1e-12)
	assert.InDelta(t, 0.4, AcceptConfidence(0.2, 0.4), 1e-12)
	assert.Less(t, AcceptConfidence(0.399, 0.4), 0.8)
}
