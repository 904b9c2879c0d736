package motion

import (
	"context"
	"math"
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
	noticeArrived noticeKind = iota
	noticeRested
	noticeHalt
	noticeLate
	noticeDeadman
	noticeStall
	noticeMotorError
	noticeMotorOK
	noticeFinished
)

// notify hands n to the reporter without blocking; when the reporter is
// far behind, notices are dropped rather than stall the loop.
func (c *Controller) notify(n notice) {
	if n.at.IsZero() {
		n.at = time.Now()
	}
	select {
	case c.notices <- n:
	default:
	}
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
	next := time.Now().Add(c.period)
	var t *time.Timer
	var clock preciseClock
	if c.precise {
		clock = newPreciseClock()
	} else {
		t = time.NewTimer(c.period)
		defer t.Stop()
	}
	for {
		if c.precise {
			// A stop is noticed within a period.
			clock.sleepUntil(next)
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
		c.tick(ctx, now, now.Sub(next))
		next = next.Add(c.period)
		if after := time.Now(); !next.After(after) {
			// More than a period behind: skip the ticks that are already
			// past rather than run them back to back.
			skip := after.Sub(next)/c.period + 1
			next = next.Add(skip * c.period)
			c.stats.missed.Add(uint64(skip))
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

	c.lockForTick()
	if c.fault != nil || !c.running {
		c.mu.Unlock()
		return
	}
	if late > c.late && c.moving() {
		c.notify(notice{kind: noticeLate, at: now, d: late})
		c.v = Pose{}
	}
	var ref, vref Pose
	var halt Axes
	j := c.job
	switch {
	case j == nil || j.kind == jobHalt:
		halt = AllAxes
	case j.kind == jobTrack && now.After(j.deadline):
		c.notify(notice{kind: noticeDeadman, at: now, job: j.ID, d: now.Sub(j.deadline) + c.cmdTO})
		c.endLocked(j, ErrDeadman)
		j = c.haltLocked("deadman")
		halt = AllAxes
	case j.kind == jobMove || j.kind == jobTrack:
		for i := range ref {
			ref[i] = j.target[i]
			halt[i] = !j.sel[i]
		}
	case j.kind == jobAnim:
		c.animRef(j, &ref, &vref, &halt)
	}
	for i := range c.p {
		c.p[i], c.v[i] = step(c.p[i], c.v[i], ref[i], vref[i], halt[i], &c.lim[i], c.dt)
	}
	c.settle(j, &ref, &halt)
	pose := c.p
	if c.mirror != nil {
		c.mirror.publish(c)
	}
	c.mu.Unlock()

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

// tickSpins bounds how many times a tick tries the controller's lock
// before it waits for it: about a millisecond.
const tickSpins = 20000

// lockForTick takes the controller's lock, trying it again and again
// before waiting for it. A command holds it for microseconds; the loop
// that waits parks its goroutine, and a parked goroutine locked to its
// thread runs again only once another thread of the process hands it
// over, which on a busy machine can take milliseconds.
func (c *Controller) lockForTick() {
	for range tickSpins {
		if c.mu.TryLock() {
			return
		}
	}
	c.mu.Lock()
}

// moving reports whether the body is moving or about to; the caller holds
// c.mu.
func (c *Controller) moving() bool {
	return (c.job != nil && c.job.kind != jobHalt) || c.v != Pose{}
}

// settle ends the job when its axes have arrived; the caller holds c.mu.
func (c *Controller) settle(j *Job, ref *Pose, halt *Axes) {
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
	if j == nil {
		return
	}
	switch j.kind {
	case jobHalt:
		c.endLocked(j, nil)
		c.notify(notice{kind: noticeRested, job: j.ID, name: j.Name, pose: c.p})
	case jobMove:
		c.arrivedLocked(j)
	case jobAnim:
		if j.phase == animSettle {
			c.endLocked(j, nil)
			c.notify(notice{kind: noticeFinished, job: j.ID, name: j.Name, pose: c.p})
		}
	}
}

// arrivedLocked ends move j, which has arrived; the caller holds c.mu.
func (c *Controller) arrivedLocked(j *Job) {
	if j.setRest {
		for i := range c.rest {
			if j.sel[i] {
				c.rest[i] = j.target[i]
			}
		}
	}
	c.endLocked(j, nil)
	c.notify(notice{kind: noticeArrived, job: j.ID, name: j.Name, pose: c.p})
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
	p, v := c.p, c.v
	if c.rem != nil {
		b := c.rem.mir.read()
		p, v = b.p, b.v
	}
	for i := range p {
		if math.Abs(v[i]) > arriveVelocity || j.sel[i] && math.Abs(p[i]-j.target[i]) > thereAngle {
			return
		}
	}
	c.arrivedLocked(j)
}

// animRef sets the animation's reference for this tick and advances its
// clock; the caller holds c.mu.
func (c *Controller) animRef(j *Job, ref, vref *Pose, halt *Axes) {
	total := math.Inf(1)
	if j.loops > 0 {
		total = j.anim.Duration * float64(j.loops)
	}
	if j.phase == animPlay && (j.finish || j.jt*j.speed >= total) {
		j.phase = animOut
		j.outStart = j.jt
		for i := range j.outFrom {
			if j.sel[i] {
				j.outFrom[i] = c.animAt(j, i, j.jt)
			}
		}
	}
	if j.phase == animOut && j.jt-j.outStart >= j.blendOut {
		j.phase = animSettle
	}
	for i := range ref {
		if !j.sel[i] {
			halt[i] = true
			continue
		}
		a, b := c.animAt(j, i, j.jt), c.animAt(j, i, j.jt+c.dt)
		ref[i], vref[i] = a, (b-a)/c.dt
	}
	j.jt += c.dt
}

// animAt is the reference of axis i at job time jt.
func (c *Controller) animAt(j *Job, i int, jt float64) float64 {
	switch j.phase {
	case animSettle:
		return j.rest[i]
	case animOut:
		s := (jt - j.outStart) / j.blendOut
		return j.outFrom[i] + (j.rest[i]-j.outFrom[i])*smooth(s)
	}
	at := jt * j.speed
	d := j.anim.Duration
	if j.loops > 0 {
		at = math.Min(at, d*float64(j.loops))
	}
	la := at - d*math.Floor(at/d)
	if la == 0 && at > 0 {
		la = d
	}
	v, _ := j.anim.Sample(i, la)
	if j.anim.Relative {
		v += j.start[i]
	}
	if w := smooth(jt / j.blendIn); w < 1 {
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
			if c.job != nil {
				c.endLocked(c.job, ErrStalled)
			}
			c.v = Pose{}
		}
		c.mu.Unlock()
		if !tripped {
			continue
		}
		c.safeStop()
		c.notify(notice{kind: noticeStall, d: stuck})
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

// reporter turns notices into events, away from the loop. When the body
// comes to rest, it puts the collector back to its rest setting once the
// body has stayed still for the rest hold.
func (c *Controller) reporter() {
	defer c.wg.Done()
	hold := c.restHold()
	held := time.NewTimer(time.Hour)
	held.Stop()
	defer held.Stop()
	for {
		var n notice
		select {
		case n = <-c.notices:
		case <-held.C:
			c.rested()
			continue
		case <-c.runCtx.Done():
			// Report what is already queued, then stop.
			for {
				select {
				case n = <-c.notices:
					c.report(n)
				default:
					return
				}
			}
		}
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
