package motion

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Real-time defaults; docs/motion.md has the measurements behind them.
const (
	// DefaultRealTimePriority is the loop thread's SCHED_FIFO priority:
	// above every ordinary thread, below the kernel's threaded interrupt
	// handlers (50 on PREEMPT_RT kernels), which the loop's own bus
	// transfers wait on.
	DefaultRealTimePriority = 40
	// DefaultProcsPerCPU sets GOMAXPROCS to this many per CPU the process
	// may use. The loop's thread, woken on time, still needs a Go
	// processor (a P) to run Go code; when the robot is busy every P is
	// taken and it waits for one to be handed over, which takes as long as
	// the other threads take to be scheduled. With spare Ps it takes an
	// idle one at once; a busy pipeline keeps a few dozen goroutines
	// runnable, so it takes a few dozen Ps to leave one spare
	// (docs/motion.md).
	DefaultProcsPerCPU = 16
	// DefaultHeapHeadroom is how much the Go heap may grow past the
	// memory the process held after its last collection while the body
	// moves, before the collector runs (RealTime.HeapHeadroom). Collecting
	// at a size fixed in bytes rather than a multiple of a small live heap
	// makes collections, each of which can leave the loop waiting for
	// another thread, several times rarer under pipeline load.
	DefaultHeapHeadroom = 256 << 20
	// MinHeapHeadroom and MaxHeapHeadroom bound RealTime.HeapHeadroom:
	// below the minimum the collector would run all the time; the maximum
	// bounds what a pipeline allocating without pause can make the heap
	// carry on top of its live data.
	MinHeapHeadroom = 16 << 20
	MaxHeapHeadroom = 1 << 30
	// DefaultRestHold is how long the body stays still before the
	// collector goes back to its setting at rest (RealTime.RestHold). In a
	// conversation the body moves for every answer; a pause between two
	// of them is not rest.
	DefaultRestHold = 5 * time.Second
	// DefaultGCPercent is the garbage collector's target (GOGC) while the
	// body moves, where RealTime.HeapHeadroom is negative: a heap up to
	// five times the live one.
	DefaultGCPercent = 400
	// DefaultRestGCPercent is the collector's target while the body is at
	// rest, where a late tick costs nothing (the servos hold): Go's own
	// default, for a heap up to twice the live one. Start-up, which loads
	// and learns with the body at rest, then leaves its long-lived data in
	// fewer pages.
	DefaultRestGCPercent = 100
	// MinHeapLimit bounds RealTime.HeapLimit: below a few times the live
	// heap the collector would run all the time.
	MinHeapLimit = 16 << 20
)

