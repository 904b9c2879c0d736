package motion

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
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

// fakeMotor records every setpoint with the (bubble) time it arrived, and
// can be made to block, to stall the loop.
type fakeMotor struct {
	name string
	lim  device.Limits
	init float64 // the angle it started at

	mu      sync.Mutex
	angle   float64
	enabled bool
	sets    []float64
	times   []time.Time   // when each setpoint arrived
	block   chan struct{} // if set, SetAngle waits for it to close
	fail    error
}

func newFakeMotor(name string, angle float64) *fakeMotor {
	return &fakeMotor{name: name, lim: device.DefaultLimits(), angle: angle, init: angle}
}

func (m *fakeMotor) Name() string          { return m.name }
func (m *fakeMotor) Limits() device.Limits { return m.lim }
func (m *fakeMotor) Angle() float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.angle
}
func (m *fakeMotor) Enabled() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.enabled
}
func (m *fakeMotor) Enable(_ context.Context, on bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.enabled = on
	return nil
}
func (m *fakeMotor) SetAngle(ctx context.Context, rad float64) error {
	m.mu.Lock()
	block, fail := m.block, m.fail
	m.mu.Unlock()
	if block != nil {
		<-block
	}
	if fail != nil {
		return fail
	}
	if err := m.lim.Check(m.name, rad); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.enabled {
		return device.ErrDisabled
	}
	m.angle = rad
	m.sets = append(m.sets, rad)
	m.times = append(m.times, time.Now())
	return nil
}

func (m *fakeMotor) setpoints() []float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]float64(nil), m.sets...)
}

// rig is a controller on fake motors, with its events recorded.
type rig struct {
	c      *Controller
	motors [NumAxes]*fakeMotor
	power  *sim.Switch

	mu     sync.Mutex
	events []device.Event
}

func (r *rig) observe(e device.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

// kinds lists the controller's event kinds, with the job name when there is
// one, once the reporter has caught up (inside a synctest bubble).
func (r *rig) kinds() []string {
	synctest.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		if e.Device != Name {
			continue
		}
		k := e.Kind
		if n, ok := e.Values["name"]; ok {
			k += " " + fmt.Sprint(n)
		}
		if n, ok := e.Values["reason"]; ok {
			k += " " + fmt.Sprint(n)
		}
		out = append(out, k)
	}
	return out
}

func newRig(t *testing.T, start Pose, cfg Config) *rig {
	t.Helper()
	r := &rig{power: sim.NewSwitch(sim.SwitchOptions{Name: "motor-power"})}
	for i := range r.motors {
		r.motors[i] = newFakeMotor(AxisName(i), start[i])
		cfg.Motors = append(cfg.Motors, r.motors[i])
	}
	cfg.Power = r.power
	cfg.Observer = r.observe
	c, err := New(cfg)
	require.NoError(t, err)
	r.c = c
	return r
}

func (r *rig) start(t *testing.T) {
	t.Helper()
	require.NoError(t, r.c.Start(context.Background()))
	t.Cleanup(func() { _ = r.c.Close(context.Background()) })
}

// lagTicks makes the loop start the given ticks (counted from Start) late
// by the given durations, as a busy scheduler does.
func (r *rig) lagTicks(pauses map[int]time.Duration) {
	n := 0
	r.c.lag = func() {
		n++
		if d, ok := pauses[n]; ok {
			time.Sleep(d)
		}
	}
}

func count(ss []string, s string) int {
	n := 0
	for _, x := range ss {
		if x == s {
			n++
		}
	}
	return n
}

// checkStreamAcrossPauses checks every axis's setpoint stream against the
// limits where the loop ran on time, and that after each pause longer
// than rest (the servo stopped at its setpoint) the stream starts again
// from rest.
func (r *rig) checkStreamAcrossPauses(t *testing.T, rest time.Duration) {
	t.Helper()
	for i, m := range r.motors {
		m.mu.Lock()
		sets, times := append([]float64(nil), m.sets...), append([]time.Time(nil), m.times...)
		m.mu.Unlock()
		seg := []float64{m.init}
		for k := range sets {
			if k > 0 && times[k].Sub(times[k-1]) > rest {
				require.True(t, checkLimits(t, m.lim, r.c.dt, seg), "axis %s", AxisName(i))
				seg = []float64{sets[k-1]} // at rest there
			}
			seg = append(seg, sets[k])
		}
		require.True(t, checkLimits(t, m.lim, r.c.dt, seg), "axis %s", AxisName(i))
	}
}

