package motion

import (
	"context"
	"fmt"
	"time"
)

type jobKind uint8

const (
	jobMove jobKind = iota
	jobTrack
	jobAnim
	jobHalt
)

// Job is one command to the body. Its fields are owned by the Controller
// and read and written under its lock.
type Job struct {
	// ID numbers the job within its controller.
	ID uint64
	// Name says what the job does: "lookat", "move", an animation's name.
	Name string

	c      *Controller
	kind   jobKind
	sel    Axes
	target Pose // move and track
	rest   Pose // the rest pose when the job began
	// spec is what the loop was given of the job (nil where the loop
	// runs in another process).
	spec *jobSpec

	// Track.
	deadline time.Time
	// Move: make the target the rest pose on arrival.
	setRest bool

	// Animation.
	anim     *Animation
	speed    float64
	loops    int
	blendIn  float64
	blendOut float64

	done chan struct{}
	err  error
	// fromParent marks a job the parent process began (its ID is the
	// parent's), in the loop's own process.
	fromParent bool

	ledCancel  context.CancelFunc
	ledDone    chan struct{}
	ledErr     error
	ledStopped bool
}

type animPhase uint8

const (
	animPlay animPhase = iota
	animOut
	animSettle
)

// Done is closed when the job's motion has ended.
func (j *Job) Done() <-chan struct{} { return j.done }

// Err returns why the job ended (nil: it finished), once Done is closed.
func (j *Job) Err() error {
	j.c.mu.Lock()
	defer j.c.mu.Unlock()
	return j.err
}

// Wait returns when the job has ended: nil when it finished (a move or
// look-at arrived, an animation played and blended back to rest, with its
// light track), or why not. When ctx ends first, Wait halts the job (the
// body decelerates to rest within its limits, which takes a moment longer)
// and returns at once with an error wrapping ctx.Err().
func (j *Job) Wait(ctx context.Context) error {
	select {
	case <-j.done:
	case <-ctx.Done():
		j.Halt()
		return fmt.Errorf("motion %s: %w", j.Name, ctx.Err())
	}
	if j.ledDone != nil {
		select {
		case <-j.ledDone:
		case <-ctx.Done():
			j.Halt()
			return fmt.Errorf("motion %s: %w", j.Name, ctx.Err())
		}
	}
	j.c.mu.Lock()
	defer j.c.mu.Unlock()
	if j.err != nil {
		return fmt.Errorf("motion %s: %w", j.Name, j.err)
	}
	if j.ledErr != nil {
		return fmt.Errorf("motion %s: lights: %w", j.Name, j.ledErr)
	}
	return nil
}

// Halt stops the job: if it is the one moving the body, the body
// decelerates to rest; its light track stops.
func (j *Job) Halt() {
	c := j.c
	c.mu.Lock()
	defer c.mu.Unlock()
	c.collectEndLocked()
	if c.job == j && c.fault == nil {
		c.haltLocked("canceled")
	}
	if j.ledCancel != nil {
		j.ledStopped = true
		j.ledCancel()
	}
}

// Finish ends an animation early but gracefully: it blends back to rest
// from wherever it is, and its light track stops. Other jobs ignore it.
func (j *Job) Finish() {
	c := j.c
	c.mu.Lock()
	defer c.mu.Unlock()
	c.finishLocked(j)
	if j.ledCancel != nil {
		j.ledStopped = true
		j.ledCancel()
	}
}
