package motion

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/device/ledring"
)

// Control loop rates and safety timings.
const (
	// DefaultRate is the control loop rate in Hz.
	DefaultRate = 200
	// MinRate and MaxRate bound Config.Rate.
	MinRate = 20
	MaxRate = 2000
	// DefaultCommandTimeout is the Track deadman: how long a stream may
	// go without an update.
	DefaultCommandTimeout = 500 * time.Millisecond
	// DefaultLateRest is how late a tick may start before the body is
	// taken to be at rest. A late tick is the scheduler's doing, not the
	// motors': the servos hold their last setpoint meanwhile, so after a
	// pause this long the body has stopped there, and the trajectory
	// carries on from rest within the limits rather than resume at the
	// speed it had (a jump in velocity). The job goes on; nothing faults.
	DefaultLateRest = 100 * time.Millisecond
	// DefaultStallTimeout is how long one tick may take before the
	// watchdog powers the motors off: a tick that does not end is stuck
	// in a motor call. A loop that is merely late to start its next tick
	// is never a stall.
	DefaultStallTimeout = 500 * time.Millisecond
)

// Name is the Device name the controller reports its events under.
const Name = "motion"

// Errors jobs end with.
var (
	// ErrPreempted ends a job that a newer one took over from.
	ErrPreempted = errors.New("motion: preempted by a newer command")
	// ErrHalted ends a job that was halted before it finished.
	ErrHalted = errors.New("motion: halted")
	// ErrDeadman ends a Track stream whose updates stopped arriving.
	ErrDeadman = errors.New("motion: no command within the deadman timeout")
	// ErrStalled is the controller's fault after the watchdog saw the loop
	// stall; motors are powered off until Recover.
	ErrStalled = errors.New("motion: control loop stalled; motors powered off")
	// ErrNotRunning is returned by commands before Start or after Close.
	ErrNotRunning = errors.New("motion: controller not running")
	// ErrNothingToPlay is returned by Play for an animation that moves none
	// of the selected axes and has no light track this body can show.
	ErrNothingToPlay = errors.New("nothing to play on the selected axes and lights")
)

// Lights plays light programs; *ledring.Animator is one. The controller
// plays an animation's light track on it.
type Lights interface {
	Play(ctx context.Context, p ledring.Program) error
}

// Config configures a Controller.
type Config struct {
	// Motors are the three axes (device.Axes), in any order. Required.
	Motors []device.Motor
	// Power, if set, is the motors' power enable: on at Start, off at
	// Close and when the watchdog trips.
	Power device.Switch
	// Lights, if set, plays animations' light tracks.
	Lights Lights
	// Rate is the loop rate in Hz, MinRate..MaxRate; 0 means DefaultRate.
	Rate int
	// Home is the pose Start moves to and the first rest pose.
	Home Pose
	// CommandTimeout, LateRest and StallTimeout are the safety timings;
	// 0 means the Default* value.
	CommandTimeout, LateRest, StallTimeout time.Duration
	// PreciseSleep makes the loop sleep between ticks with a system call
	// (nanosleep on Linux) instead of a Go timer: the kernel wakes the
	// thread within tens of microseconds, where Go's timers can be up to a
	// millisecond late. It does not follow testing/synctest's fake clock,
	// so tests leave it off.
	PreciseSleep bool
	// RealTime asks the operating system to serve the loop as a
	// real-time task; it needs PreciseSleep.
	RealTime RealTime
	// Process, if set, runs the control loop in a process of its own,
	// which opens the motors and their power switch itself (Process.Setup
	// tells it how); Motors and Power are then left empty and Limits
	// given. Linux only. The controller's API is the same either way.
	Process *Process
	// Limits are the axes' limits where the loop's own process opens the
	// motors (Process); otherwise the motors say them.
	Limits [NumAxes]AxisLimits
	// Observer, if set, receives the controller's events.
	Observer device.Observer
	// Logger receives logs; nil discards them.
	Logger *slog.Logger
}

// AxisLimits are the limits the loop keeps an axis within (device.Limits),
// named here so the floors above motion take them without importing
// device.
type AxisLimits = device.Limits

