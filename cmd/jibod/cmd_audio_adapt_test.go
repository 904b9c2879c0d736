//go:build sphinx

package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAudioAdaptLogs: what jibod audio adapt leaves out is said through
// its logger, at the level asked for, not printed past it.
func TestAudioAdaptLogs(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.wav"), []byte("RIFF....WAVEjunk"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "manifest.jsonl"),
		[]byte(`{"file":"bad.wav","text":"what time is it","kind":"command"}`+"\n"), 0o644))
	out := filepath.Join(t.TempDir(), "model")

	code, _, stderr := runCmd(t, "audio", "adapt", "--dir", dir, "--out", out)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, `level=WARN msg="adapting the acoustic model: recording skipped" why="`+filepath.Join(dir, "bad.wav")+": bad WAV")
	assert.Contains(t, stderr, "jibod audio: adapting the acoustic model: no usable recording")

	code, _, stderr = runCmd(t, "audio", "adapt", "--dir", dir, "--out", out, "--log-level", "error")
	assert.Equal(t, 1, code)
	assert.NotContains(t, stderr, "skipped", "warnings held back at --log-level error")
	assert.NoDirExists(t, out)
}
