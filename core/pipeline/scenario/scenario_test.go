package scenario

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/pipeline"
)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

const step = `"steps": [{"emit": {"type": "ovos.utterance.handle", "data": {"utterances": ["hi"]}}}]`

func TestParseRefusesBadFiles(t *testing.T) {
	tests := []struct {
		name, file, want string
	}{
		{"not JSON", `{`, "scenario: unexpected EOF"},
		{"unknown top-level key", `{"stepz": [], ` + step + `}`, `scenario: json: unknown field "stepz"`},
		{"no steps", `{}`, "steps: a scenario needs at least one step"},
		{"bad config value", `{"config": {"handler_timeout_ms": -1}, ` + step + `}`, "config: handler_timeout_ms -1: want 0..60000"},
		{"bad language", `{"config": {"enabled_langs": ["english"]}, ` + step + `}`, `config: enabled_langs[0] "english" is not a BCP-47 tag`},
		{"bad plugin id (PIPE-04)", `{"plugins": {"a.b": {}}, ` + step + `}`, "plugins.a.b: pipeline id"},
		{"unknown builtin", `{"plugins": {"x": {"builtin": "magic"}}, ` + step + `}`, `plugins.x: builtin "magic"`},
		{"builtin with a script", `{"plugins": {"stop": {"builtin": "stop", "fail": true}}, ` + step + `}`, "plugins.stop: builtin stop takes no match"},
		{"engine tiers are intent bands now", `{"plugins": {"templates-high": {"builtin": "templates"}}, ` + step + `}`,
			`plugins.templates-high: builtin "templates": want stop, converse, fallback or intents`},
		{"unknown match field", `{"plugins": {"x": {"match": {"skill": "a"}}}, ` + step + `}`, `plugins.x: match: unknown field "skill"`},
		{"dialog chain", `{"transformers": {"dialog": []}, ` + step + `}`, "transformers.dialog: want utterance, metadata or intent"},
		{"bad transformer id (TRF-01)", `{"transformers": {"utterance": [{"id": "a:b"}]}, ` + step + `}`, "transformers.utterance[0]: transformer id"},
		{"field of another chain", `{"transformers": {"metadata": [{"id": "m", "utterances": []}]}, ` + step + `}`, "transformers.metadata[0]: utterances and lang belong"},
		{"handler key", `{"handlers": {"nocolon": {}}, ` + step + `}`, `handlers.nocolon: a handler key is "<skill_id>:<intent_name>"`},
		{"handler outcome", `{"handlers": {"a:b": {"outcome": "explode"}}, ` + step + `}`, `handlers.a:b: outcome "explode"`},
		{"error without outcome error", `{"handlers": {"a:b": {"error": "x"}}, ` + step + `}`, `handlers.a:b: error is the message of outcome "error"`},
		{"empty speak", `{"handlers": {"a:b": {"speak": [{"utterance": ""}]}}, ` + step + `}`, "handlers.a:b: speak[0]: utterance is empty"},
		{"bad skill id", `{"skills": {"a:b": {}}, ` + step + `}`, "skills.a:b: a skill id is non-empty"},
		{"step without emit", `{"steps": [{"after_ms": 3}]}`, "steps[0]: emit is required"},
		{"bad topic (MSG-04)", `{"steps": [{"emit": {"type": "a..b"}}]}`, "steps[0]: emit: malformed message"},
		{"bad wait_for", `{"steps": [{"wait_for": "x y", "emit": {"type": "a"}}]}`, "steps[0]: wait_for:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tt.file))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	_, err := Parse(strings.NewReader(`{"steps": [` + strings.Repeat(`{"emit": {"type": "a"}},`, MaxSteps) + `{"emit": {"type": "a"}}]}`))
	assert.ErrorContains(t, err, "limit 1000")
	_, err = Parse(bytes.NewReader(make([]byte, MaxFileBytes+1)))
	assert.ErrorContains(t, err, "over 1048576 bytes")
}

func TestBuildMatchKeepsMalformedFields_PIPE07(t *testing.T) {
	m := buildMatch(map[string]any{"skill_id": "s", "intent_name": "i"}, []string{"first", "second"}, "en-US")
	assert.Equal(t, &pipeline.Match{SkillID: "s", IntentName: "i", Lang: "en-US", Slots: map[string]string{}, Utterance: "first"}, m,
		"omitted fields take the round's defaults")
	m = buildMatch(map[string]any{"skill_id": 3.0, "slots": map[string]any{"a": 1.0}, "lang": nil}, []string{"x"}, "en-US")
	assert.Equal(t, "", m.SkillID, "a wrong-typed field is not repaired")
	assert.Nil(t, m.Slots)
	assert.Equal(t, "", m.Lang)
	m = buildMatch(map[string]any{"slots": nil}, []string{"x"}, "en-US")
	assert.Nil(t, m.Slots, "explicit null slots stay missing")
}

func runFile(t *testing.T, file string) ([]string, error) {
	t.Helper()
	f, err := Parse(strings.NewReader(file))
	require.NoError(t, err)
	var out bytes.Buffer
	runErr := Run(context.Background(), f, &out, Options{Logger: quiet()})
	lines, err := Summarize(&out)
	require.NoError(t, err)
	return lines, runErr
}

// TestRunDeadline runs in a bubble: the 100 ms deadline passes on its
// clock only once the handler hangs, however busy the machine is.
func TestRunDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lines, err := runFile(t, `{"config": {"deadline_ms": 100, "handler_timeout_ms": 5000, "default_pipeline": ["p"]},
		"plugins": {"p": {"match": {"skill_id": "s", "intent_name": "i"}}},
		"handlers": {"s:i": {"outcome": "hang"}}, `+step+`}`)
		assert.True(t, errors.Is(err, ErrDeadline), "%v", err)
		assert.Contains(t, err.Error(), "1 lifecycles still running")
		assert.Contains(t, lines, "1 s:i", "what happened before the deadline is still written")
	})
}

