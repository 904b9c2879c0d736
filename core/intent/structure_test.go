package intent

import (
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// randomTemplate writes a random template over a small alphabet: words,
// groups, optionals, vocabulary references, slots and text glued to groups
// and slots, nested a few levels.
func randomTemplate(r *rand.Rand, depth int, slots *int) string {
	var b strings.Builder
	n := 1 + r.IntN(4)
	for i := 0; i < n; i++ {
		if i > 0 && r.IntN(6) > 0 {
			b.WriteByte(' ')
		}
		switch k := r.IntN(10); {
		case k < 4 || depth == 0:
			b.WriteString([]string{"a", "b", "c", "d"}[r.IntN(4)])
		case k < 6:
			var bs []string
			for j := 0; j < 1+r.IntN(3); j++ {
				if r.IntN(5) == 0 {
					bs = append(bs, "")
				} else {
					bs = append(bs, randomTemplate(r, depth-1, slots))
				}
			}
			b.WriteString("(" + strings.Join(bs, "|") + ")")
		case k < 8:
			b.WriteString("[" + randomTemplate(r, depth-1, slots) + "]")
		case k < 9:
			b.WriteString([]string{"<v>", "<w>"}[r.IntN(2)])
		default:
			*slots++
			name := []string{"x", "y", "z"}[r.IntN(3)]
			if r.IntN(3) == 0 {
				b.WriteString("{number:" + name + "}")
			} else {
				b.WriteString("{" + name + "}")
			}
		}
	}
	return b.String()
}

var structVocab = map[string][]string{"v": {"a", "b c"}, "w": {"(d|e) [f]"}}

// TestStructureMatchesSampleSet_GRM08_GRM10: the engine's structural check
// accepts and rejects exactly what expansion does (GRM-08), and its graph
// matches exactly the template's sample set (GRM-10): every sample, with
// its slots filled, matches with those slot values, and nothing else
// matches. Skipping is off, so only the grammar is at work. Seeds are
// fixed, so a failure names its template.
func TestStructureMatchesSampleSet_GRM08_GRM10(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 8))
	checked := 0
	for i := 0; i < 600; i++ {
		slots := 0
		tpl := randomTemplate(r, 3, &slots)
		samples, _, errE := Expand(tpl, structVocab, ExpandOptions{MaxSamples: 300})
		if errors.Is(errE, ErrTooLarge) {
			continue
		}
		_, errC := Check(tpl, structVocab)
		if errors.Is(errC, ErrTooLarge) {
			continue // a word glued to many groups: the structure's own limit
		}
		if errE != nil {
			require.Error(t, errC, "expansion rejects %q (%v), the structure must too", tpl, errE)
			continue
		}
		if errC != nil && strings.Contains(errC.Error(), "share one word") {
			continue // two slots in one word ("{x}b{z}"): the engine reads words, not letters
		}
		if errC != nil {
			// The check expansion does not make: a template whose every
			// sample lacks a whole literal word would match almost anything.
			require.ErrorIs(t, errC, ErrSlotOnly, "%q: %v", tpl, errC)
			for _, s := range samples {
				require.NotRegexp(t, literalWord, s, "%q rejected though sample %q has a word", tpl, s)
			}
			continue
		}
		checked++
		e := NewTemplateEngine(EngineOptions{Logger: slog.New(slog.DiscardHandler), Lexicons: map[string]*Lexicon{}})
		_, err := e.Register(TemplateIntent{SkillID: "s", IntentName: "i", Lang: "en-us", Samples: []string{tpl}, Vocab: structVocab})
		require.NoError(t, err, tpl)
		var patterns []samplePat
		for _, s := range samples {
			patterns = append(patterns, samplePattern(s))
		}
		for _, s := range samples {
			utterance, _ := fill(s)
			m := e.Match(utterance, "en-us", "")
			if !literalWord.MatchString(utterance) {
				assert.Nil(t, m, "%q: sample %q has no literal word and may not match", tpl, s)
				continue
			}
			require.NotNil(t, m, "%q: sample %q (%q) must match", tpl, s, utterance)
			// An utterance may read as several samples (slot text can hold
			// literal words); the slots must make one of them.
			assert.True(t, slices.ContainsFunc(samples, func(x string) bool { return renderSample(x, m.Slots) == utterance }),
				"%q: sample %q read as slots %v, which make no sample", tpl, s, m.Slots)
		}
		// Nothing else matches: random word strings the engine accepts are
		// samples with their slots filled.
		for j := 0; j < 30; j++ {
			var ws []string
			for k := 0; k < 1+r.IntN(5); k++ {
				ws = append(ws, []string{"a", "b", "c", "d", "e", "f", "q"}[r.IntN(7)])
			}
			u := strings.Join(ws, " ")
			if e.Match(u, "en-us", "") == nil {
				continue
			}
			ok := slices.ContainsFunc(patterns, func(p samplePat) bool { _, ok := p.read(u); return ok })
			assert.True(t, ok, "%q matched %q, which is no sample", tpl, u)
		}
	}
	assert.Greater(t, checked, 200, "enough accepted templates were tried")
}

