package motion

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/device/sim"
)

// fakeRT is an operating system and Go runtime that grant or refuse what
// they are told to, and record what was asked of them.
type fakeRT struct {
	mu       sync.Mutex
	fifoErr  error
	pinErr   error
	mlockErr error
	ncpu     int
	env      map[string]string
	tids     []int
	// listings, when set, are what threads returns first, one a call:
	// /proc/self/task read while a thread exits can skip a live one.
	listings [][]int

	fifo    int
	locked  bool
	pins    map[int][]int // thread → CPUs; 0 is the loop's own thread
	mlocked bool
	procs   int // 0: never set
	gc      int
	limit   int64
	held    int64 // what heldAfterGC says
	returns int   // returnMemory calls
}

func newFakeRT(ncpu int) *fakeRT {
	return &fakeRT{ncpu: ncpu, env: map[string]string{}, tids: []int{100, 101, 102}, pins: map[int][]int{}, gc: 100,
		limit: math.MaxInt64, held: 40 << 20}
}

func (f *fakeRT) lockThread() { f.mu.Lock(); f.locked = true; f.mu.Unlock() }

// openAccount reads no accounts: the fake locks no thread.
func (f *fakeRT) openAccount() *threadAccount { return nil }
func (f *fakeRT) setFIFO(prio int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fifoErr != nil {
		return f.fifoErr
	}
	f.fifo = prio
	return nil
}
func (f *fakeRT) cpus() ([]int, error) {
	var out []int
	for i := range f.ncpu {
		out = append(out, i)
	}
	return out, nil
}
func (f *fakeRT) pin(tid int, cpus []int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.pinErr != nil {
		return f.pinErr
	}
	f.pins[tid] = slices.Clone(cpus)
	return nil
}
func (f *fakeRT) threads() ([]int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.listings) > 0 {
		l := f.listings[0]
		f.listings = f.listings[1:]
		return slices.Clone(l), nil
	}
	return slices.Clone(f.tids), nil
}
func (f *fakeRT) self() int { return 100 }
func (f *fakeRT) lockMemory() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.mlockErr != nil {
		return f.mlockErr
	}
	f.mlocked = true
	return nil
}
func (f *fakeRT) unlockMemory() error { f.mu.Lock(); f.mlocked = false; f.mu.Unlock(); return nil }
func (f *fakeRT) gomaxprocs(n int) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	prev := f.procs
	if prev == 0 {
		prev = f.ncpu
	}
	if n > 0 {
		f.procs = n
	}
	return prev
}
func (f *fakeRT) setGCPercent(p int) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	prev := f.gc
	f.gc = p
	return prev
}
func (f *fakeRT) setMemoryLimit(n int64) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	prev := f.limit
	if n >= 0 {
		f.limit = n
	}
	return prev
}
func (f *fakeRT) returnMemory()            { f.mu.Lock(); f.returns++; f.mu.Unlock() }
func (f *fakeRT) heldAfterGC() int64       { f.mu.Lock(); defer f.mu.Unlock(); return f.held }
func (f *fakeRT) getenv(key string) string { return f.env[key] }

