package jcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/device/ledring"
	"github.com/openjibo/jibod/device/sim"
	"github.com/openjibo/jibod/jcp"
	"github.com/openjibo/jibod/motion"
)

// recMotor is a sim motor that also records every setpoint.
type recMotor struct {
	*sim.Motor
	mu   sync.Mutex
	sets []float64
}

func (m *recMotor) SetAngle(ctx context.Context, rad float64) error {
	if err := m.Motor.SetAngle(ctx, rad); err != nil {
		return err
	}
	m.mu.Lock()
	m.sets = append(m.sets, rad)
	m.mu.Unlock()
	return nil
}

func (m *recMotor) setpoints() []float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]float64(nil), m.sets...)
}

// body is a running motion controller on recording sim motors.
type body struct {
	ctrl   *motion.Controller
	motors []*recMotor

	mu     sync.Mutex
	events []string // motion events as "kind name"
}

func newBody(t *testing.T) *body {
	t.Helper()
	b := &body{}
	var ms []device.Motor
	for _, a := range device.Axes() {
		m, err := sim.NewMotor(sim.MotorOptions{Axis: a})
		require.NoError(t, err)
		rm := &recMotor{Motor: m}
		b.motors = append(b.motors, rm)
		ms = append(ms, rm)
	}
	ring, err := sim.NewLEDRing(sim.LEDRingOptions{})
	require.NoError(t, err)
	lights, err := ledring.New(ledring.Options{Ring: ring})
	require.NoError(t, err)
	t.Cleanup(func() { _ = lights.Close() })
	ctrl, err := motion.New(motion.Config{Motors: ms, Lights: lights, Observer: func(e device.Event) {
		b.mu.Lock()
		defer b.mu.Unlock()
		name, _ := e.Values["name"].(string)
		b.events = append(b.events, strings.TrimSpace(e.Kind+" "+name))
	}})
	require.NoError(t, err)
	require.NoError(t, ctrl.Start(context.Background()))
	t.Cleanup(func() { _ = ctrl.Close(context.Background()) })
	b.ctrl = ctrl
	return b
}

func (b *body) motionEvents() []string {
	synctest.Wait()
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.events...)
}

// checkLimits asserts the setpoints every axis received never exceed
// Jibo's limits (spec/jibo.md §6): ±3.0543 rad, 10 rad/s, 30 rad/s².
func (b *body) checkLimits(t *testing.T) {
	t.Helper()
	dt := b.ctrl.Period().Seconds()
	for _, m := range b.motors {
		ps := append([]float64{0}, m.setpoints()...)
		var pv float64
		for k := 1; k < len(ps); k++ {
			require.LessOrEqual(t, math.Abs(ps[k]), device.AxisLimit+1e-12)
			v := (ps[k] - ps[k-1]) / dt
			require.LessOrEqual(t, math.Abs(v), device.MaxVelocity*(1+1e-9), "%s tick %d", m.Name(), k)
			require.LessOrEqual(t, math.Abs(v-pv)/dt, device.MaxAcceleration*(1+1e-6), "%s tick %d", m.Name(), k)
			pv = v
		}
	}
}