// Controller drives the axes from its control loop. Its methods are safe
// for concurrent use.
type Controller struct {
	motors [NumAxes]device.Motor
	lim    [NumAxes]device.Limits
	power  device.Switch
	lights Lights
	home   Pose
	period time.Duration
	// origin is the instant the loop's ticks count from (origin + k
	// periods); the reporter looks half a period off them.
	origin  time.Time
	dt      float64
	cmdTO   time.Duration
	late    time.Duration
	stallTO time.Duration
	obs     device.Observer
	log     *slog.Logger
	precise bool
	rtWant  RealTime
	rt      realTime

	stats   *latency
	tickSeq atomic.Uint64 // odd while a tick runs: two per tick
	// notices are the reporter's from everyone but the loop; out is the
	// loop's; kick tells the reporter a job began.
	notices chan notice
	out     noticeRing
	kick    chan struct{}
	// lag, if set, runs after each wait of the loop: tests make the loop
	// late with it, as a busy scheduler does.
	lag func()

	// rem is the loop's own process, where the loop runs there (parent
	// side); nil where it runs here.
	rem *remote
	// mirror and ended serve the parent, where this controller runs in
	// the loop's own process: each tick publishes the body's state to
	// mirror, and ended hears of every job of the parent's that ends.
	mirror *mirror
	ended  func(id uint64, err error)

	runCtx  context.Context // ends at Close: the loop, watchdog and light tracks
	stopRun context.CancelFunc
	wg      sync.WaitGroup // loop, watchdog, reporter
	ledWG   sync.WaitGroup // light tracks

	// What the callers post to the loop, which takes it at its next tick
	// without a lock: whether it may drive the motors, the pose read at
	// power-up, the newest job, track update and finish. And what the loop
	// posts back: the last job it ended (its seq << 8 | an end code).
	live      atomic.Bool
	reset     atomic.Pointer[Pose] // pending until the loop has published it
	inbox     atomic.Pointer[jobSpec]
	track     atomic.Pointer[trackCmd]
	finishSeq atomic.Uint64
	lastEnd   atomic.Uint64
	deadman   *jobSpec // the halt the loop runs after a deadman

	// The loop's own state: only the loop's goroutine touches it (and
	// Close once the loop has ended).
	p, v     Pose
	lj       loopJob
	motorBad [NumAxes]bool
	took     *Pose // the power-up pose this tick took from reset

	mu      sync.Mutex
	running bool
	closed  bool
	fault   error
	rest    Pose
	job     *Job
	nextID  uint64
	seq     uint64 // of the last job posted to the loop
}