// rtController is a controller on sim motors with precise sleeps and
// real-time service from sys, logging to the returned buffer.
func rtController(t *testing.T, rt RealTime, sys rtSystem) (*Controller, *syncBuffer, func() []device.Event) {
	t.Helper()
	var motors []device.Motor
	for _, a := range device.Axes() {
		m, err := sim.NewMotor(sim.MotorOptions{Axis: a})
		require.NoError(t, err)
		motors = append(motors, m)
	}
	logs := &syncBuffer{}
	var mu sync.Mutex
	var events []device.Event
	rt.Enabled = true
	c, err := New(Config{Motors: motors, PreciseSleep: true, RealTime: rt,
		Logger:   slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo})),
		Observer: func(e device.Event) { mu.Lock(); events = append(events, e); mu.Unlock() }})
	require.NoError(t, err)
	c.rt.sys = sys
	return c, logs, func() []device.Event {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(events)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Where the system refuses part of the real-time service, the loop runs
// with the rest, Start warns once naming what was not permitted and why,
// and the robot works as before.
func TestRealTimeFallsBackWhereNotPermitted(t *testing.T) {
	sys := newFakeRT(4)
	sys.fifoErr = errors.New("operation not permitted")
	sys.mlockErr = errors.New("cannot allocate memory")
	c, logs, events := rtController(t, RealTime{}, sys)
	require.NoError(t, c.Start(context.Background()))

	st := c.RealTime()
	assert.Equal(t, 0, st.Priority, "ordinary priority")
	assert.False(t, st.MemoryLocked)
	assert.Equal(t, 3, st.CPU, "the last CPU")
	assert.True(t, st.Isolated)
	assert.Equal(t, []string{"SCHED_FIFO priority 40: operation not permitted", "locking memory: cannot allocate memory"}, st.Refused)
	assert.Equal(t, "pinned to CPU 3 (other threads kept off), GOMAXPROCS 64, GC at the held heap + 256 MiB while moving (GOGC 100 at rest)", st.String())
	assert.Equal(t, 1, bytes.Count([]byte(logs.String()), []byte("level=WARN")), logs.String())
	assert.Contains(t, logs.String(), `msg="motion: control loop runs without part of its real-time service"`)
	assert.Contains(t, logs.String(), `not_permitted="SCHED_FIFO priority 40: operation not permitted; locking memory: cannot allocate memory"`)
	assert.Equal(t, st.String(), events()[0].Values["realtime"], "the start event says what the loop got")

	j, err := c.MoveTo(Pose{0.2, 0, 0}, AllAxes)
	require.NoError(t, err)
	require.NoError(t, j.Wait(context.Background()))
	require.NoError(t, c.Close(context.Background()))
}

// Everything granted: no warning; Close undoes what acted on the whole
// process (the other threads' CPUs, GOMAXPROCS, the collector and memory
// limit, locked memory) and frees the service for another controller.
func TestRealTimeGrantedAndUndoneAtClose(t *testing.T) {
	sys := newFakeRT(2)
	c, logs, _ := rtController(t, RealTime{}, sys)
	require.NoError(t, c.Start(context.Background()))
	st := c.RealTime()
	assert.Equal(t, RealTimeStatus{Priority: DefaultRealTimePriority, CPU: 1, Isolated: true, Procs: 2 * DefaultProcsPerCPU, HeadroomMiB: DefaultHeapHeadroom >> 20, RestGCPercent: DefaultRestGCPercent, MemoryLocked: true}, st)
	assert.NotContains(t, logs.String(), "level=WARN")
	assert.Contains(t, logs.String(), "motion: control loop real-time service")
	sys.mu.Lock()
	assert.True(t, sys.locked, "the loop has a thread of its own")
	assert.Equal(t, map[int][]int{0: {1}, 101: {0}, 102: {0}}, sys.pins, "the loop on CPU 1, every other thread off it")
	assert.Equal(t, 2, sys.procs, "homed: GOMAXPROCS as before until the body moves")
	assert.Equal(t, DefaultRestGCPercent, sys.gc, "homed: the body is at rest")
	assert.Equal(t, int64(math.MaxInt64), sys.limit, "no memory limit by default")
	assert.True(t, sys.mlocked)
	sys.mu.Unlock()
	j, err := c.MoveTo(Pose{0.2, 0, 0}, AllAxes)
	require.NoError(t, err)
	require.NoError(t, j.Wait(context.Background()))
	sys.mu.Lock()
	assert.Equal(t, 2*DefaultProcsPerCPU, sys.procs, "raised when the body moves")
	sys.mu.Unlock()

	require.NoError(t, c.Close(context.Background()))
	sys.mu.Lock()
	assert.Equal(t, map[int][]int{0: {1}, 100: {0, 1}, 101: {0, 1}, 102: {0, 1}}, sys.pins, "every thread may use every CPU again")
	assert.Equal(t, 2, sys.procs, "GOMAXPROCS as it was")
	assert.Equal(t, 100, sys.gc, "the collector as it was")
	assert.Equal(t, int64(math.MaxInt64), sys.limit, "no memory limit, as before")
	assert.False(t, sys.mlocked)
	sys.mu.Unlock()
	assert.Equal(t, RealTimeStatus{CPU: -1}, c.RealTime())

	c2, _, _ := rtController(t, RealTime{}, newFakeRT(2))
	require.NoError(t, c2.Start(context.Background()))
	assert.Equal(t, DefaultRealTimePriority, c2.RealTime().Priority, "free again after Close")
	require.NoError(t, c2.Close(context.Background()))
}

// The measures act on the whole process: only one loop may have them.
func TestRealTimeOnlyOneLoopPerProcess(t *testing.T) {
	first, _, _ := rtController(t, RealTime{}, newFakeRT(2))
	require.NoError(t, first.Start(context.Background()))
	defer first.Close(context.Background())
	sys := newFakeRT(2)
	second, logs, _ := rtController(t, RealTime{}, sys)
	require.NoError(t, second.Start(context.Background()))
	defer second.Close(context.Background())
	assert.Equal(t, []string{"real-time service: another control loop of this process has it"}, second.RealTime().Refused)
	assert.Contains(t, logs.String(), "level=WARN")
	sys.mu.Lock()
	assert.False(t, sys.locked)
	assert.Empty(t, sys.pins)
	sys.mu.Unlock()
}

// The options and the environment decide what is asked for.
func TestRealTimeOptions(t *testing.T) {
	const unlimited = math.MaxInt64
	tests := []struct {
		name  string
		o     RealTime
		ncpu  int
		env   map[string]string
		want  RealTimeStatus
		pins  int // pin calls while running
		procs int // GOMAXPROCS once the body moves; 0: left
		gc    int // the collector's target at rest
		limit int64
	}{
		{"defaults", RealTime{}, 4, nil,
			RealTimeStatus{Priority: 40, CPU: 3, Isolated: true, Procs: 64, HeadroomMiB: 256, RestGCPercent: 100, MemoryLocked: true}, 3, 64, 100, unlimited},
		{"own headroom", RealTime{HeapHeadroom: 64 << 20}, 2, nil,
			RealTimeStatus{Priority: 40, CPU: 1, Isolated: true, Procs: 32, HeadroomMiB: 64, RestGCPercent: 100, MemoryLocked: true}, 3, 32, 100, unlimited},
		{"own heap limit", RealTime{HeapLimit: 1 << 30}, 2, nil,
			RealTimeStatus{Priority: 40, CPU: 1, Isolated: true, Procs: 32, HeapLimitMiB: 1024, MemoryLocked: true}, 3, 32, -1, 1 << 30},
		{"own priority, procs and GOGC", RealTime{Priority: 70, Procs: 6, GCPercent: 200, HeapHeadroom: -1, HeapLimit: -1}, 2, nil,
			RealTimeStatus{Priority: 70, CPU: 1, Isolated: true, Procs: 6, GCPercent: 200, RestGCPercent: 100, MemoryLocked: true}, 3, 6, 100, unlimited},
		{"GOGC default without a headroom", RealTime{HeapHeadroom: -1}, 2, nil,
			RealTimeStatus{Priority: 40, CPU: 1, Isolated: true, Procs: 32, GCPercent: 400, RestGCPercent: 100, MemoryLocked: true}, 3, 32, 100, unlimited},
		{"no pinning, GOMAXPROCS and GC left", RealTime{NoPin: true, Procs: -1, GCPercent: -1, NoMemoryLock: true}, 2, nil,
			RealTimeStatus{Priority: 40, CPU: -1, Procs: 2}, 0, 2, 100, unlimited},
		{"one CPU: nothing to pin", RealTime{}, 1, nil,
			RealTimeStatus{Priority: 40, CPU: -1, Procs: 16, HeadroomMiB: 256, RestGCPercent: 100, MemoryLocked: true}, 0, 16, 100, unlimited},
		{"the operator's GOMAXPROCS and GOGC stand", RealTime{}, 2, map[string]string{"GOMAXPROCS": "3", "GOGC": "50"},
			RealTimeStatus{Priority: 40, CPU: 1, Isolated: true, MemoryLocked: true}, 3, 0, 100, unlimited},
		{"the operator's GOMEMLIMIT stands", RealTime{}, 2, map[string]string{"GOMEMLIMIT": "1GiB"},
			RealTimeStatus{Priority: 40, CPU: 1, Isolated: true, Procs: 32, MemoryLocked: true}, 3, 32, 100, unlimited},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sys := newFakeRT(tt.ncpu)
			for k, v := range tt.env {
				sys.env[k] = v
			}
			rt := realTime{sys: sys}
			rt.enter(tt.o)
			defer func() { assert.NoError(t, rt.leave()) }()
			assert.Equal(t, tt.want, rt.status)
			rt.collect(true, 1)
			rt.collect(false, 1)
			sys.mu.Lock()
			defer sys.mu.Unlock()
			assert.Len(t, sys.pins, tt.pins)
			assert.Equal(t, tt.procs, sys.procs)
			assert.Equal(t, tt.gc, sys.gc)
			assert.Equal(t, tt.limit, sys.limit)
		})
	}
}

