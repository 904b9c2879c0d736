package motion

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/openjibo/jibod/device"
)

// OpenMotors opens the motors (one per axis) and their power switch (nil
// if none) in the loop's own process, from Process.Setup; closeAll closes
// what it opened. Events of the devices go to obs.
type OpenMotors func(ctx context.Context, setup []byte, obs device.Observer, log *slog.Logger) (motors []device.Motor, power device.Switch, closeAll func() error, err error)

// closeLimit bounds how long the loop's process waits for the body to
// come to rest when it is asked to close.
const closeLimit = 5 * time.Second

// ServeProcess is the control loop's own process: it opens the motors
// with open, runs the loop as the parent's Controller configured it, and
// serves its commands until the parent closes it or goes. It returns the
// process's exit status. Call it first thing in main when IsProcess.
func ServeProcess(open OpenMotors) int {
	conn, mem := connFile(), os.NewFile(processMemFD, "motion-mirror")
	if conn == nil || mem == nil {
		fmt.Fprintln(os.Stderr, "motion: loop process: started without its connection")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	s := newServer(conn)
	var wg sync.WaitGroup
	wg.Go(s.writer)
	// Before anything that could take long or touch the motors: the parent
	// waits a bounded time for it, and runs the loop itself without it.
	s.write(newFrame(fGreeting).str(processGreeting).done())
	err := s.serve(ctx, open, mem)
	close(s.stop)
	wg.Wait()
	_ = conn.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, "motion: loop process:", err)
		return 1
	}
	return 0
}

// outQueue bounds the frames waiting to be sent to the parent.
const outQueue = 4096

// server is the loop process's side of the connection.
type server struct {
	conn io.ReadWriteCloser
	// out is the frames to send, in order; writer sends them until stop
	// closes. Nothing else writes to conn, so no sender, least of all the
	// loop's thread (a motor's events and logs), waits for the parent.
	out  chan []byte
	stop chan struct{}
	// free are frames the writer has sent, for reuse (report.go).
	free chan []byte
	// minLevel is the least level of log record the parent logs.
	minLevel slog.Level

	// Ends of the parent's jobs, queued by the controller (under its
	// lock, from the loop's thread: no allocation once warm) and sent by
	// flushEnds. spare is the batch sent last, kept for the next swap;
	// only flushEnds touches it.
	endMu sync.Mutex
	ends  []jobEnd
	spare []jobEnd
	wake  chan struct{}
}

type jobEnd struct {
	id  uint64
	err error
}

func newServer(conn io.ReadWriteCloser) *server {
	return &server{conn: conn, out: make(chan []byte, outQueue), stop: make(chan struct{}), wake: make(chan struct{}, 1),
		free: make(chan []byte, freeFrames), minLevel: slog.LevelInfo}
}

func (s *server) writer() {
	for {
		select {
		case f := <-s.out:
			_, _ = s.conn.Write(f) // a parent gone is seen by the reader
			s.recycle(f)
		case <-s.stop:
			for {
				select {
				case f := <-s.out:
					_, _ = s.conn.Write(f)
				default:
					return
				}
			}
		}
	}
}

// write queues frame f, waiting while the queue is full: for what the
// parent must get (job ends, faults, answers).
func (s *server) write(f []byte, err error) {
	if err != nil {
		return
	}
	select {
	case s.out <- f:
	case <-s.stop:
	}
}

// post queues frame f if there is room: for events and logs, which a
// parent far behind loses rather than hold up their sender.
func (s *server) post(f []byte, err error) {
	if err != nil {
		return
	}
	select {
	case s.out <- f:
	default:
	}
}

func (s *server) logger() *slog.Logger { return slog.New(&frameLog{s: s}) }

