//go:build sphinx

package hearing

import (
	"fmt"
	"log/slog"
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

// EnvGarbageEnds names where else the garbage path's filler words may
// go: "tail" (after a sentence), "head" (before one), "both" or "off",
// optionally with ":COST", what entering them there costs
// (sphinx.Garbage.EndEntry, 0..sphinx.MaxGarbagePenalty). A tuning
// switch; unset, garbageEnds; the cost unsaid, garbageEndEntry
// (docs/hearing.md).
const EnvGarbageEnds = "JIBOD_SPHINX_GARBAGE_ENDS"

// EnvGarbageQuietTail sets when a sentence whose filler words after it
// cover no one talking is kept (sphinx.Garbage.QuietTail): "off" (or 0)
// refuses it like any path with filler words; DB keeps it where none of
// their 10 ms frames is within DB dB of the sentence's median level
// (0..sphinx.MaxQuietTail). A tuning switch; unset, garbageQuietTail
// (docs/hearing.md).
const EnvGarbageQuietTail = "JIBOD_SPHINX_GARBAGE_QUIET_TAIL"

// A sentence said whole can be found with filler words after it that
// took the breath, the room or other talkers after the talker stopped
// (docs/hearing.md): such a tail keeps the sentence where it stays
// garbageQuietTail dB under the sentence's median level.
const garbageQuietTail = 6.0

// Filler words may follow a sentence by default (docs/hearing.md): a
// word said beyond what the sentence holds is explained by them instead
// of being stretched onto its last word, so out-of-grammar wordings and
// everyday speech are refused rather than forced onto a command.
// Entering them costs as much as a filler word (at no cost a final
// consonant's release went to a filler word).
const (
	garbageEnds     = "tail"
	garbageEndEntry = 250.0
)

// The garbage path's settings, chosen on the tuning sets
// (docs/hearing.md): its fillers are the 50 most common English words
// (more cost more CPU and take more sentences said), nothing on entry
// and 250 a word, so that the penalty grows with the speech it explains.
const (
	garbageWords   = 50
	garbageEntry   = 0.0
	garbagePerWord = 250.0
)

// garbageMinConfidence is the confidence floor of a search with the
// garbage path (sphinx.Garbage.MinConfidence), against minConfidence
// without: the filler words' HMMs are searched beside the sentences, so
// each frame's best senone, which a sentence's confidence is measured
// against, is a better one, and a sentence said scores lower than
// without them. The garbage path does much of the floor's work
// (docs/hearing.md).
const garbageMinConfidence = 0.7

// garbageFor is the garbage path g (nil: none) as the recogniser gets
// it, for the acoustic model in dir: with garbageMinConfidence, chosen
// with Debian's model and its default floors (with filler words after a
// sentence too: the recogniser measures a sentence under the floor
// again without them). Where something else decides from scores
// measured without the path (floors set in sphinx.floors, an adapted
// model's own, the acceptance model) there is no path, and a log line
// says so.
func garbageFor(g *sphinx.Garbage, dir string, floorsSet, accept bool, log *slog.Logger) *sphinx.Garbage {
	if g == nil {
		return nil
	}
	why := ""
	switch {
	case accept:
		why = "the acceptance model (" + EnvAccept + ") was trained without it"
	case floorsSet:
		why = "sphinx.floors were not measured with it"
	case dir != sphinx.DefaultModelDir:
		why = "the adapted model's floors were not measured with it"
	}
	if why != "" {
		log.Info("speech recogniser: no garbage path", "why", why, "env", EnvGarbage)
		return nil
	}
	out := *g
	out.MinConfidence = garbageMinConfidence
	return &out
}

// garbageFromEnv returns the garbage path $JIBOD_SPHINX_GARBAGE asks for,
// nil for none.
func garbageFromEnv(getenv func(string) string) (*sphinx.Garbage, error) {
	// The ends are checked first, so that a bad value is named even
	// where the path is off.
	tail, head, endEntry, err := garbageEndsFromEnv(getenv)
	if err != nil {
		return nil, err
	}
	quiet, err := garbageQuietTailFromEnv(getenv)
	if err != nil {
		return nil, err
	}
	v := getenv(EnvGarbage)
	entry, perWord, n := garbageEntry, garbagePerWord, garbageWords
	switch v {
	case "off":
		return nil, nil
	case "", "on":
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
	g := &sphinx.Garbage{Words: words, Entry: entry, PerWord: perWord, Tail: tail, Head: head, EndEntry: endEntry}
	if tail {
		g.QuietTail = quiet
	}
	return g, nil
}

// garbageQuietTailFromEnv reads $JIBOD_SPHINX_GARBAGE_QUIET_TAIL.
func garbageQuietTailFromEnv(getenv func(string) string) (float64, error) {
	v := getenv(EnvGarbageQuietTail)
	switch v {
	case "":
		return garbageQuietTail, nil
	case "off":
		return 0, nil
	}
	below, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || !(below >= 0 && below <= sphinx.MaxQuietTail) {
		return 0, fmt.Errorf("%s=%q: want off or a level in dB, 0..%d", EnvGarbageQuietTail, v, sphinx.MaxQuietTail)
	}
	return below, nil
}

// garbageEndsFromEnv reads $JIBOD_SPHINX_GARBAGE_ENDS: whether the filler
// words may follow a sentence (tail) or precede one (head), and what
// entering them there costs.
func garbageEndsFromEnv(getenv func(string) string) (tail, head bool, entry float64, err error) {
	v := getenv(EnvGarbageEnds)
	bad := fmt.Errorf("%s=%q: want off, tail, head or both, optionally :COST with COST in 0..%d",
		EnvGarbageEnds, v, sphinx.MaxGarbagePenalty)
	mode, cost, withCost := strings.Cut(v, ":")
	if mode == "" && !withCost {
		mode = garbageEnds
	}
	entry = garbageEndEntry
	if withCost {
		c, err := strconv.ParseFloat(cost, 64)
		if err != nil || !(c >= 0 && c <= sphinx.MaxGarbagePenalty) {
			return false, false, 0, bad
		}
		entry = c
	}
	switch mode {
	case "off":
	case "tail":
		tail = true
	case "head":
		head = true
	case "both":
		tail, head = true, true
	default:
		return false, false, 0, bad
	}
	return tail, head, entry, nil
}
