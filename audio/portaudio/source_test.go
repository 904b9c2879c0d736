package portaudio

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/audio"
)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// readFull reads n samples from src.
func readFull(t *testing.T, src audio.Source, n int) []int16 {
	t.Helper()
	out := make([]int16, 0, n)
	buf := make([]int16, 1000)
	for len(out) < n {
		k, err := src.Read(context.Background(), buf[:min(len(buf), n-len(out))])
		require.NoError(t, err)
		out = append(out, buf[:k]...)
	}
	return out
}

func TestSourceConvertsToRecognitionFormat(t *testing.T) {
	for _, tc := range []struct {
		name      string
		dev       DeviceInfo
		monoFails bool
		channels  int
		level     float64 // of the 440 Hz tone after conversion
	}{
		{"48 kHz, mono allowed", usbMic, false, 1, 8000},
		{"48 kHz stereo-only card, mixed down", usbMic, true, 2, 6000}, // (8000+4000)/2
		{"44.1 kHz", analog, false, 1, 8000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(tc.dev)
			f.monoFails = tc.monoFails
			h := NewHost(f, quiet())
			src, err := h.OpenSource(context.Background(), tc.dev.Name, SourceOptions{})
			require.NoError(t, err)
			ch, rate := src.Format()
			assert.Equal(t, tc.channels, ch)
			assert.Equal(t, int(tc.dev.DefaultRate), rate)
			assert.Equal(t, tc.dev.Name, src.Device().Name)

			pcm := readFull(t, src, audio.SampleRate) // one second
			body := pcm[200 : len(pcm)-200]
			assert.InDelta(t, tc.level, level(body, audio.SampleRate, 440), tc.level/100)
			require.NoError(t, src.Close())
			assert.Equal(t, f.inits, f.terms, "closing gives the library back")
			assert.False(t, f.overlap, "library calls overlapped")
		})
	}
}

func TestSourceOverflowIsNotFatal(t *testing.T) {
	f := newFake(usbMic)
	f.overflows = 2
	src, err := NewHost(f, quiet()).OpenSource(context.Background(), "", SourceOptions{})
	require.NoError(t, err)
	defer src.Close()
	readFull(t, src, 3200)
	assert.Equal(t, 2, src.Overflows())
}

func TestSourceOpenErrors(t *testing.T) {
	odd := usbMic
	odd.DefaultRate = 44056
	for _, tc := range []struct {
		name     string
		dev      DeviceInfo
		selector string
		opts     SourceOptions
		initErr  error
		err      string
	}{
		{"no such device", usbMic, "webcam", SourceOptions{}, nil, `no input device named "webcam"`},
		{"odd device rate", odd, "", SourceOptions{}, nil, "filter phases"},
		{"chunk too long", usbMic, "", SourceOptions{Chunk: time.Second}, nil, "want 5 to 200 ms"},
		{"library fails to start", usbMic, "", SourceOptions{}, io.ErrUnexpectedEOF, "starting PortAudio"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(tc.dev)
			f.initErr = tc.initErr
			_, err := NewHost(f, quiet()).OpenSource(context.Background(), tc.selector, tc.opts)
			require.ErrorContains(t, err, tc.err)
			assert.Equal(t, f.inits, f.terms, "a failed open gives the library back")
		})
	}
}

func TestSourceCloseAndCancel(t *testing.T) {
	f := newFake(usbMic)
	src, err := NewHost(f, quiet()).OpenSource(context.Background(), "", SourceOptions{})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = src.Read(ctx, make([]int16, 10))
	assert.ErrorIs(t, err, context.Canceled)

	// Close while another goroutine reads: the reader ends with ErrClosed.
	var wg sync.WaitGroup
	wg.Go(func() {
		buf := make([]int16, 100)
		for {
			if _, err := src.Read(context.Background(), buf); err != nil {
				assert.ErrorIs(t, err, audio.ErrClosed)
				return
			}
		}
	})
	time.Sleep(time.Millisecond)
	require.NoError(t, src.Close())
	wg.Wait()
	require.NoError(t, src.Close(), "a second close is harmless")
	assert.Equal(t, 1, f.terms)
}

// A device unplugged mid-stream: the read fails with an error naming it,
// every reopen while it is gone fails with an error saying so, and when it
// comes back (at another index) capture continues. Time is fake: the
// backoff takes no real time.
func TestSourceRecoversWhenTheDeviceReturns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake(analog, usbMic)
		h := NewHost(f, quiet())
		o := &audio.Opener{
			Backends: map[string]audio.Backend{"portaudio": h.Backend(SourceOptions{})},
			Logger:   quiet(),
		}
		ctx := context.Background()
		src, err := o.Open(ctx, "portaudio:USB PnP")
		require.NoError(t, err)
		re, ok := src.(*audio.Reopener)
		require.True(t, ok, "the portaudio backend is live")
		var mu sync.Mutex
		var failures []string
		re.SetOnError(func(err error) {
			mu.Lock()
			failures = append(failures, err.Error())
			mu.Unlock()
		})

		buf := make([]int16, 320)
		n, err := src.Read(ctx, buf)
		require.NoError(t, err)
		assert.Equal(t, 320, n)

		f.unplug(usbMic.Name)
		got := make(chan error, 1)
		go func() {
			_, err := src.Read(ctx, buf)
			got <- err
		}()
		time.Sleep(10 * time.Second) // fake time: several reopen attempts
		synctest.Wait()
		select {
		case err := <-got:
			t.Fatalf("read returned %v while the device was away", err)
		default:
		}
		mu.Lock()
		gone := append([]string(nil), failures...)
		mu.Unlock()
		require.GreaterOrEqual(t, len(gone), 3, "the read failure and at least two failed reopens")
		assert.Contains(t, gone[0], `capture from "USB PnP Sound Device: Audio (hw:1,0)": device unplugged`)
		for _, e := range gone[1:] {
			assert.Contains(t, e, `no input device named "USB PnP"`)
		}

		back := usbMic
		back.Index = 7 // the card came back under a new index
		f.plug(back)
		time.Sleep(10 * time.Second)
		synctest.Wait()
		select {
		case err := <-got:
			require.NoError(t, err)
		default:
			t.Fatal("no samples after the device returned")
		}
		n, err = src.Read(ctx, buf)
		require.NoError(t, err)
		assert.Equal(t, 320, n)
		require.NoError(t, src.Close())
		assert.Equal(t, f.inits, f.terms, "every start of the library was matched by a stop")
		assert.Greater(t, f.inits, 2, "each reopen restarted the library to see the devices anew")
		assert.False(t, f.overlap)
	})
}

// BenchmarkSourceRead is the capture path per 20 ms of 48 kHz stereo audio
// (the fake device's own tone generation included).
func BenchmarkSourceRead(b *testing.B) {
	f := newFake(usbMic)
	f.monoFails = true
	src, err := NewHost(f, quiet()).OpenSource(context.Background(), "", SourceOptions{})
	require.NoError(b, err)
	defer src.Close()
	buf := make([]int16, 320)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := src.Read(ctx, buf); err != nil {
			b.Fatal(err)
		}
	}
}
