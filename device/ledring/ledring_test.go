package ledring_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/device/ledring"
	"github.com/openjibo/jibod/device/sim"
)

func rgb(s string) device.RGB {
	c, err := device.ParseRGB(s)
	if err != nil {
		panic(err)
	}
	return c
}

// Every pattern draws something and allocates nothing.
func TestPatterns(t *testing.T) {
	px := make([]device.RGB, 12)
	for _, name := range ledring.Patterns() {
		for _, at := range []time.Duration{0, 130 * time.Millisecond, 777 * time.Millisecond} {
			require.True(t, ledring.Render(name, at, px), name)
			for _, c := range px {
				assert.Equal(t, uint8(0xff), c.A)
			}
		}
		assert.Zero(t, testing.AllocsPerRun(100, func() { ledring.Render(name, time.Second, px) }), name)
	}
	assert.False(t, ledring.Render("disco", 0, px))

	ledring.Render(ledring.PatternError, 0, px)
	assert.Equal(t, rgb("red"), px[0], "error blinks red: on")
	ledring.Render(ledring.PatternError, 300*time.Millisecond, px)
	assert.Equal(t, rgb("black"), px[0], "error blinks red: off")
	ledring.Render(ledring.PatternThinking, 0, px)
	assert.Equal(t, rgb("#40c0ff"), px[0], "the comet's head")
	assert.Equal(t, rgb("black"), px[6], "dark opposite the head")
}

func TestProgramDraw(t *testing.T) {
	p := ledring.Program{Name: "fade", Keys: []ledring.Key{
		{Color: rgb("black")},
		{At: time.Second, Color: rgb("#ff0000"), Fade: true},
		{At: 2 * time.Second, Pattern: ledring.PatternError},
	}, Duration: 3 * time.Second}
	require.NoError(t, p.Validate())
	px := make([]device.RGB, 2)
	p.Draw(500*time.Millisecond, px)
	assert.Equal(t, device.RGB{R: 0x80, A: 0xff}, px[0], "half way through the fade")
	p.Draw(1500*time.Millisecond, px)
	assert.Equal(t, rgb("red"), px[0])
	p.Draw(2100*time.Millisecond, px)
	assert.Equal(t, rgb("red"), px[0], "the error pattern, from its own start")
	p.Period = time.Second
	p.Draw(1500*time.Millisecond, px)
	assert.Equal(t, device.RGB{R: 0x80, A: 0xff}, px[0], "repeats with a period")

	for _, bad := range []struct {
		p    ledring.Program
		want string
	}{
		{ledring.Program{}, "no keys"},
		{ledring.Program{Keys: []ledring.Key{{At: 1}}}, "key 0 is at 1ns, want 0"},
		{ledring.Program{Keys: []ledring.Key{{}, {}}}, "key 1 at 0s is not after key 0"},
		{ledring.Program{Keys: []ledring.Key{{Pattern: "disco"}}}, `unknown pattern "disco"`},
		{ledring.Program{Keys: []ledring.Key{{}}, Duration: time.Hour}, "duration 1h0m0s outside"},
	} {
		assert.ErrorContains(t, bad.p.Validate(), bad.want)
	}
}

type recorder struct {
	mu sync.Mutex
	ev []string
}

func (r *recorder) observe(e device.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := e.Kind
	for _, k := range []string{"color", "name", "status"} {
		if v, ok := e.Values[k]; ok {
			s += " " + v.(string)
		}
	}
	r.ev = append(r.ev, s)
}

func (r *recorder) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.ev...)
}

// Programs stack over the base colour: the newest shows, and when it ends
// what was beneath comes back. Frames are not reported, starts and ends
// are.
func TestAnimatorLayers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ring, err := sim.NewLEDRing(sim.LEDRingOptions{Pixels: 4})
		require.NoError(t, err)
		var rec recorder
		a, err := ledring.New(ledring.Options{Ring: ring, FPS: 20, Observer: rec.observe})
		require.NoError(t, err)
		defer a.Close()
		ctx := context.Background()
		blue := device.Fill(4, rgb("blue"))
		require.NoError(t, a.Set(ctx, blue))
		assert.Equal(t, blue, ring.Pixels())

		done := make(chan error, 1)
		go func() {
			done <- a.Play(ctx, ledring.Program{Name: "red", Keys: []ledring.Key{{Color: rgb("red")}}, Duration: time.Second})
		}()
		time.Sleep(100 * time.Millisecond)
		assert.Equal(t, device.Fill(4, rgb("red")), ring.Pixels())
		assert.Equal(t, blue, a.Pixels(), "the base is unchanged")

		// A pattern over it, cancelled half way.
		pctx, cancel := context.WithCancel(ctx)
		go func() {
			time.Sleep(200 * time.Millisecond)
			cancel()
		}()
		err = a.Play(pctx, ledring.PatternProgram(ledring.PatternError, 0))
		assert.ErrorIs(t, err, context.Canceled)
		time.Sleep(50 * time.Millisecond)
		assert.Equal(t, device.Fill(4, rgb("red")), ring.Pixels(), "the program beneath shows again")

		// A Set while a program plays changes the base only.
		green := device.Fill(4, rgb("green"))
		require.NoError(t, a.Set(ctx, green))
		assert.Equal(t, device.Fill(4, rgb("red")), ring.Pixels())
		require.NoError(t, <-done)
		synctest.Wait()
		assert.Equal(t, green, ring.Pixels(), "back to the base")
		assert.Equal(t, green, a.Frame())
		assert.Equal(t, []string{"set #0000ff", "play red", "play error", "end error canceled", "set #00ff00", "end red done"}, rec.list())
	})
}

func TestAnimatorErrors(t *testing.T) {
	_, err := ledring.New(ledring.Options{})
	assert.ErrorContains(t, err, "no ring")
	ring, _ := sim.NewLEDRing(sim.LEDRingOptions{Pixels: 3})
	_, err = ledring.New(ledring.Options{Ring: ring, FPS: 1000})
	assert.ErrorContains(t, err, "1000 frames per second outside 1..200")
	a, err := ledring.New(ledring.Options{Ring: ring})
	require.NoError(t, err)
	ctx := context.Background()
	assert.ErrorContains(t, a.Set(ctx, device.Fill(2, device.RGB{})), "got 2 colours, the ring has 3 pixels")
	assert.ErrorContains(t, a.Play(ctx, ledring.Program{}), "no keys")
	require.NoError(t, a.Check(ctx))
	require.NoError(t, a.Close())
	require.NoError(t, a.Close())
	assert.ErrorIs(t, a.Set(ctx, device.Fill(3, device.RGB{})), device.ErrClosed)
	assert.ErrorIs(t, a.Play(ctx, ledring.PatternProgram(ledring.PatternOff, time.Second)), device.ErrClosed)
}
