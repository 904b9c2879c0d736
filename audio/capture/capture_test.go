package capture

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/audio"
)

func speech(t *testing.T) []int16 {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "hey_jibo_what_time.wav"))
	require.NoError(t, err)
	defer f.Close()
	c, err := audio.DecodeWAV(f)
	require.NoError(t, err)
	require.Equal(t, audio.SampleRate, c.Format.SampleRate)
	return c.Samples
}

// The meter prints one reading per interval of audio: silence reads
// -inf, speech a level with the detector saying so.
func TestMeter(t *testing.T) {
	pcm := append(make([]int16, audio.SampleRate/2), speech(t)...)
	var out bytes.Buffer
	m, err := NewMeter(&out)
	require.NoError(t, err)
	err = m.Run(context.Background(), audio.NewClipSource(pcm, false), 0)
	require.True(t, errors.Is(err, io.EOF), "%v", err)
	require.NoError(t, m.Finish())
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	assert.Len(t, lines, (len(pcm)+1599)/1600)
	assert.Contains(t, lines[0], "0.1s   -inf dBFS  peak   -inf")
	sawSpeech := false
	for _, l := range lines {
		sawSpeech = sawSpeech || strings.Contains(l, "speech |#")
	}
	assert.True(t, sawSpeech, "%s", out.String())

	out.Reset()
	m, err = NewMeter(&out)
	require.NoError(t, err)
	require.NoError(t, m.Run(context.Background(), audio.NewClipSource(pcm, false), 3200), "a limit ends the run")
	assert.Equal(t, 2, strings.Count(out.String(), "\n"))
}

// The cutter returns each utterance whole, and says when nothing was said
// in time.
func TestCutter(t *testing.T) {
	s := speech(t)
	var pcm []int16
	for range 2 {
		pcm = append(pcm, make([]int16, 3*audio.SampleRate/2)...)
		pcm = append(pcm, s...)
	}
	pcm = append(pcm, make([]int16, 3*audio.SampleRate)...)
	c, err := NewCutter(audio.NewClipSource(pcm, false), 2*time.Second)
	require.NoError(t, err)
	var say bytes.Buffer
	for i := range 2 {
		seg, err := c.Next(context.Background(), &say)
		require.NoError(t, err, "utterance %d", i)
		assert.InDelta(t, len(s), len(seg), float64(audio.SampleRate), "utterance %d is about as long as what was said", i)
	}
	_, err = c.Next(context.Background(), &say)
	assert.ErrorIs(t, err, ErrNothingSaid)
	assert.Empty(t, say.String())
}

// babble is a speech-like room (other people talking): tone bursts of
// random length and level (amplitude a, ±6 dB) with a murmur between
// them.
func babble(pcm []int16, d time.Duration, a float64, rng *rand.Rand) []int16 {
	end := len(pcm) + int(d*audio.SampleRate/time.Second)
	ms := func(n int) int { return n * audio.SampleRate / 1000 }
	for len(pcm) < end {
		on, off := ms(60+rng.IntN(200)), ms(20+rng.IntN(80))
		g := a * math.Pow(10, (12*rng.Float64()-6)/20)
		for i := range on {
			pcm = append(pcm, int16(g*math.Sin(2*math.Pi*500*float64(i)/audio.SampleRate)+a/30*(rng.Float64()*2-1)))
		}
		for range off {
			pcm = append(pcm, int16(a/6*(rng.Float64()*2-1)))
		}
	}
	return pcm[:end]
}

// TestCutterTakesThePersonNotTheRoom: enrolling with other people talking
// in the room, the utterances of the room alone are skipped and the
// person's is cut to what they said, without the seconds of the room the
// detector took in before them.
func TestCutterTakesThePersonNotTheRoom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	pcm := babble(nil, 9*time.Second, 300, rng)
	from := len(pcm)
	for range 10 { // 1.6 s of syllables 12 dB over the babble
		for i := range audio.SampleRate / 10 {
			pcm = append(pcm, int16(1200*math.Sin(2*math.Pi*300*float64(i)/audio.SampleRate)))
		}
		pcm = babble(pcm, 60*time.Millisecond, 300, rng)
	}
	said := len(pcm) - from
	pcm = babble(pcm, 4*time.Second, 300, rng)
	pcm = append(pcm, make([]int16, 3*audio.SampleRate)...)
	c, err := NewCutter(audio.NewClipSource(pcm, false), 20*time.Second)
	require.NoError(t, err)
	var say bytes.Buffer
	seg, err := c.Next(context.Background(), &say)
	require.NoError(t, err)
	assert.InDelta(t, said, len(seg), float64(audio.SampleRate), "the utterance is what the person said")
	assert.Empty(t, say.String())
}
