package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/pipeline"
)

const smallCorpus = "../../testdata/corpus/small_en.json"

// TestIntentsEvalSmallCorpus runs eval on a corpus whose every number is
// worked out by hand: 10 tests, of which
//   - 7 are exactly right (4 template matches, 1 keyword match with its
//     capture, 2 utterances nobody may claim, one vetoed by an excluded
//     vocabulary, DEF-04);
//   - "how is the weather" has the right intent, but the keyword engine
//     captures weather=weather (DEF-06) and the test expects no slots;
//   - "turn on the light" is needs_context: right intent, but the room it
//     expects is not in the words;
//   - "lamp please" is claimed by nobody.
//
// One of 3 templates is malformed and counted, not fatal.
func TestIntentsEvalSmallCorpus(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"intents", "eval", "--corpus", smallCorpus, "--json", "--failures"}, nil, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	assert.Empty(t, stderr.String(), "no progress bar when stderr is not a terminal")

	var rep map[string]any
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &rep), "--json prints one object")
	for _, k := range []string{"tests", "intent_accuracy", "exact_accuracy", "p50_us", "p95_us", "build_ms", "heap_mb"} {
		assert.Contains(t, rep, k)
	}
	assert.Equal(t, 10.0, rep["tests"])
	assert.Equal(t, 0.9, rep["intent_accuracy"])
	assert.Equal(t, 0.7, rep["exact_accuracy"])
	assert.Equal(t, 9.0, rep["tests_without_context"])
	assert.Equal(t, 0.8889, rep["intent_accuracy_without_context"])
	assert.Equal(t, 0.7778, rep["exact_accuracy_without_context"])
	assert.Equal(t, 2.0, rep["intents"])
	assert.Equal(t, 1.0, rep["keyword_intents"])
	assert.Equal(t, 3.0, rep["templates"])
	assert.Equal(t, 1.0, rep["templates_rejected"])
	assert.Equal(t, 0.0, rep["intents_rejected"])
	assert.Equal(t, []any{map[string]any{"intent": "lights_on", "template": "broken (template",
		"error": "line 1 col 8: '(' is never closed by ')'"}}, rep["rejected"])
	assert.LessOrEqual(t, rep["p50_us"], rep["p95_us"])
	assert.LessOrEqual(t, rep["p95_us"], rep["max_us"])

	tiers := rep["tiers"].(map[string]any)
	assert.Equal(t, map[string]any{"claimed": 1.0, "correct": 1.0}, tiers["keywords-high"])
	assert.Equal(t, map[string]any{"claimed": 1.0, "correct": 1.0}, tiers["keywords-low"], "how is the weather: 1 word of 4")
	assert.Equal(t, map[string]any{"claimed": 3.0, "correct": 2.0}, tiers["none"])
	claimed := 0.0
	for _, v := range tiers {
		claimed += v.(map[string]any)["claimed"].(float64)
	}
	assert.Equal(t, 10.0, claimed, "every test is counted under one tier")

	var failed []string
	for _, f := range rep["failures"].([]any) {
		failed = append(failed, f.(map[string]any)["utterance"].(string))
	}
	assert.ElementsMatch(t, []string{"how is the weather", "lamp please", "turn on the light"}, failed)
}

func TestIntentsEvalReport(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"intents", "eval", "--corpus", smallCorpus}, nil, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	out := stdout.String()
	for _, want := range []string{
		"intents           2 template (3 templates, 1 rejected by the grammar), 1 keyword; 0 intents rejected",
		"tests             10 (9 without needs_context)",
		"intent accuracy   90.0% (9/10); without needs_context 88.9% (8/9)",
		"exact accuracy    70.0% (7/10); without needs_context 77.8% (7/9)",
		"match latency     p50 ",
		"keywords-high 1/1",
		"none 2/3",
		`rejected template lights_on: "broken (template": line 1 col 8`,
	} {
		assert.Contains(t, out, want)
	}
	assert.NotContains(t, out, "FAIL", "failures only with --failures")
}

