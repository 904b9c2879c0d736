//go:build sphinx

package hearing

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/openjibo/jibod/audio/sphinx"
	"github.com/openjibo/jibod/core/runtime/config"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// settings are the speech settings the environment gives, as run reads
// them (config.Run.ApplyEnv).
func settings(t *testing.T, env map[string]string) (config.Sphinx, error) {
	t.Helper()
	var c config.Run
	err := c.ApplyEnv(func(k string) string { return env[k] })
	return c.Sphinx, err
}

// TestSettingsFromTheEnvironment: the JIBOD_SPHINX_* variables still
// reach the recogniser, through the typed config; a bad one is named.
func TestSettingsFromTheEnvironment(t *testing.T) {
	tests := []struct {
		name, env, value string
		trim             time.Duration
		denoise, floor   float64
		err              string
	}{
		{name: "unset", env: config.EnvSphinxTrim},
		{name: "trim off", env: config.EnvSphinxTrim, value: "off", trim: -1},
		{name: "trim 150", env: config.EnvSphinxTrim, value: "150", trim: 150 * time.Millisecond},
		{name: "trim 2000", env: config.EnvSphinxTrim, value: "2000", trim: 2 * time.Second},
		{name: "trim 0", env: config.EnvSphinxTrim, value: "0", err: "$JIBOD_SPHINX_TRIM_MS"},
		{name: "trim 2001", env: config.EnvSphinxTrim, value: "2001", err: "from 1 to 2000"},
		{name: "trim lots", env: config.EnvSphinxTrim, value: "lots", err: "JIBOD_SPHINX_TRIM_MS"},
		{name: "noise floor 25", env: config.EnvSphinxNoiseFloor, value: "25", floor: 25},
		{name: "noise floor 9", env: config.EnvSphinxNoiseFloor, value: "9", err: "from 10 to 60"},
		{name: "noise floor NaN", env: config.EnvSphinxNoiseFloor, value: "NaN", err: "from 10 to 60"},
		{name: "denoise off", env: config.EnvSphinxDenoise, value: "off", denoise: -1},
		{name: "denoise 12", env: config.EnvSphinxDenoise, value: "12", denoise: 12},
		{name: "denoise 41", env: config.EnvSphinxDenoise, value: "41", err: "JIBOD_SPHINX_DENOISE_DB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := settings(t, map[string]string{tt.env: tt.value})
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.trim, TrimMargin(s.TrimMS))
			assert.Equal(t, tt.denoise, DenoiseBelow(s.DenoiseDB))
			assert.Equal(t, tt.floor, s.NoiseFloorDB)
		})
	}
}

// envCase is a value of an environment variable and what it reads as:
// want, or an error saying err after the variable and its value.
type envCase[T any] struct {
	value string
	want  T
	err   string
}

// testFromEnv checks what read makes of each case's value of the
// variable name.
func testFromEnv[T any](t *testing.T, name string, read func(getenv func(string) string) (T, error), tests []envCase[T]) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			got, err := read(func(string) string { return tt.value })
			if tt.err != "" {
				assert.EqualError(t, err, fmt.Sprintf("%s=%q: %s", name, tt.value, tt.err))
				return
			}
			require.NoError(t, err)
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
		{"0", "", 0, "want off, on or a margin in (0, 1000]"},
		{"1001", "", 0, "want off, on or a margin"},
		{"wide", "", 0, "want off, on or a margin"},
		{"NaN", "", 0, "want off, on or a margin"},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			loop, margin, err := phoneLoopFromEnv(func(string) string { return tt.value })
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

// TestResetNoiseFromEnv: the noise subtraction carries over by default;
// "on" resets it, and a bad value is named.
func TestResetNoiseFromEnv(t *testing.T) {
	tests := []envCase[bool]{
		{"", false, ""},
		{"off", false, ""},
		{"on", true, ""},
		{"yes", false, "want on or off"},
	}
	testFromEnv(t, "JIBOD_SPHINX_RESET_NOISE", resetNoiseFromEnv, tests)
}