// ended queues the end of a job of the parent's; the controller calls it
// holding its lock.
func (s *server) ended(id uint64, err error) {
	s.endMu.Lock()
	s.ends = append(s.ends, jobEnd{id, err})
	s.endMu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// sendEnds sends the ends queued, each time ended says there are some,
// until ctx ends.
func (s *server) sendEnds(ctx context.Context) {
	for {
		select {
		case <-s.wake:
		case <-ctx.Done():
			return
		}
		s.flushEnds()
	}
}

// flushEnds sends the ends queued now. It is called by one goroutine at a
// time: sendEnds, then serve once sendEnds has returned.
func (s *server) flushEnds() {
	s.endMu.Lock()
	batch := s.ends
	s.ends = s.spare[:0]
	s.endMu.Unlock()
	for _, e := range batch {
		code, msg := errCode(e.err)
		s.write(s.frame(fEnd).u64(e.id).u8(code).str(msg).done())
	}
	clear(batch) // the errors are sent: let them go
	s.spare = batch
}

// event forwards an event; the parent reports the preemptions it makes
// itself. A stall is the controller's fault, which the parent takes on.
func (s *server) event(e device.Event) {
	switch {
	case e.Device != Name:
	case e.Kind == "preempted":
		return
	case e.Kind == "stall":
		s.write(newFrame(fFault).u8(codeStalled).str(ErrStalled.Error()).done())
	}
	s.post(s.eventFrame(e))
}

func (s *server) serve(ctx context.Context, open OpenMotors, mem *os.File) error {
	log := s.logger()
	done, closed := make(chan struct{}), make(chan struct{})
	defer func() {
		close(done)
		<-closed
	}()
	go func() { // a signal ends the wait for a command
		defer close(closed)
		select {
		case <-ctx.Done():
			_ = s.conn.Close()
		case <-done:
		}
	}()
	var buf []byte
	k, payload, err := readFrame(s.conn, &buf)
	if err != nil {
		return fmt.Errorf("reading the configuration: %w", err)
	}
	var h processHello
	if k != fHello {
		return fmt.Errorf("first frame is kind %d, not the configuration", k)
	}
	if err := decodeJSON(payload, &h); err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	s.minLevel = h.LogLevel
	mir, err := mapMirror(mem)
	if err != nil {
		return err
	}
	c, closeAll, err := s.start(ctx, h, open, mir, log)
	if err != nil {
		s.write(newFrame(fReady).bytes(mustJSON(processReady{Err: err.Error()})).done())
		return err
	}
	defer func() {
		if err := closeAll(); err != nil {
			log.Error("motion: loop process: closing the motors", "error", err)
		}
	}()
	var wg sync.WaitGroup
	defer wg.Wait()
	endCtx, stopEnds := context.WithCancel(ctx)
	defer stopEnds()
	wg.Add(1)
	go func() {
		defer wg.Done()
		s.sendEnds(endCtx)
	}()
	st := c.RealTime()
	if st.Priority > 0 {
		if err := c.rt.hurryOthers(); err != nil {
			log.Warn("motion: loop process: its other threads at ordinary priority", "error", err)
		}
	}
	s.write(newFrame(fReady).bytes(mustJSON(processReady{Status: st, Limits: c.Limits()})).done())
	for {
		k, payload, err := readFrame(s.conn, &buf)
		if err != nil || k == fClose {
			// Closed, or the parent is gone: bring the body to rest and
			// power it off.
			cctx, cancel := context.WithTimeout(context.Background(), closeLimit)
			cerr := c.Close(cctx)
			cancel()
			stopEnds()
			wg.Wait()
			s.flushEnds()
			if err != nil && !errors.Is(err, io.EOF) && ctx.Err() == nil {
				return errors.Join(fmt.Errorf("reading a command: %w", err), cerr)
			}
			return cerr
		}
		if err := s.command(ctx, c, &wg, k, payload); err != nil {
			log.Warn("motion: loop process: command refused", "error", err)
		}
	}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte("{}")
	}
	return b
}

// start opens the motors and starts the controller, which homes the body.
func (s *server) start(ctx context.Context, h processHello, open OpenMotors, mir *mirror, log *slog.Logger) (*Controller, func() error, error) {
	motors, power, closeAll, err := open(ctx, h.Setup, s.event, log)
	if err != nil {
		return nil, nil, fmt.Errorf("opening the motors: %w", err)
	}
	c, err := New(Config{Motors: motors, Power: power, Rate: h.Rate, Home: h.Home, CommandTimeout: h.CommandTimeout,
		LateRest: h.LateRest, StallTimeout: h.StallTimeout, PreciseSleep: h.Precise, RealTime: h.RealTime,
		Observer: s.event, Logger: log})
	if err != nil {
		return nil, nil, errors.Join(err, closeAll())
	}
	c.stats, c.mirror, c.ended = &mir.stats, mir, s.ended
	c.stats.reset()
	if err := c.Start(ctx); err != nil {
		cctx, cancel := context.WithTimeout(context.Background(), closeLimit)
		defer cancel()
		return nil, nil, errors.Join(err, c.Close(cctx), closeAll())
	}
	return c, closeAll, nil
}

