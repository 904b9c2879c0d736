//go:build sphinx

package sphinx

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/audio"
)

// TestAlignWake: "hey jibo what time is it" said in one breath, after
// half a second of silence. The alignment puts the phrase's end within
// a few frames of where the search of the whole sentence, which knows
// the words that follow, puts the end of "jibo"; a recogniser without
// the garbage path, or with the phrase in its grammar, has no
// alignment.
func TestAlignWake(t *testing.T) {
	ctx := context.Background()
	pcm := append(make([]int16, audio.SampleRate/2), speak(t, "hey jibo what time is it")...)

	// Where the whole sentence's search ends "jibo".
	whole := newTestRecognizer(t, Config{})
	d, err := whole.take(ctx)
	require.NoError(t, err)
	res, err := d.search(ctx, searchName, prepareAudioAt(pcm, quietSNR(pcm), whole.cfg.DenoiseBelowSNR, whole.cfg.FloorBelowDB, -1))
	require.NoError(t, err)
	require.Equal(t, "hey jibo what time is it", res.text)
	want, ok := phraseEnd(d.align(), strings.Fields(audio.WakePhrase))
	whole.give(d)
	require.True(t, ok)
	const frame = audio.SampleRate / 100

	r := newTestRecognizer(t, Config{Garbage: testGarbage(t, 250)})
	end, ok, err := r.AlignWake(ctx, pcm)
	require.NoError(t, err)
	require.True(t, ok, "the phrase aligned")
	assert.InDelta(t, (want+1)*frame, end, 5*frame, "the phrase's end, in samples")

	for _, cfg := range []Config{{}, {Garbage: testGarbage(t, 250), Wake: audio.WakePhrase}} {
		_, ok, err = newTestRecognizer(t, cfg).AlignWake(ctx, pcm)
		require.NoError(t, err)
		assert.False(t, ok, "no alignment without the garbage path, or with the phrase in the grammar")
	}
	_, _, err = r.AlignWake(ctx, make([]int16, (DefaultMaxSeconds+1)*audio.SampleRate))
	assert.Error(t, err, "longer than the longest utterance")
	require.NoError(t, r.Close())
	_, _, err = r.AlignWake(ctx, pcm)
	assert.Error(t, err, "closed")
}

// TestAlignWakeForgetsTheRoomBefore: an alignment depends on its own
// audio alone. "hey jibo what time is it" said in a quiet room is
// aligned as a fresh recogniser aligns it, word for word and with the
// same acoustic scores, also right after an alignment over loud babble,
// whose noise estimate the decoder's front end would otherwise carry
// into it.
func TestAlignWakeForgetsTheRoomBefore(t *testing.T) {
	ctx := context.Background()
	quiet := append(make([]int16, audio.SampleRate/2), speak(t, "hey jibo what time is it")...)
	loud := babble(t, 2)
	for i := range loud {
		loud[i] = int16(max(min(int32(loud[i])*4, 32767), -32768))
	}
	// aligned aligns pcm and returns the end and the alignment's words
	// with their acoustic scores.
	aligned := func(r *Recognizer, pcm []int16) (int, []segment) {
		end, ok, err := r.AlignWake(ctx, pcm)
		require.NoError(t, err)
		require.True(t, ok, "the phrase aligned")
		d := <-r.aligner
		defer func() { r.aligner <- d }()
		return end, d.align()
	}

	wantEnd, want := aligned(newTestRecognizer(t, Config{Garbage: testGarbage(t, 250)}), quiet)

	r := newTestRecognizer(t, Config{Garbage: testGarbage(t, 250)})
	_, _, err := r.AlignWake(ctx, loud)
	require.NoError(t, err)
	end, got := aligned(r, quiet)
	assert.Equal(t, wantEnd, end, "the phrase's end, in samples")
	assert.Equal(t, want, got, "the alignment's words and scores")
}