func TestParseLookAtAndPlayAnimation(t *testing.T) {
	a := mustParse(t, `{"id":"seq","type":"SEQUENCE","children":[
		{"id":"l1","type":"LOOKAT","target":{"position":{"x":1,"y":0.5,"z":0.3}},"options":{"type":"FLUSH_BASE","dofs":"BODY"}},
		{"id":"l2","type":"LOOKAT","target":{"angleVector":{"x":0.4,"y":-0.1}}},
		{"id":"l3","type":"LOOKAT","target":{"entityId":7,"track":true}},
		{"id":"l4","type":"LOOKAT","target":{"cameraTarget":{"x":640,"y":360}}},
		{"id":"a1","type":"PLAY_ANIMATION","animation":{"url":"animations/nod.keys"},"options":{"dofs":"BASE","speed":1.5,"loops":2}},
		{"id":"a2","type":"PLAY_ANIMATION","animation":{"categories":["happy","yes"]}},
		{"id":"a3","type":"PLAY_ANIMATION","animation":{"data":{"name":"blink","duration":1,"led":[{"t":0,"color":"red"}]}}},
		{"id":"a4","type":"PLAY_ANIMATION","animation":{"query":"something happy"}}]}`)
	seq := a.Behavior.(*jcp.SequenceBehavior)
	l1 := seq.Children[0].(*jcp.LookAt)
	assert.Equal(t, &jcp.Vector3{X: 1, Y: 0.5, Z: 0.3}, l1.Target.Position)
	assert.Equal(t, &jcp.LookAtOptions{Type: jcp.LookFlushBase, DOFs: jcp.DOFBody}, l1.Options)
	assert.Equal(t, &jcp.Vector2{X: 0.4, Y: -0.1}, seq.Children[1].(*jcp.LookAt).Target.Angle)
	l3 := seq.Children[2].(*jcp.LookAt)
	assert.Equal(t, json.RawMessage(`7`), l3.Target.Entity)
	assert.True(t, l3.Target.Track)
	a1 := seq.Children[4].(*jcp.PlayAnimation)
	assert.Equal(t, "animations/nod.keys", a1.Animation.URL)
	assert.Equal(t, 1.5, *a1.Options.Speed)
	assert.Equal(t, 2, *a1.Options.Loops)
	assert.Equal(t, []string{"happy", "yes"}, seq.Children[5].(*jcp.PlayAnimation).Animation.Categories)

	// Canonical JSON reads back to the same action.
	data, err := json.Marshal(a)
	require.NoError(t, err)
	back, err := jcp.ParseAction(data)
	require.NoError(t, err)
	again, err := json.Marshal(back)
	require.NoError(t, err)
	assert.JSONEq(t, string(data), string(again))
	assert.Contains(t, string(data), `{"id":"l1","type":"LOOKAT","target":{"position":{"x":1,"y":0.5,"z":0.3}},"options":{"type":"FLUSH_BASE","dofs":"BODY"}}`)
}