// New checks cfg and returns a controller; Start runs it.
func New(cfg Config) (*Controller, error) {
	c := &Controller{power: cfg.Power, lights: cfg.Lights, home: cfg.Home, obs: cfg.Observer, log: cfg.Logger,
		cmdTO: cfg.CommandTimeout, late: cfg.LateRest, stallTO: cfg.StallTimeout, precise: cfg.PreciseSleep && havePreciseSleep}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	rate := cfg.Rate
	if rate == 0 {
		rate = DefaultRate
	}
	if rate < MinRate || rate > MaxRate {
		return nil, fmt.Errorf("new motion controller: rate %d Hz outside %d..%d", cfg.Rate, MinRate, MaxRate)
	}
	c.period = time.Second / time.Duration(rate)
	c.dt = c.period.Seconds()
	c.stats = new(latency)
	for _, d := range []*time.Duration{&c.cmdTO, &c.late, &c.stallTO} {
		if *d < 0 {
			return nil, fmt.Errorf("new motion controller: negative timeout %v", *d)
		}
	}
	if c.cmdTO == 0 {
		c.cmdTO = DefaultCommandTimeout
	}
	if c.late == 0 {
		c.late = DefaultLateRest
	}
	if c.stallTO == 0 {
		c.stallTO = DefaultStallTimeout
	}
	if c.stallTO < 2*c.period {
		return nil, fmt.Errorf("new motion controller: stall timeout %v must be at least two periods (%v)", c.stallTO, 2*c.period)
	}
	if cfg.Process != nil {
		if err := c.newRemote(cfg); err != nil {
			return nil, fmt.Errorf("new motion controller: %w", err)
		}
	} else if len(cfg.Motors) != NumAxes {
		return nil, fmt.Errorf("new motion controller: %d motors, want one for each of %v", len(cfg.Motors), device.Axes())
	}
	for _, m := range cfg.Motors {
		i, ok := AxisIndex(m.Name())
		if !ok {
			return nil, fmt.Errorf("new motion controller: motor %q is not one of %v", m.Name(), device.Axes())
		}
		if c.motors[i] != nil {
			return nil, fmt.Errorf("new motion controller: two motors for %s", m.Name())
		}
		l := m.Limits()
		if err := l.Validate(); err != nil {
			return nil, fmt.Errorf("new motion controller: motor %s: %w", m.Name(), err)
		}
		c.motors[i], c.lim[i] = m, l
	}
	for i, h := range cfg.Home {
		if err := c.lim[i].Check(AxisName(i), h); err != nil {
			return nil, fmt.Errorf("new motion controller: home: %w", err)
		}
	}
	if p := cfg.RealTime.Priority; p < 0 || p > 99 {
		return nil, fmt.Errorf("new motion controller: real-time priority %d outside 1..99 (0: the default)", p)
	}
	if l := cfg.RealTime.HeapLimit; l > 0 && l < MinHeapLimit {
		return nil, fmt.Errorf("new motion controller: real-time heap limit %d bytes below %d (0: the default, negative: none)", l, MinHeapLimit)
	}
	if h := cfg.RealTime.HeapHeadroom; h > 0 && (h < MinHeapHeadroom || h > MaxHeapHeadroom) {
		return nil, fmt.Errorf("new motion controller: real-time heap headroom %d bytes outside %d..%d (0: the default, negative: none)", h, MinHeapHeadroom, MaxHeapHeadroom)
	}
	if cfg.RealTime.Enabled && !cfg.PreciseSleep {
		return nil, errors.New("new motion controller: real-time service needs PreciseSleep (a locked thread on Go timers wakes later, not sooner)")
	}
	c.rtWant = cfg.RealTime
	c.rt = realTime{sys: newRTSystem(), status: RealTimeStatus{CPU: -1}}
	c.rest = c.home
	c.deadman = &jobSpec{kind: jobHalt, name: "deadman"}
	if c.rem == nil {
		c.mirror = new(mirror)
		c.notices, c.kick = make(chan notice, 256), make(chan struct{}, 1)
	}
	return c, nil
}

// Period returns the loop period.
func (c *Controller) Period() time.Duration { return c.period }

// Limits returns the axes' limits.
func (c *Controller) Limits() [NumAxes]AxisLimits { return c.lim }

// Start powers the motors, starts the control loop and homes the body:
// from where each motor says it is, it moves to Config.Home within the
// limits, and returns when it is there (or ctx ends). Run Close to stop.
func (c *Controller) Start(ctx context.Context) error {
	c.mu.Lock()
	if c.running || c.closed {
		c.mu.Unlock()
		return errors.New("motion: start: already started")
	}
	c.running = true
	c.mu.Unlock()
	if c.rem != nil {
		return c.startRemote(ctx)
	}
	from, err := c.powerUp(ctx)
	if err != nil {
		c.mu.Lock()
		c.running = false
		c.mu.Unlock()
		return fmt.Errorf("motion: start: %w", err)
	}
	c.mu.Lock()
	c.setLiveLocked()
	c.mu.Unlock()
	c.runCtx, c.stopRun = context.WithCancel(context.WithoutCancel(ctx))
	c.wg.Add(3)
	ready := make(chan struct{})
	c.origin = time.Now()
	go c.loop(ready)
	go c.watchdog()
	go c.reporter()
	<-ready
	start := map[string]any{"rate": int(time.Second / c.period)}
	if c.rtWant.Enabled {
		st := c.RealTime()
		start["realtime"] = st.String()
		if len(st.Refused) > 0 {
			c.log.Warn("motion: control loop runs without part of its real-time service", "got", st.String(),
				"not_permitted", strings.Join(st.Refused, "; "))
		} else {
			c.log.Info("motion: control loop real-time service", "got", st.String())
		}
	}
	c.emit("start", start)
	if err := c.homeBody(ctx, from); err != nil {
		return fmt.Errorf("motion: start: %w", err)
	}
	c.rested()
	c.mu.Lock()
	still, seq := !c.movingLocked(), c.nextID
	c.mu.Unlock()
	if still {
		c.rt.settle(seq)
	}
	return nil
}

