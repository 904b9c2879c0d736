//go:build !sphinx

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openjibo/jibod/audio/eval"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The pure build cannot recognise speech and says how to get a build that
// can, before opening any audio.
func TestRunAudioWithoutRecognizer(t *testing.T) {
	wav := filepath.Join("..", "..", "audio", "testdata", "hey_jibo_what_time.wav")
	_, stderr, code := runJibod(t, "", "run", "--audio", "file:"+wav, "--input", "none", "--state", "none")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "this build has no speech recognition; build with -tags sphinx")
}

// TestAudioEvalNeedsSpeechRecognition: the pure build's audio eval says
// what is missing instead of measuring nothing.
func TestAudioEvalNeedsSpeechRecognition(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, eval.ManifestName), []byte(`{"file":"a.wav","text":"hello","wake":false}`+"\n"), 0o644))
	var out, errb bytes.Buffer
	code := run(context.Background(), testTrainer, []string{"audio", "eval", "--dir", dir}, strings.NewReader(""), &out, &errb)
	assert.Equal(t, 1, code)
	assert.Contains(t, errb.String(), "no speech recognition; build with -tags sphinx")
}