// New checks the real-time options.
func TestNewChecksRealTime(t *testing.T) {
	var three []device.Motor
	for _, a := range device.Axes() {
		three = append(three, newFakeMotor(a, 0))
	}
	for _, tt := range []struct {
		cfg  Config
		want string
	}{
		{Config{Motors: three, RealTime: RealTime{Enabled: true}}, "real-time service needs PreciseSleep"},
		{Config{Motors: three, PreciseSleep: true, RealTime: RealTime{Enabled: true, Priority: 100}}, "real-time priority 100 outside 1..99"},
		{Config{Motors: three, PreciseSleep: true, RealTime: RealTime{Enabled: true, Priority: -1}}, "real-time priority -1 outside 1..99"},
		{Config{Motors: three, PreciseSleep: true, RealTime: RealTime{Enabled: true, HeapLimit: 1 << 20}}, "real-time heap limit 1048576 bytes below 16777216"},
		{Config{Motors: three, PreciseSleep: true, RealTime: RealTime{Enabled: true, HeapHeadroom: 1 << 20}}, "real-time heap headroom 1048576 bytes outside 16777216..1073741824"},
		{Config{Motors: three, PreciseSleep: true, RealTime: RealTime{Enabled: true, HeapHeadroom: 2 << 30}}, "real-time heap headroom 2147483648 bytes outside 16777216..1073741824"},
	} {
		_, err := New(tt.cfg)
		assert.ErrorContains(t, err, tt.want, fmt.Sprint(tt.cfg.RealTime))
	}
}

