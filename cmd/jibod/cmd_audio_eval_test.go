package main

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openjibo/jibod/audio/eval"
	"github.com/openjibo/jibod/core/runtime"
	"github.com/openjibo/jibod/core/runtime/hearing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAudioEvalCommandLine(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, eval.ManifestName), []byte(`{"file":"a.wav","text":"hello","wake":false}`+"\n"), 0o644))
	bad := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bad, eval.ManifestName), []byte(`{"file":"../a.wav","text":"hello"}`+"\n"), 0o644))
	tests := []struct {
		name string
		args []string
		code int
		err  string
	}{
		{"no folder", []string{"audio", "eval"}, 2, "want --dir DIR"},
		{"bad wake method", []string{"audio", "eval", "--dir", dir, "--wake", "vibes"}, 2, "want detector, grammar, spotter or both"},
		{"wake only is the detector's", []string{"audio", "eval", "--dir", dir, "--wake-only", "--wake", "grammar"}, 2, "--wake-only measures --wake detector"},
		{"bad wake threshold", []string{"audio", "eval", "--dir", dir, "--wake-threshold", "1.5"}, 2, "--wake-threshold 1.5"},
		{"bad threshold", []string{"audio", "eval", "--dir", dir, "--kws-threshold", "2"}, 2, "kws-threshold"},
		{"bad vad", []string{"audio", "eval", "--dir", dir, "--vad-threshold", "100"}, 2, "threshold"},
		{"edge over the threshold", []string{"audio", "eval", "--dir", dir, "--vad-threshold", "6", "--vad-edge-threshold", "8"}, 2, "edge threshold 8 dB outside 1..6"},
		{"pre-roll too long", []string{"audio", "eval", "--dir", dir, "--vad-pre-roll", "3s"}, 2, "vad: pre-roll 3s outside 0..2s"},
		{"bad manifest", []string{"audio", "eval", "--dir", bad}, 1, "manifest line 1: file \"../a.wav\""},
		{"no manifest", []string{"audio", "eval", "--dir", t.TempDir()}, 1, "reading the manifest"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), testTrainer, tt.args, strings.NewReader(""), &out, &errb)
			assert.Equal(t, tt.code, code, errb.String())
			assert.Contains(t, errb.String(), tt.err)
		})
	}
}

// --wake-only measures the wake word detector in any build, the pure one
// included: "hey jibo, what time is it" wakes it, a decoy does not.
func TestAudioEvalWakeOnly(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"hey_jibo_what_time.wav", "hey_jimbo_decoy.wav"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "audio", "testdata", f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), b, 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, eval.ManifestName), []byte(
		`{"file":"hey_jibo_what_time.wav","text":"hey jibo what time is it","wake":true,"kind":"command","noise":"clean"}`+"\n"+
			`{"file":"hey_jimbo_decoy.wav","text":"hey jimbo where did you leave the car keys","wake":false,"kind":"decoy","noise":"clean"}`+"\n"), 0o644))
	var out, errb bytes.Buffer
	code := run(context.Background(), testTrainer, []string{"audio", "eval", "--dir", dir, "--wake-only", "--quiet"}, strings.NewReader(""), &out, &errb)
	require.Equal(t, 0, code, errb.String())
	assert.Contains(t, out.String(), "wake hits         100.0 % (1 of 1)")
	assert.Contains(t, out.String(), "false wakes       0.0 per hour")
	assert.Contains(t, out.String(), "wake word CPU")
	assert.NotContains(t, out.String(), "command accuracy")
}

// TestEngineUnderstander: commands are scored with the robot's intent
// engines, first match wins.
func TestEngineUnderstander(t *testing.T) {
	ctx := context.Background()
	r, err := newTestRobot(ctx, runtime.Config{Board: "sim", SpeakWPM: 0, StateDir: runtime.NoState, Log: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	defer r.Close(ctx)
	u := &hearing.Understander{Intents: r.Intents(), Lang: "en-us"}
	m, ok, err := u.Understand(ctx, "set the volume to seven")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, eval.Meaning{Intent: "jibo.volume:volume_set", Slots: map[string]string{"level": "seven"},
		Read: map[string]string{"level": "7"}}, m, "the level as the volume skill reads it")
	_, ok, err = u.Understand(ctx, "flibbertigibbet")
	require.NoError(t, err)
	assert.False(t, ok)
}

// TestRobotGrammar: the speech grammar built from the running robot's
// registrations holds every built-in skill's commands and the wake
// phrase, and leaves nothing out.
func TestRobotGrammar(t *testing.T) {
	ctx := context.Background()
	r, err := newTestRobot(ctx, runtime.Config{Board: "sim", SpeakWPM: 0, StateDir: runtime.NoState, Log: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	defer r.Close(ctx)
	g, err := hearing.CommandGrammar(r.Intents(), "en-US")
	require.NoError(t, err)
	assert.Empty(t, g.Dropped())
	for _, s := range []string{"hey jibo", "hey jibo what time is it", "set a timer for ten minutes", "louder", "what can you do"} {
		assert.True(t, g.Accepts(s), s)
	}
}