// Invalid LOOKAT and PLAY_ANIMATION are refused whole, naming the field.
func TestParseMotionErrors(t *testing.T) {
	tests := []struct{ name, behavior, want string }{
		{"no target", `{"id":"l","type":"LOOKAT"}`, "config.jcp.target: missing"},
		{"two targets", `{"id":"l","type":"LOOKAT","target":{"position":{"x":1,"y":0,"z":0},"angleVector":{"x":0,"y":0}}}`, "config.jcp.target: needs exactly one of position, angleVector, cameraTarget or entityId (got 2)"},
		{"no target kind", `{"id":"l","type":"LOOKAT","target":{}}`, "(got 0)"},
		{"position coord", `{"id":"l","type":"LOOKAT","target":{"position":{"x":1,"y":0}}}`, "config.jcp.target.position.z: missing"},
		{"position far", `{"id":"l","type":"LOOKAT","target":{"position":{"x":1000,"y":0,"z":0}}}`, "config.jcp.target.position.x: 1000 is outside ±100"},
		{"angle type", `{"id":"l","type":"LOOKAT","target":{"angleVector":{"x":"left","y":0}}}`, "config.jcp.target.angleVector.x: is a string, want a number"},
		{"angle big", `{"id":"l","type":"LOOKAT","target":{"angleVector":{"x":0,"y":4}}}`, "config.jcp.target.angleVector.y: 4 is outside ±3.14"},
		{"camera", `{"id":"l","type":"LOOKAT","target":{"cameraTarget":{"x":-1,"y":0}}}`, "config.jcp.target.cameraTarget.x: -1 is outside 0..10000 pixels"},
		{"entity kind", `{"id":"l","type":"LOOKAT","target":{"entityId":{"a":1}}}`, "config.jcp.target.entityId: is an object, want a number or a string"},
		{"track without entity", `{"id":"l","type":"LOOKAT","target":{"angleVector":{"x":0,"y":0},"track":true}}`, "config.jcp.target.track: only an entityId target can be tracked"},
		{"look type", `{"id":"l","type":"LOOKAT","target":{"angleVector":{"x":0,"y":0}},"options":{"type":"SIDEWAYS"}}`, `config.jcp.options.type: "SIDEWAYS" is not one of LEVEL_HEAD, FLUSH_BASE`},
		{"look dofs", `{"id":"l","type":"LOOKAT","target":{"angleVector":{"x":0,"y":0}},"options":{"dofs":"LEGS"}}`, `config.jcp.options.dofs: "LEGS" is not one of BASE, EYE, BODY, ALL`},
		{"no animation", `{"id":"a","type":"PLAY_ANIMATION"}`, "config.jcp.animation: missing"},
		{"two sources", `{"id":"a","type":"PLAY_ANIMATION","animation":{"url":"nod","query":"x"}}`, "config.jcp.animation: needs exactly one of url, data, query or categories (got 2)"},
		{"empty animation", `{"id":"a","type":"PLAY_ANIMATION","animation":{}}`, "(got 0)"},
		{"bad data", `{"id":"a","type":"PLAY_ANIMATION","animation":{"data":{"name":"x","tracks":{"topSection_r":[[0,0],[1,5]]}}}}`, "config.jcp.animation.data: parse animation: tracks.topSection_r[1]: angle 5 rad is outside ±3.0543"},
		{"data kind", `{"id":"a","type":"PLAY_ANIMATION","animation":{"data":[1]}}`, "config.jcp.animation.data: is an array, want an object"},
		{"empty categories", `{"id":"a","type":"PLAY_ANIMATION","animation":{"categories":[]}}`, "config.jcp.animation.categories: must not be empty"},
		{"empty category", `{"id":"a","type":"PLAY_ANIMATION","animation":{"categories":[""]}}`, "config.jcp.animation.categories[0]: must not be empty"},
		{"speed", `{"id":"a","type":"PLAY_ANIMATION","animation":{"url":"nod"},"options":{"speed":50}}`, "config.jcp.options.speed: 50 is outside 0.1..10"},
		{"loops", `{"id":"a","type":"PLAY_ANIMATION","animation":{"url":"nod"},"options":{"loops":-3}}`, "config.jcp.options.loops: -3: want -1 (until stopped) or 0..1000"},
		{"loops fraction", `{"id":"a","type":"PLAY_ANIMATION","animation":{"url":"nod"},"options":{"loops":1.5}}`, "config.jcp.options.loops: is 1.5, want a whole number"},
		{"anim dofs", `{"id":"a","type":"PLAY_ANIMATION","animation":{"url":"nod"},"options":{"dofs":"TAIL"}}`, `config.jcp.options.dofs: "TAIL" is not one of`},
		{"url long", `{"id":"a","type":"PLAY_ANIMATION","animation":{"url":"` + strings.Repeat("a", 300) + `"}}`, "config.jcp.animation.url: is 300 bytes, limit 256"},
		{"display view type", `{"id":"s","type":"SLIM","config":{"display":{"view":{"type":"HOLOGRAM"}}}}`, `config.jcp.config.display.view: type: unknown view type "HOLOGRAM"`},
		{"display text", `{"id":"s","type":"SLIM","config":{"display":{"view":{"type":"TEXT"}}}}`, "config.jcp.config.display.view: text: missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := jcp.ParseAction([]byte(env(tt.behavior)))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// An invalid action from a skill or the hub is refused whole: nothing of
// it runs, not even the valid speech before the bad part.
func TestInvalidMotionActionRunsNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBody(t)
		voice := &fakeVoice{}
		ex := newExecutor(t, jcp.ExecutorConfig{Voice: voice, Motion: b.ctrl})
		before := len(b.motors[0].setpoints())
		a := jcp.NewAction(jcp.Sequence(jcp.Say("hello"), &jcp.LookAt{Base: jcp.Base{ID: "l"}, Target: jcp.LookTarget{Angle: &jcp.Vector2{X: math.NaN()}}}))
		res, err := ex.Run(context.Background(), a)
		require.Error(t, err)
		assert.Nil(t, res)
		assert.Contains(t, err.Error(), "config.jcp.children[1].target.angleVector.x: NaN is outside")
		assert.Empty(t, voice.Said())
		time.Sleep(100 * time.Millisecond)
		for _, s := range b.motors[0].setpoints()[before:] {
			assert.Equal(t, 0.0, s, "the body did not move")
		}
	})
}