// powerUp turns the power and motors on and reads where the axes are; the
// loop starts from there at its next tick.
func (c *Controller) powerUp(ctx context.Context) (Pose, error) {
	var p Pose
	if c.power != nil {
		if err := c.power.Set(ctx, true); err != nil {
			return p, fmt.Errorf("motor power on: %w", err)
		}
	}
	for i, m := range c.motors {
		if err := m.Enable(ctx, true); err != nil {
			return p, fmt.Errorf("enable %s: %w", m.Name(), err)
		}
		a := m.Angle()
		if math.IsNaN(a) || math.IsInf(a, 0) {
			// A servo cannot say where it is: start from home, which the
			// first command will jump to.
			a = c.home[i]
		}
		p[i] = math.Max(c.lim[i].Min, math.Min(c.lim[i].Max, a))
	}
	c.reset.Store(&p)
	return p, nil
}

func (c *Controller) homeBody(ctx context.Context, from Pose) error {
	c.emit("home", from.values(map[string]any{"from": from.String()}))
	j, err := c.moveTo(c.home, AllAxes, "home", true)
	if err != nil {
		return err
	}
	if err := j.Wait(ctx); err != nil {
		return fmt.Errorf("homing: %w", err)
	}
	return nil
}

// Recover clears a stall fault: it powers the motors again and homes the
// body.
func (c *Controller) Recover(ctx context.Context) error {
	c.mu.Lock()
	if !c.running {
		c.mu.Unlock()
		return ErrNotRunning
	}
	c.mu.Unlock()
	if c.rem != nil {
		return c.recoverRemote(ctx)
	}
	// A loop still stuck in a motor call cannot home: wait for a tick.
	if err := c.waitTick(ctx); err != nil {
		return fmt.Errorf("motion: recover: %w", err)
	}
	from, err := c.powerUp(ctx)
	if err != nil {
		return fmt.Errorf("motion: recover: %w", err)
	}
	c.mu.Lock()
	c.fault = nil
	c.setLiveLocked()
	c.mu.Unlock()
	c.emit("recover", map[string]any{})
	if err := c.homeBody(ctx, from); err != nil {
		return fmt.Errorf("motion: recover: %w", err)
	}
	return nil
}

// waitTick waits for the loop to run a tick. It gives up when ctx ends,
// the controller closes, or a tick stays stuck for a stall timeout, judged
// as the watchdog judges; a loop that is only late is waited for.
func (c *Controller) waitTick(ctx context.Context) error {
	start := c.tickSeq.Load()
	seen, stuck := start, time.Duration(0)
	t := time.NewTicker(c.period)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-c.runCtx.Done():
			return ErrNotRunning
		case <-ctx.Done():
			return ctx.Err()
		}
		seq := c.tickSeq.Load()
		switch {
		case seq%2 == 0 && seq != start:
			return nil
		case seq%2 == 0 || seq != seen:
			seen, stuck = seq, 0
		default:
			if stuck += c.period; stuck >= c.stallTO {
				return errors.New("a control loop tick is still stuck")
			}
		}
	}
}

