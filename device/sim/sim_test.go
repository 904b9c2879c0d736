package sim_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/device/sim"
	"github.com/openjibo/jibod/jcp"
)

// The simulated devices satisfy the interfaces the JCP executor drives,
// without package device importing jcp.
var (
	_ jcp.Voice  = (*sim.Speaker)(nil)
	_ jcp.Lights = (*sim.LEDRing)(nil)
)

// recorder collects device events; it is safe for concurrent use.
type recorder struct {
	mu     sync.Mutex
	events []device.Event
}

func (r *recorder) observe(e device.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

// kinds returns "device/kind" for each event, in order.
func (r *recorder) kinds() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, len(r.events))
	for i, e := range r.events {
		out[i] = e.Device + "/" + e.Kind
	}
	return out
}

func (r *recorder) all() []device.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]device.Event(nil), r.events...)
}

func TestNewSpeakerRejectsBadRate(t *testing.T) {
	for _, wpm := range []int{-1, sim.MaxWPM + 1} {
		_, err := sim.NewSpeaker(sim.SpeakerOptions{WPM: wpm})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "want 0..1000")
	}
}

func TestSpeakerSayInstant(t *testing.T) {
	var rec recorder
	s, err := sim.NewSpeaker(sim.SpeakerOptions{Observer: rec.observe})
	require.NoError(t, err)

	require.NoError(t, s.Say(context.Background(), "Hello there."))
	require.NoError(t, s.Say(context.Background(), "   "), "blank text is a no-op")

	assert.Equal(t, []string{"Hello there."}, s.Said())
	assert.Equal(t, []string{"speaker/say", "speaker/done"}, rec.kinds())
	assert.Equal(t, map[string]any{"text": "Hello there."}, rec.all()[0].Values)
}

func TestSpeakerRejectsBadText(t *testing.T) {
	s, err := sim.NewSpeaker(sim.SpeakerOptions{})
	require.NoError(t, err)
	tests := []struct {
		name, text, wantErr string
	}{
		{"too long", strings.Repeat("a", device.MaxSayBytes+1), "text is 8193 bytes, limit 8192"},
		{"bad utf8", "caf\xe9", "not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.Say(context.Background(), tt.text)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
	assert.Empty(t, s.Said())
}

// At 60 words per minute each word takes a second of (simulated) time.
func TestSpeakerTakesRealisticTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, err := sim.NewSpeaker(sim.SpeakerOptions{WPM: 60})
		require.NoError(t, err)
		start := time.Now()
		require.NoError(t, s.Say(context.Background(), "one two three"))
		assert.Equal(t, 3*time.Second, time.Since(start))
	})
}

func TestSpeakerCancelMidSentence(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var rec recorder
		s, err := sim.NewSpeaker(sim.SpeakerOptions{WPM: 60, Observer: rec.observe})
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- s.Say(ctx, "one two three four") }()

		time.Sleep(2500 * time.Millisecond) // two words spoken, third under way
		cancel()
		err = <-done

		var ie *device.InterruptedError
		require.ErrorAs(t, err, &ie)
		assert.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, "one two", ie.Spoken)
		assert.Equal(t, "one two three four", ie.Text)
		assert.Empty(t, s.Said(), "an interrupted utterance is not recorded as said")
		assert.Equal(t, []string{"speaker/say", "speaker/interrupted"}, rec.kinds())
		assert.Equal(t, map[string]any{"text": "one two three four", "spoken": "one two"}, rec.all()[1].Values)
	})
}

func TestSpeakerCancelledBeforeStart(t *testing.T) {
	var rec recorder
	s, err := sim.NewSpeaker(sim.SpeakerOptions{Observer: rec.observe})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = s.Say(ctx, "hello")
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, "sim speaker: say: context canceled", err.Error())
	assert.Empty(t, rec.all(), "nothing reached the speaker")
}