// A SEQUENCE of speech and a LOOKAT: the robot says its line, then turns
// to look; the LOOKAT succeeds on arrival and becomes the rest pose.
func TestRunSequenceSpeechThenLookAt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBody(t)
		voice := &fakeVoice{speakTime: 500 * time.Millisecond}
		var ev events
		ex := newExecutor(t, jcp.ExecutorConfig{Voice: voice, Motion: b.ctrl, Observer: ev.observe})
		res, err := ex.Run(context.Background(), mustParse(t, `{"id":"seq","type":"SEQUENCE","children":[`+say("s", "Over there!")+`,
			{"id":"look","type":"LOOKAT","target":{"angleVector":{"x":0.8,"y":0.2}}}]}`))
		require.NoError(t, err)
		assert.Equal(t, []string{"seq succeeded", "s succeeded", "s-p succeeded", "look succeeded"}, statuses(res))
		g, _ := motion.GazeOf(b.ctrl.Pose())
		assert.InDelta(t, 0.8, g.Yaw, 1e-3)
		assert.InDelta(t, 0.2, g.Pitch, 1e-3)
		assert.Equal(t, b.ctrl.Rest(), b.ctrl.Pose())
		assert.Contains(t, b.motionEvents(), "arrived lookat")
		// The look started after the speech ended.
		assert.False(t, res.Behaviors[3].Start.Before(res.Behaviors[2].End))
		b.checkLimits(t)
	})
}

func TestRunLookAtSkips(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBody(t)
		ex := newExecutor(t, jcp.ExecutorConfig{Voice: &fakeVoice{}, Motion: b.ctrl})
		res, err := ex.Run(context.Background(), mustParse(t, `{"id":"seq","type":"SEQUENCE","children":[
			{"id":"cam","type":"LOOKAT","target":{"cameraTarget":{"x":10,"y":10}}},
			{"id":"ent","type":"LOOKAT","target":{"entityId":"face-1","track":true}},
			{"id":"eye","type":"LOOKAT","target":{"angleVector":{"x":0.1,"y":0}},"options":{"dofs":"EYE"}},
			{"id":"base","type":"LOOKAT","target":{"position":{"x":0,"y":2,"z":0.2}},"options":{"dofs":"BASE"}}]}`))
		require.NoError(t, err)
		assert.Equal(t, []string{"seq succeeded", "cam skipped (no camera to aim with)", "ent skipped (no perception to find entities with)",
			"eye skipped (no eye display)", "base succeeded"}, statuses(res))
		p := b.ctrl.Pose()
		assert.InDelta(t, math.Pi/2, p[motion.Bottom], 1e-6, "BASE turns only the base")
		assert.Equal(t, 0.0, p[motion.Middle])

		// Without motion, motion behaviours are skipped.
		ex = newExecutor(t, jcp.ExecutorConfig{Voice: &fakeVoice{}})
		res, err = ex.Run(context.Background(), mustParse(t, `{"id":"l","type":"LOOKAT","target":{"angleVector":{"x":0.1,"y":0}}}`))
		require.NoError(t, err)
		assert.Equal(t, []string{"l skipped (no motion on this body)"}, statuses(res))
	})
}

