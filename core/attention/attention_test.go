package attention

import (
	"context"
	"log/slog"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/motion"
)

// looks records where the body was told to look.
type looks chan motion.Gaze

func (l looks) LookAt(t motion.Target, _ motion.LookOptions) (*motion.Job, error) {
	p := *t.Position
	l <- motion.Gaze{Yaw: math.Atan2(p[1], p[0]), Pitch: math.Atan2(p[2]-motion.HeadHeight, math.Hypot(p[0], p[1]))}
	return nil, nil
}

func deg(g motion.Gaze) [2]float64 {
	return [2]float64{math.Round(g.Yaw * 180 / math.Pi), math.Round(g.Pitch * 180 / math.Pi)}
}

func (l looks) next(t *testing.T) motion.Gaze {
	t.Helper()
	select {
	case g := <-l:
		return g
	case <-time.After(10 * time.Second): // a hang guard, not a timing bound
		t.Fatal("the body was never turned")
		return motion.Gaze{}
	}
}

func wake(data map[string]any) bus.Message {
	if data == nil {
		data = map[string]any{}
	}
	data["source"] = "voice"
	return bus.NewMessage(TopicWake, data)
}

// On wake the robot turns toward the speaker: where the board's microphone
// array heard them, else the board's configured listener direction.
func TestWakeTurnsTowardTheListener(t *testing.T) {
	b := bus.New(bus.Options{})
	defer b.Close(context.Background())
	body := make(looks, 8)
	a, err := New(Config{Bus: b, Motion: body, Listener: Direction{YawDeg: 0, PitchDeg: 10},
		Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	require.NoError(t, a.Start())
	defer a.Close()
	ctx := context.Background()

	require.NoError(t, b.Publish(ctx, wake(nil)))
	assert.Equal(t, [2]float64{0, 10}, deg(body.next(t)), "no direction of arrival: the configured one")

	require.NoError(t, b.Publish(ctx, wake(map[string]any{"doa": map[string]any{"yaw_deg": 45.0, "pitch_deg": int64(5)}})))
	assert.Equal(t, [2]float64{45, 5}, deg(body.next(t)))
	assert.Equal(t, Direction{YawDeg: 45, PitchDeg: 5}, a.Direction())

	for _, bad := range []any{"left", map[string]any{"yaw_deg": 400.0}, map[string]any{"pitch_deg": 3.0}, map[string]any{"yaw_deg": "x"}} {
		require.NoError(t, b.Publish(ctx, wake(map[string]any{"doa": bad})))
		assert.Equal(t, [2]float64{45, 5}, deg(body.next(t)), "a bad direction (%v) keeps the last known", bad)
	}

	tgt, ok := a.Listener()
	require.True(t, ok)
	g := motion.Gaze{Yaw: math.Atan2(tgt.Position[1], tgt.Position[0]), Pitch: math.Atan2(tgt.Position[2]-motion.HeadHeight, math.Hypot(tgt.Position[0], tgt.Position[1]))}
	assert.Equal(t, [2]float64{45, 5}, deg(g), "a turn starts facing them")
}

func TestNewRefusesBadConfig(t *testing.T) {
	b := bus.New(bus.Options{})
	defer b.Close(context.Background())
	_, err := New(Config{})
	assert.EqualError(t, err, "attention: no bus")
	_, err = New(Config{Bus: b, Listener: Direction{YawDeg: 200}})
	assert.EqualError(t, err, "attention: listener direction: yaw 200°: want -180..180")
	_, err = New(Config{Bus: b, Listener: Direction{PitchDeg: math.NaN()}})
	assert.EqualError(t, err, "attention: listener direction: pitch NaN°: want -60..60")
}
