package main

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/audio/eval"
	"github.com/openjibo/jibod/core/runtime"
	"github.com/openjibo/jibod/core/runtime/hearing"
	"github.com/openjibo/jibod/core/skill/builtin/volume"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAudioPrompts(t *testing.T) {
	var out, errb bytes.Buffer
	code := run(context.Background(), testTrainer, []string{"audio", "prompts", "--n", "5"}, strings.NewReader(""), &out, &errb)
	require.Equal(t, 0, code, errb.String())
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 5)
	assert.Equal(t, "hey jibo", lines[0])
	assert.True(t, strings.HasPrefix(lines[1], "hey jibo "), lines[1])
	assert.False(t, strings.HasPrefix(lines[2], "hey jibo"), lines[2])

	out.Reset()
	code = run(context.Background(), testTrainer, []string{"audio", "prompts", "--n", "3", "--json"}, strings.NewReader(""), &out, &errb)
	require.Equal(t, 0, code, errb.String())
	first, _, _ := strings.Cut(out.String(), "\n")
	assert.Equal(t, `{"text":"hey jibo","wake":true}`, first)

	code = run(context.Background(), testTrainer, []string{"audio", "prompts", "--n", "0"}, strings.NewReader(""), &out, &errb)
	assert.Equal(t, 2, code)
	assert.Contains(t, errb.String(), "--n 0: want 1..")
}

// speechWAV writes a WAV of the clips of speech given, each after a
// second and a half of silence, then a second of silence, and returns its
// path.
func speechWAV(t *testing.T, clips ...[]int16) string {
	t.Helper()
	return wavOf(t, append(speechTrack(clips...), make([]int16, audio.SampleRate)...))
}

// speechTrack is the clips, each after a second and a half of silence.
func speechTrack(clips ...[]int16) []int16 {
	var pcm []int16
	for _, c := range clips {
		pcm = append(pcm, make([]int16, 3*audio.SampleRate/2)...)
		pcm = append(pcm, c...)
	}
	return pcm
}

func wavOf(t *testing.T, pcm []int16) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "speech.wav")
	f, err := os.Create(p)
	require.NoError(t, err)
	require.NoError(t, audio.EncodeWAV(f, audio.SampleRate, 1, pcm))
	require.NoError(t, f.Close())
	return p
}

func testSpeech(t *testing.T) []int16 {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "audio", "testdata", "hey_jibo_what_time.wav"))
	require.NoError(t, err)
	defer f.Close()
	c, err := audio.DecodeWAV(f)
	require.NoError(t, err)
	require.Equal(t, audio.SampleRate, c.Format.SampleRate)
	return c.Samples
}

func TestAudioEnroll(t *testing.T) {
	speech := testSpeech(t)
	dir := filepath.Join(t.TempDir(), "enroll")
	var out, errb bytes.Buffer
	enroll := func(wav string, n string) int {
		out.Reset()
		errb.Reset()
		return run(context.Background(), testTrainer, []string{"audio", "enroll", "--dir", dir, "--n", n, "--audio", "file:" + wav},
			strings.NewReader(""), &out, &errb)
	}

	// Two sentences said, the third cut off by the end of the stream.
	cut := wavOf(t, speechTrack(speech, speech, speech[:len(speech)/2]))
	code := enroll(cut, "4")
	assert.Equal(t, 1, code)
	assert.Contains(t, errb.String(), "sentence 3: the audio ended while the sentence was being said")
	assert.Contains(t, out.String(), "[1/4] say: hey jibo\n")
	assert.Contains(t, out.String(), "2 recorded, 0 skipped; run again")
	items, err := eval.ReadManifest(dir)
	require.NoError(t, err, "what was recorded is kept")
	require.Len(t, items, 2)
	assert.Equal(t, eval.Item{File: "enroll-001.wav", Text: "hey jibo", Wake: true, Kind: "enroll"}, items[0])
	assert.Equal(t, "enroll-002.wav", items[1].File)
	assert.True(t, strings.HasPrefix(items[1].Text, "hey jibo "), "the second sentence starts with the wake phrase")
	for _, it := range items {
		f, err := os.Open(filepath.Join(dir, it.File))
		require.NoError(t, err)
		c, err := audio.DecodeWAV(f)
		f.Close()
		require.NoError(t, err)
		assert.Equal(t, audio.Format{SampleRate: audio.SampleRate, Channels: 1, BitsPerSample: 16}, c.Format)
		assert.InDelta(t, 2.0, c.Duration(), 0.6, "the utterance with its pre-roll and hangover, not the silences")
	}

	// Run again: the two recorded are not asked for again.
	code = enroll(speechWAV(t, speech, speech), "4")
	require.Equal(t, 0, code, errb.String())
	assert.NotContains(t, out.String(), "[1/4]")
	assert.NotContains(t, out.String(), "[2/4]")
	assert.Contains(t, out.String(), "2 recorded, 0 skipped, 2 already in")
	assert.Contains(t, out.String(), "next: jibod audio adapt --dir")
	items, err = eval.ReadManifest(dir)
	require.NoError(t, err)
	assert.Len(t, items, 4)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 5, "four recordings and the manifest, no temporary files")

	// A manifest the tool cannot go on with is refused, not overwritten.
	bad := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bad, eval.ManifestName), []byte("{\"file\":\"../x.wav\",\"text\":\"hi\"}\n"), 0o644))
	out.Reset()
	errb.Reset()
	code = run(context.Background(), testTrainer, []string{"audio", "enroll", "--dir", bad, "--n", "2", "--audio", "null"}, strings.NewReader(""), &out, &errb)
	assert.Equal(t, 1, code)
	assert.Contains(t, errb.String(), "holds a manifest this tool cannot go on with")

	code = run(context.Background(), testTrainer, []string{"audio", "enroll", "--n", "2", "--audio", "null"}, strings.NewReader(""), &out, &errb)
	assert.Equal(t, 2, code, "--dir is needed")
}

