package motion

import (
	"context"
	"math"
	"slices"
	"sync/atomic"
	"time"
)

// notice is what the loop and watchdog tell the reporter; a value type, so
// that sending one allocates nothing.
type notice struct {
	kind noticeKind
	at   time.Time // when it happened
	job  uint64
	name string
	pose Pose
	d    time.Duration
	axis int
	err  error
}

type noticeKind uint8

const (
	noticeNone noticeKind = iota
	noticeArrived
	noticeRested
	noticeHalt
	noticeLate
	noticeDeadman
	noticeStall
	noticeMotorError
	noticeMotorOK
	noticeFinished
)

// notify hands n, from the loop, to the reporter through the loop's ring:
// no lock, no wake-up, no allocation. When the reporter is far behind,
// notices are dropped rather than stall the loop.
func (c *Controller) notify(n notice) {
	if n.at.IsZero() {
		n.at = time.Now()
	}
	c.out.put(n)
}

// tell hands n, from anywhere but the loop, to the reporter; it drops n
// when the reporter is far behind.
func (c *Controller) tell(n notice) {
	if n.at.IsZero() {
		n.at = time.Now()
	}
	select {
	case c.notices <- n:
	default:
	}
}

// noticeRing carries the loop's notices to the reporter: the loop is its
// only writer, the reporter its only reader, and each side moves its own
// index with an atomic store, so neither ever waits for the other.
type noticeRing struct {
	buf        [256]notice
	head, tail atomic.Uint64 // next to read, next to write
}

func (r *noticeRing) put(n notice) {
	t := r.tail.Load()
	if t-r.head.Load() == uint64(len(r.buf)) {
		return
	}
	r.buf[t%uint64(len(r.buf))] = n
	r.tail.Store(t + 1)
}

func (r *noticeRing) get() (notice, bool) {
	h := r.head.Load()
	if h == r.tail.Load() {
		return notice{}, false
	}
	i := h % uint64(len(r.buf))
	n := r.buf[i]
	r.buf[i] = notice{}
	r.head.Store(h + 1)
	return n, true
}

// jobSpec is what the loop is told of a job when it begins: a copy, never
// written after it is posted, so the loop reads it without a lock.
type jobSpec struct {
	seq               uint64 // numbers what is posted; 0: the loop's own halt
	id                uint64
	name              string
	kind              jobKind
	sel               Axes
	target, rest      Pose
	deadline          time.Time
	anim              *Animation
	speed             float64
	loops             int
	blendIn, blendOut float64
	// claimed is taken by whichever reports the job's end first: the loop,
	// or the caller of a move that found the body there already.
	claimed atomic.Bool
}

// trackCmd renews a Track stream's target and deadman.
type trackCmd struct {
	seq      uint64
	target   Pose
	deadline time.Time
}

// loopJob is the job the loop runs: its spec and the loop's own state of
// it. Only the loop touches it.
type loopJob struct {
	s        *jobSpec // nil: no job
	target   Pose
	deadline time.Time
	start    Pose // the pose when the loop took the job
	track    *trackCmd
	jt       float64 // job clock in seconds
	phase    animPhase
	outStart float64
	outFrom  Pose
	finish   bool
}

// How the loop ended the job it reports in lastEnd.
const (
	endDone uint64 = iota
	endDeadman
)

// take applies what the controller's callers posted since the last tick:
// a new pose after power-up, a new job, a track update, a finish. Each is
// a pointer or number swapped or read atomically; the newest wins, since
// a job that another replaced before the loop saw it had already ended,
// preempted, for its caller.
func (c *Controller) take() {
	if r := c.reset.Load(); r != nil {
		// Powered up again: the body is where the motors say, at rest,
		// and what ran before the power went is over. The pose stays
		// pending until this tick has published it (published).
		c.p, c.v, c.lj, c.took = *r, Pose{}, loopJob{}, r
	}
	if s := c.inbox.Swap(nil); s != nil {
		c.lj = loopJob{s: s, target: s.target, deadline: s.deadline, start: c.p}
	}
	j := &c.lj
	if j.s == nil || j.s.seq == 0 {
		return
	}
	if t := c.track.Load(); t != nil && t != j.track && t.seq == j.s.seq {
		j.track, j.target, j.deadline = t, t.target, t.deadline
	}
	if c.finishSeq.Load() == j.s.seq {
		j.finish = true
	}
}