// fill puts a distinct value in each slot of a sample: "v1", "v2 w2"...
func fill(sample string) (string, map[string]string) {
	want := map[string]string{}
	n := 0
	out := regexp.MustCompile(`\{([a-z]+)\}`).ReplaceAllStringFunc(sample, func(m string) string {
		n++
		v := fmt.Sprintf("v%d", n)
		if n%2 == 0 {
			v += fmt.Sprintf(" w%d", n)
		}
		want[m[1:len(m)-1]] = v
		return v
	})
	return out, want
}

// renderSample writes a sample with its slots filled from values, or "" when
// the slots do not fit it.
func renderSample(sample string, values map[string]string) string {
	used := 0
	ok := true
	out := regexp.MustCompile(`\{([a-z]+)\}`).ReplaceAllStringFunc(sample, func(m string) string {
		v, has := values[m[1:len(m)-1]]
		ok = ok && has
		used++
		return v
	})
	if !ok || used != len(values) {
		return ""
	}
	return out
}

// literalWord finds a whole literal word: slot fills carry digits.
var literalWord = regexp.MustCompile(`(^| )[a-z]+( |$)`)

// samplePat matches a sample with any words in its slots and reads them.
type samplePat struct {
	re    *regexp.Regexp
	slots []string
}

func samplePattern(sample string) samplePat {
	slotRE := regexp.MustCompile(`\{([a-z]+)\}`)
	var p samplePat
	for _, m := range slotRE.FindAllStringSubmatch(sample, -1) {
		p.slots = append(p.slots, m[1])
	}
	parts := slotRE.Split(sample, -1)
	for i, s := range parts {
		parts[i] = regexp.QuoteMeta(s)
	}
	p.re = regexp.MustCompile("^" + strings.Join(parts, `([a-z0-9]+(?: [a-z0-9]+)*)`) + "$")
	return p
}

func (p samplePat) read(u string) (map[string]string, bool) {
	m := p.re.FindStringSubmatch(u)
	if m == nil {
		return nil, false
	}
	out := map[string]string{}
	for i, name := range p.slots {
		out[name] = m[i+1]
	}
	return out, true
}

// TestCheckAgreesWithExpand_GRM08: the structural checks give the same
// verdicts as expansion on the worked examples of §3.2.
func TestCheckAgreesWithExpand_GRM08(t *testing.T) {
	vocab := map[string][]string{"device": {"lamp", "(tv|television)"}, "bad": {"{s}"}, "loop": {"<loop>"}}
	tests := []struct {
		tpl  string
		kind error // nil: accepted
	}{
		{"open (the|) (door|gate)", nil},
		{"[[very] big] dog", nil},
		{"x (a|[b]) y", nil},
		{"turn (on|off) <device>", nil},
		{"[please]", ErrEmptySample},
		{"{a} (and|) {b}", ErrAdjacentSlots},
		{"[{a}] [{b}] word", ErrAdjacentSlots},
		{"{a}{b} word", ErrAdjacentSlots},
		{"{x} and {x}", ErrRepeatedSlot},
		{"(buy {item}|sell {item})", nil},
		{"{a} and {number:a}", ErrRepeatedSlot},
		{"{only}", ErrSlotOnly},
		{"<bad> x", ErrSlotInVocab},
		{"<missing> x", ErrUndefinedVocab},
		{"<loop> x", ErrVocabCycle},
		{"(a]", ErrUnbalanced},
		{"()", ErrEmptyGroup},
	}
	for _, tc := range tests {
		t.Run(tc.tpl, func(t *testing.T) {
			_, _, errE := Expand(tc.tpl, vocab, ExpandOptions{})
			_, errC := Check(tc.tpl, vocab)
			if tc.kind == nil {
				assert.NoError(t, errE)
				assert.NoError(t, errC)
				return
			}
			assert.ErrorIs(t, errE, tc.kind)
			assert.ErrorIs(t, errC, tc.kind)
		})
	}
}

// TestGluedGroups: groups and slots glued to words without a space are
// spelled out word by word, as substitution is textual (§3.2).
func TestGluedGroups(t *testing.T) {
	e := NewTemplateEngine(EngineOptions{Logger: slog.New(slog.DiscardHandler), Lexicons: map[string]*Lexicon{}})
	mustRegister(t, e, TemplateIntent{SkillID: "s", IntentName: "i", Lang: "en-us",
		Samples: []string{"turn on the light[s]", "what is {name}['s] battery", "light(s| bulb) test", "[the ]{x}s only"}})
	for u, want := range map[string]map[string]string{
		"turn on the light":          {},
		"turn on the lights":         {},
		"what is johns battery":      {"name": "john"},
		"what is the phone battery":  {"name": "the phone"},
		"lights test":                {},
		"light bulb test":            {},
		"the cats only":              {"x": "cat"},
		"what is the phones battery": {"name": "the phone"},
	} {
		r := e.Match(u, "en-us", "")
		require.NotNil(t, r, u)
		assert.Equal(t, want, r.Slots, u)
	}
	assert.Nil(t, e.Match("turn on the lightss", "en-us", ""))
	assert.Nil(t, e.Match("light test", "en-us", ""))
}