func TestAudioEnrollSkipsSilence(t *testing.T) {
	// Silence: nothing is said within --wait, each sentence is skipped,
	// until the stream ends.
	dir := t.TempDir()
	wav := speechWAV(t, make([]int16, 3*audio.SampleRate))
	var out, errb bytes.Buffer
	code := run(context.Background(), testTrainer, []string{"audio", "enroll", "--dir", dir, "--n", "3", "--wait", "2s", "--audio", "file:" + wav},
		strings.NewReader(""), &out, &errb)
	assert.Equal(t, 1, code)
	assert.Contains(t, out.String(), "nothing heard in 2s: skipped")
	assert.Contains(t, errb.String(), "the audio ended")
	_, err := os.Stat(filepath.Join(dir, eval.ManifestName))
	assert.ErrorIs(t, err, os.ErrNotExist, "no manifest without a recording")
}

func TestAudioEnrollTooLong(t *testing.T) {
	// Eleven seconds of speech without a pause is over the detector's
	// longest utterance: asked for again, and what follows the cut without
	// a pause is not taken for the sentence; the next sentence said is.
	speech := testSpeech(t)
	var long []int16
	for len(long) < 11*audio.SampleRate {
		long = append(long, speech...)
	}
	dir := t.TempDir()
	var out, errb bytes.Buffer
	code := run(context.Background(), testTrainer, []string{"audio", "enroll", "--dir", dir, "--n", "1", "--audio", "file:" + speechWAV(t, long, speech)},
		strings.NewReader(""), &out, &errb)
	require.Equal(t, 0, code, errb.String())
	assert.Contains(t, out.String(), "longer than 10s: say it again")
	assert.Contains(t, out.String(), "1 recorded, 0 skipped")
	items, err := eval.ReadManifest(dir)
	require.NoError(t, err)
	require.Len(t, items, 1)
	f, err := os.Open(filepath.Join(dir, items[0].File))
	require.NoError(t, err)
	defer f.Close()
	c, err := audio.DecodeWAV(f)
	require.NoError(t, err)
	assert.InDelta(t, 2.0, c.Duration(), 0.6, "the sentence said after the pause")
}

// The grammar of the running robot, made from what its skills registered
// on the bus, offers only what the skills take (issue 24 item 5): the
// volume's level is its level.entity (0 to 10 and the words for its ends),
// though the template types it a number.
func TestRobotGrammarOffersOnlyWhatSkillsTake(t *testing.T) {
	r, err := newTestRobot(context.Background(), runtime.Config{Board: "sim", SpeakWPM: 0, StateDir: t.TempDir(), Log: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close(context.Background()) })
	g, err := hearing.CommandGrammar(r.Intents(), "en-US")
	require.NoError(t, err)
	vals, ok, err := g.SlotValues("jibo.volume", "volume_set", "level", 1000)
	require.NoError(t, err)
	require.True(t, ok)
	assert.GreaterOrEqual(t, len(vals), 11)
	for _, v := range vals {
		_, err := volume.ParseLevel(v)
		assert.NoError(t, err, "the grammar offers %q", v)
	}
	assert.False(t, g.Accepts("volume eighty eight"))
	assert.True(t, g.Accepts("volume seven"))
}