// TestAcceptFromEnv: the confidence and coverage floors decide by
// default; "on" asks for the acceptance model at its own threshold,
// another threshold or model file comes from the environment, and a bad
// value is named.
func TestAcceptFromEnv(t *testing.T) {
	def, err := sphinx.DefaultAcceptModel()
	require.NoError(t, err)
	dir := t.TempDir()
	file := filepath.Join(dir, "accept.json")
	data, err := json.Marshal(def)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(file, data, 0o600))
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"features": ["snr"]}`), 0o600))
	tests := []struct {
		value     string
		model     bool
		threshold float64
		err       string
	}{
		{"", false, 0, ""},
		{"on", true, 0, ""},
		{"floors", false, 0, ""},
		{"0.35", true, 0.35, ""},
		{file, true, 0, ""},
		{"0", false, 0, "want floors, on, a threshold in (0, 1) or a model file"},
		{"1", false, 0, "want floors, on"},
		{"NaN", false, 0, "want floors, on"},
		{filepath.Join(dir, "none.json"), false, 0, "no such file"},
		{bad, false, 0, "acceptance model: features"},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			m, threshold, err := acceptFromEnv(func(string) string { return tt.value })
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.model, m != nil)
			if m != nil {
				assert.Equal(t, *def, *m)
			}
			assert.Equal(t, tt.threshold, threshold)
		})
	}
}

// TestSentencesFromEnv: the grammar's default size unless the
// environment asks for another, or for every expansion.
func TestSentencesFromEnv(t *testing.T) {
	tests := []envCase[int]{
		{"", 0, ""},
		{"all", -1, ""},
		{"120", 120, ""},
		{"0", 0, "want all or a number of sentences per intent in 1..10000"},
		{"10001", 0, "want all or a number of sentences per intent in 1..10000"},
		{"many", 0, "want all or a number of sentences per intent in 1..10000"},
	}
	testFromEnv(t, "JIBOD_SPHINX_SENTENCES", sentencesFromEnv, tests)
}

func TestWordPosteriorFromEnv(t *testing.T) {
	tests := []envCase[float64]{
		{"", 0, ""},
		{"off", 0, ""},
		{"measure", -1, ""},
		{"0.5", 0.5, ""},
		{"1", 1, ""},
		{"0", 0, "want off, measure or a floor in (0, 1]"},
		{"-0.5", 0, "want off, measure or a floor in (0, 1]"},
		{"1.5", 0, "want off, measure or a floor in (0, 1]"},
		{"NaN", 0, "want off, measure or a floor in (0, 1]"},
		{"on", 0, "want off, measure or a floor in (0, 1]"},
	}
	testFromEnv(t, "JIBOD_SPHINX_WORD_POSTERIOR", wordPosteriorFromEnv, tests)
}

func TestRivalMarginFromEnv(t *testing.T) {
	tests := []envCase[float64]{
		{"", 0, ""},
		{"off", 0, ""},
		{"on", rivalMarginOn, ""},
		{"measure", -1, ""},
		{"2.5", 2.5, ""},
		{"0", 0, "want off, on, measure or a margin in (0, 1000]"},
		{"-1", 0, "want off, on, measure or a margin in (0, 1000]"},
		{"1001", 0, "want off, on, measure or a margin in (0, 1000]"},
		{"NaN", 0, "want off, on, measure or a margin in (0, 1000]"},
		{"wide", 0, "want off, on, measure or a margin in (0, 1000]"},
	}
	testFromEnv(t, "JIBOD_SPHINX_RIVAL_MARGIN", rivalMarginFromEnv, tests)
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

func TestWakeDecoys(t *testing.T) {
	for _, v := range []string{"", "on"} {
		phrases, words, err := wakeDecoys(v)
		require.NoError(t, err)
		assert.Contains(t, phrases, "hey jhey")
		assert.Equal(t, "JH EY", words["jhey"])
	}
	phrases, words, err := wakeDecoys("off")
	require.NoError(t, err)
	assert.Empty(t, phrases)
	assert.Empty(t, words)
	_, err = settings(t, map[string]string{config.EnvSphinxDecoys: "maybe"})
	assert.ErrorContains(t, err, "JIBOD_SPHINX_DECOYS")
}

func TestModelDir(t *testing.T) {
	state := t.TempDir()
	assert.Equal(t, sphinx.DefaultModelDir, ModelDir("", ""), "no state folder: Debian's model")
	assert.Equal(t, sphinx.DefaultModelDir, ModelDir("", state), "no adapted model in the state folder")

	adapted := filepath.Join(state, AdaptedModelName)
	require.NoError(t, os.MkdirAll(adapted, 0o755))
	assert.Equal(t, sphinx.DefaultModelDir, ModelDir("", state), "a folder without its provenance is not an adapted model")
	require.NoError(t, os.WriteFile(filepath.Join(adapted, sphinx.ProvenanceFile), []byte("{}\n"), 0o644))
	assert.Equal(t, adapted, ModelDir("", state), "the state folder's adapted model")

	s, err := settings(t, map[string]string{config.EnvSphinxModel: "/models/other"})
	require.NoError(t, err)
	assert.Equal(t, "/models/other", ModelDir(s.Model, state), "the setting wins")
}

// TestModelFloors: an adapted model's own rejection floors, from its
// provenance, are used with it; Debian's model and models adapted before
// floors were recorded get the defaults; a broken provenance is an error
// naming the file; sphinx.floors ($JIBOD_SPHINX_FLOORS) overrides them all.
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
			s, err := settings(t, map[string]string{config.EnvSphinxFloors: tt.env})
			if err == nil {
				var got sphinx.Floors
				got, err = modelFloors(tt.dir, s.Floors)
				if tt.err == "" {
					require.NoError(t, err)
					assert.Equal(t, tt.want, got)
					return
				}
			}
			assert.ErrorContains(t, err, tt.err)
		})
	}
}

func TestWrappersFromEnv(t *testing.T) {
	for value, want := range map[string]int{"": wrapNone, "off": wrapNone, "lm": wrapLM, "on": wrapBoth} {
		got, err := wrappersFromEnv(func(string) string { return value })
		require.NoError(t, err, value)
		assert.Equal(t, want, got, value)
	}
	_, err := wrappersFromEnv(func(string) string { return "yes" })
	assert.ErrorContains(t, err, `JIBOD_SPHINX_WRAPPERS="yes": want off, lm or on`)
}