// Close brings the body to rest (waiting at most until ctx ends), stops
// the loop, powers the motors off and waits for every goroutine.
func (c *Controller) Close(ctx context.Context) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	running := c.running
	var h *Job
	if running && c.fault == nil {
		h = c.haltLocked("close")
	}
	c.mu.Unlock()
	if !running {
		return nil
	}
	if c.rem != nil {
		return c.closeRemote(ctx, h)
	}
	var errs []error
	if h != nil {
		select {
		case <-h.done:
		case <-ctx.Done():
			errs = append(errs, fmt.Errorf("motion: close: body still moving: %w", ctx.Err()))
		}
	}
	c.stopRun()
	c.wg.Wait()
	c.ledWG.Wait()
	c.mu.Lock()
	if err := c.rt.leave(); err != nil {
		errs = append(errs, err)
	}
	c.mu.Unlock()
	c.mu.Lock()
	c.collectEndLocked()
	if c.job != nil {
		c.endLocked(c.job, ErrNotRunning)
	}
	c.running = false
	c.setLiveLocked()
	c.mirror.publish(c) // the loop has ended: this is its last word
	c.mu.Unlock()
	off := context.WithoutCancel(ctx)
	for _, m := range c.motors {
		if err := m.Enable(off, false); err != nil {
			errs = append(errs, fmt.Errorf("motion: close: disable %s: %w", m.Name(), err))
		}
	}
	if c.power != nil {
		if err := c.power.Set(off, false); err != nil {
			errs = append(errs, fmt.Errorf("motion: close: motor power off: %w", err))
		}
	}
	c.emit("stop", map[string]any{})
	return errors.Join(errs...)
}

// rested puts the collector back to its rest setting when the body is at
// rest (no job, no velocity) and no job began since. The reporter calls it
// RestHold after a job arrives, finishes or rests; Start after homing.
func (c *Controller) rested() {
	c.mu.Lock()
	still, seq := !c.movingLocked(), c.nextID
	c.mu.Unlock()
	if still && c.rt.collect(false, seq) {
		c.rt.sys.returnMemory()
	}
}

// RealTime says what real-time service the loop got at Start.
func (c *Controller) RealTime() RealTimeStatus {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rt.status
}

// Stats returns the loop's timing since Start or ResetStats.
func (c *Controller) Stats() Stats { return c.stats.snapshot() }

// ResetStats starts a new timing window.
func (c *Controller) ResetStats() { c.stats.reset() }

// Pose returns the commanded pose now.
func (c *Controller) Pose() Pose { return c.view().read().p }

// view is where the loop publishes the body's state.
func (c *Controller) view() *mirror {
	if c.rem != nil {
		return c.rem.mir
	}
	return c.mirror
}

// Rest returns the rest pose: where the body looks when nothing else moves
// it. Homing sets it, LookAt moves it, animations blend back to it.
func (c *Controller) Rest() Pose {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.collectEndLocked()
	return c.rest
}

// Fault returns the controller's fault (ErrStalled), or nil.
func (c *Controller) Fault() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.fault
}

// Moving reports whether a job is running or an axis is still moving.
func (c *Controller) Moving() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.collectEndLocked()
	return c.job != nil || c.view().read().moving
}

// movingLocked reports whether the body is moving or about to; the caller
// holds c.mu.
func (c *Controller) movingLocked() bool {
	c.collectEndLocked()
	return (c.job != nil && c.job.kind != jobHalt) || c.view().read().moving
}

// Halt decelerates the body to rest now, ending whatever job runs with
// ErrHalted.
func (c *Controller) Halt(reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running && c.fault == nil {
		c.haltLocked(reason)
	}
}

// MoveTo moves the selected axes to p, each at its own best speed.
func (c *Controller) MoveTo(p Pose, sel Axes) (*Job, error) {
	return c.moveTo(p, sel, "move", false)
}

func (c *Controller) moveTo(p Pose, sel Axes, name string, setRest bool) (*Job, error) {
	if err := c.checkLimits(p, sel, "move"); err != nil {
		return nil, err
	}
	j := &Job{kind: jobMove, Name: name, sel: sel, target: p, setRest: setRest}
	if err := c.begin(j); err != nil {
		return nil, err
	}
	c.emit("move", p.values(map[string]any{"job": j.ID, "name": j.Name}))
	c.arriveIfThere(j)
	return j, nil
}