// RealTime asks for the control loop what a real-time loop gets on Linux.
// It needs Config.PreciseSleep. Elsewhere nothing is applied and Start
// warns once.
//
// Several of its measures act on the whole process (the CPUs other threads
// use, GOMAXPROCS, the garbage collector, locked memory); Close undoes
// them. An explicit GOMAXPROCS or GOGC in the environment is left alone.
type RealTime struct {
	// Enabled asks for real-time service: the loop runs on an OS thread
	// of its own (runtime.LockOSThread) at SCHED_FIFO Priority, pinned to
	// one CPU (the last the process may use) with the process's other
	// threads kept off it, where there are several CPUs; GOMAXPROCS and
	// the collector are set as below, and memory is locked (mlockall) so
	// that no tick waits for a page to come back. Whatever the system does
	// not permit is left out, with one warning naming it.
	Enabled bool
	// Priority is the SCHED_FIFO priority, 1..99; 0 means
	// DefaultRealTimePriority.
	Priority int
	// NoPin leaves the loop's thread, and the rest of the process, free
	// to run on any CPU.
	NoPin bool
	// Procs is GOMAXPROCS while the loop runs, from homing on; from the
	// end of homing until the next job it keeps its present value, so
	// that start-up at rest runs with few Ps. 0 means DefaultProcsPerCPU
	// per CPU, negative keeps its present value throughout. Close puts
	// back the value it had.
	Procs int
	// HeapHeadroom, while the body moves (a job runs, and for RestHold
	// after), makes the collector run when the process's Go memory reaches
	// what it held after its last collection plus this many bytes (GOGC
	// off and a memory limit, re-read at most once a second as jobs
	// begin); at rest the collector is as the process had it, at
	// RestGCPercent. 0 means DefaultHeapHeadroom; negative collects at
	// GCPercent while moving instead. Positive values lie within
	// MinHeapHeadroom..MaxHeapHeadroom. The limit is soft: when the live
	// data itself outgrows it, the runtime collects more often, spending
	// at most about half the CPU on it, and lets the heap pass the limit
	// until the next reading raises it.
	HeapHeadroom int64
	// GCPercent is the collector's target while the body moves, where
	// HeapHeadroom is negative and HeapLimit not set; 0 means
	// DefaultGCPercent. Negative leaves the collector as it is (HeapLimit,
	// HeapHeadroom and RestGCPercent too).
	GCPercent int
	// RestGCPercent is the collector's target while the body is at rest,
	// unless HeapLimit is set; 0 means DefaultRestGCPercent, negative
	// GCPercent.
	RestGCPercent int
	// RestHold is how long the body must be still before the collector
	// goes back to its setting at rest; 0 means DefaultRestHold, negative
	// at once. The rest after homing at Start takes effect at once. Going
	// back from HeapHeadroom, the controller collects once and gives the
	// heap's free pages back to the system (debug.FreeOSMemory): a pause
	// a body at rest does not feel, once per busy spell.
	RestHold time.Duration
	// HeapLimit, when positive, makes the collector run when the heap
	// reaches this size in bytes (GOGC off and a memory limit, GOMEMLIMIT),
	// at least MinHeapLimit, instead of at GCPercent. Each collection asks
	// every goroutine, the loop's too, to stop or to run the collector's
	// requests, and answering can leave the loop waiting for another thread
	// of the process; collecting at a fixed size rather than a multiple of
	// the live heap (a few MB) makes that rarer. The price is memory: the
	// heap grows to about this size between collections, locked in RAM, so
	// it is not the default (docs/motion.md).
	HeapLimit int64
	// NoMemoryLock leaves memory unlocked.
	NoMemoryLock bool
}

// RealTimeStatus says what real-time service the loop got.
type RealTimeStatus struct {
	// Priority is the loop thread's SCHED_FIFO priority; 0 when it runs
	// at ordinary priority.
	Priority int `json:"priority"`
	// CPU is the CPU the loop thread is pinned to; -1 when it is not.
	CPU int `json:"cpu"`
	// Isolated is true when the process's other threads keep off CPU.
	Isolated bool `json:"isolated"`
	// Procs is the GOMAXPROCS fixed for the loop; 0 when left alone.
	Procs int `json:"procs,omitempty"`
	// HeadroomMiB is the heap's headroom in MiB past what the process
	// held after its last collection, while the body moves; 0 when not
	// used.
	HeadroomMiB int64 `json:"heap_headroom_mib,omitempty"`
	// GCPercent is the collector's target set for the loop while the
	// body moves; 0 when left alone or when the collector runs at
	// HeadroomMiB or HeapLimitMiB.
	GCPercent int `json:"gc_percent,omitempty"`
	// RestGCPercent is the collector's target while the body is at rest;
	// 0 when the collector is left alone or runs at HeapLimitMiB.
	RestGCPercent int `json:"rest_gc_percent,omitempty"`
	// HeapLimitMiB is the heap size in MiB at which the collector runs;
	// 0 when not set.
	HeapLimitMiB int64 `json:"heap_limit_mib,omitempty"`
	// MemoryLocked is true when the process's memory is locked.
	MemoryLocked bool `json:"memory_locked"`
	// Refused names what was asked for and not granted, and why.
	Refused []string `json:"refused,omitempty"`
}