// checkStream checks every axis's setpoint stream against the limits.
func (r *rig) checkStream(t *testing.T) {
	t.Helper()
	for i, m := range r.motors {
		ps := append([]float64{m.init}, m.setpoints()...)
		require.True(t, checkLimits(t, m.lim, r.c.dt, ps), "axis %s", AxisName(i))
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	m := func(n string) device.Motor { return newFakeMotor(n, 0) }
	three := []device.Motor{m(device.BottomSection), m(device.MiddleSection), m(device.TopSection)}
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"no motors", Config{}, "0 motors, want one for each of"},
		{"duplicate", Config{Motors: []device.Motor{m(device.BottomSection), m(device.BottomSection), m(device.TopSection)}}, "two motors for bottomSection_r"},
		{"unknown axis", Config{Motors: []device.Motor{m("tail_r"), m(device.MiddleSection), m(device.TopSection)}}, `motor "tail_r" is not one of`},
		{"rate", Config{Motors: three, Rate: 5}, "rate 5 Hz outside 20..2000"},
		{"home", Config{Motors: three, Home: Pose{0, 4, 0}}, "home: motor middleSection_r: target 4 rad outside limits"},
		{"stall", Config{Motors: three, StallTimeout: time.Millisecond}, "stall timeout 1ms must be at least two periods"},
		{"negative", Config{Motors: three, LateRest: -1}, "negative timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.cfg)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// Start powers the motors and homes the body from wherever the motors say
// they are, within the limits.
func TestStartHomes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Pose{1.2, -0.8, 2.5}, Config{})
		begin := time.Now()
		r.start(t)
		assert.Equal(t, Pose{}, r.c.Pose())
		assert.Equal(t, Pose{}, r.c.Rest())
		assert.True(t, r.power.On())
		// 2.5 rad at 10 rad/s and 30 rad/s²: 0.25 s + 0.33 s.
		assert.InDelta(t, 0.58, time.Since(begin).Seconds(), 0.03)
		r.checkStream(t)
		assert.Equal(t, []string{"start", "home", "move home", "arrived home"}, r.kinds())

		require.NoError(t, r.c.Close(context.Background()))
		assert.False(t, r.power.On(), "power off after Close")
		for _, m := range r.motors {
			assert.False(t, m.Enabled())
		}
		_, err := r.c.MoveTo(Pose{}, AllAxes)
		assert.ErrorIs(t, err, ErrNotRunning)
	})
}

// LookAt turns the body to a gaze and makes it the rest pose.
func TestLookAt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Pose{}, Config{})
		r.start(t)
		j, err := r.c.LookAt(Target{Turn: Gaze{Yaw: 0.5, Pitch: 0.15}}, LookOptions{})
		require.NoError(t, err)
		require.NoError(t, j.Wait(context.Background()))
		g, roll := GazeOf(r.c.Pose())
		assert.InDelta(t, 0.5, g.Yaw, 1e-3)
		assert.InDelta(t, 0.15, g.Pitch, 1e-3)
		assert.InDelta(t, 0, roll, 1e-3, "the head stays level")
		assert.Equal(t, r.c.Pose(), r.c.Rest())

		// Angle targets are relative to where the body looks.
		j, err = r.c.LookAt(Target{Turn: Gaze{Yaw: -0.5}}, LookOptions{Mode: FlushBase})
		require.NoError(t, err)
		require.NoError(t, j.Wait(context.Background()))
		g, _ = GazeOf(r.c.Pose())
		assert.InDelta(t, 0, g.Yaw, 0.02)
		r.checkStream(t)

		// A point in front and above: straight ahead, looking up.
		j, err = r.c.LookAt(Target{Position: &[3]float64{1, 0, HeadHeight + 0.2}}, LookOptions{})
		require.NoError(t, err)
		require.NoError(t, j.Wait(context.Background()))
		g, _ = GazeOf(r.c.Pose())
		assert.InDelta(t, 0, g.Yaw, 1e-3)
		assert.InDelta(t, math.Atan2(0.2, 1), g.Pitch, 1e-3)

		_, err = r.c.LookAt(Target{Position: &[3]float64{0, 0, HeadHeight}}, LookOptions{})
		assert.ErrorIs(t, err, ErrTargetAtHead)
		_, err = r.c.LookAt(Target{Position: &[3]float64{math.NaN(), 0, 0}}, LookOptions{})
		assert.ErrorContains(t, err, "coordinates must be finite")
	})
}

