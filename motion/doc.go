// Package motion moves Jibo's body: the three axes (device.Axes: base,
// torso, head), trajectories that never exceed their limits, a fixed-rate
// control loop that feeds the motors, keyframe animations and look-at
// targets.
//
// The Controller owns the motors. Its loop runs at a fixed rate (200 Hz by
// default), allocates nothing and takes no lock per tick (commands reach
// it, and what it reports leaves it, through atomics), and records how
// late each tick starts. Every tick it advances each axis one step of an online
// trajectory generator: the commanded angle follows a reference (a look-at
// pose, an animation curve, or "stop here") as fast as the axis's velocity
// and acceleration limits allow, and never leaves its angle limits. So any
// command, from any state, is safe, and a stop always decelerates.
//
// Commands are Jobs: MoveTo, LookAt, Play and Track each start one and
// return it; Job.Wait blocks until it ends. A new job takes over from the
// one before (which ends with ErrPreempted) without a jump, since the
// generator starts from the present position and velocity. Cancelling the
// context of Wait halts the body: it decelerates to rest within the limits.
//
// Safety: a Track stream whose updates stop arriving for longer than
// Config.CommandTimeout is halted (the deadman); and a watchdog that sees
// one tick run for Config.StallTimeout (stuck in a motor call) powers the
// motors off, leaving the controller faulted until Recover. A loop that
// runs late is the scheduler's doing, not the motors': the servos hold
// their setpoint meanwhile, a tick later than Config.LateRest carries on
// from rest, and nothing faults. On Linux the loop asks for real-time
// service (Config.RealTime) so that it is rarely late at all, and it can
// run in a process of its own (Config.Process, ServeProcess), away from
// the Go runtime of a busy program; the Controller's API is the same.
// Stats takes each missed tick apart from the loop thread's kernel
// accounts (Miss.Verdict): the machine's doing (the hypervisor, a late
// timer, a kernel that did not preempt) or the process's (the Go
// runtime, the tick itself); StealLog reads the machine's steal time
// beside it.
//
// The package talks to no bus: it reports what the body does as
// device.Events ("motion" device) to an Observer.
package motion