// A second utterance waits for the first; one that gives up waiting never
// reaches the speaker.
func TestSpeakerOneUtteranceAtATime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var rec recorder
		s, err := sim.NewSpeaker(sim.SpeakerOptions{WPM: 60, Observer: rec.observe})
		require.NoError(t, err)

		var wg sync.WaitGroup
		wg.Go(func() { assert.NoError(t, s.Say(context.Background(), "first words")) })
		synctest.Wait() // first is speaking
		wg.Go(func() { assert.NoError(t, s.Say(context.Background(), "second")) })
		ctx, cancel := context.WithCancel(context.Background())
		waitErr := make(chan error, 1)
		go func() { waitErr <- s.Say(ctx, "never") }()
		synctest.Wait()
		cancel()
		err = <-waitErr
		require.Error(t, err)
		assert.ErrorIs(t, err, context.Canceled)
		assert.Contains(t, err.Error(), "wait for speaker")
		wg.Wait()

		assert.Equal(t, []string{"first words", "second"}, s.Said())
		assert.Equal(t, []string{"speaker/say", "speaker/done", "speaker/say", "speaker/done"}, rec.kinds())
	})
}

func TestSpeakerCloseInterrupts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, err := sim.NewSpeaker(sim.SpeakerOptions{WPM: 60})
		require.NoError(t, err)
		done := make(chan error, 1)
		go func() { done <- s.Say(context.Background(), "a long sentence") }()
		time.Sleep(1500 * time.Millisecond)
		require.NoError(t, s.Close())
		err = <-done
		assert.ErrorIs(t, err, device.ErrClosed)
		var ie *device.InterruptedError
		require.ErrorAs(t, err, &ie)
		assert.Equal(t, "a", ie.Spoken)

		assert.ErrorIs(t, s.Say(context.Background(), "again"), device.ErrClosed)
		assert.ErrorIs(t, s.Check(context.Background()), device.ErrClosed)
		assert.NoError(t, s.Close(), "closing twice is harmless")
	})
}

func TestLEDRing(t *testing.T) {
	var rec recorder
	r, err := sim.NewLEDRing(sim.LEDRingOptions{Observer: rec.observe})
	require.NoError(t, err)
	require.Equal(t, sim.DefaultPixels, r.Len())
	assert.Equal(t, device.Fill(12, device.RGB{A: 0xff}), r.Pixels(), "starts dark")

	blue := device.RGB{G: 0xaa, B: 0xff}
	require.NoError(t, r.Set(context.Background(), device.Fill(12, blue)))
	blue.A = 0xff
	assert.Equal(t, device.Fill(12, blue), r.Pixels(), "alpha is ignored")

	mixed := device.Fill(12, blue)
	mixed[3] = device.RGB{R: 0xff, A: 0xff}
	require.NoError(t, r.Set(context.Background(), mixed))

	events := rec.all()
	require.Len(t, events, 2)
	assert.Equal(t, "led", events[0].Device)
	assert.Equal(t, "set", events[0].Kind)
	assert.Equal(t, map[string]any{"color": "#00aaff"}, events[0].Values)
	px := events[1].Values["pixels"].([]string)
	assert.Len(t, px, 12)
	assert.Equal(t, "#ff0000", px[3])
	assert.Equal(t, "#00aaff", px[0])

	// Pixels is a copy: changing it does not change the ring.
	got := r.Pixels()
	got[0] = device.RGB{}
	assert.Equal(t, blue, r.Pixels()[0])
}