func TestRunOverlappingSteps(t *testing.T) {
	lines, err := runFile(t, `{"config": {"default_pipeline": ["p"]},
		"plugins": {"p": {"match": {"skill_id": "s", "intent_name": "i"}}},
		"handlers": {"s:i": {"delay_ms": 50}},
		"steps": [{"emit": {"type": "ovos.utterance.handle", "data": {"utterances": ["one"]}, "context": {"session": {"session_id": "a"}}}},
		          {"overlap": true, "emit": {"type": "ovos.utterance.handle", "data": {"utterances": ["two"]}, "context": {"session": {"session_id": "b"}}}}]}`)
	require.NoError(t, err)
	e := Expected{PerStep: true, Lines: []string{
		"1 ovos.utterance.handle", "1 ovos.intent.matched", "1 s:i", "1 ovos.intent.handler.start", "1 ovos.intent.handler.complete", "1 ovos.utterance.handled",
		"2 ovos.utterance.handle", "2 ovos.intent.matched", "2 s:i", "2 ovos.intent.handler.start", "2 ovos.intent.handler.complete", "2 ovos.utterance.handled"}}
	assert.Empty(t, e.Diff(lines), "each step's own sequence is whole, however the two interleave")
}

func TestParseExpected(t *testing.T) {
	e, err := ParseExpected(strings.NewReader("# comment\n#! per-step\n\n1 a\n  2   b \n"))
	require.NoError(t, err)
	assert.Equal(t, Expected{Lines: []string{"1 a", "2 b"}, PerStep: true}, e)
	_, err = ParseExpected(strings.NewReader("1 a b\n"))
	assert.ErrorContains(t, err, "expected line 1")
	assert.Equal(t, `line 2: got "1 c", want "1 b"`, Expected{Lines: []string{"1 a", "1 b"}}.Diff([]string{"1 a", "1 c"}))
	assert.Equal(t, `line 2: missing "1 b" (got end)`, Expected{Lines: []string{"1 a", "1 b"}}.Diff([]string{"1 a"}))

	e, err = ParseExpected(strings.NewReader("#! loose pong\n1 ping\n1 pong\n1 pong\n1 done\n"))
	require.NoError(t, err)
	assert.Empty(t, e.Diff([]string{"1 ping", "1 pong", "1 done", "1 pong"}), "a loose type may come anywhere in its step")
	assert.Equal(t, `"1 pong": got 1, want 2`, e.Diff([]string{"1 ping", "1 pong", "1 done"}))
	assert.Equal(t, `"2 pong": got 1, want 0`, e.Diff([]string{"1 ping", "1 pong", "1 pong", "1 done", "2 pong"}))
}