// LookOptions shape a LookAt.
type LookOptions struct {
	// Mode is LevelHead (default) or FlushBase.
	Mode LookMode
	// Axes selects the axes that may move; the zero value means all.
	Axes Axes
}

// LookAt turns the body to look at t and makes that the rest pose once it
// arrives.
func (c *Controller) LookAt(t Target, o LookOptions) (*Job, error) {
	sel := o.Axes
	if sel.None() {
		sel = AllAxes
	}
	rest := c.Rest()
	g, err := gazeFor(t, rest)
	if err != nil {
		return nil, fmt.Errorf("motion: look at: %w", err)
	}
	var lim [NumAxes]Limits
	for i, l := range c.lim {
		lim[i] = Limits{Min: l.Min, Max: l.Max}
	}
	p := Solve(g, rest, sel, o.Mode, lim)
	got, _ := GazeOf(p)
	j := &Job{kind: jobMove, Name: "lookat", sel: sel, target: p, setRest: true}
	if err := c.begin(j); err != nil {
		return nil, err
	}
	c.emit("lookat", p.values(map[string]any{"job": j.ID, "want": g.String(), "gaze": got.String()}))
	c.arriveIfThere(j)
	return j, nil
}

// PlayOptions shape how an animation plays.
type PlayOptions struct {
	// Speed scales time: 2 plays twice as fast. 0 means 1; at most 10.
	Speed float64
	// Loops is how many times to play: 0 or 1 once, -1 until Finish or a
	// halt; at most 1000.
	Loops int
	// Axes selects the axes the animation may move; the zero value means
	// all. Axes left out hold still.
	Axes Axes
	// NoLights leaves out the light track.
	NoLights bool
	// BlendIn and BlendOut are how long to ease from the present pose into
	// the animation and from its end back to the rest pose; 0 means 250 ms
	// and 500 ms.
	BlendIn, BlendOut time.Duration
}

// Play starts animation a: the selected axes follow its tracks, eased in
// from where they are and blended back to the rest pose at the end, and
// its light track plays on the ring. An animation with nothing to move on
// the selected axes only plays its lights.
func (c *Controller) Play(a *Animation, o PlayOptions) (*Job, error) {
	if a == nil {
		return nil, errors.New("motion: play: no animation")
	}
	speed := o.Speed
	if speed == 0 {
		speed = 1
	}
	if math.IsNaN(speed) || speed < 0.1 || speed > 10 {
		return nil, fmt.Errorf("motion: play %s: speed %g outside 0.1..10", a.Name, o.Speed)
	}
	loops := o.Loops
	if loops == 0 {
		loops = 1
	}
	if loops < -1 || loops > 1000 {
		return nil, fmt.Errorf("motion: play %s: loops %d: want -1 (forever) or 1..1000", a.Name, o.Loops)
	}
	sel := o.Axes
	if sel.None() {
		sel = AllAxes
	}
	for i := range sel {
		sel[i] = sel[i] && a.Animates(i)
	}
	blendIn, blendOut := o.BlendIn, o.BlendOut
	if blendIn == 0 {
		blendIn = 250 * time.Millisecond
	}
	if blendOut == 0 {
		blendOut = 500 * time.Millisecond
	}
	if blendIn < 0 || blendOut < 0 || blendIn > 10*time.Second || blendOut > 10*time.Second {
		return nil, fmt.Errorf("motion: play %s: blend times must be within 0..10s", a.Name)
	}
	j := &Job{kind: jobAnim, Name: a.Name, sel: sel, anim: a, speed: speed, loops: loops,
		blendIn: blendIn.Seconds(), blendOut: blendOut.Seconds()}
	withLights := c.lights != nil && a.HasLights() && !o.NoLights
	if sel.None() && !withLights {
		return nil, fmt.Errorf("motion: play %s: %w", a.Name, ErrNothingToPlay)
	}
	if sel.None() {
		// Lights only: the loop is not involved and moving jobs go on.
		if err := c.lightsOnly(j); err != nil {
			return nil, err
		}
	} else if err := c.begin(j); err != nil {
		return nil, err
	}
	seconds := any(a.Duration * float64(loops) / speed)
	if loops < 0 {
		seconds = "forever"
	}
	c.emit("animation", map[string]any{"job": j.ID, "name": a.Name, "seconds": seconds, "lights": withLights})
	if withLights {
		c.playLights(j, a.LightProgram(speed, loops))
	}
	return j, nil
}

