package intenttool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/openjibo/jibod/core/console"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/internal/strictjson"
	"github.com/openjibo/jibod/internal/textcheck"
)

// Corpus limits: a corpus is a file a person hands the tool, so everything
// in it is bounded before it is used.
const (
	maxCorpusBytes   = 64 << 20
	maxCorpusIntents = 100_000 // template and keyword intents together
	maxCorpusTests   = 1_000_000
	maxCorpusVocabs  = 100_000
)

// evalSkill is the skill every corpus intent is registered under.
const evalSkill = "eval"

// Corpus is an evaluation corpus: vocabularies, template intents, keyword
// intents and tests. Its JSON form is an object with "lang", an optional
// "source", "vocab" (name → phrases), "intents" (name → "templates" and
// "slots": values or "wildcard"), "keyword_intents" (name → vocabulary
// names by role) and "tests" ("utterance", "intent" or null, "slots",
// "needs_context"); testdata/corpus holds examples.
type Corpus struct {
	Lang           string
	Vocab          map[string][]string
	Intents        map[string]CorpusIntent
	KeywordIntents map[string]CorpusKeyword
	Tests          []CorpusTest
}

// CorpusIntent is a template intent of a corpus.
type CorpusIntent struct {
	Templates []string
	Values    map[string][]string // slot → spoken values; wildcard slots are absent
}

// CorpusKeyword names vocabularies of the corpus for each role.
type CorpusKeyword struct {
	Required, Optional, Excluded []string
	OneOf                        [][]string
}

// CorpusTest is one utterance of a corpus and what it should match.
type CorpusTest struct {
	Utterance    string
	Intent       string // "" expects no match
	Slots        map[string]string
	NeedsContext bool
}

// LoadCorpus reads and validates a corpus file; an error names the file and
// the place in it.
func LoadCorpus(path string) (*Corpus, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading corpus: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxCorpusBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading corpus %s: %w", path, err)
	}
	if len(data) > maxCorpusBytes {
		return nil, fmt.Errorf("corpus %s: larger than %d MiB", path, maxCorpusBytes>>20)
	}
	c, err := ParseCorpus(data)
	if err != nil {
		return nil, fmt.Errorf("corpus %s: %w", path, err)
	}
	return c, nil
}

// ParseCorpus decodes the JSON generically first, so every later error can
// name the path of the offending value.
func ParseCorpus(data []byte) (*Corpus, error) {
	if !utf8.Valid(data) {
		return nil, errors.New("not valid UTF-8")
	}
	if err := strictjson.CheckMembers(data); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var root any
	if err := dec.Decode(&root); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			// Offset counts the offending byte too.
			line, col := lineCol(data, se.Offset-1)
			return nil, fmt.Errorf("line %d col %d: %w", line, col, err)
		}
		return nil, fmt.Errorf("decoding JSON: %w", err)
	}
	if dec.More() {
		off := dec.InputOffset()
		for off < int64(len(data)) && strings.IndexByte(" \t\r\n", data[off]) >= 0 {
			off++
		}
		line, col := lineCol(data, off)
		return nil, fmt.Errorf("line %d col %d: data after the corpus object", line, col)
	}
	top, err := object(root, "corpus", "lang", "source", "vocab", "intents", "keyword_intents", "tests")
	if err != nil {
		return nil, err
	}
	c := &Corpus{Vocab: map[string][]string{}, Intents: map[string]CorpusIntent{}, KeywordIntents: map[string]CorpusKeyword{}}
	lang, err := str(top["lang"], "lang")
	if err != nil {
		return nil, err
	}
	if c.Lang, err = intent.NormalizeLang(lang); err != nil {
		return nil, fmt.Errorf("lang: %w", err)
	}
	if v, ok := top["source"]; ok {
		if _, err := str(v, "source"); err != nil {
			return nil, err
		}
	}
	if err := c.readVocab(top["vocab"]); err != nil {
		return nil, err
	}
	if err := c.readIntents(top["intents"]); err != nil {
		return nil, err
	}
	if err := c.readKeywordIntents(top["keyword_intents"]); err != nil {
		return nil, err
	}
	if len(c.Intents) == 0 && len(c.KeywordIntents) == 0 {
		return nil, errors.New("no intents and no keyword_intents: nothing to evaluate")
	}
	if len(c.Intents)+len(c.KeywordIntents) > maxCorpusIntents {
		return nil, fmt.Errorf("%d intents, limit is %d", len(c.Intents)+len(c.KeywordIntents), maxCorpusIntents)
	}
	if err := c.readTests(top["tests"]); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Corpus) readVocab(v any) error {
	if v == nil {
		return nil
	}
	o, err := object(v, "vocab")
	if err != nil {
		return err
	}
	if len(o) > maxCorpusVocabs {
		return fmt.Errorf("vocab: %d vocabularies, limit is %d", len(o), maxCorpusVocabs)
	}
	for name, list := range o {
		where := "vocab." + name
		if !vocabName(name) {
			return fmt.Errorf("%s: name is not [a-z_][a-z0-9_]* (GRM-06)", where)
		}
		phrases, err := strs(list, where)
		if err != nil {
			return err
		}
		if len(phrases) == 0 {
			return fmt.Errorf("%s: no phrases", where)
		}
		c.Vocab[name] = phrases
	}
	return nil
}