// A listing of the process's threads that skips one (as /proc/self/task
// can while another thread exits) does not leave that thread on the
// loop's CPU, nor kept off it after leave.
func TestEveryThreadReachedThoughAListingSkipsOne(t *testing.T) {
	sys := newFakeRT(2)
	sys.listings = [][]int{{100, 102}}
	rt := realTime{sys: sys}
	rt.enter(RealTime{})
	sys.mu.Lock()
	assert.Equal(t, map[int][]int{0: {1}, 101: {0}, 102: {0}}, sys.pins, "thread 101, skipped by the first listing, is kept off CPU 1 too")
	sys.listings = [][]int{{100, 101}}
	sys.mu.Unlock()
	require.NoError(t, rt.leave())
	sys.mu.Lock()
	defer sys.mu.Unlock()
	assert.Equal(t, map[int][]int{0: {1}, 100: {0, 1}, 101: {0, 1}, 102: {0, 1}}, sys.pins, "every thread may use both CPUs again")
}

// The collector's target follows the body: GOGC 400 while a job runs,
// the rest target when it is still; a rest seen before a later job began
// is stale and changes nothing; Close puts back the process's own.
func TestRealTimeCollectorFollowsTheBody(t *testing.T) {
	tests := []struct {
		name       string
		o          RealTime
		move, rest int
	}{
		{"GOGC 400 moving", RealTime{HeapHeadroom: -1}, DefaultGCPercent, DefaultRestGCPercent},
		{"own targets", RealTime{HeapHeadroom: -1, GCPercent: 300, RestGCPercent: 80}, 300, 80},
		{"the same at rest", RealTime{HeapHeadroom: -1, RestGCPercent: -1}, DefaultGCPercent, DefaultGCPercent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sys := newFakeRT(2)
			rt := realTime{sys: sys}
			rt.enter(tt.o)
			assert.Equal(t, tt.move, rt.status.GCPercent)
			assert.Equal(t, tt.rest, rt.status.RestGCPercent)
			gc := func() int { sys.mu.Lock(); defer sys.mu.Unlock(); return sys.gc }
			assert.Equal(t, tt.rest, gc(), "the loop starts at rest")
			rt.collect(true, 1)
			assert.Equal(t, tt.move, gc(), "job 1 moves the body")
			rt.collect(true, 2)
			rt.collect(false, 1)
			assert.Equal(t, tt.move, gc(), "the rest after job 1 came after job 2 began")
			rt.collect(false, 2)
			assert.Equal(t, tt.rest, gc(), "at rest after job 2")
			require.NoError(t, rt.leave())
			assert.Equal(t, 100, gc(), "the collector as it was")
			rt.collect(true, 3)
			assert.Equal(t, 100, gc(), "left alone after Close")
		})
	}
	t.Run("a heap limit stays", func(t *testing.T) {
		sys := newFakeRT(2)
		rt := realTime{sys: sys}
		rt.enter(RealTime{HeapLimit: 1 << 30})
		rt.collect(true, 1)
		rt.collect(false, 1)
		sys.mu.Lock()
		assert.Equal(t, -1, sys.gc)
		sys.mu.Unlock()
		require.NoError(t, rt.leave())
	})
}