// String says what the loop got in a few words.
func (s RealTimeStatus) String() string {
	var parts []string
	if s.Priority > 0 {
		parts = append(parts, fmt.Sprintf("SCHED_FIFO %d", s.Priority))
	}
	if s.CPU >= 0 {
		p := fmt.Sprintf("pinned to CPU %d", s.CPU)
		if s.Isolated {
			p += " (other threads kept off)"
		}
		parts = append(parts, p)
	}
	if s.Procs > 0 {
		parts = append(parts, fmt.Sprintf("GOMAXPROCS %d", s.Procs))
	}
	switch {
	case s.HeadroomMiB > 0:
		parts = append(parts, fmt.Sprintf("GC at the held heap + %d MiB while moving (GOGC %d at rest)", s.HeadroomMiB, s.RestGCPercent))
	case s.GCPercent > 0:
		p := fmt.Sprintf("GOGC %d", s.GCPercent)
		if s.RestGCPercent > 0 && s.RestGCPercent != s.GCPercent {
			p += fmt.Sprintf(" (%d at rest)", s.RestGCPercent)
		}
		parts = append(parts, p)
	}
	if s.HeapLimitMiB > 0 {
		parts = append(parts, fmt.Sprintf("GC at a %d MiB heap", s.HeapLimitMiB))
	}
	if s.MemoryLocked {
		parts = append(parts, "memory locked")
	}
	if len(parts) == 0 {
		return "ordinary scheduling"
	}
	return strings.Join(parts, ", ")
}

// rtSystem is what the real-time set-up asks of the operating system and
// the Go runtime; each call acts on the calling thread unless it names
// another.
type rtSystem interface {
	// lockThread wires the calling goroutine to its thread for good
	// (runtime.LockOSThread, never undone): the thread ends with it.
	lockThread()
	// setFIFO puts the calling thread in SCHED_FIFO at prio; threads it
	// creates start at ordinary priority.
	setFIFO(prio int) error
	// cpus lists the CPUs the calling thread may run on.
	cpus() ([]int, error)
	// pin lets thread tid (0: the calling thread) run only on cpus.
	pin(tid int, cpus []int) error
	// threads lists the process's threads; self is the calling one.
	threads() ([]int, error)
	self() int
	lockMemory() error
	unlockMemory() error
	// gomaxprocs is runtime.GOMAXPROCS.
	gomaxprocs(n int) int
	// setGCPercent sets the collector's target and returns the previous.
	setGCPercent(p int) int
	// setMemoryLimit is debug.SetMemoryLimit.
	setMemoryLimit(n int64) int64
	// returnMemory collects and gives the heap's free pages back to the
	// system (debug.FreeOSMemory). The runtime's own scavenger, paced at
	// each collection, would wait for the next one, which an idle robot
	// makes minutes later.
	returnMemory()
	// heldAfterGC is the Go memory the process holds that the last
	// collection kept: everything the memory limit counts, less the
	// heap's free pages and the garbage made since.
	heldAfterGC() int64
	// getenv reads the environment.
	getenv(key string) string
	// openAccount opens the kernel's accounts of the calling thread,
	// locked to its goroutine; nil where they cannot be read.
	openAccount() *threadAccount
}

// goRuntime is the Go runtime's part of an rtSystem.
type goRuntime struct{}

func (goRuntime) lockThread()          { runtime.LockOSThread() }
func (goRuntime) gomaxprocs(n int) int { return runtime.GOMAXPROCS(n) }

func (goRuntime) setGCPercent(p int) int { return debug.SetGCPercent(p) }

func (goRuntime) setMemoryLimit(n int64) int64 { return debug.SetMemoryLimit(n) }

func (goRuntime) returnMemory() { debug.FreeOSMemory() }

// heldMetrics are what heldAfterGC reads, in its order.
var heldMetrics = [...]string{
	"/memory/classes/total:bytes",
	"/memory/classes/heap/released:bytes",
	"/memory/classes/heap/free:bytes",
	"/memory/classes/heap/objects:bytes",
	"/gc/heap/live:bytes",
}

func (goRuntime) heldAfterGC() int64 {
	var s [len(heldMetrics)]metrics.Sample
	var v [len(heldMetrics)]int64
	for i, name := range heldMetrics {
		s[i].Name = name
	}
	metrics.Read(s[:])
	for i := range s {
		if s[i].Value.Kind() == metrics.KindUint64 {
			v[i] = int64(min(s[i].Value.Uint64(), 1<<62))
		}
	}
	// What the limit counts is total less released; of that, the heap's
	// free pages are not held and its objects are the live data plus
	// garbage not yet collected.
	held := v[0] - v[1] - v[2] - v[3] + v[4]
	if held <= 0 {
		held = v[0] - v[1]
	}
	return held
}

// rtTaken is held by the controller whose loop has real-time service: the
// measures act on the whole process (its threads' CPUs, GOMAXPROCS, the
// collector, locked memory), so only one loop in a process may have them,
// and only it may undo them.
var rtTaken atomic.Bool