// A move or a turn to where the body already rests is done at once,
// without waiting for a tick: the words after a turn toward a listener the
// robot faces start without delay. One to elsewhere, or while the body
// still moves, waits for the loop.
func TestMoveToWhereTheBodyIsArrivesAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Pose{}, Config{})
		r.start(t)
		done := func(j *Job) bool {
			select {
			case <-j.Done():
				return true
			default:
				return false
			}
		}
		j, err := r.c.LookAt(Target{Turn: Gaze{Yaw: 0.5, Pitch: 0.15}}, LookOptions{})
		require.NoError(t, err)
		assert.False(t, done(j), "the turn takes the loop's ticks")
		require.NoError(t, j.Wait(context.Background()))
		pose := r.c.Pose()

		// Fake time stands still from here to the next wait: no tick runs.
		j, err = r.c.LookAt(Target{Turn: Gaze{}}, LookOptions{})
		require.NoError(t, err)
		require.True(t, done(j), "a turn by nothing needs no tick")
		require.NoError(t, j.Err())
		for i, a := range r.c.Rest() {
			assert.InDelta(t, pose[i], a, 1e-4, "the rest pose is where it looks")
		}
		j, err = r.c.MoveTo(pose, AllAxes)
		require.NoError(t, err)
		require.True(t, done(j), "a move to where the body rests needs no tick")
		require.NoError(t, j.Err())
		assert.Equal(t, pose, r.c.Pose())

		j, err = r.c.MoveTo(Pose{0.4, 0, 0}, AllAxes)
		require.NoError(t, err)
		assert.False(t, done(j), "a move elsewhere waits for the loop")
		// Mid-way the body moves: the pose it passes is not where it rests.
		time.Sleep(50 * time.Millisecond)
		mid := r.c.Pose()
		j2, err := r.c.MoveTo(mid, AllAxes)
		require.NoError(t, err)
		assert.False(t, done(j2), "a moving body is not yet where it passes")
		assert.ErrorIs(t, j.Err(), ErrPreempted)
		require.NoError(t, j2.Wait(context.Background()))
		r.checkStream(t)
	})
}

// An animation plays, then blends back to the rest pose; its light track
// plays on the ring.
func TestPlayAnimation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lights := &fakeLights{}
		r := newRig(t, Pose{}, Config{Lights: lights})
		r.start(t)
		lib, err := Builtin()
		require.NoError(t, err)
		look, err := r.c.LookAt(Target{Turn: Gaze{Yaw: 0.3}}, LookOptions{})
		require.NoError(t, err)
		require.NoError(t, look.Wait(context.Background()))
		rest := r.c.Rest()

		dance, _ := lib.Lookup("dance")
		begin := time.Now()
		j, err := r.c.Play(dance, PlayOptions{})
		require.NoError(t, err)
		require.NoError(t, j.Wait(context.Background()))
		took := time.Since(begin)
		assert.GreaterOrEqual(t, took, 4500*time.Millisecond, "4 s of dance and a 0.5 s blend back")
		assert.Less(t, took, 5*time.Second)
		for i := range rest {
			assert.InDelta(t, rest[i], r.c.Pose()[i], 1e-6, "back at rest")
		}
		r.checkStream(t)
		assert.Equal(t, []string{"dance"}, lights.played())
		assert.Contains(t, r.kinds(), "finished dance")

		// The dance really moved: the base swung about ±0.5 rad around rest.
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, s := range r.motors[Bottom].setpoints() {
			lo, hi = math.Min(lo, s), math.Max(hi, s)
		}
		assert.InDelta(t, rest[Bottom]+0.5, hi, 0.05)
		assert.InDelta(t, rest[Bottom]-0.5, lo, 0.05)

		// Lights only: nothing moves, and a moving job is not preempted.
		glow, _ := lib.Lookup("led-glow")
		nod, _ := lib.Lookup("nod")
		moving, err := r.c.Play(nod, PlayOptions{})
		require.NoError(t, err)
		lj, err := r.c.Play(glow, PlayOptions{})
		require.NoError(t, err)
		require.NoError(t, lj.Wait(context.Background()))
		require.NoError(t, moving.Wait(context.Background()))

		_, err = r.c.Play(glow, PlayOptions{NoLights: true})
		assert.ErrorIs(t, err, ErrNothingToPlay)
		_, err = r.c.Play(nod, PlayOptions{Speed: 20})
		assert.ErrorContains(t, err, "speed 20 outside 0.1..10")
		_, err = r.c.Play(nod, PlayOptions{Loops: -2})
		assert.ErrorContains(t, err, "loops -2")
	})
}