// published clears the power-up pose this tick took, now that the mirror
// shows it; a newer one, stored meanwhile, stays for the next tick.
func (c *Controller) published() {
	if c.took != nil {
		c.reset.CompareAndSwap(c.took, nil)
		c.took = nil
	}
}

// endLoopJob ends the loop's job, reporting n (with the job's name and
// the pose) unless the job's caller already reported its end.
func (c *Controller) endLoopJob(n notice, code uint64) {
	s := c.lj.s
	c.lj = loopJob{}
	if s.seq != 0 {
		if !s.claimed.CompareAndSwap(false, true) {
			return
		}
		c.lastEnd.Store(s.seq<<8 | code)
	}
	if n.kind == noticeNone {
		return
	}
	n.job, n.name, n.pose = s.id, s.name, c.p
	c.notify(n)
}

// loopMoving reports whether the body is moving or about to, as the loop
// sees it.
func (c *Controller) loopMoving() bool {
	return (c.lj.s != nil && c.lj.s.kind != jobHalt) || c.v != Pose{}
}

// loop runs the ticks. It closes ready once its real-time set-up (if
// asked for) is done.
func (c *Controller) loop(ready chan<- struct{}) {
	defer c.wg.Done()
	if c.rtWant.Enabled {
		c.mu.Lock()
		c.rt.enter(c.rtWant)
		c.mu.Unlock()
	}
	close(ready)
	ctx := c.runCtx
	next := c.origin.Add(c.period)
	var t *time.Timer
	var clock preciseClock
	if c.precise {
		clock = newPreciseClock()
	} else {
		t = time.NewTimer(time.Until(next))
		defer t.Stop()
	}
	// The thread's accounts (at the end of the tick before, on waking,
	// at the end of this tick) take each missed tick apart: the machine's
	// doing or the process's. They need the thread locked to the loop.
	var acct *threadAccount
	if c.precise && c.rt.held {
		acct = c.rt.sys.openAccount()
		defer acct.close()
	}
	var times [3]threadTimes
	accounted := acct != nil && acct.read(&times[0])
	sleeps := 1
	for {
		if c.precise {
			// A stop is noticed within a period.
			sleeps = clock.sleepUntil(next)
			if ctx.Err() != nil {
				return
			}
		} else {
			select {
			case <-t.C:
			case <-ctx.Done():
				return
			}
		}
		if c.lag != nil {
			c.lag()
		}
		now := time.Now()
		woke := acct != nil && acct.read(&times[1])
		late := now.Sub(next)
		c.tick(ctx, now, late)
		next = next.Add(c.period)
		after := time.Now()
		ended := acct != nil && acct.read(&times[2])
		ran := after.Sub(now)
		c.stats.ran(ran)
		if !next.After(after) {
			// More than a period behind: skip the ticks that are already
			// past rather than run them back to back.
			skip := after.Sub(next)/c.period + 1
			next = next.Add(skip * c.period)
			c.stats.miss(uint64(skip), ran > late)
			if accounted && woke && ended {
				c.stats.explain(now, late, ran, uint64(skip), sleeps, &times)
			} else {
				c.stats.explain(now, late, ran, uint64(skip), sleeps, nil)
			}
		}
		if acct != nil {
			times[0] = times[2]
			accounted = ended
		}
		if t != nil {
			t.Reset(time.Until(next))
		}
	}
}