func TestRunPlayAnimation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBody(t)
		ex := newExecutor(t, jcp.ExecutorConfig{Voice: &fakeVoice{}, Motion: b.ctrl})
		begin := time.Now()
		res, err := ex.Run(context.Background(), mustParse(t, `{"id":"seq","type":"SEQUENCE","children":[
			{"id":"nod","type":"PLAY_ANIMATION","animation":{"url":"nod"}},
			{"id":"cat","type":"PLAY_ANIMATION","animation":{"categories":["no"]},"options":{"speed":2}},
			{"id":"data","type":"PLAY_ANIMATION","animation":{"data":{"name":"tip","relative":true,"tracks":{"topSection_r":[[0,0],[0.5,0.3],[1,0]]}}}},
			{"id":"moon","type":"PLAY_ANIMATION","animation":{"url":"moonwalk"}},
			{"id":"q","type":"PLAY_ANIMATION","animation":{"query":"happy"}},
			{"id":"eye","type":"PLAY_ANIMATION","animation":{"url":"nod"},"options":{"dofs":"EYE"}}]}`))
		require.NoError(t, err)
		assert.Equal(t, []string{"seq succeeded", "nod succeeded", "cat succeeded", "data succeeded",
			`moon skipped (no animation called "moonwalk")`, "q skipped (animation queries are not supported; use url, data or categories)",
			"eye skipped (no eye display)"}, statuses(res))
		// nod 1.6 s, shake at double speed 0.95 s, tip 1 s, each with a
		// 0.5 s blend back to rest.
		assert.InDelta(t, 1.6+0.95+1+3*0.5, time.Since(begin).Seconds(), 0.2)
		assert.Equal(t, motion.Pose{}, b.ctrl.Pose(), "back at rest")
		evs := b.motionEvents()
		for _, want := range []string{"animation nod", "finished nod", "animation shake", "finished shake", "animation tip", "finished tip"} {
			assert.Contains(t, evs, want)
		}
		b.checkLimits(t)
	})
}

// The key stop requirement: a stop during a long animation reports
// canceled within 50 ms, and the body decelerates to rest within its
// limits rather than jumping.
func TestRunStopDuringLongAnimation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBody(t)
		var ev events
		ex := newExecutor(t, jcp.ExecutorConfig{Voice: &fakeVoice{}, Motion: b.ctrl, Observer: ev.observe})
		ctx, cancel := context.WithCancel(context.Background())
		var stoppedAt time.Time
		time.AfterFunc(2300*time.Millisecond, func() {
			stoppedAt = time.Now()
			cancel()
		})
		res, err := ex.Run(ctx, mustParse(t, `{"id":"par","type":"PARALLEL","children":[
			{"id":"dance","type":"PLAY_ANIMATION","animation":{"url":"dance"},"options":{"loops":-1}},`+say("s", "la la la")+`]}`))
		returned := time.Now()
		require.ErrorIs(t, err, context.Canceled)
		assert.LessOrEqual(t, returned.Sub(stoppedAt), 50*time.Millisecond)
		assert.Equal(t, jcp.StatusCanceled, res.Status)
		assert.Contains(t, statuses(res), "dance canceled")
		assert.Contains(t, ev.list(), "dance canceled")

		// The body was moving at the stop and comes to rest within 0.34 s
		// (10 rad/s at 30 rad/s²), never beyond its limits.
		assert.True(t, b.ctrl.Moving())
		time.Sleep(400 * time.Millisecond)
		assert.False(t, b.ctrl.Moving())
		b.checkLimits(t)
		assert.Contains(t, b.motionEvents(), "halt")
	})
}

// PARALLEL children that both need MOTION take turns; the one that waits
// is told who holds it.
func TestRunMotionArbitration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBody(t)
		var mu sync.Mutex
		var notes []string
		ex := newExecutor(t, jcp.ExecutorConfig{Voice: &fakeVoice{}, Motion: b.ctrl, Observer: func(e jcp.Event) {
			if e.Kind == jcp.EventBlocked {
				mu.Lock()
				notes = append(notes, e.BehaviorID+": "+e.Note)
				mu.Unlock()
			}
		}})
		res, err := ex.Run(context.Background(), mustParse(t, `{"id":"par","type":"PARALLEL","children":[
			{"id":"look","type":"LOOKAT","target":{"angleVector":{"x":1,"y":0}}},
			{"id":"nod","type":"PLAY_ANIMATION","animation":{"url":"nod"}},
			{"id":"glow","type":"PLAY_ANIMATION","animation":{"url":"led-glow"}}]}`))
		require.NoError(t, err)
		assert.ElementsMatch(t, []string{"par succeeded", "look succeeded", "nod succeeded", "glow succeeded"}, statuses(res))
		require.Len(t, notes, 1, "the light-only animation takes no motion and waits for nothing")
		assert.Regexp(t, `^(look|nod): waiting for MOTION, held by (LOOKAT look|PLAY_ANIMATION nod) of run \d+$`, notes[0])
		var look, nod jcp.BehaviorResult
		for _, br := range res.Behaviors {
			switch br.ID {
			case "look":
				look = br
			case "nod":
				nod = br
			}
		}
		// The waiter moved only after the holder was done.
		waiter, holder := look, nod
		if strings.HasPrefix(notes[0], "nod:") {
			waiter, holder = nod, look
		}
		assert.GreaterOrEqual(t, waiter.End.Sub(holder.End), 300*time.Millisecond, "one after the other")
		b.checkLimits(t)
	})
}