// realTime is the loop's real-time set-up: what it changed, to undo it.
type realTime struct {
	sys       rtSystem
	status    RealTimeStatus
	all       []int // the CPUs the process could use before isolating
	prevGC    int   // the collector's target to put back
	prevLimit int64 // the memory limit to put back
	prevProcs int   // GOMAXPROCS to put back
	held      bool  // this set-up holds rtTaken
	tid       int   // the loop's thread

	// gcMu guards the collector's switch between moving and rest: it is
	// taken outside the controller's lock, so the loop never waits on it.
	gcMu      sync.Mutex
	gcTwo     bool  // the collector follows the body: moving and at rest
	gcRest    bool  // the rest setting is in force
	gcMove    int   // GOGC while moving, where headroom is 0
	gcAtRst   int   // GOGC at rest
	headroom  int64 // while moving: collect at heldAfterGC + headroom, GOGC off
	restLimit int64 // the memory limit at rest: the process's own
	limitAt   time.Time
	gcSeq     uint64 // the last job begun that raised the target

	// GOMAXPROCS is procsMove whenever the body moves; from homing until
	// the body first moves again it is procsStill (see settle). Guarded
	// by gcMu.
	procsMove, procsStill int
	procsUp               bool // GOMAXPROCS is procsMove now
	procsSettled          bool // settle has lowered it once; it stays up from now on
}

// retargetEvery is how often, at most, the memory limit is set again
// from the memory held while the body keeps moving, so that the
// headroom stays on top of live data that grows.
const retargetEvery = time.Second

// enter sets up real-time service for the calling goroutine: it locks it
// to its thread for good, so that the thread, with its priority and
// affinity, ends with the goroutine. What fails is noted in
// status.Refused.
func (rt *realTime) enter(o RealTime) {
	st := RealTimeStatus{CPU: -1}
	defer func() { rt.status = st }()
	refuse := func(what string, err error) { st.Refused = append(st.Refused, fmt.Sprintf("%s: %v", what, err)) }
	if !rtSupported {
		refuse("real-time service", errors.New("not supported on "+runtime.GOOS))
		return
	}
	if !rtTaken.CompareAndSwap(false, true) {
		refuse("real-time service", errors.New("another control loop of this process has it"))
		return
	}
	rt.held = true
	rt.sys.lockThread()
	rt.tid = rt.sys.self()
	prio := o.Priority
	if prio == 0 {
		prio = DefaultRealTimePriority
	}
	if err := rt.sys.setFIFO(prio); err != nil {
		refuse(fmt.Sprintf("SCHED_FIFO priority %d", prio), err)
	} else {
		st.Priority = prio
	}
	cpus, err := rt.sys.cpus()
	if err != nil {
		refuse("reading the CPUs", err)
	}
	rt.setProcs(o, len(cpus), &st)
	if o.GCPercent >= 0 && rt.sys.getenv("GOGC") == "" && rt.sys.getenv("GOMEMLIMIT") == "" {
		rt.setCollector(o, &st)
	}
	if len(cpus) > 1 && !o.NoPin {
		// Pinned without the others kept off, the loop thread preempts
		// the runtime's own threads on its CPU and can then spin waiting
		// for one of them (a priority inversion): pin and isolate go
		// together.
		cpu := cpus[len(cpus)-1]
		if err := rt.sys.pin(0, []int{cpu}); err != nil {
			refuse(fmt.Sprintf("pinning to CPU %d", cpu), err)
		} else {
			st.CPU = cpu
			rt.all = cpus
			// New threads inherit the affinity of the thread that starts
			// them; the Go runtime starts them from a thread other than a
			// locked one.
			if err := rt.pinAll(cpus[:len(cpus)-1], rt.tid); err != nil {
				refuse(fmt.Sprintf("keeping other threads off CPU %d", cpu), err)
			}
			st.Isolated = true // partly, even on error: leave puts every thread back
		}
	}
	if !o.NoMemoryLock {
		if err := rt.sys.lockMemory(); err != nil {
			refuse("locking memory", err)
		} else {
			st.MemoryLocked = true
		}
	}
}