// tick runs one control step: it advances every axis towards its
// reference and commands the motors. It allocates nothing.
//
// A tick that starts more than LateRest late finds the body at rest: the
// servos held the last setpoint through the pause. The generator is told
// so (velocity zero) and the job carries on from there within the limits;
// its reference advances by ticks run, not by wall time, so it resumes
// where it paused.
func (c *Controller) tick(ctx context.Context, now time.Time, late time.Duration) {
	c.tickSeq.Add(1)
	defer c.tickSeq.Add(1)
	c.stats.record(late)

	// The loop takes no lock: what it shares with the controller's callers
	// goes through atomics (take, mirror, lastEnd) and the notice ring, so
	// no caller, however late the kernel runs it, can hold up a tick.
	if !c.live.Load() {
		return
	}
	c.take()
	if late > c.late && c.loopMoving() {
		c.notify(notice{kind: noticeLate, at: now, d: late})
		c.v = Pose{}
	}
	var ref, vref Pose
	var halt Axes
	j := &c.lj
	switch {
	case j.s == nil || j.s.kind == jobHalt:
		halt = AllAxes
	case j.s.kind == jobTrack && now.After(j.deadline):
		c.notify(notice{kind: noticeDeadman, at: now, job: j.s.id, d: now.Sub(j.deadline) + c.cmdTO})
		c.endLoopJob(notice{kind: noticeNone}, endDeadman)
		c.lj = loopJob{s: c.deadman, start: c.p}
		c.notify(notice{kind: noticeHalt, name: c.deadman.name, pose: c.p})
		halt = AllAxes
	case j.s.kind == jobMove || j.s.kind == jobTrack:
		for i := range ref {
			ref[i] = j.target[i]
			halt[i] = !j.s.sel[i]
		}
	case j.s.kind == jobAnim:
		c.animRef(j, &ref, &vref, &halt)
	}
	for i := range c.p {
		c.p[i], c.v[i] = step(c.p[i], c.v[i], ref[i], vref[i], halt[i], &c.lim[i], c.dt)
	}
	c.settle(&ref, &halt)
	pose := c.p
	c.mirror.publish(c)
	c.published()

	for i, m := range c.motors {
		err := m.SetAngle(ctx, pose[i])
		if err != nil && ctx.Err() != nil {
			// The loop is stopping: a command cut short by that is not
			// the motor's fault.
			return
		}
		if (err != nil) != c.motorBad[i] {
			c.motorBad[i] = err != nil
			if err != nil {
				c.notify(notice{kind: noticeMotorError, axis: i, err: err})
			} else {
				c.notify(notice{kind: noticeMotorOK, axis: i})
			}
		}
	}
}

// settle ends the loop's job when its axes have arrived.
func (c *Controller) settle(ref *Pose, halt *Axes) {
	for i := range c.p {
		if halt[i] {
			if math.Abs(c.v[i]) > arriveVelocity {
				return
			}
			continue
		}
		if math.Abs(c.p[i]-ref[i]) > arriveAngle || math.Abs(c.v[i]) > arriveVelocity {
			return
		}
	}
	// Every axis is still (and on target): snap away the rounding.
	for i := range c.p {
		if !halt[i] {
			c.p[i] = ref[i]
		}
		c.v[i] = 0
	}
	j := &c.lj
	switch {
	case j.s == nil:
	case j.s.kind == jobHalt:
		c.endLoopJob(notice{kind: noticeRested}, endDone)
	case j.s.kind == jobMove:
		c.endLoopJob(notice{kind: noticeArrived}, endDone)
	case j.s.kind == jobAnim && j.phase == animSettle:
		c.endLoopJob(notice{kind: noticeFinished}, endDone)
	}
}

// arrivedLocked ends move j, which has arrived; the caller holds c.mu.
func (c *Controller) arrivedLocked(j *Job) {
	c.concludeLocked(j, nil)
	c.tell(notice{kind: noticeArrived, job: j.ID, name: j.Name, pose: c.view().read().p})
}

// thereAngle is how near its target a still body is there already: far
// below what a servo resolves, and above the error of solving a gaze for
// a pose (a turn toward where the body faces lands that near it).
const thereAngle = 1e-4

// arriveIfThere ends move j at once when the body is already still on its
// target: a move to where the body is needs no tick, so whatever waits for
// it (the words after a turn toward the listener) goes on without waiting
// for the loop.
func (c *Controller) arriveIfThere(j *Job) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.job != j {
		return // the loop got there first, or a newer job took over
	}
	if c.reset.Load() != nil {
		// Powered up (Start, Recover): the body is where the motors said,
		// which the loop has not yet published; the mirror still shows
		// the pose from before.
		return
	}
	b := c.view().read()
	for i := range b.p {
		if math.Abs(b.v[i]) > arriveVelocity || j.sel[i] && math.Abs(b.p[i]-j.target[i]) > thereAngle {
			return
		}
	}
	if j.spec != nil && !j.spec.claimed.CompareAndSwap(false, true) {
		return // the loop ended it meanwhile and reports it
	}
	c.arrivedLocked(j)
}

