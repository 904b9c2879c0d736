//go:build sphinx

package hearing

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/openjibo/jibod/audio/sphinx"
)

// EnvGarbage sets the garbage path in the command grammar's search
// (sphinx.Config.Garbage): "off" none; "on" garbageOn's; or
// "ENTRY,PERWORD[,WORDS]", its penalties (the decoder's log units, 0 to
// sphinx.MaxGarbagePenalty) and how many of the most common English
// words are its filler words (1 to sphinx.MaxGarbageWords, default
// garbageWords). A tuning switch outside the typed config; unset, the
// default (docs/hearing.md).
const EnvGarbage = "JIBOD_SPHINX_GARBAGE"

// The garbage path's settings, chosen on the tuning sets
// (docs/hearing.md): the fillers are the most common English words, the
// penalties what keeps the sentences said while taking the wordings the
// grammar does not hold.
const (
	garbageByDefault = false
	garbageWords     = 50
	garbageEntry     = 0.0
	garbagePerWord   = 250.0
)

// garbageFromEnv returns the garbage path $JIBOD_SPHINX_GARBAGE asks for,
// nil for none.
func garbageFromEnv(getenv func(string) string) (*sphinx.Garbage, error) {
	v := getenv(EnvGarbage)
	if v == "" && garbageByDefault {
		v = "on"
	}
	entry, perWord, n := garbageEntry, garbagePerWord, garbageWords
	switch v {
	case "", "off":
		return nil, nil
	case "on":
	default:
		bad := fmt.Errorf("%s=%q: want off, on or ENTRY,PERWORD[,WORDS] (penalties in 0..%d, words in 1..%d)",
			EnvGarbage, v, sphinx.MaxGarbagePenalty, sphinx.MaxGarbageWords)
		parts := strings.Split(v, ",")
		if len(parts) != 2 && len(parts) != 3 {
			return nil, bad
		}
		var err error
		if entry, err = strconv.ParseFloat(strings.TrimSpace(parts[0]), 64); err != nil {
			return nil, bad
		}
		if perWord, err = strconv.ParseFloat(strings.TrimSpace(parts[1]), 64); err != nil {
			return nil, bad
		}
		if len(parts) == 3 {
			if n, err = strconv.Atoi(strings.TrimSpace(parts[2])); err != nil || n < 1 || n > sphinx.MaxGarbageWords {
				return nil, bad
			}
		}
		g := sphinx.Garbage{Words: []string{"x"}, Entry: entry, PerWord: perWord}
		if err := g.Check(); err != nil {
			return nil, bad
		}
	}
	words, err := sphinx.CommonWords(n)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EnvGarbage, err)
	}
	return &sphinx.Garbage{Words: words, Entry: entry, PerWord: perWord}, nil
}