func TestParseScenarioAdditions(t *testing.T) {
	tests := []struct{ name, file, want string }{
		{"mutate_session on a builtin", `{"plugins": {"stop": {"builtin": "stop", "mutate_session": {"a": 1}}}, ` + step + `}`,
			"plugins.stop: builtin stop takes no match, delay_ms, fail, panic, ignore_cancel or mutate_session"},
		{"mutate_session not an object", `{"plugins": {"p": {"mutate_session": [1]}}, ` + step + `}`, "plugins.p: json: cannot unmarshal array"},
		{"stop_pong not an object", `{"skills": {"s": {"stop_pong": "true"}}, ` + step + `}`, "skills.s: json: cannot unmarshal string"},
		{"fallback_pong without fallback", `{"skills": {"s": {"fallback_pong": {"can_handle": 1}}}, ` + step + `}`,
			"skills.s: fallback_pong answers the fallback ping, which only a skill with fallback_priority gets"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tt.file))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// runMessages runs a scenario file and returns every bus message it
// printed.
func runMessages(t *testing.T, path string) []map[string]any {
	t.Helper()
	file, err := os.Open(path)
	require.NoError(t, err)
	defer file.Close()
	f, err := Parse(file)
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, Run(context.Background(), f, &out, Options{Logger: quiet()}))
	var msgs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m))
		msgs = append(msgs, m)
	}
	return msgs
}

func ofType(msgs []map[string]any, typ string) []map[string]any {
	var out []map[string]any
	for _, m := range msgs {
		if m["type"] == typ {
			out = append(out, m)
		}
	}
	return out
}

// TestMalformedPongScenario_STOP04_CONV06: the scripted skill's pongs go
// out as written, for the round's own utterance_id, and never claim.
func TestMalformedPongScenario_STOP04_CONV06(t *testing.T) {
	msgs := runMessages(t, "../../../testdata/scenarios/malformed_pongs.json")
	for _, topic := range []string{pipeline.TopicConversePong, pipeline.TopicStopPong} {
		pongs := ofType(msgs, topic)
		require.Len(t, pongs, 2, topic)
		assert.Equal(t, map[string]any{"skill_id": "music", "can_handle": "true"}, pongs[0]["data"], topic)
		ping := ofType(msgs, strings.Replace(topic, ".pong", ".ping", 1))[0]
		uid := func(m map[string]any) any { return m["context"].(map[string]any)["utterance_id"] }
		assert.Equal(t, uid(ping), uid(pongs[0]), "the round's own utterance_id")
	}
	var dispatched []string
	for _, m := range msgs {
		if typ := m["type"].(string); typ == "news:converse" || typ == "news:stop" || typ == "music:converse" || typ == "music:stop" {
			dispatched = append(dispatched, typ)
		}
	}
	assert.Equal(t, []string{"news:converse", "news:stop"}, dispatched)
}

// TestPluginSessionMutationScenario_PIPE08: what declining plugins changed
// in place appears nowhere: not in the dispatch, not in the session the
// round ends with, not in the next round.
func TestPluginSessionMutationScenario_PIPE08(t *testing.T) {
	msgs := runMessages(t, "../../../testdata/scenarios/plugin_session_mutation.json")
	checked := 0
	for _, m := range msgs {
		if m["type"] != "timer:set" && m["type"] != pipeline.TopicHandled {
			continue
		}
		checked++
		sess := m["context"].(map[string]any)["session"].(map[string]any)
		for _, f := range []string{"note", "blacklisted_skills", "blacklisted_intents", "pipeline"} {
			assert.NotContains(t, sess, f, "%s carries no %s", m["type"], f)
		}
	}
	assert.Equal(t, 4, checked, "two dispatches, two handled")
}
