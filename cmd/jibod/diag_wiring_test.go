package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/audio/listen"
	"github.com/openjibo/jibod/core/diag"
)

func TestReadPINHash(t *testing.T) {
	t.Setenv(pinHashEnv, "")
	dir := t.TempDir()
	f := &shellFlags{}

	h, err := readPINHash(f, dir)
	require.NoError(t, err)
	assert.Empty(t, h, "no file in the state folder: no PIN, not an error")
	h, err = readPINHash(f, noState)
	require.NoError(t, err)
	assert.Empty(t, h)

	require.NoError(t, os.WriteFile(filepath.Join(dir, pinFileName), []byte("pbkdf2-sha256$x\n"), 0o600))
	h, err = readPINHash(f, dir)
	require.NoError(t, err)
	assert.Equal(t, "pbkdf2-sha256$x", h)

	require.NoError(t, os.Chmod(filepath.Join(dir, pinFileName), 0o666))
	_, err = readPINHash(f, dir)
	assert.ErrorContains(t, err, "others may write it")

	_, err = readPINHash(&shellFlags{PINFile: filepath.Join(dir, "missing")}, dir)
	assert.ErrorContains(t, err, "no such file", "a PIN file named on the command line must exist")

	big := filepath.Join(dir, "big")
	require.NoError(t, os.WriteFile(big, bytes.Repeat([]byte("a"), maxPINFile+1), 0o600))
	_, err = readPINHash(&shellFlags{PINFile: big}, dir)
	assert.ErrorContains(t, err, "over 1024 bytes")

	t.Setenv(pinHashEnv, "from-env")
	h, err = readPINHash(f, dir)
	require.NoError(t, err)
	assert.Equal(t, "from-env", h, "the environment wins")
}

func TestShellWakeTopicIsTheListeners(t *testing.T) {
	assert.Equal(t, listen.TopicWakeRequest, diag.TopicWakeRequest)
}

func TestShellSocketPath(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", "")
	assert.Equal(t, "/var/lib/jibod/shell.sock", (&shellFlags{}).socketPath("/var/lib/jibod"))
	assert.Empty(t, (&shellFlags{}).socketPath(noState))
	assert.Empty(t, (&shellFlags{Socket: "off"}).socketPath("/var/lib/jibod"))
	assert.Equal(t, "/run/x.sock", (&shellFlags{Socket: "/run/x.sock"}).socketPath(noState))
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/1000")
	assert.Equal(t, "/run/user/1000/jibod-shell.sock", (&shellFlags{}).socketPath("/var/lib/jibod"))
}

func TestRunLoggerLevelFromShell(t *testing.T) {
	var stderr bytes.Buffer
	logs, err := newRunLogger(&stderr, "warn")
	require.NoError(t, err)
	logs.log.Info("quiet")
	assert.Empty(t, stderr.String())
	assert.Len(t, logs.book.Recent(slog.LevelInfo, 0), 1, "the book keeps info whatever the level")
	settings := runSettings(&robot{parts: &bodyParts{}}, logs)
	require.Equal(t, "log.level", settings[0].Key)
	assert.Equal(t, "warn", settings[0].Get())
	_, err = settings[0].Check("loud")
	assert.Error(t, err)
	v, err := settings[0].Check("debug")
	require.NoError(t, err)
	require.NoError(t, settings[0].Apply(v))
	logs.log.Debug("now shown")
	assert.Contains(t, stderr.String(), "now shown")
	_, err = newRunLogger(&stderr, "loud")
	assert.Error(t, err)
}