// Cancelling a running animation halts the body within a tick: Wait
// returns at once, and the axes then decelerate to rest within the limits
// instead of jumping.
func TestCancelHaltsWithinLimits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Pose{}, Config{})
		r.start(t)
		lib, _ := Builtin()
		dance, _ := lib.Lookup("dance")
		j, err := r.c.Play(dance, PlayOptions{Loops: -1})
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(1700*time.Millisecond, cancel)
		err = j.Wait(ctx)
		require.ErrorIs(t, err, context.Canceled)
		assert.True(t, r.c.Moving(), "still decelerating when Wait returns")
		canceledAt := len(r.motors[Bottom].setpoints())

		// Wait for the body to come to rest.
		for r.c.Moving() {
			time.Sleep(r.c.Period())
		}
		stopTicks := len(r.motors[Bottom].setpoints()) - canceledAt
		// At most 10 rad/s / 30 rad/s² = 0.33 s of braking.
		assert.LessOrEqual(t, stopTicks, int(0.34/r.c.dt)+2)
		r.checkStream(t)
		assert.Contains(t, r.kinds(), "halt canceled")
		assert.Contains(t, r.kinds(), "rest canceled")
	})
}

// A new command takes over from the running one without a jump.
func TestPreempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Pose{}, Config{})
		r.start(t)
		first, err := r.c.MoveTo(Pose{2, 2, 2}, AllAxes)
		require.NoError(t, err)
		time.Sleep(150 * time.Millisecond)
		second, err := r.c.MoveTo(Pose{-1, 0, 1}, AllAxes)
		require.NoError(t, err)
		assert.ErrorIs(t, first.Wait(context.Background()), ErrPreempted)
		require.NoError(t, second.Wait(context.Background()))
		assert.Equal(t, Pose{-1, 0, 1}, r.c.Pose())
		r.checkStream(t)
		assert.Contains(t, r.kinds(), "preempted move")
	})
}

// Property: whatever commands arrive, in whatever order and at whatever
// times, the setpoints sent to the motors never exceed the angle, velocity
// and acceleration limits (spec/jibo.md §6).
func TestRandomCommandsStayWithinLimits(t *testing.T) {
	for seed := range uint64(12) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(seed, 99))
				r := newRig(t, Pose{}, Config{})
				r.start(t)
				lib, _ := Builtin()
				names := lib.Names()
				rnd := func() float64 { return (rng.Float64()*2 - 1) * device.AxisLimit }
				for range 40 {
					switch rng.IntN(6) {
					case 0:
						_, _ = r.c.MoveTo(Pose{rnd(), rnd(), rnd()}, Axes{rng.IntN(2) == 0, true, rng.IntN(2) == 0})
					case 1:
						_, _ = r.c.LookAt(Target{Turn: Gaze{Yaw: rnd(), Pitch: rnd() / 4}}, LookOptions{})
					case 2:
						a, _ := lib.Lookup(names[rng.IntN(len(names))])
						_, _ = r.c.Play(a, PlayOptions{Speed: 0.5 + rng.Float64()*3, Loops: rng.IntN(3)})
					case 3:
						r.c.Halt("test")
					case 4:
						_, _ = r.c.Track(Pose{rnd(), rnd(), rnd()}, AllAxes)
					case 5:
						_, _ = r.c.LookAt(Target{Position: &[3]float64{rng.Float64()*4 - 2, rng.Float64()*4 - 2, rng.Float64() * 2}}, LookOptions{})
					}
					time.Sleep(time.Duration(rng.IntN(400)) * time.Millisecond)
				}
				r.checkStream(t)
			})
		})
	}
}