// With Preempt, a newer run takes the voice: the older speech is cancelled
// and told it was overridden.
func TestRunPreemptAcrossRuns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		voice := &fakeVoice{block: map[string]chan struct{}{"a long story": make(chan struct{})}}
		var ev events
		ex := newExecutor(t, jcp.ExecutorConfig{Voice: voice, Preempt: true, Observer: ev.observe})
		older := make(chan *jcp.Result, 1)
		go func() {
			res, _ := ex.Run(context.Background(), mustParse(t, say("old", "a long story")))
			older <- res
		}()
		synctest.Wait()
		res, err := ex.Run(context.Background(), mustParse(t, say("new", "Stop, listen!")))
		require.NoError(t, err)
		assert.Equal(t, []string{"Stop, listen!"}, res.Spoken)

		old := <-older
		assert.Equal(t, jcp.StatusCanceled, old.Status)
		assert.Contains(t, old.Error, "TTS overridden by PLAY new-p of run 2")
		assert.Contains(t, ev.list(), "old-p overridden")
		assert.Equal(t, []string{"Stop, listen!"}, voice.Said())
	})
}

// fakeScreen records what is shown.
type fakeScreen struct {
	mu  sync.Mutex
	log []string
}

func (s *fakeScreen) Show(_ context.Context, v jcp.DisplayView) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, "show "+v.Name+" "+v.View.Kind+" "+v.View.Text)
	return nil
}

func (s *fakeScreen) Hide(_ context.Context, layer int, name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, "hide "+name)
	return nil
}

func (s *fakeScreen) list() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.log...)
}

// A SLIM's DISPLAY is shown for the SLIM and hidden after it, unless it
// is to be kept.
func TestRunDisplayOnScreen(t *testing.T) {
	screen := &fakeScreen{}
	ex := newExecutor(t, jcp.ExecutorConfig{Voice: &fakeVoice{}, Screen: screen})
	res, err := ex.Run(context.Background(), mustParse(t, `{"id":"seq","type":"SEQUENCE","children":[
		{"id":"a","type":"SLIM","config":{"play":{"id":"ap","esml":"Look."},"display":{"id":"ad","name":"menu","view":{"type":"TEXT","text":"Hi!"},"layer":2}}},
		{"id":"b","type":"SLIM","config":{"play":{"id":"bp","esml":"Kept."},"display":{"id":"bd","view":{"type":"EYE"},"keepDisplay":true}}},
		{"id":"c","type":"SLIM","config":{"play":{"id":"cp","esml":"Hidden."},"display":{"id":"cd","view":{"type":"EYE"},"visible":false}}}]}`))
	require.NoError(t, err)
	assert.Equal(t, []string{"show menu TEXT Hi!", "hide menu", "show bd EYE "}, screen.list())
	assert.Contains(t, statuses(res), "cd skipped (not visible)")
}

// fakeSounds plays sounds instantly, knowing only "chime".
type fakeSounds struct {
	mu     sync.Mutex
	played []string
}

func (s *fakeSounds) PlaySound(ctx context.Context, kind, name string) error {
	if name != "chime" {
		return jcp.ErrNoSound
	}
	time.Sleep(300 * time.Millisecond)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.played = append(s.played, kind+" "+name)
	return ctx.Err()
}

// timedVoice records when each text is said.
type timedVoice struct {
	start time.Time
	mu    sync.Mutex
	log   []string
}