// Track streams targets: each call moves the selected axes towards p and
// renews the deadman. A stream that goes CommandTimeout without a call is
// halted and its job ends with ErrDeadman.
func (c *Controller) Track(p Pose, sel Axes) (*Job, error) {
	if err := c.checkLimits(p, sel, "track"); err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.collectEndLocked()
	if j := c.job; j != nil && j.kind == jobTrack && j.sel == sel && c.fault == nil {
		c.trackLocked(j, p)
		c.mu.Unlock()
		return j, nil
	}
	c.mu.Unlock()
	j := &Job{kind: jobTrack, Name: "track", sel: sel, target: p, deadline: time.Now().Add(c.cmdTO)}
	if err := c.begin(j); err != nil {
		return nil, err
	}
	return j, nil
}

// checkLimits checks the selected axes of p against the limits. Each
// command is checked once in the process it is given in: by the method
// that takes it, and in a loop process of its own by the server that
// reads it off the connection.
func (c *Controller) checkLimits(p Pose, sel Axes, what string) error {
	for i := range p {
		if sel[i] {
			if err := c.lim[i].Check(AxisName(i), p[i]); err != nil {
				return fmt.Errorf("motion: %s: %w", what, err)
			}
		}
	}
	return nil
}

// begin installs j as the running job, ending the one before.
func (c *Controller) begin(j *Job) error {
	j.c = c
	j.done = make(chan struct{})
	c.mu.Lock()
	if err := c.usableLocked(); err != nil {
		c.mu.Unlock()
		return err
	}
	c.collectEndLocked()
	c.nextID++
	if j.ID == 0 {
		j.ID = c.nextID
	}
	j.rest = c.rest
	prev := c.job
	if prev != nil {
		c.endLocked(prev, ErrPreempted)
	}
	c.job = j
	if c.rem != nil {
		f, err := (&wireJob{id: j.ID, kind: j.kind, sel: j.sel, setRest: j.setRest, target: j.target, name: j.Name,
			speed: j.speed, loops: j.loops, blendIn: j.blendIn, blendOut: j.blendOut, anim: j.anim}).encode()
		if err != nil {
			c.endLocked(j, err)
			c.mu.Unlock()
			return err
		}
		c.sendLocked(f)
		c.mu.Unlock()
	} else {
		c.postLocked(j)
		c.mu.Unlock()
		c.rt.collect(true, j.ID)
	}
	if prev != nil && prev.kind != jobHalt {
		c.emit("preempted", map[string]any{"job": prev.ID, "name": prev.Name, "by": j.Name})
	}
	return nil
}

func (c *Controller) lightsOnly(j *Job) error {
	j.c = c
	j.done = make(chan struct{})
	close(j.done)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.usableLocked(); err != nil {
		return err
	}
	c.nextID++
	j.ID = c.nextID
	return nil
}

func (c *Controller) usableLocked() error {
	switch {
	case !c.running || c.closed:
		return ErrNotRunning
	case c.fault != nil:
		return c.fault
	}
	return nil
}

// playLights runs the job's light track until it ends or the job does.
func (c *Controller) playLights(j *Job, prog ledring.Program) {
	ctx, cancel := context.WithCancel(c.runCtx)
	j.ledDone = make(chan struct{})
	c.mu.Lock()
	j.ledCancel = cancel
	c.mu.Unlock()
	c.ledWG.Add(1)
	go func() { // owned by the job; Close waits for it through ledWG
		defer c.ledWG.Done()
		defer close(j.ledDone)
		defer cancel()
		err := c.lights.Play(ctx, prog)
		c.mu.Lock()
		if !j.ledStopped {
			j.ledErr = err
		}
		c.mu.Unlock()
	}()
}

