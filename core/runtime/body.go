package runtime

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/openjibo/jibod/board"
	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/device/sfx"
	"github.com/openjibo/jibod/jcp"
	"github.com/openjibo/jibod/jcp/character"
	"github.com/openjibo/jibod/motion"
)

// Body is the body as the runtime drives it: the board's devices, the
// motion controller that owns the motors, the robot's social state and
// the JCP executor over all of them.
type Body struct {
	Board  *board.Body
	Motion *motion.Controller
	State  *character.State
	Exec   *jcp.Executor
	// Volume is the master volume every sound goes through; nil when the
	// body has no sound output.
	Volume *device.Volume
}

// BodyOptions shape OpenBody.
type BodyOptions struct {
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
	// LoopProcess runs the motion control loop in a process of its own,
	// which opens the motors and their power switch: this program started
	// again (/proc/self/exe), whose main must call ServeLoopProcess when
	// motion.IsProcess. Linux only; ignored with GoTimers.
	LoopProcess bool
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

// LoadProfile loads a board profile: a path (it has a slash or a dot) is
// read from the file system, anything else is a built-in profile's name.
func LoadProfile(name string) (*board.Profile, error) {
	if strings.ContainsAny(name, "/.") {
		return board.LoadFile(name)
	}
	return board.Load(name)
}

// OpenBody opens prof's devices, starts the motion control loop (which
// homes the body) and builds the executor. On error whatever was started
// is stopped again.
func OpenBody(ctx context.Context, prof *board.Profile, o BodyOptions) (*Body, error) {
	b, err := openBody(ctx, prof, o)
	if err != nil && o.LoopProcess && errors.Is(err, motion.ErrProcessNotStarted) {
		// An emulator without binfmt_misc cannot start this program
		// again: the loop runs here, as it did before it had a process.
		if o.Log != nil {
			o.Log.Warn("motion: the control loop's own process could not be started; it runs in this one", "error", err)
		}
		o.LoopProcess = false
		return openBody(ctx, prof, o)
	}
	return b, err
}

func openBody(ctx context.Context, prof *board.Profile, o BodyOptions) (_ *Body, err error) {
	log, observe := o.Log, o.Observe
	b := &Body{}
	defer func() {
		if err != nil {
			_ = b.Close(context.WithoutCancel(ctx))
		}
	}()
	elsewhere := o.LoopProcess && !o.GoTimers
	if b.Board, err = board.Open(ctx, prof, board.Options{Logger: log, Observer: observe, MotorsElsewhere: elsewhere}); err != nil {
		return nil, fmt.Errorf("opening board %s: %w", prof.Name, err)
	}
	mc := b.Board.MotionConfig()
	mc.Observer, mc.Logger, mc.PreciseSleep = observe, log, !o.GoTimers
	mc.RealTime.Enabled = o.RealTime && !o.GoTimers
	if elsewhere {
		setup, err := board.MotionSetup(prof)
		if err != nil {
			return nil, err
		}
		mc.Process = &motion.Process{Path: selfExe, Setup: setup}
	}
	if b.Motion, err = motion.New(mc); err != nil {
		return nil, fmt.Errorf("board %s: %w", prof.Name, err)
	}
	if err := b.Motion.Start(ctx); err != nil {
		return nil, fmt.Errorf("board %s: %w", prof.Name, err)
	}
	b.State = character.New(character.Options{})
	// Sounds go through the master volume: the executor's player writes to
	// the volume, which scales and hands the samples to the board's sink.
	if out := b.Board.AudioOut; out != nil {
		if o.WrapAudioOut != nil {
			out = o.WrapAudioOut(out)
		}
		gain := o.Gain
		if gain == 0 {
			gain = 1
		}
		if b.Volume, err = device.NewVolume(out, gain, observe); err != nil {
			return nil, fmt.Errorf("board %s: %w", prof.Name, err)
		}
		if b.Board.Sounds, err = sfx.NewPlayer(b.Volume, nil); err != nil {
			return nil, fmt.Errorf("board %s: %w", prof.Name, err)
		}
	}
	ec := b.Board.ExecutorConfig()
	ec.Logger, ec.Motion, ec.State, ec.Observer = log, b.Motion, b.State, o.ExecObserve
	// The body moves with its words (Jibo's auto-rules).
	ec.AutoRules = true
	if o.Attention != nil {
		if ec.Attention, err = o.Attention(b.Motion); err != nil {
			return nil, fmt.Errorf("board %s: %w", prof.Name, err)
		}
	}
	if o.Voice != nil {
		var out device.PCMSink
		if b.Volume != nil {
			out = b.Volume
		}
		if ec.Voice, err = o.Voice(out, observe); err != nil {
			return nil, fmt.Errorf("board %s: %w", prof.Name, err)
		}
	}
	if b.Exec, err = jcp.NewExecutor(ec); err != nil {
		return nil, err
	}
	return b, nil
}

// selfExe starts this program again, for the loop's own process.
const selfExe = "/proc/self/exe"

// ServeLoopProcess is the motion control loop's own process (see
// BodyOptions.LoopProcess): main calls it first thing when
// motion.IsProcess, and exits with what it returns.
func ServeLoopProcess() int { return motion.ServeProcess(board.OpenMotors) }

// Close brings the body to rest, stops the control loop and closes the
// devices.
func (b *Body) Close(ctx context.Context) error {
	if b == nil {
		return nil
	}
	var errs []error
	if b.Motion != nil {
		errs = append(errs, b.Motion.Close(ctx))
	}
	if b.Board != nil {
		errs = append(errs, b.Board.Close())
	}
	return errors.Join(errs...)
}