// command acts on one frame from the parent.
func (s *server) command(ctx context.Context, c *Controller, wg *sync.WaitGroup, k frameKind, payload []byte) error {
	switch k {
	case fBegin:
		w, err := decodeJob(payload)
		if err == nil {
			err = s.begin(c, w)
		}
		if err != nil && w.id != 0 {
			c.mu.Lock()
			s.ended(w.id, err)
			c.mu.Unlock()
		}
		return err
	case fTrack, fHalt, fFinish:
		id, target, reason, err := decodeID(k, payload)
		if err != nil {
			return err
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		c.collectEndLocked()
		j := c.job
		switch {
		case k == fTrack:
			if j == nil || j.ID != id || !j.fromParent || j.kind != jobTrack || c.fault != nil {
				return nil // it ended; the parent hears so
			}
			if err := c.checkLimits(target, j.sel, "track"); err != nil {
				return err
			}
			c.trackLocked(j, target)
		case k == fFinish:
			if j != nil && j.ID == id && j.fromParent {
				c.finishLocked(j)
			}
		case !c.running || c.fault != nil:
			s.ended(id, c.usableLocked())
		default:
			h := c.haltLocked(reason)
			if h.fromParent && h.ID != id {
				s.ended(h.ID, nil)
			}
			h.ID, h.fromParent = id, true
		}
		return nil
	case fRecover:
		wg.Add(1)
		go func() { // waited for by serve
			defer wg.Done()
			msg := ""
			if err := c.Recover(ctx); err != nil {
				msg = err.Error()
			}
			s.write(newFrame(fReply).str(msg).done())
		}()
		return nil
	}
	return fmt.Errorf("motion: frame kind %d unknown", k)
}

// begin starts the parent's job w.
func (s *server) begin(c *Controller, w wireJob) error {
	j := &Job{ID: w.id, Name: w.name, kind: w.kind, sel: w.sel, target: w.target, setRest: w.setRest, fromParent: true}
	switch w.kind {
	case jobMove, jobTrack:
		if err := c.checkLimits(w.target, w.sel, "move"); err != nil {
			return err
		}
		j.deadline = time.Now().Add(c.cmdTO)
	case jobAnim:
		j.anim, j.speed, j.loops, j.blendIn, j.blendOut = w.anim, w.speed, w.loops, w.blendIn, w.blendOut
		for i := range j.sel {
			j.sel[i] = j.sel[i] && w.anim.Animates(i)
		}
		if j.sel.None() {
			return fmt.Errorf("motion: play %s: %w", w.anim.Name, ErrNothingToPlay)
		}
	}
	if err := c.begin(j); err != nil {
		return err
	}
	if w.kind == jobMove {
		c.arriveIfThere(j)
	}
	return nil
}

// frameLog is a slog.Handler that sends records to the parent, which logs
// them with its own logger.
type frameLog struct {
	s     *server
	attrs []slog.Attr
}

func (h *frameLog) Enabled(_ context.Context, l slog.Level) bool { return l >= h.s.minLevel }

func (h *frameLog) Handle(_ context.Context, r slog.Record) error {
	attrs := slices.Clip(h.attrs) // appends must not write into the handler's array, which other loggers share
	r.Attrs(func(a slog.Attr) bool {
		attrs = append(attrs, a)
		return len(attrs) < maxLogAttrs
	})
	f := newFrame(fLog).u64(uint64(int64(r.Level))).str(r.Message).u8(uint8(min(len(attrs), maxLogAttrs)))
	for _, a := range attrs[:min(len(attrs), maxLogAttrs)] {
		f = f.str(a.Key).str(a.Value.String())
	}
	h.s.post(f.done())
	return nil
}

func (h *frameLog) WithAttrs(as []slog.Attr) slog.Handler {
	return &frameLog{s: h.s, attrs: append(append([]slog.Attr(nil), h.attrs...), as...)}
}

func (h *frameLog) WithGroup(string) slog.Handler { return h }