// By default, while the body moves the collector runs at a memory limit:
// what the process held after its last collection plus the headroom, with
// GOGC off. The limit is read again as jobs begin, at most once per
// retargetEvery, so the headroom stays on top of live data that grows, and
// it never goes above the process's own limit. At rest the process's own
// collector is back; Close leaves it as it was, and after Close nothing
// changes it.
func TestRealTimeCollectsAtAHeadroomWhileMoving(t *testing.T) {
	const mib = 1 << 20
	synctest.Test(t, func(t *testing.T) {
		sys := newFakeRT(2)
		rt := realTime{sys: sys}
		rt.enter(RealTime{HeapHeadroom: 64 * mib})
		state := func() (int, int64) { sys.mu.Lock(); defer sys.mu.Unlock(); return sys.gc, sys.limit }
		held := func(n int64) { sys.mu.Lock(); sys.held = n; sys.mu.Unlock() }
		gc, limit := state()
		assert.Equal(t, DefaultRestGCPercent, gc, "the loop starts at rest")
		assert.Equal(t, int64(math.MaxInt64), limit)

		rt.collect(true, 1)
		gc, limit = state()
		assert.Equal(t, -1, gc, "moving: GOGC off")
		assert.Equal(t, int64(40+64)*mib, limit, "moving: what the last collection kept plus the headroom")

		held(100 * mib)
		rt.collect(true, 2)
		_, limit = state()
		assert.Equal(t, int64(104)*mib, limit, "read again at most once per interval")
		time.Sleep(retargetEvery)
		rt.collect(true, 3)
		_, limit = state()
		assert.Equal(t, int64(164)*mib, limit, "the headroom follows live data that grew")

		assert.True(t, rt.collect(false, 3), "at rest: the heap's spare pages to give back")
		gc, limit = state()
		assert.Equal(t, DefaultRestGCPercent, gc, "at rest: the rest target")
		assert.Equal(t, int64(math.MaxInt64), limit, "at rest: the process's own limit")
		require.NoError(t, rt.leave())
		rt.collect(true, 4)
		gc, limit = state()
		assert.Equal(t, 100, gc, "left alone after Close")
		assert.Equal(t, int64(math.MaxInt64), limit)
	})
	t.Run("never above the process's own limit", func(t *testing.T) {
		sys := newFakeRT(2)
		sys.limit = 200 * mib
		sys.held = 180 * mib
		rt := realTime{sys: sys}
		rt.enter(RealTime{})
		rt.collect(true, 1)
		sys.mu.Lock()
		assert.Equal(t, int64(200)*mib, sys.limit)
		sys.mu.Unlock()
		rt.collect(false, 1)
		require.NoError(t, rt.leave())
		sys.mu.Lock()
		assert.Equal(t, int64(200)*mib, sys.limit, "the process's own limit, as it was")
		sys.mu.Unlock()
	})
	t.Run("the environment wins", func(t *testing.T) {
		for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
			sys := newFakeRT(2)
			sys.env[env] = "off"
			rt := realTime{sys: sys}
			rt.enter(RealTime{})
			rt.collect(true, 1)
			sys.mu.Lock()
			assert.Equal(t, 100, sys.gc, env)
			assert.Equal(t, int64(math.MaxInt64), sys.limit, env)
			sys.mu.Unlock()
			assert.Zero(t, rt.status.HeadroomMiB, env)
			require.NoError(t, rt.leave())
		}
	})
}

