package main

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/pipeline/scenario"
	"github.com/openjibo/jibod/core/runtime"
)

// TestScenarioFiles runs every scenario under testdata/scenarios and checks
// the topic sequence it prints against the .expected file next to it, so the
// README's examples cannot rot. Each file covers a path of spec/ovos.md §13
// (A–G) or a requirement named in its first comment line.
func TestScenarioFiles(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "scenarios", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".json"), func(t *testing.T) {
			t.Parallel()
			ef, err := os.Open(strings.TrimSuffix(file, ".json") + ".expected")
			require.NoError(t, err, "every scenario has an .expected file")
			defer ef.Close()
			want, err := scenario.ParseExpected(ef)
			require.NoError(t, err)

			var stdout, stderr bytes.Buffer
			code := run(context.Background(), testTrainer, []string{"scenario", "run", "--summary", file}, nil, &stdout, &stderr)
			require.Equal(t, 0, code, stderr.String())
			got := strings.Split(strings.TrimSpace(stdout.String()), "\n")
			assert.Empty(t, want.Diff(got), "got:\n%s", stdout.String())
		})
	}
}

func TestScenarioCovers13(t *testing.T) {
	// Every terminal path of spec/ovos.md §13 has at least one scenario.
	for _, path := range []string{"a_", "b_", "c_", "d_", "e_", "f_", "g_"} {
		m, err := filepath.Glob(filepath.Join("..", "..", "testdata", "scenarios", path+"*.json"))
		require.NoError(t, err)
		assert.NotEmpty(t, m, "§13.%s has a scenario", strings.ToUpper(path[:1]))
	}
}

func TestScenarioJSONLines(t *testing.T) {
	file := filepath.Join("..", "..", "testdata", "scenarios", "a_matched_completes.json")
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run(context.Background(), testTrainer, []string{"scenario", "run", file}, nil, &stdout, &stderr), stderr.String())
	lines, err := scenario.Summarize(&stdout)
	require.NoError(t, err, "standard output is one JSON message per line")
	assert.Equal(t, "1 ovos.utterance.handle", lines[0])
	assert.Equal(t, "1 ovos.utterance.handled", lines[len(lines)-1])
}

func TestScenarioUsageAndBadFiles(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"plugins": {"a.b": {}}, "steps": [{"emit": {"type": "x"}}]}`), 0o644))
	unknown := filepath.Join(dir, "unknown.json")
	require.NoError(t, os.WriteFile(unknown, []byte(`{"steps": [{"emit": {"type": "x"}, "after": 3}]}`), 0o644))
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"scenario"}, 2, "missing command"},
		{[]string{"scenario", "fly"}, 2, `unknown command "fly"`},
		{[]string{"scenario", "run"}, 2, "exactly one scenario file"},
		{[]string{"scenario", "run", filepath.Join(dir, "none.json")}, 1, "opening scenario"},
		{[]string{"scenario", "run", bad}, 1, "plugins.a.b: pipeline id"},
		{[]string{"scenario", "run", unknown}, 1, `steps[0]: json: unknown field "after"`},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		assert.Equal(t, tt.code, run(context.Background(), testTrainer, tt.args, nil, &stdout, &stderr), tt.args)
		assert.Contains(t, stderr.String(), tt.want, tt.args)
	}
}

// TestRobotPipeline: the robot's default pipeline, from the intent stack's
// order policy, puts stop and converse first and each fallback stage after
// its band, and every id in it is a loaded plugin, which answers its
// intents.list query (PIPE-31: silence would mean not loaded).
func TestRobotPipeline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := newTestRobot(ctx, runtime.Config{Board: "sim", SpeakWPM: 0, Log: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	defer r.Close(context.Background())
	assert.Equal(t, []string{"stop", "converse", "intents-high", "paraphrase", "fallback-high",
		"intents-medium", "fallback-medium", "intents-low", "fallback-low", "fallback-unknown"}, r.Pipeline())
	assert.Equal(t, []string{"fallback-low", "hub-fallback", "fallback-unknown"}, r.Intents().Pipeline("hub-fallback")[8:],
		"the cloud hub's stage goes after the robot's own, before fallback-unknown")
	answered := make(chan string, 32)
	sub, err := r.Bus().Subscribe("ovos.pipeline.*", func(_ context.Context, m bus.Message) {
		if strings.HasSuffix(m.Type, ".intents.list.response") {
			answered <- m.DataString("pipeline_id")
		}
	})
	require.NoError(t, err)
	defer sub.Close()
	for _, id := range r.Pipeline() {
		require.NoError(t, r.Bus().Publish(ctx, bus.NewMessage("ovos.pipeline."+id+".intents.list", nil)))
	}
	var got []string
	for range r.Pipeline() {
		select {
		case id := <-answered:
			got = append(got, id)
		case <-ctx.Done():
			t.Fatalf("only %v answered", got)
		}
	}
	assert.ElementsMatch(t, r.Pipeline(), got)
}
