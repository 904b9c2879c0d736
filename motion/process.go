package motion

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"sync/atomic"
	"time"

	"github.com/openjibo/jibod/device"
)

// ProcessEnv marks the environment of the loop's own process: a program
// that finds it set runs ServeProcess first thing in main, and nothing
// else.
const ProcessEnv = "JIBOD_MOTION_LOOP"

// The loop process's inherited files.
const (
	processConnFD = 3
	processMemFD  = 4
)

// IsProcess reports whether this process is a control loop's own process,
// started by a Controller with Config.Process.
func IsProcess() bool { return os.Getenv(ProcessEnv) == "1" }

// ErrProcessExited is the controller's fault when the loop's own process
// ended without being asked to: the motors are no longer driven (the
// process powers them off as it goes, unless it was killed). Recover
// starts it again.
var ErrProcessExited = errors.New("motion: the control loop's process exited")

// ErrProcessNotStarted is Start's error when the loop's own process could
// not be started at all (no such program, or one this system cannot run,
// such as a foreign binary under an emulator), or what started is not the
// loop's process: it exited, did not greet within Process.AnswerWithin,
// or greeted wrongly. The motors were not opened, and the loop can run in
// this process instead.
var ErrProcessNotStarted = errors.New("motion: the control loop's process could not be started")

// errEmulated is Start's reason, with ErrProcessNotStarted, where this
// program runs under a user-mode emulator.
var errEmulated = errors.New("this program runs under an emulator (qemu-user), which cannot start it again reliably")

// Process says how to start the control loop's own process.
type Process struct {
	// Path and Args start it: a program that calls ServeProcess when
	// IsProcess (for jibod, itself: /proc/self/exe). Args leave out the
	// program name.
	Path string
	Args []string
	// Setup tells the process how to open the motors and their power;
	// its OpenMotors reads it (for jibod, the board profile).
	Setup []byte
	// Stderr receives the process's standard output and error (a crash's
	// report); nil means this process's standard error.
	Stderr io.Writer
	// AnswerWithin bounds the wait for the process's greeting, its first
	// frame, sent before it opens the motors; 0 means
	// DefaultProcessAnswer. A program that does not greet in time is
	// killed and Start fails with ErrProcessNotStarted.
	AnswerWithin time.Duration
}

// DefaultProcessAnswer is Process.AnswerWithin's default: many times what
// a Go program takes to start on a loaded robot, yet short enough that a
// robot whose loop process hangs still comes up, running the loop itself.
const DefaultProcessAnswer = 30 * time.Second

// processHello is the loop process's configuration, the first frame.
type processHello struct {
	Rate           int           `json:"rate"`
	CommandTimeout time.Duration `json:"command_timeout"`
	LateRest       time.Duration `json:"late_rest"`
	StallTimeout   time.Duration `json:"stall_timeout"`
	Home           Pose          `json:"home"`
	Precise        bool          `json:"precise"`
	RealTime       RealTime      `json:"realtime"`
	Setup          []byte        `json:"setup"`
	// LogLevel is the least level the parent logs: the process sends
	// nothing below it.
	LogLevel slog.Level `json:"log_level"`
}

// processReady answers the hello once the body is homed, or says why not.
type processReady struct {
	Status RealTimeStatus         `json:"status"`
	Limits [NumAxes]device.Limits `json:"limits"`
	Err    string                 `json:"error,omitempty"`
}

// remote is the parent's side of the loop's own process.
type remote struct {
	cfg Process
	mem *os.File // the mirror's memory, handed to every process started
	mir *mirror
	// proc is the process running now; guarded by the controller's mu.
	proc *loopProc
	// all is the CPUs this process's threads could use before they were
	// kept off the loop's; nil while they are not.
	all []int
}