// An animation writes a frame many times a second: the ring reports what
// changes and nothing else, and a frame costs no allocation when nobody
// watches or when it shows what is already shown.
func TestLEDRingReportsChangesOnly(t *testing.T) {
	ctx := context.Background()
	var rec recorder
	r, err := sim.NewLEDRing(sim.LEDRingOptions{Pixels: 4, Observer: rec.observe})
	require.NoError(t, err)
	red, blue := device.RGB{R: 0xff, A: 0xff}, device.RGB{B: 0xff, A: 0xff}
	for _, c := range []device.RGB{red, red, {R: 0xff, A: 0x10}, blue, blue, red} {
		require.NoError(t, r.Set(ctx, device.Fill(4, c)))
	}
	var got []any
	for _, e := range rec.all() {
		got = append(got, e.Values["color"])
	}
	assert.Equal(t, []any{"#ff0000", "#0000ff", "#ff0000"}, got, "a frame that shows the same colours again is not reported")

	frame := device.Fill(4, red)
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = r.Set(ctx, frame) }), "the same frame again, watched")

	quiet, err := sim.NewLEDRing(sim.LEDRingOptions{Pixels: 12, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	a, b := device.Fill(12, red), device.Fill(12, blue)
	b[5] = red
	i := 0
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		i++
		f := a
		if i%2 == 0 {
			f = b
		}
		_ = quiet.Set(ctx, f)
	}), "changing frames, unwatched, debug logs off")
	assert.Equal(t, a, quiet.Pixels(), "the last frame is shown")
}

func TestLEDRingErrors(t *testing.T) {
	for _, n := range []int{-1, sim.MaxPixels + 1} {
		_, err := sim.NewLEDRing(sim.LEDRingOptions{Pixels: n})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "want 1..1024")
	}

	var rec recorder
	r, err := sim.NewLEDRing(sim.LEDRingOptions{Pixels: 4, Observer: rec.observe})
	require.NoError(t, err)
	err = r.Set(context.Background(), device.Fill(3, device.RGB{}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "got 3 colours, the ring has 4 pixels")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, r.Set(ctx, device.Fill(4, device.RGB{})), context.Canceled)

	require.NoError(t, r.Close())
	assert.ErrorIs(t, r.Set(context.Background(), device.Fill(4, device.RGB{})), device.ErrClosed)
	assert.ErrorIs(t, r.Check(context.Background()), device.ErrClosed)
	assert.Empty(t, rec.all(), "rejected sets report nothing")
}

func TestMotorMovesAtVelocityLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var rec recorder
		m, err := sim.NewMotor(sim.MotorOptions{Axis: device.TopSection, Observer: rec.observe})
		require.NoError(t, err)
		assert.Equal(t, device.TopSection, m.Name())
		assert.Equal(t, device.DefaultLimits(), m.Limits())
		assert.Equal(t, 0.0, m.Angle())

		require.NoError(t, m.SetAngle(context.Background(), 2))
		assert.Equal(t, 0.0, m.Angle(), "SetAngle returns before the axis moves")
		assert.Equal(t, 2.0, m.Target())

		time.Sleep(100 * time.Millisecond) // 10 rad/s × 0.1 s
		assert.InDelta(t, 1.0, m.Angle(), 1e-9)

		// A new command starts from where the axis is.
		require.NoError(t, m.SetAngle(context.Background(), -1))
		time.Sleep(50 * time.Millisecond)
		assert.InDelta(t, 0.5, m.Angle(), 1e-9)
		time.Sleep(time.Second)
		assert.Equal(t, -1.0, m.Angle(), "stops at the target")

		events := rec.all()
		require.Len(t, events, 2)
		assert.Equal(t, "motor.topSection_r", events[0].Device)
		assert.Equal(t, "move", events[0].Kind)
		assert.Equal(t, 0.0, events[0].Values["from"])
		assert.Equal(t, 2.0, events[0].Values["to"])
		assert.InDelta(t, 0.2, events[0].Values["seconds"], 1e-9)
		assert.InDelta(t, 1.0, events[1].Values["from"], 1e-9)
	})
}

// Targets beyond ±3.0543 rad (spec/jibo.md §6) are rejected and change nothing.
func TestMotorRejectsOutOfLimit(t *testing.T) {
	var rec recorder
	m, err := sim.NewMotor(sim.MotorOptions{Axis: device.BottomSection, Observer: rec.observe})
	require.NoError(t, err)
	err = m.SetAngle(context.Background(), 3.1)
	var le *device.LimitError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, "motor bottomSection_r: target 3.1 rad outside limits [-3.0543, 3.0543]", err.Error())
	assert.Equal(t, 0.0, m.Target())
	assert.Empty(t, rec.all())
}

