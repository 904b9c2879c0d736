package idle

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/device/ledring"
	"github.com/openjibo/jibod/device/sim"
	"github.com/openjibo/jibod/motion"
)

// rig is a running body (sim motors and ring behind the motion loop), a
// bus and an idle life on them, in a synctest bubble.
type rig struct {
	bus  *bus.Bus
	ctrl *motion.Controller
	idle *Idle
	busy atomic.Bool

	mu     sync.Mutex
	events []string // motion events as "kind name"
}

func newRig(t *testing.T) *rig {
	t.Helper()
	r := &rig{bus: bus.New(bus.Options{Logger: slog.New(slog.DiscardHandler)})}
	var ms []device.Motor
	for _, a := range device.Axes() {
		m, err := sim.NewMotor(sim.MotorOptions{Axis: a})
		require.NoError(t, err)
		ms = append(ms, m)
	}
	ring, err := sim.NewLEDRing(sim.LEDRingOptions{})
	require.NoError(t, err)
	lights, err := ledring.New(ledring.Options{Ring: ring})
	require.NoError(t, err)
	ctrl, err := motion.New(motion.Config{Motors: ms, Lights: lights, Observer: func(e device.Event) {
		r.mu.Lock()
		defer r.mu.Unlock()
		name, _ := e.Values["name"].(string)
		r.events = append(r.events, strings.TrimSpace(e.Kind+" "+name))
	}})
	require.NoError(t, err)
	require.NoError(t, ctrl.Start(context.Background()))
	r.ctrl = ctrl
	lib, err := motion.Builtin()
	require.NoError(t, err)
	r.idle, err = New(Config{Bus: r.bus, Motion: ctrl, Animations: lib, Busy: r.busy.Load,
		After: 10 * time.Second, GlanceEvery: 20 * time.Second, Rand: func(n int) int { return 0 },
		Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	require.NoError(t, r.idle.Start(context.Background()))
	t.Cleanup(func() {
		r.idle.Close()
		_ = ctrl.Close(context.Background())
		_ = lights.Close()
		_ = r.bus.Close(context.Background())
	})
	return r
}

// since returns the motion events after the first n.
func (r *rig) since(n int) []string {
	synctest.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.events[n:]...)
}

func (r *rig) count() int {
	synctest.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.events)
}

func (r *rig) publish(t *testing.T, topic string, data map[string]any) {
	t.Helper()
	require.NoError(t, r.bus.Publish(context.Background(), bus.NewMessage(topic, data)))
	synctest.Wait()
}

// When nobody talks the robot breathes and glances around; the moment
// someone talks to it, idle life ends, and it starts again only after a
// quiet spell with the utterance handled.
func TestIdleLifeYieldsToActivity(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		start := r.count()
		time.Sleep(9 * time.Second)
		assert.Empty(t, r.since(start), "not before the quiet spell")
		time.Sleep(2 * time.Second)
		assert.Equal(t, []string{"animation idle-breathe"}, r.since(start))
		assert.True(t, r.ctrl.Moving())

		time.Sleep(10 * time.Second) // Rand 0: the first glance after half of GlanceEvery
		assert.Contains(t, r.since(start), "animation glance-left")
		time.Sleep(5 * time.Second)
		assert.Equal(t, 2, strings.Count(strings.Join(r.since(start), "|"), "animation idle-breathe"), "breathing again after the glance")

		n := r.count()
		r.publish(t, pipeline.TopicHandle, map[string]any{"utterances": []any{"hello"}})
		time.Sleep(time.Second)
		assert.Equal(t, []string{"finished idle-breathe"}, r.since(n), "a graceful end, at once")
		assert.False(t, r.ctrl.Moving())

		n = r.count()
		time.Sleep(30 * time.Second)
		assert.Empty(t, r.since(n), "an utterance not yet handled keeps the robot attentive")
		r.publish(t, pipeline.TopicHandled, map[string]any{})
		time.Sleep(11 * time.Second)
		assert.Equal(t, []string{"animation idle-breathe"}, r.since(n))
	})
}

// Idle life waits while an action runs on the body, however quiet the bus.
func TestIdleWaitsForRunningActions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.busy.Store(true)
		n := r.count()
		time.Sleep(time.Minute)
		assert.Empty(t, r.since(n))
		r.busy.Store(false)
		time.Sleep(3 * time.Second)
		assert.Equal(t, []string{"animation idle-breathe"}, r.since(n))
	})
}

// A stop brings the body back to rest once the stopped action has let go
// (STOP-06); a wake with the stop turns the body to the speaker instead.
func TestStopReturnsTheBodyToRest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		nod, _ := motion.Builtin()
		a, _ := nod.Lookup("nod")
		r.busy.Store(true)
		_, err := r.ctrl.Play(a, motion.PlayOptions{Loops: -1})
		require.NoError(t, err)
		time.Sleep(300 * time.Millisecond)
		r.ctrl.Halt("canceled") // what the executor does to a stopped action's motion
		n := r.count()
		r.publish(t, pipeline.TopicStop, map[string]any{})
		time.Sleep(500 * time.Millisecond)
		assert.NotContains(t, r.since(n), "move move", "not while the action still holds the body")
		r.busy.Store(false)
		time.Sleep(time.Second)
		assert.Contains(t, r.since(n), "move move")
		assert.Equal(t, r.ctrl.Rest(), r.ctrl.Pose(), "back at rest")

		// "hey jibo" while the robot talks: the listener stops it and wakes.
		r.busy.Store(true)
		n = r.count()
		r.publish(t, pipeline.TopicStop, map[string]any{})
		r.publish(t, topicWake, map[string]any{"source": "voice"})
		r.busy.Store(false)
		time.Sleep(time.Second)
		assert.NotContains(t, r.since(n), "move move")
	})
}

func TestNewRefusesBadConfig(t *testing.T) {
	b := bus.New(bus.Options{})
	defer b.Close(context.Background())
	lib, err := motion.Builtin()
	require.NoError(t, err)
	empty, err := motion.NewLibrary()
	require.NoError(t, err)
	var ctrl *motion.Controller
	for _, tt := range []struct {
		cfg  Config
		want string
	}{
		{Config{Motion: ctrl, Animations: lib}, "idle: no bus"},
		{Config{Bus: b, Animations: lib}, "idle: no motion"},
		{Config{Bus: b, Motion: ctrl}, "idle: no animations"},
		{Config{Bus: b, Motion: ctrl, Animations: lib, After: -time.Second}, "idle: negative timing"},
		{Config{Bus: b, Motion: ctrl, Animations: empty}, `idle: no animation "idle-breathe"`},
	} {
		_, err := New(tt.cfg)
		assert.EqualError(t, err, tt.want)
	}
}