func TestShellVolumeSetting(t *testing.T) {
	r, err := newRobot(context.Background(), robotConfig{Board: "sim", SpeakWPM: 0, StateDir: noState, Log: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	defer r.Close(context.Background())
	logs, err := newRunLogger(io.Discard, "warn")
	require.NoError(t, err)
	var vol *diag.Setting
	for _, s := range runSettings(r, logs) {
		if s.Key == "volume" {
			vol = &s
		}
	}
	require.NotNil(t, vol)
	assert.Equal(t, "10", vol.Get())
	for _, bad := range []string{"11", "-1", "loud", "5.5"} {
		_, err := vol.Check(bad)
		assert.Error(t, err, bad)
	}
	v, err := vol.Check("3")
	require.NoError(t, err)
	require.NoError(t, vol.Apply(v))
	assert.Equal(t, "3", vol.Get())
	assert.InDelta(t, 0.3, volumeControl(r.parts.volume).Volume(), 1e-9)
}

// fakeMic is a capture backend yielding a steady tone.
type fakeMic struct {
	mu     sync.Mutex
	closed bool
}

func (m *fakeMic) Read(ctx context.Context, buf []int16) (int, error) {
	m.mu.Lock()
	closed := m.closed
	m.mu.Unlock()
	if closed {
		return 0, audio.ErrClosed
	}
	select {
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-time.After(time.Millisecond):
	}
	n := min(len(buf), 160)
	for i := range n {
		buf[i] = 3277 // -20 dBFS
		if i%2 == 1 {
			buf[i] = -3277
		}
	}
	return n, nil
}

func (m *fakeMic) Close() error {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	return nil
}

func TestMicTapHearsWhatTheRobotHears(t *testing.T) {
	assert.Nil(t, newMicTap("", nil), "nothing to hear or list: no audio on this robot")

	backends := map[string]audio.Backend{"fake": {
		Open: func(context.Context, string) (audio.Source, error) { return &fakeMic{}, nil },
		Devices: func(context.Context) ([]audio.Device, error) {
			return []audio.Device{{ID: "0", Name: "Mic", Default: true, Channels: 1, SampleRate: 16000}, {ID: "1", Name: "Line in"}}, nil
		},
	}}
	tap := newMicTap("fake", backends)
	require.NotNil(t, tap)
	devs, err := tap.Devices(context.Background())
	require.NoError(t, err)
	require.Len(t, devs, 2)
	assert.True(t, devs[0].InUse, "the default device is the one --audio fake opens")
	assert.False(t, devs[1].InUse)

	_, err = tap.Level(context.Background(), 100*time.Millisecond)
	assert.ErrorContains(t, err, "is not a capture device the shell can listen to", "nothing opened yet")

	// The robot's listener opens the source through the tapped backend and
	// reads it; the shell hears the same samples.
	src, err := (&audio.Opener{Backends: tap.Backends()}).Open(context.Background(), "fake")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		buf := make([]int16, 320)
		for {
			if _, err := src.Read(ctx, buf); err != nil {
				return
			}
		}
	}()
	lv, err := tap.Level(context.Background(), 50*time.Millisecond)
	require.NoError(t, err)
	assert.InDelta(t, -20, lv.RMS, 0.1)
	assert.InDelta(t, -20, lv.Peak, 0.1)

	var wav bytes.Buffer
	n, rate, err := tap.Record(context.Background(), 100*time.Millisecond, &wav)
	require.NoError(t, err)
	assert.Equal(t, 1600, n)
	assert.Equal(t, audio.SampleRate, rate)
	clip, err := audio.DecodeWAV(&wav)
	require.NoError(t, err)
	assert.Equal(t, 16000, clip.Format.SampleRate)
	assert.Len(t, clip.Samples, 1600)

	// Cancelled while listening: the shell stops, the robot's reading goes on.
	lctx, lcancel := context.WithCancel(context.Background())
	lcancel()
	_, err = tap.Level(lctx, time.Second)
	assert.True(t, errors.Is(err, context.Canceled))

	cancel()
	<-readerDone
	require.NoError(t, src.Close())
	_, err = tap.Level(context.Background(), 50*time.Millisecond)
	assert.Error(t, err, "the source is closed: nothing to hear")

	noAudio := newMicTap("", backends)
	_, err = noAudio.Level(context.Background(), time.Millisecond)
	assert.EqualError(t, err, "no audio input in use: jibod runs without --audio")
	assert.True(t, strings.HasPrefix(tap.errNoLiveInput().Error(), "the robot's audio input (fake)"))
}