// TestIntentsEvalRefusals: the report counts, per low tier, the guesses it
// refused as implausible (intent.Plausible) and how many of those would
// have been right, and each failure lists the refusals before it, so the
// cost of the rule is in plain view.
func TestIntentsEvalRefusals(t *testing.T) {
	const corpus = `{"lang": "en-us", "vocab": {"w": ["weather"]},
 "intents": {"turn_on": {"templates": ["{name} in {area}"]}, "play": {"templates": ["play {q}"]}},
 "keyword_intents": {"weather": {"required": ["w"]}},
 "tests": [
  {"utterance": "please turn the lights on in here", "intent": "turn_on"},
  {"utterance": "is the door open in the kitchen", "intent": null},
  {"utterance": "play the breaking bad tv show", "intent": "play", "slots": {"q": "the breaking bad tv show"}},
  {"utterance": "i love stormy weather", "intent": null},
  {"utterance": "weather", "intent": "weather", "slots": {"w": "weather"}}]}`
	path := filepath.Join(t.TempDir(), "refusals.json")
	require.NoError(t, os.WriteFile(path, []byte(corpus), 0o600))

	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"intents", "eval", "--corpus", path, "--json", "--failures"}, nil, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	var rep struct {
		Tiers    map[string]evalTier `json:"tiers"`
		Failures []evalFailure       `json:"failures"`
	}
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &rep))
	assert.Equal(t, map[string]evalTier{
		"templates-low": {Claimed: 1, Correct: 1, Refused: 2, RefusedRight: 1},
		"keywords-low":  {Refused: 1},
		"keywords-high": {Claimed: 1, Correct: 1},
		"none":          {Claimed: 3, Correct: 2},
	}, rep.Tiers)
	require.Len(t, rep.Failures, 1, "only the refused right answer fails")
	f := rep.Failures[0]
	assert.Equal(t, "please turn the lights on in here", f.Utterance)
	assert.Equal(t, "none", f.Tier)
	require.Len(t, f.Refused, 1)
	assert.Equal(t, "templates-low", f.Refused[0].Tier)
	assert.Equal(t, "turn_on", f.Refused[0].Intent)
	assert.Contains(t, f.Refused[0].Reason, "no evidence")

	stdout.Reset()
	code = run(context.Background(), []string{"intents", "eval", "--corpus", path, "--failures"}, nil, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	assert.Contains(t, stdout.String(), "right/claimed     keywords-high 1/1, templates-low 1/1, none 2/3")
	assert.Contains(t, stdout.String(), "refused guesses   templates-low 2 (1 would have been right), keywords-low 1 (0 would have been right)")
	assert.Contains(t, stdout.String(), "     templates-low refused turn_on at 0.57: no evidence")
}

// TestIntentsEvalBadCorpus: a bad corpus gets an error naming the file and
// the place, and exit code 1; a bad command line exit code 2.
func TestIntentsEvalBadCorpus(t *testing.T) {
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
	dir := t.TempDir()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".json")
			require.NoError(t, os.WriteFile(path, []byte(tc.corpus), 0o600))
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), []string{"intents", "eval", "--corpus", path}, nil, &stdout, &stderr)
			assert.Equal(t, 1, code)
			assert.Contains(t, stderr.String(), "corpus "+path+": ")
			assert.Contains(t, stderr.String(), tc.want)
			assert.Empty(t, stdout.String(), "nothing measured from a bad corpus")
		})
	}

	var stdout, stderr bytes.Buffer
	assert.Equal(t, 2, run(context.Background(), []string{"intents", "eval"}, nil, &stdout, &stderr), "--corpus required")
	assert.Contains(t, stderr.String(), "want --corpus FILE")
	assert.Equal(t, 1, run(context.Background(), []string{"intents", "eval", "--corpus", filepath.Join(dir, "missing.json")}, nil, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "reading corpus: open ")
}