// A Track stream that stops being renewed is halted by the deadman.
func TestTrackDeadman(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Pose{}, Config{CommandTimeout: 300 * time.Millisecond})
		r.start(t)
		var j *Job
		for k := range 10 { // a 20 Hz stream for half a second
			var err error
			nj, err := r.c.Track(Pose{0.1 * float64(k), 0, 0}, AllAxes)
			require.NoError(t, err)
			if j != nil {
				assert.Same(t, j, nj, "updates renew the same job")
			}
			j = nj
			time.Sleep(50 * time.Millisecond)
		}
		// The stream stops.
		err := j.Wait(context.Background())
		require.ErrorIs(t, err, ErrDeadman)
		for r.c.Moving() {
			time.Sleep(r.c.Period())
		}
		assert.Contains(t, r.kinds(), "deadman")
		assert.Contains(t, r.kinds(), "halt deadman")
		r.checkStream(t)
	})
}

// A late loop is the scheduler's doing, not the motors': the servos held
// their setpoint through the pause, so the body carries on from rest
// (never faster than its limits allow from there) and the job goes on;
// nothing halts, nothing faults, however long the pause (item 12 of
// issue 22: the stall watchdog powered the motors off during homing under
// load).
func TestLateLoopCarriesOnFromRest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Pose{}, Config{StallTimeout: 200 * time.Millisecond})
		// Homing in place takes a tick; these are ticks of the move.
		r.lagTicks(map[int]time.Duration{10: 150 * time.Millisecond, 40: 2 * time.Second})
		r.start(t)
		j, err := r.c.MoveTo(Pose{2, -1, 0}, AllAxes)
		require.NoError(t, err)
		require.NoError(t, j.Wait(context.Background()))
		assert.Equal(t, Pose{2, -1, 0}, r.c.Pose())
		assert.NoError(t, r.c.Fault())
		assert.True(t, r.power.On(), "motor power stays on")
		for _, m := range r.motors {
			assert.True(t, m.Enabled())
		}
		kinds := r.kinds()
		assert.Equal(t, 2, count(kinds, "late"), "each pause is reported: %v", kinds)
		assert.NotContains(t, kinds, "stall")
		assert.NotContains(t, kinds, "halt late")
		assert.Equal(t, 2*time.Second, r.c.Stats().Max)
		r.checkStreamAcrossPauses(t, r.c.late)
	})
}

// Homing under a loop that runs late still homes: Start succeeds and the
// robot is usable (the diagnostics shell's rig failed to start under load
// with "homing: motion home: motion: halted").
func TestLateLoopStillHomes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Pose{1.2, -0.8, 2.5}, Config{})
		r.lagTicks(map[int]time.Duration{3: 300 * time.Millisecond, 20: 3 * time.Second, 21: 120 * time.Millisecond})
		r.start(t)
		assert.Equal(t, Pose{}, r.c.Pose())
		assert.NoError(t, r.c.Fault())
		assert.True(t, r.power.On())
		kinds := r.kinds()
		assert.Equal(t, 3, count(kinds, "late"), "each pause is reported: %v", kinds)
		assert.NotContains(t, kinds, "stall")
		r.checkStreamAcrossPauses(t, r.c.late)
	})
}

// When the loop stops ticking (a motor call hangs), the watchdog powers the
// motors off and faults the controller; Recover homes it again.
func TestWatchdogPowersOffOnStall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Pose{}, Config{StallTimeout: 100 * time.Millisecond})
		r.start(t)
		j, err := r.c.MoveTo(Pose{1, 0, 0}, AllAxes)
		require.NoError(t, err)
		time.Sleep(50 * time.Millisecond)

		hang := make(chan struct{})
		r.motors[Top].mu.Lock()
		r.motors[Top].block = hang
		r.motors[Top].mu.Unlock()
		time.Sleep(200 * time.Millisecond)

		assert.ErrorIs(t, j.Wait(context.Background()), ErrStalled)
		assert.ErrorIs(t, r.c.Fault(), ErrStalled)
		assert.False(t, r.power.On(), "motor power cut")
		for _, m := range r.motors {
			assert.False(t, m.Enabled())
		}
		_, err = r.c.MoveTo(Pose{}, AllAxes)
		assert.ErrorIs(t, err, ErrStalled)
		assert.Contains(t, r.kinds(), "stall")

		r.motors[Top].mu.Lock()
		r.motors[Top].block = nil
		r.motors[Top].mu.Unlock()
		close(hang)
		require.NoError(t, r.c.Recover(context.Background()))
		assert.NoError(t, r.c.Fault())
		assert.True(t, r.power.On())
		assert.Equal(t, Pose{}, r.c.Pose())
	})
}