// setCollector sets when the collector runs, as o asks.
func (rt *realTime) setCollector(o RealTime, st *RealTimeStatus) {
	if o.HeapLimit <= 0 {
		p := o.GCPercent
		if p == 0 {
			p = DefaultGCPercent
		}
		r := o.RestGCPercent
		switch {
		case r == 0:
			r = DefaultRestGCPercent
		case r < 0:
			r = p
		}
		h := o.HeapHeadroom
		switch {
		case h == 0:
			h = DefaultHeapHeadroom
		case h < 0:
			h = 0
		}
		// The loop starts with the body at rest; the first job raises it.
		rt.gcMu.Lock()
		rt.gcTwo, rt.gcRest, rt.gcMove, rt.gcAtRst, rt.headroom = true, true, p, r, h
		rt.prevGC = rt.sys.setGCPercent(r)
		rt.prevLimit = rt.sys.setMemoryLimit(-1)
		rt.restLimit = rt.prevLimit
		rt.gcMu.Unlock()
		st.RestGCPercent = r
		if h > 0 {
			st.HeadroomMiB = max(h>>20, 1)
		} else {
			st.GCPercent = p
		}
		return
	}
	limit := o.HeapLimit
	rt.prevLimit = rt.sys.setMemoryLimit(limit)
	rt.prevGC = rt.sys.setGCPercent(-1)
	st.HeapLimitMiB = max(limit>>20, 1)
}

// collect sets the collector for a body that moves or rests, when the
// set-up made it follow the body. seq is the last job begun as the caller
// saw it: a rest seen before a later job began is stale. It runs only
// when a job begins or the body comes to rest, never in a tick; turning
// the collector off waits for a collection under way to finish its
// marking, in the goroutine that begins the job. It returns true when the
// body came to rest from collecting at the headroom: the heap then holds
// pages the rest setting does not need, for the caller to give back.
func (rt *realTime) collect(moving bool, seq uint64) (giveBack bool) {
	rt.gcMu.Lock()
	defer rt.gcMu.Unlock()
	if moving {
		rt.gcSeq = max(rt.gcSeq, seq)
		if !rt.procsUp && rt.procsMove > 0 {
			rt.procsUp = true
			rt.sys.gomaxprocs(rt.procsMove)
		}
	} else if seq < rt.gcSeq {
		return false
	}
	if !rt.gcTwo {
		return false
	}
	switch {
	case moving && !rt.gcRest:
		if rt.headroom > 0 && time.Since(rt.limitAt) >= retargetEvery {
			rt.setLimitLocked()
		}
	case moving:
		rt.gcRest = false
		if rt.headroom > 0 {
			// The limit first: with the collector off and no limit the
			// heap would grow unbounded meanwhile.
			rt.setLimitLocked()
			rt.sys.setGCPercent(-1)
		} else {
			rt.sys.setGCPercent(rt.gcMove)
		}
	case !rt.gcRest:
		rt.gcRest = true
		rt.sys.setGCPercent(rt.gcAtRst)
		if rt.headroom > 0 {
			rt.sys.setMemoryLimit(rt.restLimit)
			return true
		}
	}
	return false
}

// setLimitLocked sets the memory limit to what the process held after its
// last collection plus the headroom, never above the process's own
// limit. rt.gcMu is held.
func (rt *realTime) setLimitLocked() {
	held := rt.sys.heldAfterGC()
	limit := rt.restLimit
	if held < rt.restLimit-rt.headroom {
		limit = held + rt.headroom
	}
	rt.sys.setMemoryLimit(limit)
	rt.limitAt = time.Now()
}

// setProcs sets GOMAXPROCS as o asks, given ncpu CPUs. It is fixed even
// when o leaves its value alone: Go would otherwise lower it, within a
// second, to the CPUs left to the other threads by isolating.
func (rt *realTime) setProcs(o RealTime, ncpu int, st *RealTimeStatus) {
	if rt.sys.getenv("GOMAXPROCS") != "" {
		return // the operator's choice, fixed already
	}
	n := o.Procs
	cur := rt.sys.gomaxprocs(0)
	switch {
	case n == 0:
		n = DefaultProcsPerCPU * max(ncpu, 1)
	case n < 0:
		n = cur
	}
	// Fixed at its present value until the body moves (collect): the
	// Ps are for the loop while the body moves.
	rt.prevProcs = rt.sys.gomaxprocs(cur)
	rt.gcMu.Lock()
	rt.procsMove, rt.procsStill, rt.procsUp = n, cur, n == cur
	rt.gcMu.Unlock()
	st.Procs = n
}