// TestProgressOnlyOnTerminal: the bar is drawn only on a character device.
func TestProgressOnlyOnTerminal(t *testing.T) {
	assert.Nil(t, progressTo(&bytes.Buffer{}))
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	require.NoError(t, err)
	defer f.Close()
	assert.Nil(t, progressTo(f), "a regular file is not a terminal")
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	require.NoError(t, err)
	defer null.Close()
	assert.NotNil(t, progressTo(null), "character devices get the bar")
}

// TestRobotCorpusLoads keeps the development corpus valid and its keyword
// intents registrable.
func TestRobotCorpusLoads(t *testing.T) {
	c, err := loadCorpus("../../testdata/corpus/robot_en.json")
	require.NoError(t, err)
	assert.GreaterOrEqual(t, len(c.Intents)+len(c.KeywordIntents), 40)
	assert.GreaterOrEqual(t, len(c.Tests), 300)
	rep, err := evaluate(context.Background(), c, nil)
	require.NoError(t, err)
	assert.Zero(t, rep.TemplatesRejected)
	assert.Zero(t, rep.IntentsRejected)
}

// TestRobotKeywordTiers: the robot loads the keyword engine and its tiers
// in the default pipeline, so a keyword registration on the bus (INTENT-4)
// is matched and dispatched to the skill's handler (DEF-01: both methods of
// an intent share one handler), and templates still come first.
func TestRobotKeywordTiers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := newRobot(ctx, robotConfig{Board: "sim", SpeakWPM: 0, Log: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	defer r.Close(context.Background())
	u, err := newUtterer(r.bus, "test")
	require.NoError(t, err)
	defer u.Close()

	assert.Len(t, evalPipeline(intent.NewTemplateEngine(intent.EngineOptions{}), intent.NewKeywordEngine(intent.KeywordOptions{})),
		len(defaultPipeline), "every id of the default pipeline is a loaded tier")

	reg := bus.NewMessage(intent.TopicRegisterKeyword, map[string]any{"skill_id": "jibo.basics", "intent_name": "greet",
		"lang": "en-US", "required": []any{map[string]any{"name": "wave", "samples": []any{"wave", "wave hello"}}}})
	reg.Context[bus.KeySkillID] = "jibo.basics"
	// The service answers in order, so its list answer means the
	// registration before it was handled.
	answered := make(chan bus.Message, 1)
	sub, err := r.bus.Subscribe(intent.TopicList+".response", func(_ context.Context, m bus.Message) { answered <- m })
	require.NoError(t, err)
	defer sub.Close()
	require.NoError(t, r.bus.Publish(ctx, reg))
	require.NoError(t, r.bus.Publish(ctx, bus.NewMessage(intent.TopicList, map[string]any{"skill_id": "jibo.basics"})))
	select {
	case m := <-answered:
		assert.Contains(t, m.Data["intents"], map[string]any{"skill_id": "jibo.basics", "intent_name": "greet", "lang": "en-us",
			"method": "keyword", "enabled": true, "session_id": "default"})
	case <-ctx.Done():
		t.Fatal("no answer to ovos.intent.list")
	}

	tests := []struct{ utterance, pipelineID string }{
		{"hello", "templates-high"},
		{"wave hello", "keywords-high"},
		{"give us a little wave", "keywords-low"},
	}
	for _, tc := range tests {
		_, msgs, err := u.Say(ctx, tc.utterance)
		require.NoError(t, err)
		var matched *bus.Message
		for i := range msgs {
			if msgs[i].Type == pipeline.TopicMatched {
				matched = &msgs[i]
			}
		}
		require.NotNil(t, matched, "%q matched", tc.utterance)
		assert.Equal(t, tc.pipelineID, matched.Data["pipeline_id"], tc.utterance)
		assert.Equal(t, "greet", matched.Data["intent_name"], tc.utterance)
		assert.Contains(t, types(msgs), pipeline.TopicHandlerDone, "%q: the skill's handler ran", tc.utterance)
	}
}

func types(msgs []bus.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Type
	}
	return out
}