// Recover homes the body from where the motors say it is after the
// power came back, even where the loop last showed it at home: a body
// pushed while its motors were off is moved back, not taken to be home.
func TestRecoverHomesFromWhereTheMotorsSay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Pose{}, Config{StallTimeout: 100 * time.Millisecond})
		r.start(t)
		assert.Equal(t, Pose{}, r.c.Pose())

		hang := make(chan struct{})
		r.motors[Top].mu.Lock()
		r.motors[Top].block = hang
		r.motors[Top].mu.Unlock()
		time.Sleep(200 * time.Millisecond)
		require.ErrorIs(t, r.c.Fault(), ErrStalled)

		// Unpowered, the head is turned by hand.
		r.motors[Top].mu.Lock()
		r.motors[Top].block = nil
		r.motors[Top].angle = 1.0
		r.motors[Top].mu.Unlock()
		close(hang)
		before := len(r.motors[Top].setpoints())
		require.NoError(t, r.c.Recover(context.Background()))
		after := r.motors[Top].setpoints()[before:]
		require.NotEmpty(t, after, "homing commands the head")
		assert.Greater(t, after[0], 0.9, "homing starts from where the motor was found")
		assert.InDelta(t, 0, r.motors[Top].Angle(), 1e-9, "the head is home")
		assert.Equal(t, Pose{}, r.c.Pose())
	})
}

// A failing motor is reported once, not every tick.
func TestMotorErrorReportedOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Pose{}, Config{})
		r.start(t)
		r.motors[Middle].mu.Lock()
		r.motors[Middle].fail = errors.New("i2c: no ack")
		r.motors[Middle].mu.Unlock()
		time.Sleep(100 * time.Millisecond)
		r.motors[Middle].mu.Lock()
		r.motors[Middle].fail = nil
		r.motors[Middle].mu.Unlock()
		time.Sleep(100 * time.Millisecond)
		kinds := r.kinds()
		count := 0
		for _, k := range kinds {
			if k == "motor-error" {
				count++
			}
		}
		assert.Equal(t, 1, count)
		assert.Contains(t, kinds, "motor-ok")
	})
}

// A Finish ends a looping animation gracefully, back at rest.
func TestFinishBlendsToRest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lights := &fakeLights{}
		r := newRig(t, Pose{}, Config{Lights: lights})
		r.start(t)
		lib, _ := Builtin()
		dance, _ := lib.Lookup("dance")
		j, err := r.c.Play(dance, PlayOptions{Loops: -1})
		require.NoError(t, err)
		time.Sleep(time.Second)
		j.Finish()
		require.NoError(t, j.Wait(context.Background()))
		assert.Equal(t, Pose{}, r.c.Pose())
		assert.Equal(t, []string{"dance canceled"}, lights.ends())
		r.checkStream(t)
	})
}

// The control loop's tick allocates nothing, whatever it is doing.
func TestTickAllocatesNothing(t *testing.T) {
	var motors []device.Motor
	for _, a := range device.Axes() {
		m, err := sim.NewMotor(sim.MotorOptions{Axis: a})
		require.NoError(t, err)
		motors = append(motors, m)
	}
	c, err := New(Config{Motors: motors})
	require.NoError(t, err)
	c.running = true
	c.live.Store(true)
	lib, _ := Builtin()
	dance, _ := lib.Lookup("dance")
	ctx := context.Background()
	now := time.Now()

	for _, job := range []func() (*Job, error){
		func() (*Job, error) { return c.Play(dance, PlayOptions{Loops: -1, NoLights: true}) },
		func() (*Job, error) { return c.MoveTo(Pose{1, -1, 2}, AllAxes) },
		// A stream renewed every tick, then left to its deadman.
		func() (*Job, error) { return c.Track(Pose{-1, 0, 1}, AllAxes) },
		func() (*Job, error) {
			now = now.Add(time.Second)
			return nil, nil
		},
		func() (*Job, error) { return nil, nil },
	} {
		_, err := job()
		require.NoError(t, err)
		allocs := testing.AllocsPerRun(1000, func() {
			now = now.Add(c.period)
			c.tick(ctx, now, 0)
		})
		assert.Zero(t, allocs)
	}
}

