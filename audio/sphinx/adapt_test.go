//go:build sphinx

package sphinx

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Debian's en-us model ships its mixture weights quantised; they read as
// the model's 5126 senones × 3 feature streams × 128 densities.
func TestReadDebianSendump(t *testing.T) {
	f, err := os.Open(filepath.Join(DefaultModelDir, "sendump"))
	require.NoError(t, err, "scripts/deps.sh installs pocketsphinx-en-us")
	defer f.Close()
	mw, err := ReadSendump(f)
	require.NoError(t, err)
	assert.Equal(t, [3]int{5126, 3, 128}, [3]int{mw.Senones, mw.Features, mw.Densities})
}

// TestAudioAdaptEndToEnd: `jibod audio adapt` MAP-adapts the model to a
// generated set's recordings, and `jibod audio eval` runs with the
// adapted model through JIBOD_SPHINX_MODEL.
func TestAudioAdaptEndToEnd(t *testing.T) {
	bin := buildJibod(t)
	set := t.TempDir()
	out, err := exec.Command("../../scripts/gen-audio-testset.sh", "--quick", set).CombinedOutput()
	require.NoError(t, err, "%s", out)
	model := filepath.Join(t.TempDir(), "adapted")

	out, err = exec.Command(bin, "audio", "adapt", "--dir", set, "--out", model).CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "from 12 recordings")
	for _, f := range []string{"mdef", "means", "variances", "mixture_weights", "transition_matrices", "feat.params", "noisedict", "adapted.json"} {
		assert.FileExists(t, filepath.Join(model, f))
	}
	var prov map[string]any
	b, err := os.ReadFile(filepath.Join(model, "adapted.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &prov))
	assert.EqualValues(t, 12, prov["recordings"])
	assert.EqualValues(t, MAPTau, prov["tau"])
	assert.EqualValues(t, 0.975, prov["floors"].(map[string]any)["wake_confidence"], "the floors chosen for adapted models")
	assert.EqualValues(t, 0.95, prov["floors"].(map[string]any)["confidence"])
	p, err := ReadProvenance(model)
	require.NoError(t, err)
	require.NotNil(t, p.Floors)
	assert.Equal(t, 12, p.Recordings)
	assert.Equal(t, AdaptedDenoiseBelowSNR, p.DenoiseBelowSNR, "the noise suppression it was adapted with, for the recogniser to use")

	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "audio", "eval", "--dir", set, "--json", "--quiet")
	cmd.Env = append(os.Environ(), "JIBOD_SPHINX_MODEL="+model)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), stderr.String())
	var rep struct {
		Overall struct {
			Correct int `json:"commands_correct"`
		} `json:"overall"`
	}
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &rep))
	assert.Positive(t, rep.Overall.Correct, "the adapted model recognises commands")

	// A second run refuses to overwrite the model.
	out, err = exec.Command(bin, "audio", "adapt", "--dir", set, "--out", model).CombinedOutput()
	require.Error(t, err)
	assert.Contains(t, string(out), "already exists")
}

// TestEnrollmentAdaptsTheRobot: sentences of the robot's grammar (jibod
// audio prompts), said by espeak-ng voices as people would read them to
// jibod audio enroll, adapt the model together with a second folder, and
// jibod run finds the model in its state folder.
func TestEnrollmentAdaptsTheRobot(t *testing.T) {
	bin := buildJibod(t)
	prompts, err := exec.Command(bin, "audio", "prompts", "--n", "3").Output()
	require.NoError(t, err)
	list := filepath.Join(t.TempDir(), "prompts.txt")
	require.NoError(t, os.WriteFile(list, prompts, 0o644))
	enroll := t.TempDir()
	out, err := exec.Command("../../scripts/gen-audio-testset.sh", "--enroll", list, enroll).CombinedOutput()
	require.NoError(t, err, "%s", out)
	// The first prompt is the wake phrase alone, which the tuning set says,
	// so it is left out; each of the 8 voices reads the other two.
	assert.Contains(t, string(out), "16 files")
	quick := t.TempDir()
	out, err = exec.Command("../../scripts/gen-audio-testset.sh", "--quick", quick).CombinedOutput()
	require.NoError(t, err, "%s", out)

	state := t.TempDir()
	model := filepath.Join(state, "acoustic-model")
	out, err = exec.Command(bin, "audio", "adapt", "--dir", enroll, "--dir", quick, "--out", model).CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "from 28 recordings", "both folders")

	wav := writeWAV(t, speak(t, "hey jibo, what time is it"))
	cmd := exec.Command(bin, "run", "--board", "sim", "--audio", "file:"+wav, "--input", "none",
		"--state", state, "--speak-wpm", "0", "--log-level", "info")
	cmd.Env = append(os.Environ(), "JIBOD_SPHINX_MODEL=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), stderr.String())
	assert.Contains(t, stderr.String(), "adapted acoustic model")
	assert.Contains(t, stderr.String(), model)
	assert.Regexp(t, regexp.MustCompile(`jibo: (It's|The time is|Right now it's) `), stdout.String(), "the clock answers through the adapted model")
}

// Recordings that cannot be used are named, and a run with none usable
// leaves nothing behind.
func TestAdaptRefusesUnusableRecordings(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.wav")
	require.NoError(t, os.WriteFile(bad, []byte("RIFF....WAVEjunk"), 0o644))
	lex, err := NewLexicon(DefaultDict, LexiconOptions{})
	require.NoError(t, err)
	out := filepath.Join(dir, "model")
	var logs bytes.Buffer
	rep, err := Adapt(context.Background(), AdaptConfig{BaseModel: DefaultModelDir, Out: out, Lexicon: lex,
		Log: slog.New(slog.NewTextHandler(&logs, nil)),
		Utterances: []AdaptUtterance{
			{WAV: bad, Text: "what time is it"},
			{WAV: filepath.Join(dir, "missing.wav"), Text: "hello"},
			{WAV: bad, Text: "zzqxv"},
			{WAV: bad, Text: "!!!"},
		}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no usable recording")
	assert.Equal(t, 4, rep.Skipped)
	require.Len(t, rep.Skips, 4)
	all := strings.Join(rep.Skips, "\n")
	for _, want := range []string{"no words", `no pronunciation for "zzqxv"`, "bad.wav: bad WAV", "missing.wav"} {
		assert.Contains(t, all, want)
	}
	// The log it was given says the same, as it happens, and names the
	// words the lexicon could not pronounce once, not again for each of
	// their recordings.
	assert.Equal(t, 3, strings.Count(logs.String(), "level=WARN msg=\"adapting the acoustic model: recording skipped\""), logs.String())
	assert.Contains(t, logs.String(), "words without a pronunciation")
	assert.Contains(t, logs.String(), "words=[zzqxv]")
	assert.Equal(t, 1, strings.Count(logs.String(), "zzqxv"), logs.String())
	assert.NoDirExists(t, out)
	matches, _ := filepath.Glob(filepath.Join(dir, ".model.tmp-*"))
	assert.Empty(t, matches, "no half-written model")

	_, err = Adapt(context.Background(), AdaptConfig{BaseModel: dir, Out: out, Lexicon: lex,
		Utterances: []AdaptUtterance{{WAV: bad, Text: "hello"}}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "adapting the acoustic model: acoustic model "+dir+": no mdef file")
}
