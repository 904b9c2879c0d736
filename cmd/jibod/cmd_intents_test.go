package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/console"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/runtime"
)

const smallCorpus = "../../testdata/corpus/small_en.json"

// TestIntentsEvalJSON: --json prints the report as one object
// (intenttool's tests check its figures), with no progress bar when
// standard error is not a terminal.
func TestIntentsEvalJSON(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), testTrainer, []string{"intents", "eval", "--corpus", smallCorpus, "--json", "--failures", "--paraphrase=false"}, nil, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	assert.Empty(t, stderr.String(), "no progress bar when stderr is not a terminal")
	var rep map[string]any
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &rep), "--json prints one object")
	for _, k := range []string{"tests", "intent_accuracy", "exact_accuracy", "p50_us", "p95_us", "build_ms", "heap_mb", "tiers", "failures"} {
		assert.Contains(t, rep, k)
	}
	assert.Equal(t, 0.9, rep["intent_accuracy"])
	assert.NotContains(t, rep, "learn_ms", "--paraphrase=false: the engines alone")
}

func TestIntentsEvalReport(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), testTrainer, []string{"intents", "eval", "--corpus", smallCorpus}, nil, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	out := stdout.String()
	for _, want := range []string{
		"intents           2 template (3 templates, 1 rejected by the grammar), 1 keyword; 0 intents rejected",
		"tests             10 (9 without needs_context)",
		"intent accuracy   90.0% (9/10); without needs_context 88.9% (8/9)",
		"exact accuracy    70.0% (7/10); without needs_context 77.8% (7/9)",
		"match latency     p50 ",
		"intents-high 4/4",
		"none 2/3",
		"calibration       best candidate's score: right/tests",
		`rejected template lights_on: "broken (template": line 1 col 8`,
	} {
		assert.Contains(t, out, want)
	}
	assert.NotContains(t, out, "FAIL", "failures only with --failures")
}

// TestIntentsEvalBadCorpus: a bad corpus gets an error naming the file and
// the place, and exit code 1; a bad command line exit code 2.
func TestIntentsEvalBadCorpus(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"lang": "en-us", "tests": []}`), 0o600))
	var stdout, stderr bytes.Buffer
	assert.Equal(t, 1, run(context.Background(), testTrainer, []string{"intents", "eval", "--corpus", path}, nil, &stdout, &stderr))
	assert.Equal(t, "jibod intents: corpus "+path+": no intents and no keyword_intents: nothing to evaluate\n", stderr.String())
	assert.Empty(t, stdout.String(), "nothing measured from a bad corpus")

	dir := t.TempDir()
	stderr.Reset()
	assert.Equal(t, 2, run(context.Background(), testTrainer, []string{"intents", "eval"}, nil, &stdout, &stderr), "--corpus required")
	assert.Contains(t, stderr.String(), "want --corpus FILE")
	assert.Equal(t, 1, run(context.Background(), testTrainer, []string{"intents", "eval", "--corpus", filepath.Join(dir, "missing.json")}, nil, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "reading corpus: open ")
}

// TestRobotKeywordIntents: the robot's intent stack has the keyword
// engine, so a keyword registration on the bus (INTENT-4) is matched and
// dispatched to the skill's handler (DEF-01: both methods of an intent
// share one handler), ranked with the templates by calibrated score.
func TestRobotKeywordIntents(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := newTestRobot(ctx, runtime.Config{Board: "sim", SpeakWPM: 0, Log: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	defer r.Close(context.Background())
	u, err := console.NewUtterer(r.Bus(), "test")
	require.NoError(t, err)
	defer u.Close()

	reg := bus.NewMessage(intent.TopicRegisterKeyword, map[string]any{"skill_id": "jibo.basics", "intent_name": "greet",
		"lang": "en-US", "required": []any{map[string]any{"name": "wave", "samples": []any{"wave", "wave hello"}}}})
	reg.Context[bus.KeySkillID] = "jibo.basics"
	// The service answers in order, so its list answer means the
	// registration before it was handled.
	answered := make(chan bus.Message, 1)
	sub, err := r.Bus().Subscribe(intent.TopicList+".response", func(_ context.Context, m bus.Message) { answered <- m })
	require.NoError(t, err)
	defer sub.Close()
	require.NoError(t, r.Bus().Publish(ctx, reg))
	require.NoError(t, r.Bus().Publish(ctx, bus.NewMessage(intent.TopicList, map[string]any{"skill_id": "jibo.basics"})))
	select {
	case m := <-answered:
		assert.Contains(t, m.Data["intents"], map[string]any{"skill_id": "jibo.basics", "intent_name": "greet", "lang": "en-us",
			"method": "keyword", "enabled": true, "session_id": "default"})
	case <-ctx.Done():
		t.Fatal("no answer to ovos.intent.list")
	}

	tests := []struct{ utterance, pipelineID string }{
		{"hello", "intents-high"},
		{"wave hello", "intents-high"},
		{"give us a wave", "intents-medium"},
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
