package motion

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/device/sim"
)

// TestMain lets the test binary be the control loop's own process: the
// process tests start it again with ProcessEnv set.
func TestMain(m *testing.M) {
	if IsProcess() {
		if os.Args[len(os.Args)-1] == impostor {
			os.Exit(impersonate())
		}
		os.Exit(ServeProcess(openSimMotors))
	}
	os.Exit(m.Run())
}

// impostor, as the test binary's last argument, makes the loop process
// one that answers without greeting: a ready frame first.
const impostor = "impostor"

func impersonate() int {
	f, err := newFrame(fReady).bytes(mustJSON(processReady{})).done()
	if err != nil {
		return 1
	}
	if _, err := os.NewFile(processConnFD, "motion-conn").Write(f); err != nil {
		return 1
	}
	time.Sleep(time.Hour) // the parent kills it
	return 0
}

// openSimMotors opens simulated motors with the default limits; the setup
// "refuse" makes opening fail, "close fails" turning one off (the loop
// process then exits with status 1).
func openSimMotors(_ context.Context, setup []byte, obs device.Observer, log *slog.Logger) ([]device.Motor, device.Switch, func() error, error) {
	if string(setup) == "refuse" {
		return nil, nil, nil, errors.New("no motors on this bench")
	}
	var ms []device.Motor
	for _, axis := range device.Axes() {
		m, err := sim.NewMotor(sim.MotorOptions{Axis: axis, Logger: log})
		if err != nil {
			return nil, nil, nil, err
		}
		ms = append(ms, m)
	}
	if string(setup) == "close fails" {
		ms[0] = stuckOn{ms[0]}
	}
	power := sim.NewSwitch(sim.SwitchOptions{Name: "motor-power", Observer: obs})
	return ms, power, func() error { return nil }, nil
}

// stuckOn is a motor that cannot be turned off.
type stuckOn struct{ device.Motor }

func (m stuckOn) Enable(ctx context.Context, on bool) error {
	if !on {
		return errors.New("the motor's bus hung up")
	}
	return m.Motor.Enable(ctx, on)
}

// eventLog collects events.
type eventLog struct {
	mu     sync.Mutex
	events []device.Event
}

func (l *eventLog) observe(e device.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, e)
}

func (l *eventLog) kinds(dev string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var ks []string
	for _, e := range l.events {
		if e.Device == dev {
			ks = append(ks, e.Kind)
		}
	}
	return ks
}

func newProcessController(t *testing.T, setup string, obs device.Observer) *Controller {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("a loop process of its own needs Linux")
	}
	var lim [NumAxes]AxisLimits
	for i := range lim {
		lim[i] = device.DefaultLimits()
	}
	c, err := New(Config{Process: &Process{Path: os.Args[0], Args: []string{"-test.run=^$"}, Setup: []byte(setup)},
		Limits: lim, PreciseSleep: true, Observer: obs, StallTimeout: 2 * time.Second})
	require.NoError(t, err)
	return c
}

// TestLoopProcessRunsJobs drives the body through a control loop in a
// process of its own: the jobs end as they do in-process (arrived,
// preempted, halted), the pose and timing are the loop process's, its
// events reach the observer, and Close waits for the process.
func TestLoopProcessRunsJobs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var events eventLog
	c := newProcessController(t, "", events.observe)
	startOrSkip(t, ctx, c)

	target := Pose{0.3, -0.2, 0.1}
	j, err := c.MoveTo(target, AllAxes)
	require.NoError(t, err)
	require.NoError(t, j.Wait(ctx))
	assert.InDeltaSlice(t, target[:], func() []float64 { p := c.Pose(); return p[:] }(), 1e-6, "the loop process's pose")
	assert.False(t, c.Moving())

	// A move to where the still body is ends at once.
	j, err = c.MoveTo(target, AllAxes)
	require.NoError(t, err)
	require.NoError(t, j.Wait(ctx))

	// A newer job takes over.
	first, err := c.MoveTo(Pose{-0.5, 0.4, -0.3}, AllAxes)
	require.NoError(t, err)
	second, err := c.MoveTo(Pose{0.2, 0.2, 0.2}, AllAxes)
	require.NoError(t, err)
	assert.ErrorIs(t, first.Wait(ctx), ErrPreempted)
	require.NoError(t, second.Wait(ctx))

	// An animation, by value, halted while it plays.
	play, err := c.Play(mustAnim(t, "dance"), PlayOptions{Loops: -1, NoLights: true})
	require.NoError(t, err)
	assert.True(t, c.Moving())
	c.Halt("test")
	assert.ErrorIs(t, play.Wait(ctx), ErrHalted)

	// Look-at makes the rest pose, which the loop process keeps.
	look, err := c.LookAt(Target{Turn: Gaze{Yaw: 0.4}}, LookOptions{})
	require.NoError(t, err)
	require.NoError(t, look.Wait(ctx))
	assert.InDelta(t, c.Pose()[0], c.Rest()[0], 1e-6)

	st := c.Stats()
	assert.NotZero(t, st.Ticks, "the loop process's ticks are counted")
	require.NoError(t, c.Close(ctx))
	_, err = c.MoveTo(target, AllAxes)
	assert.ErrorIs(t, err, ErrNotRunning)
	assert.Subset(t, events.kinds(Name), []string{"start", "home", "arrived", "animation", "halt", "rest", "lookat", "stop"})
	assert.Contains(t, events.kinds("motor-power"), "set", "the loop process's own devices report too")
}

