package capture

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/audio/eval"
)

// track is each clip after a second and a half of silence, then four
// seconds of silence.
func track(clips ...[]int16) []int16 {
	var pcm []int16
	for _, c := range clips {
		pcm = append(pcm, make([]int16, 3*audio.SampleRate/2)...)
		pcm = append(pcm, c...)
	}
	return append(pcm, make([]int16, 4*audio.SampleRate)...)
}

// TestEnrollmentRecordsAndGoesOn: each prompt said is a WAV file and a
// manifest line; a prompt nothing is said for is skipped; a second run
// asks only for what is missing; a manifest it cannot go on with is
// refused, not overwritten.
func TestEnrollmentRecordsAndGoesOn(t *testing.T) {
	s := speech(t)
	dir := filepath.Join(t.TempDir(), "enroll")
	prompts := []Prompt{{Text: "hey jibo", Wake: true}, {Text: "what time is it"}, {Text: "hello"}}
	e, err := OpenEnrollment(dir)
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, e.Record(context.Background(), audio.NewClipSource(track(s, s), false), prompts, 2*time.Second, &out))
	assert.Contains(t, out.String(), "[1/3] say: hey jibo\n")
	assert.Contains(t, out.String(), "[3/3] say: hello\n  nothing heard in 2s: skipped\n")
	assert.Contains(t, out.String(), "2 recorded, 1 skipped, 0 already in "+dir+"\nnext: jibod audio adapt --dir "+dir+" --out MODELDIR\n")
	items, err := eval.ReadManifest(dir)
	require.NoError(t, err)
	assert.Equal(t, []eval.Item{
		{File: "enroll-001.wav", Text: "hey jibo", Wake: true, Kind: "enroll"},
		{File: "enroll-002.wav", Text: "what time is it", Kind: "enroll"},
	}, items)
	f, err := os.Open(filepath.Join(dir, "enroll-002.wav"))
	require.NoError(t, err)
	c, err := audio.DecodeWAV(f)
	f.Close()
	require.NoError(t, err)
	assert.Equal(t, audio.Format{SampleRate: audio.SampleRate, Channels: 1, BitsPerSample: 16}, c.Format)

	e, err = OpenEnrollment(dir)
	require.NoError(t, err)
	out.Reset()
	require.NoError(t, e.Record(context.Background(), audio.NewClipSource(track(s), false), prompts, 2*time.Second, &out))
	assert.True(t, strings.HasPrefix(out.String(), "[3/3] say: hello\n"), "only the missing prompt: %s", out.String())
	assert.Contains(t, out.String(), "1 recorded, 0 skipped, 2 already in")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 4, "three recordings and the manifest, no temporary files")

	bad := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bad, eval.ManifestName), []byte("{\"file\":\"../x.wav\",\"text\":\"hi\"}\n"), 0o644))
	_, err = OpenEnrollment(bad)
	assert.ErrorContains(t, err, "holds a manifest this tool cannot go on with")
}

// TestEnrollmentStopsWhereTheAudioEnds: a prompt the audio ends in is an
// error naming it, after saying how far it got.
func TestEnrollmentStopsWhereTheAudioEnds(t *testing.T) {
	s := speech(t)
	pcm := append(make([]int16, 3*audio.SampleRate/2), s[:len(s)/2]...)
	e, err := OpenEnrollment(t.TempDir())
	require.NoError(t, err)
	var out bytes.Buffer
	err = e.Record(context.Background(), audio.NewClipSource(pcm, false), []Prompt{{Text: "hey jibo"}}, 2*time.Second, &out)
	assert.ErrorContains(t, err, "sentence 1: the audio ended while the sentence was being said")
	assert.Contains(t, out.String(), "0 recorded, 0 skipped; run again with the same --n and --seed to go on\n")
}

// TestWriteDevicesAndLevel: the device list names the built-in sources;
// the level meter reads a source to its end.
func TestWriteDevicesAndLevel(t *testing.T) {
	var out bytes.Buffer
	WriteDevices(context.Background(), &out, &audio.Opener{})
	assert.Contains(t, out.String(), "  null           silence\n")
	out.Reset()
	require.NoError(t, Level(context.Background(), &out, audio.NewClipSource(make([]int16, audio.SampleRate/2), false), 0))
	assert.Equal(t, 5, strings.Count(out.String(), "dBFS  peak"), out.String())
}