// On a controller the collector takes its moving setting when a job
// begins, and goes back to its rest setting only once the body has been
// still for the rest hold: the pauses between the moves of a conversation
// are not rest. The rest after homing takes effect at once.
func TestRealTimeCollectorHoldsBetweenMoves(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const hold = 2 * time.Second
		r := newRig(t, Pose{}, Config{})
		sys := newFakeRT(2)
		r.c.rtWant = RealTime{Enabled: true, RestHold: hold}
		r.c.rt.sys = sys
		r.start(t)
		gc := func() int { synctest.Wait(); sys.mu.Lock(); defer sys.mu.Unlock(); return sys.gc }
		assert.Equal(t, DefaultRestGCPercent, gc(), "homed: at rest at once")

		move := func(to float64) {
			j, err := r.c.MoveTo(Pose{to, 0, 0}, AllAxes)
			require.NoError(t, err)
			assert.Equal(t, -1, gc(), "moving")
			require.NoError(t, j.Wait(context.Background()))
		}
		move(0.3)
		time.Sleep(hold / 2)
		assert.Equal(t, -1, gc(), "still within the hold")
		move(0)
		time.Sleep(hold * 3 / 4)
		assert.Equal(t, -1, gc(), "the hold starts again at the second arrival")
		sys.mu.Lock()
		assert.Equal(t, 1, sys.returns, "given back once after homing, not while moving")
		sys.mu.Unlock()
		time.Sleep(hold / 2)
		assert.Equal(t, DefaultRestGCPercent, gc(), "still for the hold: at rest")
		sys.mu.Lock()
		assert.Equal(t, int64(math.MaxInt64), sys.limit, "no memory limit at rest")
		assert.Equal(t, 2, sys.returns, "the heap's spare pages given back once more")
		sys.mu.Unlock()
	})
}

// GOMAXPROCS is the loop's whenever the body moves: homing raises it;
// once homed it goes back to its value before the loop until the body
// next moves, and from then on it stays up, at rest too (a rest seen
// before a later job began changes nothing); Close puts back the
// process's own.
func TestRealTimeProcsFollowStartUp(t *testing.T) {
	sys := newFakeRT(2)
	rt := realTime{sys: sys}
	rt.enter(RealTime{})
	procs := func() int { sys.mu.Lock(); defer sys.mu.Unlock(); return sys.procs }
	assert.Equal(t, 2*DefaultProcsPerCPU, rt.status.Procs)
	assert.Equal(t, 2, procs(), "fixed at its value until the body moves")
	rt.collect(true, 1)
	assert.Equal(t, 32, procs(), "homing moves the body")
	rt.collect(true, 2)
	rt.collect(false, 1)
	rt.settle(1)
	assert.Equal(t, 32, procs(), "homed, but job 2 began since")
	rt.collect(false, 2)
	rt.settle(2)
	assert.Equal(t, 2, procs(), "homed and still: the robot loads at rest")
	rt.collect(true, 3)
	assert.Equal(t, 32, procs(), "the body moves again")
	rt.collect(false, 3)
	rt.settle(3)
	assert.Equal(t, 32, procs(), "up for good after the first move")
	require.NoError(t, rt.leave())
	assert.Equal(t, 2, procs(), "GOMAXPROCS as it was")
	rt.collect(true, 4)
	assert.Equal(t, 2, procs(), "left alone after Close")

	t.Run("the operator's GOMAXPROCS stands", func(t *testing.T) {
		sys := newFakeRT(2)
		sys.env["GOMAXPROCS"] = "3"
		rt := realTime{sys: sys}
		rt.enter(RealTime{})
		rt.collect(true, 1)
		rt.collect(false, 1)
		rt.settle(1)
		sys.mu.Lock()
		assert.Zero(t, sys.procs, "never set")
		sys.mu.Unlock()
		require.NoError(t, rt.leave())
	})
}

// TestRealTimeKeepsThreadsOffTheLoopsCPU is what the parent of a loop
// process does: every thread of it is kept off the loop's CPU, and given
// every CPU back at close; with one CPU nothing changes; a thread that
// cannot be pinned is named, and the others are pinned all the same.
func TestRealTimeKeepsThreadsOffTheLoopsCPU(t *testing.T) {
	f := newFakeRT(4)
	rt := &realTime{sys: f}
	all, err := rt.keepOff(3)
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1, 2, 3}, all)
	assert.Equal(t, map[int][]int{100: {0, 1, 2}, 101: {0, 1, 2}, 102: {0, 1, 2}}, f.pins)
	require.NoError(t, rt.pinAll(all, 0))
	assert.Equal(t, map[int][]int{100: all, 101: all, 102: all}, f.pins)

	one := newFakeRT(1)
	all, err = (&realTime{sys: one}).keepOff(0)
	require.NoError(t, err)
	assert.Nil(t, all)
	assert.Empty(t, one.pins)

	refusing := newFakeRT(2)
	refusing.pinErr = errors.New("operation not permitted")
	all, err = (&realTime{sys: refusing}).keepOff(1)
	assert.Equal(t, []int{0, 1}, all, "given back at close all the same")
	require.Error(t, err)
	for _, tid := range []string{"thread 100", "thread 101", "thread 102"} {
		assert.ErrorContains(t, err, tid)
	}
}
