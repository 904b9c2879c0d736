package audio

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/device/sim"
)

func writeFile(t *testing.T, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "in.wav")
	require.NoError(t, os.WriteFile(p, data, 0o644))
	return p
}

func encode(t *testing.T, rate, ch int, s []int16) []byte {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, EncodeWAV(&b, rate, ch, s))
	return b.Bytes()
}

func readAll(t *testing.T, src Source) ([]int16, error) {
	t.Helper()
	var out []int16
	buf := make([]int16, 333)
	for {
		n, err := src.Read(context.Background(), buf)
		out = append(out, buf[:n]...)
		if err != nil {
			return out, err
		}
	}
}

func TestFileSource(t *testing.T) {
	mono := sine(16000, 16000, 440, 0.5)
	stereo48 := make([]int16, 0, 2*48000)
	for _, v := range sine(48000, 48000, 440, 0.5) {
		stereo48 = append(stereo48, v, v)
	}
	tests := []struct {
		name    string
		data    []byte
		samples int
		err     string
	}{
		{name: "16 kHz mono as is", data: encode(t, 16000, 1, mono), samples: 16000},
		{name: "48 kHz stereo converted", data: encode(t, 48000, 2, stereo48), samples: 16000},
		{name: "header lies about its length", data: wav(1, 1, 16000, 16, 2, 32000, 1000, []byte{1, 2}), err: "claims 1000 bytes but the file has 2"},
		{name: "header lies about its format", data: wav(1, 2, 16000, 16, 2, 32000, 0, nil), err: "block align 2 does not match 2 channels"},
		{name: "not a WAV at all", data: []byte("ID3\x03 an mp3 file, not a WAV"), err: "not a RIFF/WAVE file"},
	}
	for _, tc := range tests {
		p := writeFile(t, tc.data)
		src, err := OpenFileSource(p, FileOptions{})
		if tc.err != "" {
			require.ErrorIs(t, err, ErrBadWAV, tc.name)
			assert.Contains(t, err.Error(), tc.err, tc.name)
			assert.Contains(t, err.Error(), p, "%s: the error names the file", tc.name)
			continue
		}
		require.NoError(t, err, tc.name)
		got, err := readAll(t, src)
		require.ErrorIs(t, err, io.EOF, tc.name)
		assert.Equal(t, tc.samples, len(got), tc.name)
		require.NoError(t, src.Close())
		_, err = src.Read(context.Background(), make([]int16, 10))
		assert.ErrorIs(t, err, ErrClosed)
	}
	_, err := OpenFileSource(filepath.Join(t.TempDir(), "missing.wav"), FileOptions{})
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// A paced file plays in real time: a second of audio takes a second.
func TestFileSourcePaced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := NewClipSource(make([]int16, 16000), true)
		start := time.Now()
		got, err := readAll(t, src)
		require.ErrorIs(t, err, io.EOF)
		assert.Equal(t, 16000, len(got))
		assert.Equal(t, time.Second, time.Since(start))

		src = NewClipSource(make([]int16, 16000), true)
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_, err = src.Read(ctx, make([]int16, 16000))
		assert.ErrorIs(t, err, context.DeadlineExceeded, "a paced read honours ctx")
	})
}