// haltLocked replaces the running job with a halt and returns it.
func (c *Controller) haltLocked(reason string) *Job {
	c.collectEndLocked()
	if c.job != nil && c.job.kind == jobHalt {
		return c.job
	}
	if c.job != nil {
		c.endLocked(c.job, ErrHalted)
	}
	c.nextID++
	h := &Job{c: c, ID: c.nextID, kind: jobHalt, Name: reason, done: make(chan struct{})}
	c.job = h
	if c.rem != nil {
		f, _ := newFrame(fHalt).u64(h.ID).str(reason).done()
		c.sendLocked(f)
		return h
	}
	c.tell(notice{kind: noticeHalt, name: reason, pose: c.mirror.read().p})
	c.postLocked(h)
	return h
}

// postLocked hands job j to the loop, which takes it at its next tick;
// the caller holds c.mu.
func (c *Controller) postLocked(j *Job) {
	c.seq++
	j.spec = &jobSpec{seq: c.seq, id: j.ID, name: j.Name, kind: j.kind, sel: j.sel, target: j.target, rest: j.rest,
		deadline: j.deadline, anim: j.anim, speed: j.speed, loops: j.loops, blendIn: j.blendIn, blendOut: j.blendOut}
	c.inbox.Store(j.spec)
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// trackLocked renews track job j's target and deadman; the caller holds
// c.mu.
func (c *Controller) trackLocked(j *Job, p Pose) {
	j.target = p
	j.deadline = time.Now().Add(c.cmdTO)
	if c.rem != nil {
		f, _ := newFrame(fTrack).u64(j.ID).pose(p).done()
		c.sendLocked(f)
		return
	}
	c.track.Store(&trackCmd{seq: j.spec.seq, target: p, deadline: j.deadline})
}

// finishLocked asks animation j to blend back to rest; the caller holds
// c.mu.
func (c *Controller) finishLocked(j *Job) {
	if c.job != j || j.kind != jobAnim {
		return
	}
	if c.rem != nil {
		f, _ := newFrame(fFinish).u64(j.ID).done()
		c.sendLocked(f)
		return
	}
	c.finishSeq.Store(j.spec.seq)
}

// collectEndLocked ends the running job if the loop ended it; the caller
// holds c.mu.
func (c *Controller) collectEndLocked() {
	j := c.job
	if j == nil || j.spec == nil {
		return
	}
	e := c.lastEnd.Load()
	if e>>8 != j.spec.seq {
		return
	}
	var err error
	if e&0xff == endDeadman {
		err = ErrDeadman
	}
	c.concludeLocked(j, err)
}

// concludeLocked ends j as its motion ended (nil: it arrived or finished);
// a move that makes its target the rest pose does so on arrival. The
// caller holds c.mu.
func (c *Controller) concludeLocked(j *Job, err error) {
	if err == nil && j.setRest {
		for i := range c.rest {
			if j.sel[i] {
				c.rest[i] = j.target[i]
			}
		}
	}
	c.endLocked(j, err)
}

// setLiveLocked tells the loop whether it may drive the motors; the
// caller holds c.mu.
func (c *Controller) setLiveLocked() { c.live.Store(c.running && c.fault == nil) }

// endLocked ends j with err (nil: it finished).
func (c *Controller) endLocked(j *Job, err error) {
	select {
	case <-j.done:
		return
	default:
	}
	j.err = err
	if j.ledCancel != nil && err != nil {
		j.ledStopped = true
		j.ledCancel()
	}
	close(j.done)
	if c.job == j {
		c.job = nil
	}
	if j.fromParent && c.ended != nil {
		c.ended(j.ID, err)
	}
}

func (c *Controller) emit(kind string, values map[string]any) { c.emitAt(time.Now(), kind, values) }

func (c *Controller) emitAt(at time.Time, kind string, values map[string]any) {
	if c.obs != nil {
		c.obs(device.Event{Time: at, Device: Name, Kind: kind, Values: values})
	}
}
