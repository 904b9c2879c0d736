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

func TestNoiseFloorFromEnv(t *testing.T) {
	for _, tt := range []struct {
		value string
		want  float64
		ok    bool
	}{{"", 0, true}, {"25", 25, true}, {"60", 60, true}, {"9", 0, false}, {"NaN", 0, false}, {"deep", 0, false}} {
		t.Setenv(envSphinxNoiseFloor, tt.value)
		got, err := noiseFloorFromEnv()
		if !tt.ok {
			assert.ErrorContains(t, err, "want a number of dB from 10 to 60", tt.value)
			continue
		}
		assert.NoError(t, err, tt.value)
		assert.Equal(t, tt.want, got, tt.value)
	}
}

func TestDenoiseFromEnv(t *testing.T) {
	tests := []struct {
		value string
		want  float64
		err   string
	}{
		{"", 0, ""},
		{"off", -1, ""},
		{"12.5", 12.5, ""},
		{"40", 40, ""},
		{"0", 0, "JIBOD_SPHINX_DENOISE_DB=\"0\": want off or a number of dB from 1 to 40"},
		{"41", 0, "from 1 to 40"},
		{"loud", 0, "from 1 to 40"},
		{"NaN", 0, "from 1 to 40"},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			t.Setenv(envSphinxDenoise, tt.value)
			got, err := denoiseFromEnv()
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestPhoneLoopFromEnv: no phone loop by default; Debian's with the tuned
// margin ("on") or another margin from the environment, and a bad value
// named.
func TestPhoneLoopFromEnv(t *testing.T) {
	tests := []struct {
		value  string
		loop   string
		margin float64
		err    string
	}{
		{"", "", 0, ""},
		{"off", "", 0, ""},
		{"on", sphinx.DefaultPhoneLoop, phoneLoopMargin, ""},
		{"25.5", sphinx.DefaultPhoneLoop, 25.5, ""},
		{"0", "", 0, `JIBOD_SPHINX_PHONE_MARGIN="0": want off, on or a margin in (0, 1000]`},
		{"1001", "", 0, "want off, on or a margin"},
		{"wide", "", 0, "want off, on or a margin"},
		{"NaN", "", 0, "want off, on or a margin"},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			t.Setenv(envSphinxPhoneMargin, tt.value)
			loop, margin, err := phoneLoopFromEnv()
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.loop, loop)
			assert.Equal(t, tt.margin, margin)
		})
	}
}

// TestModelDenoise: an adapted model's noise suppression threshold, from
// its provenance; Debian's model and older adapted models take the
// recogniser's default.
func TestModelDenoise(t *testing.T) {
	dir := t.TempDir()
	assert.Zero(t, modelDenoise(dir), "Debian's model")
	require.NoError(t, os.WriteFile(filepath.Join(dir, sphinx.ProvenanceFile), []byte(`{"recordings": 3}`), 0o644))
	assert.Zero(t, modelDenoise(dir), "adapted before it was recorded")
	require.NoError(t, os.WriteFile(filepath.Join(dir, sphinx.ProvenanceFile), []byte(`{"denoise_below_snr": 15}`), 0o644))
	assert.Equal(t, 15.0, modelDenoise(dir))
	require.NoError(t, os.WriteFile(filepath.Join(dir, sphinx.ProvenanceFile), []byte(`{"denoise_below_snr": -1}`), 0o644))
	assert.Equal(t, -1.0, modelDenoise(dir), "adapted with suppression off")
}

func TestDecoysFromEnv(t *testing.T) {
	for _, v := range []string{"", "on"} {
		t.Setenv(envSphinxDecoys, v)
		phrases, words, err := decoysFromEnv()
		require.NoError(t, err)
		assert.Contains(t, phrases, "hey jhey")
		assert.Equal(t, "JH EY", words["jhey"])
	}
	t.Setenv(envSphinxDecoys, "off")
	phrases, words, err := decoysFromEnv()
	require.NoError(t, err)
	assert.Empty(t, phrases)
	assert.Empty(t, words)
	t.Setenv(envSphinxDecoys, "maybe")
	_, _, err = decoysFromEnv()
	assert.ErrorContains(t, err, `JIBOD_SPHINX_DECOYS="maybe": want on or off`)
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

// TestModelFloors: an adapted model's own rejection floors, from its
// provenance, are used with it; Debian's model and models adapted before
// floors were recorded get the defaults; a broken provenance is an error
// naming the file; $JIBOD_SPHINX_FLOORS overrides them all.
func TestModelFloors(t *testing.T) {
	write := func(t *testing.T, body string) string {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, sphinx.ProvenanceFile), []byte(body), 0o644))
		return dir
	}
	tests := []struct {
		name, dir, env string
		want           sphinx.Floors
		err            string
	}{
		{name: "Debian's model", dir: t.TempDir(), want: defaultFloors},
		{name: "adapted before floors were recorded", dir: write(t, `{"recordings": 3}`), want: defaultFloors},
		{name: "adapted with its floors", dir: write(t, `{"floors": {"confidence": 0.7, "coverage": 0.75, "wake_confidence": 0.97, "wake_coverage": 0.8}}`),
			want: sphinx.Floors{MinConfidence: 0.7, MinCoverage: 0.75, WakeMinConfidence: 0.97, WakeMinCoverage: 0.8}},
		{name: "a floor out of range", dir: write(t, `{"floors": {"confidence": 1.5}}`), err: "floor confidence 1.5 is not in [0, 1]"},
		{name: "not JSON", dir: write(t, `{"floors": `), err: sphinx.ProvenanceFile},
		{name: "the environment wins", dir: write(t, `{"floors": {"wake_confidence": 0.97}}`), env: "0.1,0.2,0.3,0.4",
			want: sphinx.Floors{MinConfidence: 0.1, MinCoverage: 0.2, WakeMinConfidence: 0.3, WakeMinCoverage: 0.4}},
		{name: "a bad environment", dir: t.TempDir(), env: "0.1,0.2", err: "want four numbers"},
		{name: "noise suppression out of range", dir: write(t, `{"denoise_below_snr": 41}`), err: "noise suppression below 41 dB: over 40"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(envSphinxFloors, tt.env)
			got, err := modelFloors(tt.dir)
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