func TestRawSource(t *testing.T) {
	pcm := []int16{1, -2, 300, -32768, 32767}
	raw := make([]byte, 0, 10)
	for _, v := range pcm {
		raw = append(raw, byte(v), byte(uint16(v)>>8))
	}
	// A reader that hands out one byte at a time splits samples.
	got, err := readAll(t, NewRawSource(&oneByte{r: bytes.NewReader(raw)}))
	require.ErrorIs(t, err, io.EOF)
	assert.Equal(t, pcm, got)

	got, err = readAll(t, NewRawSource(bytes.NewReader(append(raw, 9))))
	require.ErrorIs(t, err, ErrTruncated)
	assert.Equal(t, pcm, got)
	assert.Contains(t, err.Error(), "one byte left")

	_, err = readAll(t, NewRawSource(iotestErr{}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "reading raw PCM: disk on fire")
}

type oneByte struct{ r io.Reader }

func (o *oneByte) Read(p []byte) (int, error) { return o.r.Read(p[:min(1, len(p))]) }

type iotestErr struct{}

func (iotestErr) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

// A read waiting on a pipe returns when its context ends, and the source
// reads on afterwards.
func TestRawSourcePipeHonoursContext(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer w.Close()
	src := NewRawSource(r)
	defer src.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := src.Read(ctx, make([]int16, 4))
		done <- err
	}()
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	_, err = w.Write([]byte{1, 0, 2, 0})
	require.NoError(t, err)
	buf := make([]int16, 4)
	n, err := src.Read(context.Background(), buf)
	require.NoError(t, err)
	assert.Equal(t, []int16{1, 2}, buf[:n])
}

func TestNullSource(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := NewNullSource()
		start := time.Now()
		buf := []int16{1, 2, 3}
		for range 10 {
			n, err := src.Read(context.Background(), make([]int16, 1600))
			require.NoError(t, err)
			require.Equal(t, 1600, n)
		}
		assert.Equal(t, time.Second, time.Since(start), "silence comes in real time")
		n, err := src.Read(context.Background(), buf)
		require.NoError(t, err)
		assert.Equal(t, []int16{0, 0, 0}, buf[:n])
		require.NoError(t, src.Close())
		_, err = src.Read(context.Background(), buf)
		assert.ErrorIs(t, err, ErrClosed)
	})
}

func TestOpener(t *testing.T) {
	good := writeFile(t, encode(t, 16000, 1, make([]int16, 100)))
	var opened string
	o := &Opener{Stdin: bytes.NewReader([]byte{5, 0}), Backends: map[string]Backend{
		"fake": {Open: func(_ context.Context, arg string) (Source, error) { opened = arg; return NewNullSource(), nil }},
	}}
	tests := []struct {
		spec string
		err  string
	}{
		{spec: "file:" + good},
		{spec: "stdin"},
		{spec: "null"},
		{spec: "fake:hw:1,0"},
		{spec: "", err: "empty"},
		{spec: "file:", err: "needs a path"},
		{spec: "stdin:x", err: "takes no argument"},
		{spec: "null:x", err: "takes no argument"},
		{spec: "portaudio", err: "no such audio backend \"portaudio\" in this build (have file, stdin, null, fake)"},
		{spec: "file:a\nb", err: "control character"},
		{spec: "file:" + strings.Repeat("x", MaxSpecLen), err: "limit"},
	}
	for _, tc := range tests {
		src, err := o.Open(context.Background(), tc.spec)
		if tc.err != "" {
			require.Error(t, err, tc.spec)
			assert.Contains(t, err.Error(), tc.err, tc.spec)
			continue
		}
		require.NoError(t, err, tc.spec)
		require.NoError(t, src.Close())
	}
	assert.Equal(t, "hw:1,0", opened, "the backend gets everything after the first colon")
	_, err := Open("portaudio")
	assert.ErrorIs(t, err, ErrNoBackend)
	assert.Equal(t, []string{"file", "stdin", "null", "fake"}, o.Names())
}

func TestOpenerDevices(t *testing.T) {
	o := &Opener{Backends: map[string]Backend{
		"a": {Devices: func(context.Context) ([]Device, error) { return []Device{{ID: "mic", Default: true}}, nil }},
		"b": {Devices: func(context.Context) ([]Device, error) { return nil, errors.New("no library") }},
		"c": {},
	}}
	devs, errs := o.Devices(context.Background())
	assert.Equal(t, map[string][]Device{"a": {{ID: "mic", Default: true}}}, devs)
	require.Contains(t, errs, "b")
	assert.NotContains(t, errs, "c")
}

// failing is a device that fails after n reads.
type failing struct{ n int }

