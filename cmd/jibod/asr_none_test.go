//go:build !sphinx

package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The pure build cannot recognise speech and says how to get a build that
// can, before opening any audio.
func TestRunAudioWithoutRecognizer(t *testing.T) {
	wav := filepath.Join("..", "..", "audio", "testdata", "hey_jibo_what_time.wav")
	_, stderr, code := runJibod(t, "", "run", "--audio", "file:"+wav, "--input", "none", "--state", "none")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "this build has no speech recognition; build with -tags sphinx")
}
