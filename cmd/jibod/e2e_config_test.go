package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A configuration file given with --config or $JIBOD_CONFIG runs the
// robot as the flags would; a flag overrides it (docs/config.md).
func TestRunFromConfigFile(t *testing.T) {
	dir := t.TempDir()
	trace, other := filepath.Join(dir, "trace.jsonl"), filepath.Join(dir, "other.jsonl")
	cfg := filepath.Join(dir, "jibod.json")
	require.NoError(t, os.WriteFile(cfg, []byte(`{"input": "stdin", "speak_wpm": 0, "trace": "`+trace+`",
		"shell": {"socket": "off"}, "sphinx": {"nbest": 2}}`), 0o600))

	stdout, stderr, code := runJibod(t, "hello\n", "run", "--config", cfg)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "jibo: ", "stdin from the file: the robot answered")
	assert.NotEmpty(t, readTrace(t, trace), "the file's trace")

	t.Setenv("JIBOD_CONFIG", cfg)
	_, stderr, code = runJibod(t, "hello\n", "run", "--trace", other)
	require.Equal(t, 0, code, stderr)
	assert.NotEmpty(t, readTrace(t, other), "--trace overrides the file's")
}

// A wrong configuration file stops the run before anything starts,
// naming the file and each wrong field; a wrong flag names the flag and
// the field.
func TestRunRefusesABadConfigFile(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "jibod.json")
	require.NoError(t, os.WriteFile(cfg, []byte(`{"input": "stdin", "audio": {"command_window": "90m"}, "sphinx": {"trim_ms": 5000}}`), 0o600))
	_, stderr, code := runJibod(t, "", "run", "--config", cfg)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "config "+cfg+": audio.command_window: 1h30m0s: want 1s..5m0s\n")
	assert.Contains(t, stderr, "config "+cfg+": sphinx.trim_ms 5000: want off or a whole number of milliseconds from 1 to 2000\n")

	_, stderr, code = runJibod(t, "", "run", "--config", filepath.Join(t.TempDir(), "missing.json"))
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "no such file")

	_, stderr, code = runJibod(t, "", "run", "--input", "stdin", "--speak-wpm", "5000")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "speak_wpm (--speak-wpm) 5000: want -1 (the profile's rate) or 0..1000 words per minute")

	t.Setenv("JIBOD_SPHINX_NBEST", "99")
	_, stderr, code = runJibod(t, "", "run", "--input", "stdin")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "$JIBOD_SPHINX_NBEST 99: want 1 to 20")
}