func (f *failing) Read(_ context.Context, buf []int16) (int, error) {
	if f.n == 0 {
		return 0, errors.New("device vanished")
	}
	f.n--
	clear(buf)
	return len(buf), nil
}
func (f *failing) Close() error { return nil }

// A live backend's device that vanishes is reopened with doubling backoff
// until it is back.
func TestReopenerBacksOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		opens, back := 0, 5
		var tries []time.Duration
		start := time.Now()
		o := &Opener{Retry: Retry{Initial: 100 * time.Millisecond, Max: 400 * time.Millisecond},
			Backends: map[string]Backend{"live": {Live: true, Open: func(context.Context, string) (Source, error) {
				opens++
				tries = append(tries, time.Since(start))
				if opens == 1 {
					return &failing{n: 1}, nil
				}
				if opens < back {
					return nil, errors.New("still gone")
				}
				return &failing{n: 100}, nil
			}}}}
		src, err := o.Open(context.Background(), "live")
		require.NoError(t, err)
		var errs []string
		src.(*Reopener).SetOnError(func(err error) { errs = append(errs, err.Error()) })
		buf := make([]int16, 10)
		n, err := src.Read(context.Background(), buf) // the one good read
		require.NoError(t, err)
		require.Equal(t, 10, n)
		n, err = src.Read(context.Background(), buf) // fails, reopens until back
		require.NoError(t, err)
		require.Equal(t, 10, n)
		assert.Equal(t, []time.Duration{0, 0, 100 * time.Millisecond, 300 * time.Millisecond, 700 * time.Millisecond}, tries,
			"reopened at once, then after 100, 200, 400 ms")
		require.Len(t, errs, 4)
		assert.Contains(t, errs[0], "device vanished")
		assert.Contains(t, errs[1], "still gone")
		count, last := src.(*Reopener).Failures()
		assert.Equal(t, 4, count)
		assert.ErrorContains(t, last, "still gone")

		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		back = 1000 // gone for good: only the context ends the wait
		src.(*Reopener).cur = &failing{}
		_, err = src.Read(ctx, buf)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		require.NoError(t, src.Close())
		_, err = src.Read(context.Background(), buf)
		assert.ErrorIs(t, err, ErrClosed)
	})
	// A device that is missing from the start is an error at once.
	o := &Opener{Backends: map[string]Backend{"live": {Live: true, Open: func(context.Context, string) (Source, error) {
		return nil, errors.New("no such device")
	}}}}
	_, err := o.Open(context.Background(), "live:hw:9")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `opening audio source "live:hw:9": no such device`)
}

func decodeFile(t *testing.T, p string) *Clip {
	t.Helper()
	f, err := os.Open(p)
	require.NoError(t, err)
	defer f.Close()
	c, err := DecodeWAV(f)
	require.NoError(t, err)
	return c
}

func TestWAVSink(t *testing.T) {
	p := filepath.Join(t.TempDir(), "out.wav")
	s, err := CreateWAVSink(p, SinkOptions{Rate: 16000})
	require.NoError(t, err)
	require.NoError(t, s.Write(context.Background(), sine(16000, 1600, 440, 0.5), 16000))
	// Valid after every write, before Close.
	c := decodeFile(t, p)
	assert.Equal(t, 1600, len(c.Samples))
	require.NoError(t, s.Write(context.Background(), sine(22050, 2205, 440, 0.5), 22050))
	require.NoError(t, s.Close())
	c = decodeFile(t, p)
	assert.Equal(t, Format{SampleRate: 16000, Channels: 1, BitsPerSample: 16}, c.Format)
	assert.Equal(t, 3200, len(c.Samples), "the 22,050 Hz write is resampled")
	assert.ErrorIs(t, s.Write(context.Background(), []int16{1}, 16000), ErrClosed)
	require.NoError(t, s.Close(), "closing twice is harmless")

	// Nothing played: an empty but valid file.
	p2 := filepath.Join(t.TempDir(), "empty.wav")
	s, err = CreateWAVSink(p2, SinkOptions{})
	require.NoError(t, err)
	require.NoError(t, s.Close())
	assert.Empty(t, decodeFile(t, p2).Samples)

	_, err = CreateWAVSink(p, SinkOptions{Rate: 5})
	assert.Error(t, err)
	s, err = CreateWAVSink(p, SinkOptions{})
	require.NoError(t, err)
	defer s.Close()
	assert.Error(t, s.Write(context.Background(), []int16{1}, 100))
}

