package intenttool

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	smallCorpus = "../../../testdata/corpus/small_en.json"
	robotCorpus = "../../../testdata/corpus/robot_en.json"
)

// TestParseCorpusErrors: a bad corpus is refused with an error naming the
// place of what is wrong in it.
func TestParseCorpusErrors(t *testing.T) {
	const good = `{"lang": "en-us", "vocab": {"w": ["weather"]},
 "intents": {"a": {"templates": ["hello"]}},
 "keyword_intents": {"k": {"required": ["w"]}},
 "tests": [{"utterance": "hello", "intent": "a"}]}`
	edit := func(old, new string) string {
		require.Contains(t, good, old)
		return strings.Replace(good, old, new, 1)
	}
	tests := []struct {
		name, corpus, want string
	}{
		{"syntax error", edit(`"a": {`, `"a" {`), "line 2 col 18: invalid character '{' after object key"},
		{"truncated", good[:40], "decoding JSON: unexpected EOF"},
		{"trailing data", good + " {}", "line 4 col 52: data after the corpus object"},
		{"not an object", `[]`, "corpus: want an object"},
		{"unknown field", edit(`"lang"`, `"langs": 1, "lang"`), `corpus: unknown field "langs" (known: lang, source, vocab, intents, keyword_intents, tests)`},
		{"lang missing", edit(`"lang": "en-us",`, ``), "lang: want a string"},
		{"lang malformed", edit(`"en-us"`, `"english"`), `lang: language tag "english" is not a BCP-47 tag`},
		{"vocab name", edit(`"w": [`, `"W x": [`), `vocab.W x: name is not [a-z_][a-z0-9_]* (GRM-06)`},
		{"vocab empty", edit(`["weather"]`, `[]`), "vocab.w: no phrases"},
		{"templates missing", edit(`{"templates": ["hello"]}`, `{}`), "intents.a.templates: want an array of strings"},
		{"template not a string", edit(`["hello"]`, `["hello", 3]`), "intents.a.templates[1]: want a string"},
		{"intent name", edit(`"a": {`, `"a:b": {`), "intents.a:b: intent name contains ':'"},
		{"slot spec", edit(`["hello"]}`, `["hello {x}"], "slots": {"x": "any"}}`), `intents.a.slots.x: want "wildcard" or an array of values, got "any"`},
		{"intent field", edit(`["hello"]}`, `["hello"], "sample": []}`), `intents.a: unknown field "sample"`},
		{"keyword vocabulary undefined", edit(`["w"]`, `["w", "nope"]`), `keyword_intents.k.required[1]: vocabulary "nope" is not in vocab`},
		{"keyword one_of shape", edit(`{"required": ["w"]}`, `{"one_of": ["w"]}`), `keyword_intents.k.one_of[0]: want an array of strings`},
		{"no intents", `{"lang": "en-us", "tests": []}`, "no intents and no keyword_intents"},
		{"no tests", edit(`[{"utterance": "hello", "intent": "a"}]`, `[]`), "tests: no tests"},
		{"test intent unknown", edit(`"intent": "a"`, `"intent": "b"`), `tests[0].intent: "b" is not an intent of the corpus`},
		{"test intent missing", edit(`, "intent": "a"`, ``), "tests[0].intent: missing (use null"},
		{"test utterance empty", edit(`"utterance": "hello"`, `"utterance": ""`), "tests[0].utterance: want 1 to 2048 bytes, got 0"},
		{"test slots without intent", edit(`"intent": "a"`, `"intent": null, "slots": {"x": "y"}`), "tests[0].slots: given for a test that expects no intent"},
		{"test slot value", edit(`"intent": "a"`, `"intent": "a", "slots": {"x": 1}`), "tests[0].slots.x: want a string"},
		{"test flag", edit(`"intent": "a"`, `"intent": "a", "needs_context": "yes"`), "tests[0].needs_context: want true or false"},
		{"test field", edit(`"intent": "a"`, `"intent": "a", "expect": 1`), `tests[0]: unknown field "expect"`},
		{"invalid UTF-8", edit(`hello"]`, "hel\xfflo\"]"), "not valid UTF-8"},
		// Strict input (issue 22 items 9 and 10).
		{"member twice", edit(`"lang": "en-us",`, `"lang": "en-us", "lang": "fr-fr",`), `lang: member given twice ("lang")`},
		{"half a surrogate pair", edit(`"utterance": "hello"`, `"utterance": "hello \ud83e"`), `tests[0].utterance: invalid UTF-8`},
		{"utterance with a control character", edit(`"utterance": "hello"`, `"utterance": "hel\u0007lo"`), `tests[0].utterance: control character U+0007 (BEL) at byte 3`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseCorpus([]byte(tc.corpus))
			require.Error(t, err)
			assert.Nil(t, c)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	c, err := ParseCorpus([]byte(good))
	require.NoError(t, err)
	assert.Equal(t, &Corpus{Lang: "en-us", Vocab: map[string][]string{"w": {"weather"}},
		Intents:        map[string]CorpusIntent{"a": {Templates: []string{"hello"}, Values: map[string][]string{}}},
		KeywordIntents: map[string]CorpusKeyword{"k": {Required: []string{"w"}}},
		Tests:          []CorpusTest{{Utterance: "hello", Intent: "a"}}}, c)
}

// TestLoadCorpusNamesTheFile: an error from a file names it.
func TestLoadCorpusNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(path, []byte(`[]`), 0o600))
	_, err := LoadCorpus(path)
	assert.EqualError(t, err, "corpus "+path+": corpus: want an object")
	_, err = LoadCorpus(filepath.Join(dir, "missing.json"))
	assert.ErrorContains(t, err, "reading corpus: open ")
	big := filepath.Join(dir, "big.json")
	require.NoError(t, os.WriteFile(big, []byte(strings.Repeat(" ", maxCorpusBytes+1)), 0o600))
	_, err = LoadCorpus(big)
	assert.EqualError(t, err, "corpus "+big+": larger than 64 MiB")
}

// TestRobotCorpusLoads keeps the development corpus valid and its keyword
// intents registrable.
func TestRobotCorpusLoads(t *testing.T) {
	c, err := LoadCorpus(robotCorpus)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, len(c.Intents)+len(c.KeywordIntents), 40)
	assert.GreaterOrEqual(t, len(c.Tests), 300)
	rep, err := Evaluate(context.Background(), c, EvalOptions{Stack: robotStack})
	require.NoError(t, err)
	assert.Zero(t, rep.TemplatesRejected)
	assert.Zero(t, rep.IntentsRejected)
}