func (c *Corpus) readIntents(v any) error {
	if v == nil {
		return nil
	}
	o, err := object(v, "intents")
	if err != nil {
		return err
	}
	for name, def := range o {
		where := "intents." + name
		if err := intentName(name); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		d, err := object(def, where, "templates", "slots")
		if err != nil {
			return err
		}
		in := CorpusIntent{Values: map[string][]string{}}
		if in.Templates, err = strs(d["templates"], where+".templates"); err != nil {
			return err
		}
		if len(in.Templates) == 0 {
			return fmt.Errorf("%s.templates: no templates", where)
		}
		if d["slots"] != nil {
			slots, err := object(d["slots"], where+".slots")
			if err != nil {
				return err
			}
			for slot, spec := range slots {
				at := where + ".slots." + slot
				if s, ok := spec.(string); ok {
					if s != "wildcard" {
						return fmt.Errorf("%s: want \"wildcard\" or an array of values, got %q", at, s)
					}
					continue
				}
				if in.Values[slot], err = strs(spec, at); err != nil {
					return fmt.Errorf("%w (or \"wildcard\")", err)
				}
			}
		}
		c.Intents[name] = in
	}
	return nil
}

func (c *Corpus) readKeywordIntents(v any) error {
	if v == nil {
		return nil
	}
	o, err := object(v, "keyword_intents")
	if err != nil {
		return err
	}
	for name, def := range o {
		where := "keyword_intents." + name
		if err := intentName(name); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		d, err := object(def, where, "required", "optional", "one_of", "excluded")
		if err != nil {
			return err
		}
		var k CorpusKeyword
		for _, role := range []struct {
			key string
			dst *[]string
		}{{"required", &k.Required}, {"optional", &k.Optional}, {"excluded", &k.Excluded}} {
			if d[role.key] == nil {
				continue
			}
			if *role.dst, err = c.vocabRefs(d[role.key], where+"."+role.key); err != nil {
				return err
			}
		}
		if d["one_of"] != nil {
			groups, ok := d["one_of"].([]any)
			if !ok {
				return fmt.Errorf("%s.one_of: want an array of arrays of vocabulary names", where)
			}
			for g, group := range groups {
				names, err := c.vocabRefs(group, fmt.Sprintf("%s.one_of[%d]", where, g))
				if err != nil {
					return err
				}
				k.OneOf = append(k.OneOf, names)
			}
		}
		c.KeywordIntents[name] = k
	}
	return nil
}

// vocabRefs reads a list of vocabulary names that must exist in the corpus.
func (c *Corpus) vocabRefs(v any, where string) ([]string, error) {
	names, err := strs(v, where)
	if err != nil {
		return nil, err
	}
	for i, n := range names {
		if _, ok := c.Vocab[n]; !ok {
			return nil, fmt.Errorf("%s[%d]: vocabulary %q is not in vocab", where, i, n)
		}
	}
	return names, nil
}