// loopProc is one run of the loop's own process.
type loopProc struct {
	cmd     *exec.Cmd
	conn    *os.File
	out     chan []byte       // frames to send, in order
	hi      chan struct{}     // closed when the greeting has come
	greeted bool              // the greeting came; the reader's
	ready   chan processReady // the answer to the hello
	replies chan string       // Recover's answers
	stop    chan struct{}     // closed when the reader ends: the writer stops
	gone    chan struct{}     // closed when the process has been waited for
	why     string            // how it ended, set before gone closes
	clean   bool              // it exited with status 0 and sent nothing bad; set before gone closes
	killed  atomic.Bool
}

// kill ends the process, and whatever it started, which then reports
// itself gone.
func (p *loopProc) kill() {
	if p.killed.CompareAndSwap(false, true) {
		killGroup(p.cmd.Process)
	}
}

// sendQueue bounds the frames waiting for the loop process: one that does
// not read its commands is stuck and is killed.
const sendQueue = 1024

func (c *Controller) newRemote(cfg Config) error {
	pc := *cfg.Process
	if pc.Path == "" {
		return errors.New("loop process: no program to start")
	}
	if pc.AnswerWithin < 0 {
		return fmt.Errorf("loop process: answer within %v: negative", pc.AnswerWithin)
	}
	if pc.AnswerWithin == 0 {
		pc.AnswerWithin = DefaultProcessAnswer
	}
	if len(cfg.Motors) != 0 || cfg.Power != nil {
		return errors.New("loop process: it opens the motors and their power itself; give Limits, not Motors or Power")
	}
	mem, mir, err := newMirrorMemory(c)
	if err != nil {
		return fmt.Errorf("loop process: %w", err)
	}
	c.rem = &remote{cfg: pc, mem: mem, mir: mir}
	c.stats = &mir.stats
	for i, l := range cfg.Limits {
		if err := l.Validate(); err != nil {
			return fmt.Errorf("limits of %s: %w", AxisName(i), err)
		}
	}
	c.lim = cfg.Limits
	return nil
}

// ProcessID is the process id of the loop's own process (Config.Process)
// running now; 0 where the loop runs in this process or its process is
// not running.
func (c *Controller) ProcessID() int {
	if c.rem == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.rem.proc; p != nil && p.cmd.Process != nil {
		select {
		case <-p.gone:
		default:
			return p.cmd.Process.Pid
		}
	}
	return 0
}

// sendLocked queues frame f for the loop process; the caller holds c.mu.
// It never blocks: a process too far behind to take it is killed, and the
// controller faults.
func (c *Controller) sendLocked(f []byte) {
	p := c.rem.proc
	if p == nil {
		return
	}
	select {
	case p.out <- f:
	default:
		c.log.Error("motion: the control loop's process does not read its commands; killing it")
		p.kill()
	}
}

func (c *Controller) startRemote(ctx context.Context) error {
	c.runCtx, c.stopRun = context.WithCancel(context.WithoutCancel(ctx))
	if err := c.spawn(ctx); err != nil {
		c.stopRun()
		c.wg.Wait()
		c.mu.Lock()
		c.running = false
		c.mu.Unlock()
		return fmt.Errorf("motion: start: %w", err)
	}
	return nil
}