// A paced sink takes the sound's time, and a cancel keeps only what played.
func TestWAVSinkPaced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "out.wav")
		s, err := CreateWAVSink(p, SinkOptions{Pace: true})
		require.NoError(t, err)
		start := time.Now()
		require.NoError(t, s.Write(context.Background(), make([]int16, 16000), 16000))
		assert.Equal(t, time.Second, time.Since(start))
		ctx, cancel := context.WithTimeout(context.Background(), 510*time.Millisecond)
		defer cancel()
		err = s.Write(ctx, make([]int16, 16000), 16000)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		require.NoError(t, s.Close())
		assert.Equal(t, 16000+8000, len(decodeFile(t, p).Samples), "the second write is cut after 25 blocks")
	})
}

func TestNullSink(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := NewNullSink(SinkOptions{Pace: true})
		start := time.Now()
		require.NoError(t, s.Write(context.Background(), make([]int16, 11025), 22050))
		assert.Equal(t, 500*time.Millisecond, time.Since(start))
		assert.Equal(t, 11025, s.Samples())
		assert.Error(t, s.Write(context.Background(), nil, 1))
	})
}

func TestDeviceSinkAndTee(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var plays []int64
		out, err := sim.NewPCMSink(sim.PCMSinkOptions{Format: device.PCMFormat{SampleRate: 48000, Channels: 2},
			Observer: func(ev device.Event) {
				if ev.Kind == "play" {
					plays = append(plays, ev.Values["ms"].(int64))
				}
			}})
		require.NoError(t, err)
		p := filepath.Join(t.TempDir(), "spk.wav")
		rec, err := CreateWAVSink(p, SinkOptions{})
		require.NoError(t, err)
		ds, err := NewDeviceSink(NewTeePCM(out, rec))
		require.NoError(t, err)
		start := time.Now()
		require.NoError(t, ds.Write(context.Background(), sine(16000, 20000, 440, 0.5), 16000))
		assert.Equal(t, 1250*time.Millisecond, time.Since(start), "played in real time on the device")
		assert.Equal(t, []int64{500, 500, 250}, plays, "in half-second pieces")

		// Cut short: the piece being played is not recorded.
		ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
		defer cancel()
		err = ds.Write(ctx, sine(16000, 32000, 440, 0.5), 16000)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		require.NoError(t, rec.Close())
		c := decodeFile(t, p)
		assert.Equal(t, 48000, c.Format.SampleRate)
		assert.Equal(t, 60000+24000, len(c.Samples), "1.25 s, then the one piece that played")
		_, err = NewDeviceSink(nil)
		assert.Error(t, err)
	})
}

func TestDecodeWAVStream(t *testing.T) {
	streamed := wav(1, 1, 22050, 16, 2, 44100, 0x7ffff000, []byte{1, 0, 2, 0, 3, 0})
	_, err := DecodeWAV(bytes.NewReader(streamed))
	require.ErrorIs(t, err, ErrBadWAV, "the strict decoder takes the placeholder at its word")
	c, err := DecodeWAVStream(bytes.NewReader(streamed))
	require.NoError(t, err)
	assert.Equal(t, []int16{1, 2, 3}, c.Samples)
	_, err = DecodeWAVStream(bytes.NewReader(append(streamed, 7)))
	assert.ErrorContains(t, err, "not a whole number")
	// An honest size is still checked strictly.
	_, err = DecodeWAVStream(bytes.NewReader(wav(1, 1, 16000, 16, 2, 32000, 1000, []byte{1, 2})))
	assert.ErrorContains(t, err, "claims 1000 bytes")
}
