package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/openjibo/jibod/board"
	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/device/sfx"
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
	// volume is the master volume every sound goes through; nil when the
	// body has no sound output.
	volume *device.Volume
}

// bodyOptions shape openBody.
type bodyOptions struct {
	// Log receives the body's logs.
	Log *slog.Logger
	// Observe, if set, receives every device and motion event.
	Observe device.Observer
	// ExecObserve, if set, receives every behaviour event.
	ExecObserve func(jcp.Event)
	// GoTimers runs the motion loop on Go timers rather than precise
	// system-call sleeps: needed under testing/synctest, and enough where
	// tick lateness does not matter.
	GoTimers bool
	// RealTime gives the motion loop real-time service where the system
	// permits (motion.RealTime); it needs precise sleeps (not GoTimers).
	RealTime bool
	// WrapAudioOut, if set, is put in front of the board's sound output
	// (before the volume), e.g. to record what it plays.
	WrapAudioOut func(device.PCMSink) device.PCMSink
	// Voice, if set, replaces the board's voice; it is given the sound
	// output behind the volume (nil when the board has none).
	Voice func(out device.PCMSink, observe device.Observer) (device.Voice, error)
	// Attention, if set, is asked for the robot's attention once the
	// control loop runs: where the listener is, for the executor's turns.
	Attention func(m *motion.Controller) (jcp.Attention, error)
	// Gain is the master volume's gain at start, 0..1; 0 means full.
	Gain float64
}

// openBody opens prof's devices, starts the motion control loop (which
// homes the body) and builds the executor. On error whatever was started
// is stopped again.
func openBody(ctx context.Context, prof *board.Profile, o bodyOptions) (_ *bodyParts, err error) {
	log, observe := o.Log, o.Observe
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
	mc.Observer, mc.Logger, mc.PreciseSleep = observe, log, !o.GoTimers
	mc.RealTime.Enabled = o.RealTime && !o.GoTimers
	if b.motion, err = motion.New(mc); err != nil {
		return nil, fmt.Errorf("board %s: %w", prof.Name, err)
	}
	if err := b.motion.Start(ctx); err != nil {
		return nil, fmt.Errorf("board %s: %w", prof.Name, err)
	}
	b.state = character.New(character.Options{})
	// Sounds go through the master volume: the executor's player writes to
	// the volume, which scales and hands the samples to the board's sink.
	if out := b.board.AudioOut; out != nil {
		if o.WrapAudioOut != nil {
			out = o.WrapAudioOut(out)
		}
		gain := o.Gain
		if gain == 0 {
			gain = 1
		}
		if b.volume, err = device.NewVolume(out, gain, observe); err != nil {
			return nil, fmt.Errorf("board %s: %w", prof.Name, err)
		}
		if b.board.Sounds, err = sfx.NewPlayer(b.volume, nil); err != nil {
			return nil, fmt.Errorf("board %s: %w", prof.Name, err)
		}
	}
	ec := b.board.ExecutorConfig()
	ec.Logger, ec.Motion, ec.State, ec.Observer = log, b.motion, b.state, o.ExecObserve
	// The body moves with its words (Jibo's auto-rules).
	ec.AutoRules = true
	if o.Attention != nil {
		if ec.Attention, err = o.Attention(b.motion); err != nil {
			return nil, fmt.Errorf("board %s: %w", prof.Name, err)
		}
	}
	if o.Voice != nil {
		var out device.PCMSink
		if b.volume != nil {
			out = b.volume
		}
		if ec.Voice, err = o.Voice(out, observe); err != nil {
			return nil, fmt.Errorf("board %s: %w", prof.Name, err)
		}
	}
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
