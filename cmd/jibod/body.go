package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/openjibo/jibod/board"
	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/jcp"
	"github.com/openjibo/jibod/jcp/character"
	"github.com/openjibo/jibod/motion"
)

// bodyParts is the body as the runtime drives it: the board's devices, the
// motion controller that owns the motors, the robot's social state and
// the JCP executor over all of them.
type bodyParts struct {
	board  *board.Body
	motion *motion.Controller
	state  *character.State
	exec   *jcp.Executor
}

// openBody opens prof's devices, starts the motion control loop (which
// homes the body) and builds the executor. observe receives every device
// and motion event; execObserve, if set, every behaviour event. On error
// whatever was started is stopped again.
func openBody(ctx context.Context, prof *board.Profile, log *slog.Logger, observe device.Observer, execObserve func(jcp.Event)) (_ *bodyParts, err error) {
	b := &bodyParts{}
	defer func() {
		if err != nil {
			_ = b.Close(context.WithoutCancel(ctx))
		}
	}()
	if b.board, err = board.Open(ctx, prof, board.Options{Logger: log, Observer: observe}); err != nil {
		return nil, fmt.Errorf("opening board %s: %w", prof.Name, err)
	}
	mc := b.board.MotionConfig()
	mc.Observer, mc.Logger = observe, log
	if b.motion, err = motion.New(mc); err != nil {
		return nil, fmt.Errorf("board %s: %w", prof.Name, err)
	}
	if err := b.motion.Start(ctx); err != nil {
		return nil, fmt.Errorf("board %s: %w", prof.Name, err)
	}
	b.state = character.New(character.Options{})
	ec := b.board.ExecutorConfig()
	ec.Logger, ec.Motion, ec.State, ec.Observer = log, b.motion, b.state, execObserve
	if b.exec, err = jcp.NewExecutor(ec); err != nil {
		return nil, err
	}
	return b, nil
}

// Close brings the body to rest, stops the control loop and closes the
// devices.
func (b *bodyParts) Close(ctx context.Context) error {
	if b == nil {
		return nil
	}
	var errs []error
	if b.motion != nil {
		errs = append(errs, b.motion.Close(ctx))
	}
	if b.board != nil {
		errs = append(errs, b.board.Close())
	}
	return errors.Join(errs...)
}