func (c *Corpus) readTests(v any) error {
	list, ok := v.([]any)
	if !ok {
		return errors.New("tests: want an array of tests")
	}
	if len(list) == 0 {
		return errors.New("tests: no tests")
	}
	if len(list) > maxCorpusTests {
		return fmt.Errorf("tests: %d tests, limit is %d", len(list), maxCorpusTests)
	}
	c.Tests = make([]CorpusTest, 0, len(list))
	for i, e := range list {
		where := fmt.Sprintf("tests[%d]", i)
		o, err := object(e, where, "utterance", "intent", "slots", "needs_context", "uses_filler_words")
		if err != nil {
			return err
		}
		var t CorpusTest
		if t.Utterance, err = str(o["utterance"], where+".utterance"); err != nil {
			return err
		}
		if t.Utterance == "" || len(t.Utterance) > console.MaxLineBytes {
			return fmt.Errorf("%s.utterance: want 1 to %d bytes, got %d", where, console.MaxLineBytes, len(t.Utterance))
		}
		if err := textcheck.Line(t.Utterance); err != nil {
			return fmt.Errorf("%s.utterance: %w", where, err)
		}
		iv, present := o["intent"]
		switch {
		case !present:
			return fmt.Errorf("%s.intent: missing (use null for an utterance no intent should claim)", where)
		case iv != nil:
			if t.Intent, err = str(iv, where+".intent"); err != nil {
				return err
			}
			_, tpl := c.Intents[t.Intent]
			_, kw := c.KeywordIntents[t.Intent]
			if !tpl && !kw {
				return fmt.Errorf("%s.intent: %q is not an intent of the corpus", where, t.Intent)
			}
		}
		if o["slots"] != nil {
			slots, err := object(o["slots"], where+".slots")
			if err != nil {
				return err
			}
			t.Slots = map[string]string{}
			for k, v := range slots {
				if t.Slots[k], err = str(v, where+".slots."+k); err != nil {
					return err
				}
			}
			if t.Intent == "" && len(t.Slots) > 0 {
				return fmt.Errorf("%s.slots: given for a test that expects no intent", where)
			}
		}
		for _, flagName := range []string{"needs_context", "uses_filler_words"} {
			if fv, ok := o[flagName]; ok {
				b, ok := fv.(bool)
				if !ok {
					return fmt.Errorf("%s.%s: want true or false", where, flagName)
				}
				if flagName == "needs_context" {
					t.NeedsContext = b
				}
			}
		}
		c.Tests = append(c.Tests, t)
	}
	return nil
}

// object checks v is a JSON object and, when keys are given, that it has no
// others.
func object(v any, where string, keys ...string) (map[string]any, error) {
	o, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: want an object", where)
	}
	if len(keys) > 0 {
		for _, k := range slices.Sorted(maps.Keys(o)) {
			if !slices.Contains(keys, k) {
				return nil, fmt.Errorf("%s: unknown field %q (known: %s)", where, k, strings.Join(keys, ", "))
			}
		}
	}
	return o, nil
}

func str(v any, where string) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s: want a string", where)
	}
	return s, nil
}

func strs(v any, where string) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: want an array of strings", where)
	}
	out := make([]string, len(list))
	for i, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("%s[%d]: want a string", where, i)
		}
		out[i] = s
	}
	return out, nil
}

func vocabName(s string) bool {
	for i, r := range s {
		if r != '_' && (r < 'a' || r > 'z') && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return s != ""
}

// intentName checks a corpus intent name is usable as an OVOS intent_name
// (DEF-02); reserved names are left to the engines, which reject them.
func intentName(s string) error {
	switch {
	case s == "":
		return errors.New("empty intent name")
	case len(s) > intent.MaxIDBytes:
		return fmt.Errorf("intent name longer than %d bytes", intent.MaxIDBytes)
	case strings.ContainsFunc(s, func(r rune) bool { return r == ':' || unicode.IsSpace(r) || unicode.IsControl(r) }):
		return errors.New("intent name contains ':', whitespace or control characters (DEF-02)")
	}
	return nil
}

// lineCol turns a byte offset into a 1-based line and column (in runes).
func lineCol(data []byte, off int64) (int, int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line := bytes.Count(before, []byte{'\n'}) + 1
	col := utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:]) + 1
	return line, col
}