// animRef sets the animation's reference for this tick and advances its
// clock.
func (c *Controller) animRef(j *loopJob, ref, vref *Pose, halt *Axes) {
	total := math.Inf(1)
	if j.s.loops > 0 {
		total = j.s.anim.Duration * float64(j.s.loops)
	}
	if j.phase == animPlay && (j.finish || j.jt*j.s.speed >= total) {
		j.phase = animOut
		j.outStart = j.jt
		for i := range j.outFrom {
			if j.s.sel[i] {
				j.outFrom[i] = c.animAt(j, i, j.jt)
			}
		}
	}
	if j.phase == animOut && j.jt-j.outStart >= j.s.blendOut {
		j.phase = animSettle
	}
	for i := range ref {
		if !j.s.sel[i] {
			halt[i] = true
			continue
		}
		a, b := c.animAt(j, i, j.jt), c.animAt(j, i, j.jt+c.dt)
		ref[i], vref[i] = a, (b-a)/c.dt
	}
	j.jt += c.dt
}

// animAt is the reference of axis i at job time jt.
func (c *Controller) animAt(j *loopJob, i int, jt float64) float64 {
	s := j.s
	switch j.phase {
	case animSettle:
		return s.rest[i]
	case animOut:
		f := (jt - j.outStart) / s.blendOut
		return j.outFrom[i] + (s.rest[i]-j.outFrom[i])*smooth(f)
	}
	at := jt * s.speed
	d := s.anim.Duration
	if s.loops > 0 {
		at = math.Min(at, d*float64(s.loops))
	}
	la := at - d*math.Floor(at/d)
	if la == 0 && at > 0 {
		la = d
	}
	v, _ := s.anim.Sample(i, la)
	if s.anim.Relative {
		v += j.start[i]
	}
	if w := smooth(jt / s.blendIn); w < 1 {
		v = j.start[i] + (v-j.start[i])*w
	}
	return math.Max(c.lim[i].Min, math.Min(c.lim[i].Max, v))
}

// smooth eases 0→1 over s in [0,1] with zero slope at both ends.
func smooth(s float64) float64 {
	switch {
	case s <= 0:
		return 0
	case s >= 1:
		return 1
	}
	return s * s * (3 - 2*s)
}

// watchdog powers the motors off when a tick does not end: the loop is
// stuck inside a motor call. It judges by what it has seen itself: the
// same tick running at StallTimeout/5 checks in a row, five of them, each
// counting one check interval however late the check came. A loop that
// is late to start a tick is not stuck (the servos hold their setpoint),
// and a watchdog that was itself kept waiting by a busy scheduler does not
// count its own wait against the loop.
func (c *Controller) watchdog() {
	defer c.wg.Done()
	every := c.stallTO / 5
	t := time.NewTicker(every)
	defer t.Stop()
	var seen uint64
	var stuck time.Duration
	for {
		select {
		case <-t.C:
		case <-c.runCtx.Done():
			return
		}
		seq := c.tickSeq.Load()
		if seq%2 == 0 || seq != seen {
			seen, stuck = seq, 0
			continue
		}
		if stuck += every; stuck < c.stallTO {
			continue
		}
		c.mu.Lock()
		tripped := c.fault == nil
		if tripped {
			c.fault = ErrStalled
			c.setLiveLocked()
			if c.job != nil {
				c.endLocked(c.job, ErrStalled)
			}
		}
		c.mu.Unlock()
		if !tripped {
			continue
		}
		c.safeStop()
		c.tell(notice{kind: noticeStall, d: stuck})
	}
}

// safeStop powers the motors off. It runs outside the loop, which may be
// stuck inside a motor call.
func (c *Controller) safeStop() {
	ctx := context.WithoutCancel(c.runCtx)
	for _, m := range c.motors {
		if err := m.Enable(ctx, false); err != nil {
			c.log.Error("motion: safe stop: disable motor", "axis", m.Name(), "error", err)
		}
	}
	if c.power != nil {
		if err := c.power.Set(ctx, false); err != nil {
			c.log.Error("motion: safe stop: motor power off", "error", err)
		}
	}
}

// idlePoll is how often the reporter looks for the loop's notices while
// no job runs and the body is still: they are then only motor errors and
// late ticks, which can wait that long.
const idlePoll = 100 * time.Millisecond

