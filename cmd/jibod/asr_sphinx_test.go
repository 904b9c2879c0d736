//go:build sphinx

package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/openjibo/jibod/audio/sphinx"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTrimFromEnv(t *testing.T) {
	tests := []struct {
		value string
		want  time.Duration
		err   string
	}{
		{"", 0, ""},
		{"off", -1, ""},
		{"150", 150 * time.Millisecond, ""},
		{"2000", 2 * time.Second, ""},
		{"0", 0, "JIBOD_SPHINX_TRIM_MS=\"0\": want off or a number of milliseconds from 1 to 2000"},
		{"2001", 0, "from 1 to 2000"},
		{"lots", 0, "from 1 to 2000"},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			t.Setenv(envSphinxTrim, tt.value)
			got, err := trimFromEnv()
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestModelDir(t *testing.T) {
	state := t.TempDir()
	t.Setenv(envSphinxModel, "")
	assert.Equal(t, sphinx.DefaultModelDir, modelDir(""), "no state folder: Debian's model")
	assert.Equal(t, sphinx.DefaultModelDir, modelDir(state), "no adapted model in the state folder")

	adapted := filepath.Join(state, adaptedModelName)
	require.NoError(t, os.MkdirAll(adapted, 0o755))
	assert.Equal(t, sphinx.DefaultModelDir, modelDir(state), "a folder without its provenance is not an adapted model")
	require.NoError(t, os.WriteFile(filepath.Join(adapted, sphinx.ProvenanceFile), []byte("{}\n"), 0o644))
	assert.Equal(t, adapted, modelDir(state), "the state folder's adapted model")

	t.Setenv(envSphinxModel, "/models/other")
	assert.Equal(t, "/models/other", modelDir(state), "the environment wins")
}