// spawn starts the loop's process and waits until it has homed the body.
func (c *Controller) spawn(ctx context.Context) error {
	rt := c.rtWant
	if rt.HeapLimit == 0 && rt.HeapHeadroom == 0 && rt.GCPercent == 0 {
		// It allocates only per command, never per tick, and holds little:
		// at Go's default target its collections are rare and short, run
		// on a P the loop does not need, and keep the heap, locked in
		// RAM, at a few MB.
		rt.HeapHeadroom, rt.GCPercent, rt.RestGCPercent = -1, DefaultRestGCPercent, DefaultRestGCPercent
	}
	hello, err := json.Marshal(processHello{Rate: int(time.Second / c.period), CommandTimeout: c.cmdTO, LateRest: c.late,
		StallTimeout: c.stallTO, Home: c.home, Precise: c.precise, RealTime: rt, Setup: c.rem.cfg.Setup,
		LogLevel: leastLevel(c.log)})
	if err != nil {
		return fmt.Errorf("loop process: hello: %w", err)
	}
	f, err := newFrame(fHello).bytes(hello).done()
	if err != nil {
		return fmt.Errorf("loop process: hello: %w", err)
	}
	if m := c.rem.mir; m != nil {
		// A process that died within a write left the count odd: no
		// process writes now, so the next one starts from an even count.
		if n := m.seq.Load(); n%2 != 0 {
			m.seq.Add(1)
		}
	}
	p, err := startProcess(c.rem.cfg, c.rem.mem)
	if err != nil {
		return fmt.Errorf("loop process: %w", err)
	}
	p.out = make(chan []byte, sendQueue)
	p.ready, p.replies = make(chan processReady, 1), make(chan string, 1)
	p.stop, p.gone, p.hi = make(chan struct{}), make(chan struct{}), make(chan struct{})
	p.out <- f
	c.mu.Lock()
	c.rem.proc = p
	c.mu.Unlock()
	c.wg.Add(2)
	go c.readLoop(p)
	go c.writeLoop(p)
	if err := c.awaitGreeting(ctx, p); err != nil {
		return err
	}
	select {
	case r := <-p.ready:
		if c.rtWant.Enabled {
			// As the loop's set-up does in-process: what start-up mapped
			// of the program's files and did not write is let go.
			_ = dropCleanFilePages()
		}
		if r.Err != "" {
			p.kill()
			<-p.gone
			return fmt.Errorf("loop process: %s", r.Err)
		}
		if r.Limits != c.lim {
			p.kill()
			<-p.gone
			return fmt.Errorf("loop process: its motors' limits %v differ from the configured %v", r.Limits, c.lim)
		}
		c.mu.Lock()
		c.rt.status = r.Status
		c.mu.Unlock()
		if r.Status.CPU >= 0 && c.rem.all == nil {
			// As the loop's set-up does with the other threads of its own
			// process: on a kernel that does not preempt a task in a
			// system call, the loop woken on time would otherwise wait for
			// one of this process's threads to leave the kernel.
			all, err := c.rt.keepOff(r.Status.CPU)
			c.rem.all = all
			if err != nil {
				c.log.Warn("motion: this process's threads still use the control loop's CPU", "cpu", r.Status.CPU, "error", err)
			}
		}
		return nil
	case <-p.gone:
		return fmt.Errorf("loop process exited before the body was homed: %s", p.why)
	case <-ctx.Done():
		p.kill()
		<-p.gone
		return fmt.Errorf("loop process: %w", ctx.Err())
	}
}

// awaitGreeting waits, within the bound, for process p to say it is the
// loop's process. Until it has, the motors are untouched: whatever went
// wrong is ErrProcessNotStarted, and the loop can run here. An emulator's
// forked child that never reaches its program, or a program that is not
// jibod, would otherwise hold the robot's start for good.
func (c *Controller) awaitGreeting(ctx context.Context, p *loopProc) error {
	path, within := c.rem.cfg.Path, c.rem.cfg.AnswerWithin
	t := time.NewTimer(within)
	defer t.Stop()
	select {
	case <-p.hi:
		return nil
	case <-p.gone:
		return fmt.Errorf("%w: %s ended before it greeted: %s", ErrProcessNotStarted, path, p.why)
	case <-t.C:
		p.abandon()
		return fmt.Errorf("%w: %s did not greet within %v", ErrProcessNotStarted, path, within)
	case <-ctx.Done():
		p.abandon()
		return fmt.Errorf("loop process: %w", ctx.Err())
	}
}

// abandon kills process p and closes this end of its connection, which
// ends the reader even where something the process started still holds
// the other end; it waits until p is gone.
func (p *loopProc) abandon() {
	p.kill()
	_ = p.conn.Close()
	<-p.gone
}