func TestMotorEnable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var rec recorder
		m, err := sim.NewMotor(sim.MotorOptions{Axis: device.MiddleSection, Observer: rec.observe})
		require.NoError(t, err)
		require.True(t, m.Enabled())
		require.NoError(t, m.SetAngle(context.Background(), 1))
		time.Sleep(50 * time.Millisecond)

		require.NoError(t, m.Enable(context.Background(), false))
		assert.False(t, m.Enabled())
		time.Sleep(time.Second)
		assert.InDelta(t, 0.5, m.Angle(), 1e-9, "an unpowered axis stops where it was")
		assert.ErrorIs(t, m.SetAngle(context.Background(), 0), device.ErrDisabled)

		require.NoError(t, m.Enable(context.Background(), true))
		require.NoError(t, m.SetAngle(context.Background(), 0))
		assert.Equal(t, []string{
			"motor.middleSection_r/move", "motor.middleSection_r/enable",
			"motor.middleSection_r/enable", "motor.middleSection_r/move",
		}, rec.kinds())
		assert.Equal(t, false, rec.all()[1].Values["on"])
	})
}

func TestMotorOptionsAndClose(t *testing.T) {
	_, err := sim.NewMotor(sim.MotorOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "axis name")

	_, err = sim.NewMotor(sim.MotorOptions{Axis: "x", Limits: device.Limits{Min: 1, Max: 0, MaxVelocity: 1, MaxAcceleration: 1}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "sim motor x: angle limits [1, 0] rad: min must be below max")

	m, err := sim.NewMotor(sim.MotorOptions{Axis: "x", Limits: device.Limits{Min: 0.5, Max: 1, MaxVelocity: 1, MaxAcceleration: 1}})
	require.NoError(t, err)
	assert.Equal(t, 0.5, m.Angle(), "home is the nearest limit when 0 is out of range")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, m.SetAngle(ctx, 0.7), context.Canceled)

	require.NoError(t, m.Close())
	assert.ErrorIs(t, m.SetAngle(context.Background(), 0.7), device.ErrClosed)
	assert.ErrorIs(t, m.Enable(context.Background(), true), device.ErrClosed)
	assert.ErrorIs(t, m.Check(context.Background()), device.ErrClosed)
	assert.True(t, errors.Is(m.Check(ctx), context.Canceled))
}

// TestCheck: every device's Check fails on a done context, naming the
// device, answers while open, and fails with device.ErrClosed once closed.
func TestCheck(t *testing.T) {
	type checker interface {
		Check(context.Context) error
		Close() error
	}
	must := func(c checker, err error) checker {
		require.NoError(t, err)
		return c
	}
	devices := []struct {
		name string
		dev  checker
	}{
		{"sim display", sim.NewDisplay(sim.DisplayOptions{})},
		{"sim led ring", must(sim.NewLEDRing(sim.LEDRingOptions{}))},
		{"sim motor " + device.TopSection, must(sim.NewMotor(sim.MotorOptions{Axis: device.TopSection}))},
		{"sim pcm sink", must(sim.NewPCMSink(sim.PCMSinkOptions{}))},
		{"sim speaker", must(sim.NewSpeaker(sim.SpeakerOptions{}))},
		{"sim switch motor-power", sim.NewSwitch(sim.SwitchOptions{Name: "motor-power"})},
	}
	for _, d := range devices {
		t.Run(d.name, func(t *testing.T) {
			done, cancel := context.WithCancel(context.Background())
			cancel()
			err := d.dev.Check(done)
			require.ErrorIs(t, err, context.Canceled)
			assert.ErrorContains(t, err, d.name+": check: ")
			require.NoError(t, d.dev.Check(context.Background()))
			require.NoError(t, d.dev.Close())
			err = d.dev.Check(context.Background())
			require.ErrorIs(t, err, device.ErrClosed)
			assert.ErrorContains(t, err, d.name+": check: ")
		})
	}
}