// TestLoopProcessCloseSaysHowItExited closes the loop's process: one that
// exits with status 0 makes Close succeed, one that exits with another
// status (its motors failed to close) makes Close say so.
func TestLoopProcessCloseSaysHowItExited(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	for _, tc := range []struct {
		setup string
		want  string // "" for no error
	}{
		{setup: ""},
		{setup: "close fails", want: "motion: close: the loop's process: exit status 1"},
	} {
		t.Run(tc.setup, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			c := newProcessController(t, tc.setup, nil)
			startOrSkip(t, ctx, c)
			err := c.Close(ctx)
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestLoopProcessKilledIsAFault kills the loop's process: the running job
// ends with the fault, which names the process; commands are refused until
// Recover starts a new process, which homes the body and runs jobs again.
func TestLoopProcessKilledIsAFault(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var events eventLog
	c := newProcessController(t, "", events.observe)
	startOrSkip(t, ctx, c)
	defer c.Close(ctx)

	play, err := c.Play(mustAnim(t, "dance"), PlayOptions{Loops: -1, NoLights: true})
	require.NoError(t, err)
	c.mu.Lock()
	p := c.rem.proc
	c.mu.Unlock()
	require.NoError(t, p.cmd.Process.Kill())
	err = play.Wait(ctx)
	require.ErrorIs(t, err, ErrProcessExited)
	assert.Contains(t, err.Error(), "killed")
	assert.ErrorIs(t, c.Fault(), ErrProcessExited)
	_, err = c.MoveTo(Pose{}, AllAxes)
	assert.ErrorIs(t, err, ErrProcessExited)
	assert.Contains(t, events.kinds(Name), "fault")

	require.NoError(t, c.Recover(ctx))
	assert.NoError(t, c.Fault())
	j, err := c.MoveTo(Pose{0.1, 0.1, 0.1}, AllAxes)
	require.NoError(t, err)
	require.NoError(t, j.Wait(ctx))
	require.NoError(t, c.Close(ctx))
	select {
	case <-c.rem.proc.gone:
	default:
		t.Fatal("Close returned before the loop process was waited for")
	}
}

// TestLoopProcessThatCannotOpenMotors fails Start with the process's
// reason.
func TestLoopProcessThatCannotOpenMotors(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := newProcessController(t, "refuse", nil)
	err := c.Start(ctx)
	skipWhereNotExecutable(t, err)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no motors on this bench")
	require.NoError(t, c.Close(ctx))
}

// TestLoopProcessThatCannotStart says the process never ran, so that the
// caller can run the loop itself.
func TestLoopProcessThatCannotStart(t *testing.T) {
	var lim [NumAxes]AxisLimits
	for i := range lim {
		lim[i] = device.DefaultLimits()
	}
	if runtime.GOOS != "linux" {
		t.Skip("a loop process of its own needs Linux")
	}
	c, err := New(Config{Process: &Process{Path: "/nonexistent/jibod"}, Limits: lim, PreciseSleep: true})
	require.NoError(t, err)
	err = c.Start(context.Background())
	assert.ErrorIs(t, err, ErrProcessNotStarted)
	require.NoError(t, c.Close(context.Background()))
}

// TestLoopProcessThatIsNotTheLoop starts programs that are not the
// control loop's (one exits at once, one never answers, one whose own
// child holds the connection, one that answers without greeting, as an
// emulator's hung child or a wrong program would): Start fails within the
// product's bound with ErrProcessNotStarted and the reason, so that the
// robot runs the loop itself; nothing waits for ever and Close is clean.
func TestLoopProcessThatIsNotTheLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	if runtime.GOOS != "linux" {
		t.Skip("a loop process of its own needs Linux")
	}
	var lim [NumAxes]AxisLimits
	for i := range lim {
		lim[i] = device.DefaultLimits()
	}
	for _, tc := range []struct {
		name string
		proc Process
		why  string
	}{
		// Those that answer get the default bound: a test binary built
		// with -race takes more than a second to start on a loaded
		// machine. Those that never answer are waited for 1 s.
		{"exits at once", Process{Path: "/bin/true"}, "ended before it greeted: exit status 0"},
		{"never answers", Process{Path: "/bin/sleep", Args: []string{"30"}, AnswerWithin: time.Second}, "did not greet within 1s"},
		{"its child holds the connection", Process{Path: "/bin/sh", Args: []string{"-c", "sleep 30; exit 0"}, AnswerWithin: time.Second}, "did not greet within 1s"},
		{"answers without greeting", Process{Path: os.Args[0], Args: []string{"-test.run=^$", impostor}}, "not the loop process's greeting"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The test's own guard, far above the bound under test.
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			var out strings.Builder
			tc.proc.Stderr = &out
			c, err := New(Config{Process: &tc.proc, Limits: lim, PreciseSleep: true, Logger: slog.New(slog.DiscardHandler)})
			require.NoError(t, err)
			err = c.Start(ctx)
			skipWhereNotExecutable(t, err)
			require.ErrorIs(t, err, ErrProcessNotStarted)
			assert.ErrorContains(t, err, tc.why)
			assert.NoError(t, ctx.Err(), "Start returned by its own bound")
			assert.Zero(t, c.ProcessID())
			require.NoError(t, c.Close(ctx))
		})
	}
}

// TestLoopProcessConfig refuses a loop process given motors, or no
// program.
func TestLoopProcessConfig(t *testing.T) {
	var lim [NumAxes]AxisLimits
	for i := range lim {
		lim[i] = device.DefaultLimits()
	}
	_, err := New(Config{Process: &Process{}, Limits: lim})
	assert.ErrorContains(t, err, "no program")
	_, err = New(Config{Process: &Process{Path: "x"}, Limits: lim, Motors: []device.Motor{newFakeMotor(device.BottomSection, 0)}})
	assert.ErrorContains(t, err, "opens the motors")
	_, err = New(Config{Process: &Process{Path: "x"}})
	assert.ErrorContains(t, err, "limits")
	_, err = New(Config{Process: &Process{Path: "x", AnswerWithin: -time.Second}, Limits: lim})
	assert.ErrorContains(t, err, "negative")
}

// startOrSkip starts c; a test binary this system cannot start again
// (an ARM build run by qemu-user without binfmt_misc) skips the test.
func startOrSkip(t *testing.T, ctx context.Context, c *Controller) {
	t.Helper()
	err := c.Start(ctx)
	skipWhereNotExecutable(t, err)
	require.NoError(t, err)
}

func skipWhereNotExecutable(t *testing.T, err error) {
	t.Helper()
	if errors.Is(err, syscall.ENOEXEC) || errors.Is(err, errEmulated) {
		t.Skipf("this system cannot start the test binary again: %v", err)
	}
}

func mustAnim(t *testing.T, name string) *Animation {
	t.Helper()
	lib, err := Builtin()
	require.NoError(t, err)
	a, ok := lib.Lookup(name)
	require.True(t, ok)
	return a
}

// TestLoopProcessSendsEveryJobEnd queues job ends in the loop process's
// server: each reaches the parent once, in order, with its error, whether
// sendEnds or the last flush at close sends it.
func TestLoopProcessSendsEveryJobEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(nil) // frames are read from its queue, not written
		sent := func() (ids []uint64, errs []error) {
			synctest.Wait()
			for {
				select {
				case f := <-s.out:
					var buf []byte
					k, payload, err := readFrame(bytes.NewReader(f), &buf)
					require.NoError(t, err)
					id, jerr, bad := decodeEnd(k, payload)
					require.NoError(t, bad)
					ids, errs = append(ids, id), append(errs, jerr)
				default:
					return ids, errs
				}
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		wg.Go(func() { s.sendEnds(ctx) })
		s.ended(1, nil)
		s.ended(2, ErrPreempted)
		ids, errs := sent()
		assert.Equal(t, []uint64{1, 2}, ids)
		assert.NoError(t, errs[0])
		assert.ErrorIs(t, errs[1], ErrPreempted)
		s.ended(3, ErrHalted)
		ids, _ = sent()
		assert.Equal(t, []uint64{3}, ids, "sent once")

		cancel()
		wg.Wait()
		s.ended(4, ErrDeadman)
		s.flushEnds()
		ids, errs = sent()
		assert.Equal(t, []uint64{4}, ids)
		assert.ErrorIs(t, errs[0], ErrDeadman)
		s.flushEnds()
		ids, _ = sent()
		assert.Empty(t, ids, "nothing sent twice")
	})
}