// writeLoop sends the queued frames in order.
func (c *Controller) writeLoop(p *loopProc) {
	defer c.wg.Done()
	for {
		select {
		case f := <-p.out:
			if _, err := p.conn.Write(f); err != nil {
				p.kill() // the reader sees it go
				return
			}
		case <-p.stop:
			return
		}
	}
}

// readLoop handles the process's frames until it goes, then reports why.
func (c *Controller) readLoop(p *loopProc) {
	defer c.wg.Done()
	var buf []byte
	var bad error
	for {
		k, payload, err := readFrame(p.conn, &buf)
		if err == nil {
			err = c.handle(p, k, payload)
			if err != nil {
				bad = err
			}
		} else if errors.Is(err, errBadFrame) {
			bad = err
		}
		if err != nil {
			break
		}
	}
	close(p.stop)
	if bad != nil {
		// A process that sends what it must not is broken.
		c.log.Error("motion: the control loop's process sent a bad frame; killing it", "error", bad)
		p.kill()
	}
	werr := p.cmd.Wait()
	_ = p.conn.Close()
	// The exit status, not Wait's error: Wait also fails when the process
	// exited cleanly but something it started still held its output.
	p.clean = bad == nil && p.cmd.ProcessState != nil && p.cmd.ProcessState.Success()
	switch {
	case bad != nil:
		p.why = bad.Error()
	case werr != nil:
		p.why = werr.Error()
	default:
		p.why = "exit status 0"
	}
	c.lost(p)
	close(p.gone)
}

// handle acts on one frame from the loop process.
func (c *Controller) handle(p *loopProc, k frameKind, payload []byte) error {
	if !p.greeted && k != fGreeting {
		return fmt.Errorf("motion: %w: first frame is kind %d, not the loop process's greeting", errBadFrame, k)
	}
	switch k {
	case fGreeting:
		r := &fields{b: payload}
		hi := r.str("greeting")
		if err := r.end(k); err != nil {
			return err
		}
		if p.greeted {
			return errors.New("motion: a second greeting")
		}
		if hi != processGreeting {
			return fmt.Errorf("motion: %w: greeting %q, not %q", errBadFrame, hi, processGreeting)
		}
		p.greeted = true
		close(p.hi)
	case fReady:
		var r processReady
		if err := decodeJSON(payload, &r); err != nil {
			return fmt.Errorf("motion: ready frame: %w", err)
		}
		select {
		case p.ready <- r:
		default:
			return errors.New("motion: a second ready frame")
		}
	case fEnd, fFault:
		id, jerr, err := decodeEnd(k, payload)
		if err != nil {
			return err
		}
		c.mu.Lock()
		if k == fFault {
			c.fault = jerr
		}
		if j := c.job; j != nil && (k == fFault || j.ID == id) {
			c.concludeLocked(j, jerr)
		}
		c.mu.Unlock()
	case fEvent:
		e, err := decodeEvent(payload)
		if err != nil {
			return err
		}
		var values map[string]any
		if err := decodeJSON(e.values, &values); err != nil {
			return fmt.Errorf("motion: event %s values: %w", e.kind, err)
		}
		if c.obs != nil {
			c.obs(device.Event{Time: e.at, Device: e.device, Kind: e.kind, Values: values})
		}
	case fReply:
		r := &fields{b: payload}
		msg := r.str("reply")
		if err := r.end(k); err != nil {
			return err
		}
		select {
		case p.replies <- msg:
		default:
			return errors.New("motion: a reply nothing asked for")
		}
	case fLog:
		l, err := decodeLog(payload)
		if err != nil {
			return err
		}
		args := make([]any, 0, len(l.attrs)+2)
		args = append(args, "process", "motion loop")
		for _, a := range l.attrs {
			args = append(args, a)
		}
		c.log.Log(context.Background(), slog.Level(l.level), l.msg, args...)
	default:
		return fmt.Errorf("motion: frame kind %d unknown", k)
	}
	return nil
}