func TestStatsPercentiles(t *testing.T) {
	var l latency
	for i := range 100 {
		l.record(time.Duration(i) * 100 * time.Microsecond) // 0 .. 9.9 ms
	}
	l.missed.Add(2)
	s := l.snapshot()
	assert.Equal(t, uint64(100), s.Ticks)
	assert.Equal(t, uint64(2), s.Missed)
	// Percentiles are bucket edges, within 10 µs of the true value.
	assert.InDelta(t, 4900*time.Microsecond, s.P50, float64(10*time.Microsecond))
	assert.InDelta(t, 9800*time.Microsecond, s.P99, float64(10*time.Microsecond))
	assert.Equal(t, 9900*time.Microsecond, s.Max)
	l.record(time.Hour)
	assert.Equal(t, time.Hour, l.snapshot().Max)
	l.reset()
	assert.Equal(t, Stats{}, l.snapshot())
}

// fakeLights records the programs played on it.
type fakeLights struct {
	mu    sync.Mutex
	names []string
	ended []string
}

func (f *fakeLights) Play(ctx context.Context, p ledring.Program) error {
	f.mu.Lock()
	f.names = append(f.names, p.Name)
	f.mu.Unlock()
	var err error
	if p.Duration > 0 {
		select {
		case <-time.After(p.Duration):
		case <-ctx.Done():
			err = ctx.Err()
		}
	} else {
		<-ctx.Done()
		err = ctx.Err()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	status := "done"
	if err != nil {
		status = "canceled"
	}
	f.ended = append(f.ended, p.Name+" "+status)
	return err
}

func (f *fakeLights) played() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.names...)
}

func (f *fakeLights) ends() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.ended...)
}

func BenchmarkTick(b *testing.B) {
	var motors []device.Motor
	for _, a := range device.Axes() {
		m, _ := sim.NewMotor(sim.MotorOptions{Axis: a})
		motors = append(motors, m)
	}
	c, _ := New(Config{Motors: motors})
	c.running = true
	c.live.Store(true)
	lib, _ := Builtin()
	dance, _ := lib.Lookup("dance")
	if _, err := c.Play(dance, PlayOptions{Loops: -1, NoLights: true}); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	now := time.Now()
	b.ReportAllocs()
	for b.Loop() {
		now = now.Add(c.period)
		c.tick(ctx, now, 0)
	}
}

// With PreciseSleep the loop sleeps with a system call on its own thread.
// This runs on real time (the fake clock does not reach system calls) and
// asserts no timing: only that the loop ticks, moves and stops.
func TestPreciseSleepLoop(t *testing.T) {
	var motors []device.Motor
	for _, a := range device.Axes() {
		m, err := sim.NewMotor(sim.MotorOptions{Axis: a})
		require.NoError(t, err)
		motors = append(motors, m)
	}
	c, err := New(Config{Motors: motors, PreciseSleep: true})
	require.NoError(t, err)
	require.NoError(t, c.Start(context.Background()))
	j, err := c.MoveTo(Pose{0.2, 0, 0}, AllAxes)
	require.NoError(t, err)
	require.NoError(t, j.Wait(context.Background()))
	assert.Equal(t, Pose{0.2, 0, 0}, c.Pose())
	assert.Positive(t, c.Stats().Ticks)
	require.NoError(t, c.Close(context.Background()))
}