// settle lowers GOMAXPROCS back to its value before the loop, once, when
// the body has come to rest after homing (seq is the homing job): the
// robot then loads its skills and learns at rest, where a late tick costs
// nothing, and its collections run with a few Ps instead of many, all
// competing for the CPUs the loop leaves (docs/motion.md). The next job
// raises it for good.
func (rt *realTime) settle(seq uint64) {
	rt.gcMu.Lock()
	defer rt.gcMu.Unlock()
	if rt.procsSettled || seq < rt.gcSeq {
		return
	}
	rt.procsSettled = true
	if rt.procsUp && rt.procsMove != rt.procsStill {
		rt.procsUp = false
		rt.sys.gomaxprocs(rt.procsStill)
	}
}

// pinAll lets every thread of the process but except (0: none) run on
// cpus only. It goes on past a thread it cannot pin, and says which.
func (rt *realTime) pinAll(cpus []int, except int) error {
	var errs []error
	err := rt.eachThread(func(tid int) error {
		if tid == except {
			return nil
		}
		if err := rt.sys.pin(tid, cpus); err != nil && !threadGone(err) {
			errs = append(errs, fmt.Errorf("thread %d: %w", tid, err))
		}
		return nil
	})
	return errors.Join(append(errs, err)...)
}

// keepOff keeps every thread of the process, and those they start, off
// cpu, where the process may use others too. It returns the CPUs the
// threads could use before, for pinAll to give back (even when some could
// not be kept off); nil when it changed nothing.
func (rt *realTime) keepOff(cpu int) ([]int, error) {
	all, err := rt.sys.cpus()
	if err != nil {
		return nil, err
	}
	others := slices.DeleteFunc(slices.Clone(all), func(x int) bool { return x == cpu })
	if len(others) == 0 || len(others) == len(all) {
		return nil, nil
	}
	return all, rt.pinAll(others, 0)
}

// maxThreadPasses bounds eachThread's listings.
const maxThreadPasses = 8

// eachThread calls fn once for every thread of the process, listing them
// again until a listing holds none it has not seen: a listing of
// /proc/self/task taken while another thread exits can skip a live one,
// and threads started meanwhile are listed only by a later one.
func (rt *realTime) eachThread(fn func(tid int) error) error {
	done := map[int]bool{}
	for range maxThreadPasses {
		tids, err := rt.sys.threads()
		if err != nil {
			return err
		}
		fresh := 0
		for _, tid := range tids {
			if done[tid] {
				continue
			}
			done[tid] = true
			fresh++
			if err := fn(tid); err != nil {
				return err
			}
		}
		if fresh == 0 {
			return nil
		}
	}
	return nil
}

// leave undoes what enter did to the process: the other threads may use
// every CPU again, GOMAXPROCS, the collector and the memory limit are as
// they were, memory is unlocked. The loop's thread ends with the loop and takes its own
// settings with it.
func (rt *realTime) leave() error {
	var errs []error
	st := rt.status
	if st.Isolated {
		if err := rt.pinAll(rt.all, 0); err != nil {
			errs = append(errs, err)
		}
	}
	if st.Procs > 0 {
		rt.gcMu.Lock()
		rt.procsMove, rt.procsUp = 0, true // collect leaves GOMAXPROCS alone from now on
		rt.gcMu.Unlock()
		rt.sys.gomaxprocs(rt.prevProcs)
	}
	if st.GCPercent > 0 || st.HeadroomMiB > 0 || st.HeapLimitMiB > 0 {
		rt.gcMu.Lock()
		rt.gcTwo = false
		rt.sys.setGCPercent(rt.prevGC)
		rt.sys.setMemoryLimit(rt.prevLimit)
		rt.gcMu.Unlock()
	}
	if st.MemoryLocked {
		if err := rt.sys.unlockMemory(); err != nil {
			errs = append(errs, fmt.Errorf("unlocking memory: %w", err))
		}
	}
	rt.status = RealTimeStatus{CPU: -1}
	if rt.held {
		rt.held = false
		rtTaken.Store(false)
	}
	if len(errs) > 0 {
		return fmt.Errorf("motion: undoing the loop's real-time set-up: %w", errors.Join(errs...))
	}
	return nil
}
