//go:build sphinx

package hearing

import (
	"testing"

	"github.com/openjibo/jibod/audio/sphinx"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGarbageFromEnv: JIBOD_SPHINX_GARBAGE turns the garbage path off,
// on (also when unset) with its chosen settings, or on with other penalties and word
// counts; a bad value is named with what is wanted.
func TestGarbageFromEnv(t *testing.T) {
	common, err := sphinx.CommonWords(garbageWords)
	require.NoError(t, err)
	on := &sphinx.Garbage{Words: common, Entry: garbageEntry, PerWord: garbagePerWord}
	tests := []struct {
		value string
		want  *sphinx.Garbage
		words int
		err   string
	}{
		{value: "", want: on},
		{value: "off"},
		{value: "on", want: on},
		{value: "100,250", want: &sphinx.Garbage{Words: common, Entry: 100, PerWord: 250}},
		{value: "0, 300, 25", want: &sphinx.Garbage{Entry: 0, PerWord: 300}, words: 25},
		{value: "1,2,3,4", err: `JIBOD_SPHINX_GARBAGE="1,2,3,4": want off, on or ENTRY,PERWORD[,WORDS]`},
		{value: "300", err: "want off, on or ENTRY,PERWORD[,WORDS]"},
		{value: "-1,200", err: "penalties in 0..5000"},
		{value: "0,5001", err: "penalties in 0..5000"},
		{value: "NaN,1", err: "want off, on"},
		{value: "0,200,0", err: "words in 1..1000"},
		{value: "0,200,1001", err: "words in 1..1000"},
		{value: "high", err: "want off, on"},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			g, err := garbageFromEnv(func(string) string { return tt.value })
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				assert.Nil(t, g)
				return
			}
			require.NoError(t, err)
			if g != nil {
				assert.NoError(t, g.Check())
			}
			if tt.words > 0 {
				require.NotNil(t, g)
				assert.Equal(t, common[:tt.words], g.Words, "the most common words first")
				g.Words = nil
			}
			assert.Equal(t, tt.want, g)
		})
	}
}

// TestGarbageFloors: with the garbage path Debian's model gets the lower
// confidence floor; floors set in the configuration and an adapted
// model's own are kept, and without the path nothing changes.
func TestGarbageFloors(t *testing.T) {
	g := &sphinx.Garbage{Words: []string{"the"}}
	lower := defaultFloors
	lower.MinConfidence = garbageMinConfidence
	set := sphinx.Floors{MinConfidence: 0.5, MinCoverage: 0.5, WakeMinConfidence: 0.5, WakeMinCoverage: 0.5}
	assert.Equal(t, lower, garbageFloors(defaultFloors, g, sphinx.DefaultModelDir, false))
	assert.Equal(t, defaultFloors, garbageFloors(defaultFloors, nil, sphinx.DefaultModelDir, false))
	assert.Equal(t, set, garbageFloors(set, g, sphinx.DefaultModelDir, true))
	assert.Equal(t, AdaptedFloors, garbageFloors(AdaptedFloors, g, "/state/acoustic-model", false))
}