// reporter turns notices into events, away from the loop, and ends the
// jobs the loop ended. The loop never wakes it (a wake-up can wait on
// another thread): it looks every period while a job runs or the body
// moves, less often otherwise, and at once when a job begins. When the
// body comes to rest, it puts the collector back to its rest setting once
// the body has stayed still for the rest hold.
func (c *Controller) reporter() {
	defer c.wg.Done()
	hold := c.restHold()
	held := time.NewTimer(time.Hour)
	held.Stop()
	defer held.Stop()
	poll := time.NewTimer(c.untilLook(time.Now(), c.period))
	defer poll.Stop()
	var batch []notice
	for {
		stop := false
		select {
		case n := <-c.notices:
			batch = append(batch, n)
		case <-c.kick:
		case <-poll.C:
		case <-held.C:
			c.rested()
			continue
		case <-c.runCtx.Done():
			stop = true // report what is already queued, then stop
		}
		batch = c.gather(batch)
		for _, n := range batch {
			c.report(n)
			switch n.kind {
			case noticeArrived, noticeFinished, noticeRested:
				if hold > 0 {
					held.Reset(hold)
				} else {
					c.rested()
				}
			}
		}
		clear(batch)
		batch = batch[:0]
		if stop {
			return
		}
		c.mu.Lock()
		busy := c.job != nil
		c.mu.Unlock()
		if busy || c.mirror.read().moving {
			poll.Reset(c.untilLook(time.Now(), c.period))
		} else {
			poll.Reset(c.untilLook(time.Now(), idlePoll))
		}
	}
}

// untilLook is how long the reporter waits for its next look, about
// every from now: half a period after one of the loop's ticks, never at
// a tick's instant, so a job a tick ended is seen at the look after it
// whichever of the two the scheduler runs first (it is also what makes
// the end of a job the same instant in every run under a fake clock).
func (c *Controller) untilLook(now time.Time, every time.Duration) time.Duration {
	base := c.origin.Add(c.period / 2)
	target := now.Add(max(every-c.period, time.Nanosecond))
	var k time.Duration
	if d := target.Sub(base); d > 0 {
		k = (d + c.period - 1) / c.period
	}
	return base.Add(k * c.period).Sub(now)
}

// gather ends the jobs the loop ended and adds to batch every notice
// waiting, the loop's and the others', in the order they happened.
func (c *Controller) gather(batch []notice) []notice {
	c.mu.Lock()
	c.collectEndLocked()
	c.mu.Unlock()
	for more := true; more; {
		select {
		case n := <-c.notices:
			batch = append(batch, n)
		default:
			more = false
		}
	}
	for n, ok := c.out.get(); ok; n, ok = c.out.get() {
		batch = append(batch, n)
	}
	slices.SortStableFunc(batch, func(a, b notice) int { return a.at.Compare(b.at) })
	return batch
}

// restHold is how long the body stays still before the collector goes
// back to its rest setting.
func (c *Controller) restHold() time.Duration {
	switch h := c.rtWant.RestHold; {
	case !c.rtWant.Enabled || h < 0:
		return 0
	case h == 0:
		return DefaultRestHold
	default:
		return h
	}
}

func (c *Controller) report(n notice) {
	emit := func(kind string, values map[string]any) { c.emitAt(n.at, kind, values) }
	switch n.kind {
	case noticeArrived:
		emit("arrived", n.pose.values(map[string]any{"job": n.job, "name": n.name}))
	case noticeFinished:
		emit("finished", n.pose.values(map[string]any{"job": n.job, "name": n.name}))
	case noticeRested:
		emit("rest", n.pose.values(map[string]any{"reason": n.name}))
	case noticeHalt:
		emit("halt", n.pose.values(map[string]any{"reason": n.name}))
	case noticeLate:
		c.log.Warn("motion: control loop tick late; the body carries on from rest", "late", n.d)
		emit("late", map[string]any{"ms": float64(n.d.Microseconds()) / 1000})
	case noticeDeadman:
		c.log.Warn("motion: deadman: no track command", "for", n.d)
		emit("deadman", map[string]any{"job": n.job, "ms": n.d.Milliseconds()})
	case noticeStall:
		c.log.Error("motion: a control loop tick is stuck; motors powered off", "for", n.d)
		emit("stall", map[string]any{"ms": n.d.Milliseconds()})
	case noticeMotorError:
		c.log.Error("motion: motor command failed", "axis", AxisName(n.axis), "error", n.err)
		emit("motor-error", map[string]any{"axis": AxisName(n.axis), "error": n.err.Error()})
	case noticeMotorOK:
		emit("motor-ok", map[string]any{"axis": AxisName(n.axis)})
	}
}