func (v *timedVoice) Say(ctx context.Context, text string) error {
	v.mu.Lock()
	v.log = append(v.log, time.Since(v.start).Round(100*time.Millisecond).String()+" "+text)
	v.mu.Unlock()
	return sleep(ctx, 200*time.Millisecond)
}

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-time.After(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ESML on the timeline: speech is cut where tags stand; a blocking
// animation holds the speech, a bounded one plays under its text and ends
// with it, sounds play, and what cannot be rendered is noted, not fatal.
func TestRunESMLTimeline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBody(t)
		voice := &timedVoice{start: time.Now()}
		sounds := &fakeSounds{}
		var ev events
		ex := newExecutor(t, jcp.ExecutorConfig{Voice: voice, Motion: b.ctrl, Sounds: sounds, Observer: ev.observe})
		res, err := ex.Run(context.Background(), mustParse(t, say("s",
			`<speak>Yes <anim name='nod'/> I agree. <sfx name='chime' nonBlocking='true'/>Ding <anim name='shake'>no no no</anim>
			<sfx name='boing'/> <anim name='moonwalk'/> <pitch add='2'>high</pitch> <wobble>end</wobble> <say-as spell='OK'/></speak>`)))
		require.NoError(t, err)
		// nod: 1.6 s + 0.5 s blend; the shake runs under "no no no" and
		// blends back after; the unknown sound and animation are skipped.
		assert.Equal(t, []string{
			"0s Yes",
			"2.3s I agree.",
			"2.5s Ding",
			"2.7s no no no",
			"2.9s high end O K",
		}, voice.log)
		assert.Equal(t, []string{"sfx chime"}, sounds.played)
		var note string
		for _, br := range res.Behaviors {
			if br.ID == "s-p" {
				note = br.Note
			}
		}
		assert.Contains(t, note, "unknown ESML tags ignored: wobble")
		assert.Contains(t, note, "not rendered by this voice: pitch, say-as")
		assert.Contains(t, note, "<anim name 'moonwalk'>: no such animation")
		assert.Contains(t, note, "<sfx boing>: no such sound")
		assert.Contains(t, ev.list(), "s-p cue")
		evs := b.motionEvents()
		assert.Contains(t, evs, "finished nod")
		assert.Contains(t, evs, "finished shake")
		assert.Equal(t, []string{"Yes I agree. Ding no no no high end O K"}, res.Spoken)
		b.checkLimits(t)
	})
}

// ESML animation tags need motion; without it they are noted, and speech
// goes on.
func TestRunESMLWithoutMotion(t *testing.T) {
	voice := &fakeVoice{}
	ex := newExecutor(t, jcp.ExecutorConfig{Voice: voice})
	res, err := ex.Run(context.Background(), mustParse(t, say("s", "Hi <anim name='nod'/> there <sfx name='chime'/>")))
	require.NoError(t, err)
	assert.Equal(t, []string{"Hi", "there"}, voice.Said())
	assert.Contains(t, res.Behaviors[1].Note, "<anim nod> skipped: no motion on this body")
	assert.Contains(t, res.Behaviors[1].Note, "<sfx chime> skipped: no sound output")
}

// While a LOOKAT holds MOTION, an ESML animation in a parallel speech is
// dropped (speech never waits for the body) and the PLAY is told why.
func TestRunESMLAnimationLosesMotion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBody(t)
		ex := newExecutor(t, jcp.ExecutorConfig{Voice: &timedVoice{start: time.Now()}, Motion: b.ctrl})
		res, err := ex.Run(context.Background(), mustParse(t, `{"id":"par","type":"PARALLEL","children":[
			{"id":"look","type":"LOOKAT","target":{"angleVector":{"x":2.5,"y":0}}},`+say("s", "Hmm <anim name='nod'/> yes")+`]}`))
		require.NoError(t, err)
		var note string
		for _, br := range res.Behaviors {
			if br.ID == "s-p" {
				note = br.Note
			}
		}
		assert.Regexp(t, `<anim nod> skipped: MOTION is held by LOOKAT look of run \d+`, note)
	})
}

func TestOverriddenError(t *testing.T) {
	err := error(&jcp.OverriddenError{Resource: "TTS", By: "PLAY x of run 3"})
	assert.True(t, errors.Is(err, context.Canceled))
	assert.Equal(t, "TTS overridden by PLAY x of run 3", err.Error())
}

