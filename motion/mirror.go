package motion

import (
	"math"
	"runtime"
	"sync/atomic"
)

// mirror is what the loop shows the rest of the program without a lock
// or a message: the body's state after each tick and the loop's timing.
// Where the loop runs in a process of its own it lives in memory both
// processes map. The loop alone writes it, under a sequence count (odd
// while a write is under way), so publishing costs the tick a few stores
// and no system call.
type mirror struct {
	seq    atomic.Uint64
	p      [NumAxes]atomic.Uint64 // float64 bits
	v      [NumAxes]atomic.Uint64
	moving atomic.Uint32
	stats  latency
}

// body is the state the mirror carries.
type body struct {
	p, v   Pose
	moving bool
}

// publish writes the loop's state; only the loop calls it.
func (m *mirror) publish(c *Controller) {
	m.seq.Add(1)
	for i := range c.p {
		m.p[i].Store(math.Float64bits(c.p[i]))
		m.v[i].Store(math.Float64bits(c.v[i]))
	}
	var mv uint32
	if c.loopMoving() {
		mv = 1
	}
	m.moving.Store(mv)
	m.seq.Add(1)
}

// read returns a consistent state: it reads again while a write is under
// way. A loop process that died within a write leaves the count odd; after
// a bounded number of tries the last reading is returned.
func (m *mirror) read() body {
	var b body
	for try := 0; try < 1000; try++ {
		s := m.seq.Load()
		for i := range b.p {
			b.p[i] = math.Float64frombits(m.p[i].Load())
			b.v[i] = math.Float64frombits(m.v[i].Load())
		}
		b.moving = m.moving.Load() != 0
		if s%2 == 0 && m.seq.Load() == s {
			break
		}
		runtime.Gosched()
	}
	return b
}