// The loop takes no lock that anything else holds: with every lock of the
// controller (and of a loop process's server) held, its ticks go on and
// the body keeps moving; the caller waiting for the job hears of its end
// once the locks are let go. This runs on real time and asserts no
// timing, only that ticks ran while the locks were held.
func TestTicksRunWhileEveryLockIsHeld(t *testing.T) {
	r := newRig(t, Pose{}, Config{})
	s := newServer(nopConn{io.Discard})
	r.c.ended = s.ended // as in a loop process
	r.start(t)
	c := r.c
	j, err := c.MoveTo(Pose{0.6, -0.3, 0.4}, AllAxes)
	require.NoError(t, err)

	c.mu.Lock()
	c.rt.gcMu.Lock()
	s.endMu.Lock()
	// What the servos were sent tells what the loop did, without asking
	// the controller.
	sent := func() int { return len(r.motors[0].setpoints()) }
	from, before := c.tickSeq.Load(), sent()
	const ticks = 20
	// A loop that waited for a lock would stop here: give up then rather
	// than hang.
	giveUp := time.Now().Add(30 * time.Second)
	for c.tickSeq.Load() < from+2*ticks && time.Now().Before(giveUp) {
		time.Sleep(c.period)
	}
	ran := (c.tickSeq.Load() - from) / 2
	moved := sent() > before
	s.endMu.Unlock()
	c.rt.gcMu.Unlock()
	c.mu.Unlock()

	assert.GreaterOrEqual(t, ran, uint64(ticks), "ticks while the locks were held")
	assert.True(t, moved, "the servos were sent setpoints while the locks were held")
	require.NoError(t, j.Wait(context.Background()))
	assert.Equal(t, Pose{0.6, -0.3, 0.4}, c.Pose())
	r.checkStreamAcrossPauses(t, c.late) // on real time, the loop may be late
}

// A command given while the loop waits for its next tick is taken at that
// tick; the newest of several given between two ticks wins, and those it
// replaced end preempted, as the caller was told.
func TestCommandsBetweenTwoTicks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Pose{}, Config{})
		r.start(t)
		a, err := r.c.MoveTo(Pose{0.5, 0, 0}, AllAxes)
		require.NoError(t, err)
		b, err := r.c.MoveTo(Pose{-0.5, 0, 0}, AllAxes)
		require.NoError(t, err)
		tr, err := r.c.Track(Pose{0, 0.2, 0}, AllAxes)
		require.NoError(t, err)
		_, err = r.c.Track(Pose{0, 0.3, 0}, AllAxes)
		require.NoError(t, err)
		assert.ErrorIs(t, a.Err(), ErrPreempted)
		assert.ErrorIs(t, b.Err(), ErrPreempted)
		time.Sleep(2 * time.Second)
		synctest.Wait()
		assert.InDelta(t, 0.3, r.c.Pose()[1], 1e-9, "the newest track target")
		assert.Equal(t, 0.0, r.c.Pose()[0], "the replaced moves never moved the body")
		assert.ErrorIs(t, tr.Wait(context.Background()), ErrDeadman)
		r.checkStream(t)
	})
}

// A target outside an axis's limits is refused, naming the axis, whether
// a caller gives it (MoveTo, Track) or a loop process reads it off its
// connection; the job that runs goes on. An axis not selected is not
// checked.
func TestCommandsOutsideTheLimitsAreRefused(t *testing.T) {
	far := device.DefaultLimits().Max + 1
	for _, tc := range []struct {
		name string
		give func(c *Controller, p Pose, sel Axes) error
	}{
		{"MoveTo", func(c *Controller, p Pose, sel Axes) error { _, err := c.MoveTo(p, sel); return err }},
		{"Track", func(c *Controller, p Pose, sel Axes) error { _, err := c.Track(p, sel); return err }},
		{"a move from the parent", func(c *Controller, p Pose, sel Axes) error {
			return newServer(nil).begin(c, wireJob{id: 1000, kind: jobMove, sel: sel, target: p, name: "move"})
		}},
		{"a track from the parent", func(c *Controller, p Pose, sel Axes) error {
			return newServer(nil).begin(c, wireJob{id: 1000, kind: jobTrack, sel: sel, target: p, name: "track"})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t, Pose{}, Config{})
				r.start(t)
				running, err := r.c.MoveTo(Pose{1, 0, 0}, AllAxes)
				require.NoError(t, err)

				err = tc.give(r.c, Pose{0, 0, far}, AllAxes)
				var lim *device.LimitError
				require.ErrorAs(t, err, &lim)
				assert.Equal(t, AxisName(2), lim.Axis)
				require.NoError(t, running.Wait(context.Background()), "the running move is not preempted")

				require.NoError(t, tc.give(r.c, Pose{0.5, 0, far}, Axes{true, false, false}), "axis 2 is not selected")
			})
		})
	}
}