// Two SLIMs showing on the same display layer take turns: DISPLAYn is a
// singleton, and the second waits, told who holds it.
func TestRunDisplayLayerArbitration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		screen := &fakeScreen{}
		var mu sync.Mutex
		var blocked []string
		ex := newExecutor(t, jcp.ExecutorConfig{Voice: &fakeVoice{speakTime: time.Second}, Screen: screen, Observer: func(e jcp.Event) {
			if e.Kind == jcp.EventBlocked {
				mu.Lock()
				blocked = append(blocked, e.Note)
				mu.Unlock()
			}
		}})
		res, err := ex.Run(context.Background(), mustParse(t, `{"id":"par","type":"PARALLEL","children":[
			{"id":"a","type":"SLIM","config":{"play":{"id":"ap","esml":"one"},"display":{"id":"ad","name":"A","view":{"type":"EYE"},"layer":1}}},
			{"id":"b","type":"SLIM","config":{"play":{"id":"bp","esml":"two"},"display":{"id":"bd","name":"B","view":{"type":"EYE"},"layer":1}}},
			{"id":"c","type":"SLIM","config":{"display":{"id":"cd","name":"C","view":{"type":"EYE"},"layer":2}}}]}`))
		require.NoError(t, err)
		assert.Equal(t, jcp.StatusSucceeded, res.Status)
		shows := screen.list()
		require.Len(t, shows, 6)
		// A and B never overlap on layer 1; C on layer 2 needs no turn.
		ia, ib := slices.Index(shows, "show A EYE "), slices.Index(shows, "show B EYE ")
		ha, hb := slices.Index(shows, "hide A"), slices.Index(shows, "hide B")
		assert.True(t, (ha < ib) || (hb < ia), "%v", shows)
		require.Len(t, blocked, 1)
		assert.Regexp(t, `^waiting for DISPLAY1, held by DISPLAY [ab]d of run \d+$`, blocked[0])
	})
}

// A light-only animation on a body with no ring has nothing to play: it is
// skipped, not failed.
func TestRunLightOnlyWithoutRing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var ms []device.Motor
		for _, a := range device.Axes() {
			m, err := sim.NewMotor(sim.MotorOptions{Axis: a})
			require.NoError(t, err)
			ms = append(ms, m)
		}
		ctrl, err := motion.New(motion.Config{Motors: ms})
		require.NoError(t, err)
		require.NoError(t, ctrl.Start(context.Background()))
		defer ctrl.Close(context.Background())
		ex := newExecutor(t, jcp.ExecutorConfig{Voice: &fakeVoice{}, Motion: ctrl})
		res, err := ex.Run(context.Background(), mustParse(t, `{"id":"g","type":"PLAY_ANIMATION","animation":{"url":"led-glow"}}`))
		require.NoError(t, err)
		assert.Equal(t, []string{"g skipped (animation led-glow: nothing this body can play)"}, statuses(res))
	})
}

// With Preempt, a newer run's LOOKAT takes the body from an older run's
// speech that moves it with an ESML animation: the older PLAY is
// cancelled and told.
func TestRunPreemptMotionFromESML(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBody(t)
		var ev events
		ex := newExecutor(t, jcp.ExecutorConfig{Voice: &timedVoice{start: time.Now()}, Motion: b.ctrl, Preempt: true, Observer: ev.observe})
		older := make(chan *jcp.Result, 1)
		go func() {
			res, _ := ex.Run(context.Background(), mustParse(t, say("old", "Watch <anim name='dance' nonBlocking='true'/> me dance for a while")))
			older <- res
		}()
		time.Sleep(time.Second)
		res, err := ex.Run(context.Background(), mustParse(t, `{"id":"look","type":"LOOKAT","target":{"angleVector":{"x":0.5,"y":0}}}`))
		require.NoError(t, err)
		assert.Equal(t, jcp.StatusSucceeded, res.Status)
		old := <-older
		assert.Equal(t, jcp.StatusCanceled, old.Status)
		assert.Contains(t, old.Error, "MOTION overridden by LOOKAT look")
		assert.Contains(t, ev.list(), "old-p overridden")
		b.checkLimits(t)
	})
}