// leastLevel is the least level l logs; above every level when none.
func leastLevel(l *slog.Logger) slog.Level {
	for _, lv := range []slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError} {
		if l.Enabled(context.Background(), lv) {
			return lv
		}
	}
	return slog.LevelError + 4
}

// decodeJSON decodes one JSON value strictly.
func decodeJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data after the value")
	}
	return nil
}

// lost handles the end of process p: unless the controller closed, it
// faults, and whatever job ran ends with the fault. The fault is told
// before the job ends, so that whoever sees the job fail can already see
// why.
func (c *Controller) lost(p *loopProc) {
	c.mu.Lock()
	if c.rem.proc != p || c.closed {
		c.mu.Unlock()
		return
	}
	fault := fmt.Errorf("%w: %s", ErrProcessExited, p.why)
	c.fault = fault
	// The job is taken now, so that nothing in between (Close, or a
	// Recover the fault event prompts) ends it with another error.
	j := c.job
	c.job = nil
	c.mu.Unlock()
	c.log.Error("motion: the control loop's process exited; the body is not driven until Recover", "why", p.why)
	c.emit("fault", map[string]any{"error": fault.Error()})
	c.mu.Lock()
	if j != nil {
		c.endLocked(j, fault)
	}
	c.mu.Unlock()
}

// recoverRemote clears a fault: a process still running recovers itself
// (powers the motors and homes); one that exited is started again.
func (c *Controller) recoverRemote(ctx context.Context) error {
	c.mu.Lock()
	p := c.rem.proc
	c.mu.Unlock()
	exited := false
	select {
	case <-p.gone:
		exited = true
	default:
		c.mu.Lock()
		f, _ := newFrame(fRecover).done()
		c.sendLocked(f)
		c.mu.Unlock()
		select {
		case msg := <-p.replies:
			if msg != "" {
				return fmt.Errorf("motion: recover: %s", msg)
			}
		case <-p.gone:
			// It exited before it answered (it may have been on its way
			// out already, its job ended by the loss): start it again.
			exited = true
		case <-ctx.Done():
			return fmt.Errorf("motion: recover: %w", ctx.Err())
		}
	}
	if exited {
		if err := c.spawn(ctx); err != nil {
			return fmt.Errorf("motion: recover: %w", err)
		}
	}
	c.mu.Lock()
	c.fault = nil
	c.rest = c.home // the process homed the body
	c.mu.Unlock()
	return nil
}

// closeRemote waits for the halt h (if any) until ctx ends, asks the
// process to power the motors off and exit, and waits for it (killing it
// when ctx ends first).
func (c *Controller) closeRemote(ctx context.Context, h *Job) error {
	var errs []error
	if h != nil {
		select {
		case <-h.done:
		case <-ctx.Done():
			errs = append(errs, fmt.Errorf("motion: close: body still moving: %w", ctx.Err()))
		}
	}
	c.mu.Lock()
	p := c.rem.proc
	f, _ := newFrame(fClose).done()
	c.sendLocked(f)
	c.mu.Unlock()
	// A process that went before is the fault already reported.
	wasGone := false
	select {
	case <-p.gone:
		wasGone = true
	default:
	}
	select {
	case <-p.gone:
	case <-ctx.Done():
		p.kill()
		<-p.gone
	}
	if !wasGone && !p.clean {
		errs = append(errs, fmt.Errorf("motion: close: the loop's process: %s", p.why))
	}
	c.stopRun()
	c.wg.Wait()
	c.ledWG.Wait()
	c.mu.Lock()
	if c.job != nil {
		c.endLocked(c.job, ErrNotRunning)
	}
	c.running = false
	c.mu.Unlock()
	if all := c.rem.all; all != nil {
		c.rem.all = nil
		if err := c.rt.pinAll(all, 0); err != nil {
			errs = append(errs, fmt.Errorf("motion: close: giving back CPU: %w", err))
		}
	}
	return errors.Join(errs...)
}
