//go:build sphinx

package hearing

import (
	"log/slog"
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
	on := &sphinx.Garbage{Words: common, Entry: garbageEntry, PerWord: garbagePerWord, EndEntry: garbageEndEntry, Tail: true,
		QuietTail: garbageQuietTail}
	tests := []struct {
		value string
		want  *sphinx.Garbage
		words int
		err   string
	}{
		{value: "", want: on},
		{value: "off"},
		{value: "on", want: on},
		{value: "100,250", want: &sphinx.Garbage{Words: common, Entry: 100, PerWord: 250, EndEntry: garbageEndEntry, Tail: true,
			QuietTail: garbageQuietTail}},
		{value: "0, 300, 25", want: &sphinx.Garbage{Entry: 0, PerWord: 300, EndEntry: garbageEndEntry, Tail: true,
			QuietTail: garbageQuietTail}, words: 25},
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
			g, err := garbageFromEnv(func(k string) string {
				if k == EnvGarbage {
					return tt.value
				}
				return ""
			})
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

// TestGarbageEndsFromEnv: JIBOD_SPHINX_GARBAGE_ENDS puts the filler
// words after a sentence (also when unset), before one, both or neither,
// at the chosen entry cost or the one given; a bad value is named with
// what is wanted.
func TestGarbageEndsFromEnv(t *testing.T) {
	tests := []struct {
		value      string
		tail, head bool
		entry      float64
		err        string
	}{
		{value: "", tail: true, entry: garbageEndEntry},
		{value: "tail", tail: true, entry: garbageEndEntry},
		{value: "off", entry: garbageEndEntry},
		{value: "head", head: true, entry: garbageEndEntry},
		{value: "both", tail: true, head: true, entry: garbageEndEntry},
		{value: "tail:0", tail: true, entry: 0},
		{value: "both:500", tail: true, head: true, entry: 500},
		{value: "tail:5001", err: `JIBOD_SPHINX_GARBAGE_ENDS="tail:5001": want off, tail, head or both, optionally :COST with COST in 0..5000`},
		{value: "tail:-1", err: `"tail:-1": want`},
		{value: "tail:NaN", err: `"tail:NaN": want`},
		{value: "tail:", err: `"tail:": want`},
		{value: "tail:250:3", err: `"tail:250:3": want`},
		{value: ":100", err: `":100": want`},
		{value: "middle:100", err: `"middle:100": want`},
		{value: "middle", err: `JIBOD_SPHINX_GARBAGE_ENDS="middle": want off, tail, head or both`},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			if tt.err != "" {
				// A bad value is named whether the path is on or off.
				for _, garbage := range []string{"", "off"} {
					g, err := garbageFromEnv(func(k string) string {
						switch k {
						case EnvGarbageEnds:
							return tt.value
						case EnvGarbage:
							return garbage
						}
						return ""
					})
					assert.ErrorContains(t, err, tt.err, "%s=%q", EnvGarbage, garbage)
					assert.Nil(t, g)
				}
				return
			}
			g, err := garbageFromEnv(func(k string) string {
				if k == EnvGarbageEnds {
					return tt.value
				}
				return ""
			})
			require.NoError(t, err)
			require.NotNil(t, g)
			assert.NoError(t, g.Check())
			assert.Equal(t, tt.tail, g.Tail, "tail")
			assert.Equal(t, tt.head, g.Head, "head")
			assert.Equal(t, tt.entry, g.EndEntry, "entry")
		})
	}
}

// TestGarbageQuietTailFromEnv: JIBOD_SPHINX_GARBAGE_QUIET_TAIL keeps a
// sentence whose filler words after it cover no one talking at the
// chosen level (also when unset), at another, or never ("off", or 0);
// without filler words after a sentence it has nothing to judge. A bad
// value is named with what is wanted.
func TestGarbageQuietTailFromEnv(t *testing.T) {
	tests := []struct {
		value, ends string
		below       float64
		err         string
	}{
		{value: "", below: garbageQuietTail},
		{value: "off"},
		{value: "0"},
		{value: " 8.5 ", below: 8.5},
		{value: "", ends: "off"},
		{value: "8", ends: "head"},
		{value: "61", err: `JIBOD_SPHINX_GARBAGE_QUIET_TAIL="61": want off or a level in dB, 0..60`},
		{value: "-1", err: "want off or a level in dB"},
		{value: "NaN", err: "want off or a level in dB"},
		{value: "8,100", err: "want off or a level in dB"},
		{value: "on", err: "want off or a level in dB"},
	}
	for _, tt := range tests {
		t.Run(tt.value+" "+tt.ends, func(t *testing.T) {
			g, err := garbageFromEnv(func(k string) string {
				switch k {
				case EnvGarbageQuietTail:
					return tt.value
				case EnvGarbageEnds:
					return tt.ends
				}
				return ""
			})
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				assert.Nil(t, g)
				return
			}
			require.NoError(t, err)
			require.NotNil(t, g)
			assert.NoError(t, g.Check())
			assert.Equal(t, tt.below, g.QuietTail)
		})
	}
}

// TestGarbageFor: with Debian's model and its own floors the garbage
// path gets its confidence floor, the same with filler words after a
// sentence (the recogniser's stays the usual one, for every other
// search); floors set in the configuration, an adapted
// model's own and the acceptance model, all measured without the path,
// turn it off.
func TestGarbageFor(t *testing.T) {
	g := &sphinx.Garbage{Words: []string{"the"}, PerWord: 250}
	with := *g
	with.MinConfidence = garbageMinConfidence
	tail := *g
	tail.Tail = true
	tailWith := tail
	tailWith.MinConfidence = garbageMinConfidence
	tests := []struct {
		name      string
		g         *sphinx.Garbage
		dir       string
		floorsSet bool
		accept    bool
		want      *sphinx.Garbage
	}{
		{"Debian's model", g, sphinx.DefaultModelDir, false, false, &with},
		{"fillers after a sentence", &tail, sphinx.DefaultModelDir, false, false, &tailWith},
		{"fillers after a sentence, sphinx.floors set", &tail, sphinx.DefaultModelDir, true, false, nil},
		{"none asked for", nil, sphinx.DefaultModelDir, false, false, nil},
		{"sphinx.floors set", g, sphinx.DefaultModelDir, true, false, nil},
		{"an adapted model", g, "/state/acoustic-model", false, false, nil},
		{"the acceptance model", g, sphinx.DefaultModelDir, false, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, garbageFor(tt.g, tt.dir, tt.floorsSet, tt.accept, slog.New(slog.DiscardHandler)))
		})
	}
	assert.Equal(t, 0.8, defaultFloors.MinConfidence, "the usual floor is not the garbage path's")
	assert.Zero(t, g.MinConfidence, "the asked-for path is not changed")
}
