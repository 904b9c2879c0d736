package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	goruntime "runtime"
	"time"

	"github.com/openjibo/jibod/core/loadgen"
	"github.com/openjibo/jibod/core/runtime"
	"github.com/openjibo/jibod/motion"
)

// realtimeUsage is the --realtime flag's help.
const realtimeUsage = "give the motion control loop real-time service where the system permits: SCHED_FIFO on a CPU of its own, spare Go processors, fewer garbage collections, locked memory (docs/motion.md)"

// loopProcessUsage is the --loop-process flag's help.
const loopProcessUsage = "run the motion control loop in a process of its own, which opens the motors (Linux; docs/motion.md)"

// defaultLoopProcess is --loop-process's default: on Linux, where it is
// built, the loop runs in a process of its own (docs/motion.md has the
// measurements).
const defaultLoopProcess = goruntime.GOOS == "linux"

const motionUsage = `Usage:
  jibod motion loop [flags]   run the motion control loop and report how late its ticks start

Flags:
`

// maxLoopSeconds bounds a measurement.
const maxLoopSeconds = 3600

func cmdMotion(ctx context.Context, tr runtime.Trainer, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "loop" {
		fmt.Fprint(stderr, motionUsage)
		if len(args) == 0 {
			return usageError{"missing subcommand (want loop)"}
		}
		return usageError{fmt.Sprintf("unknown subcommand %q (want loop)", args[0])}
	}
	fs := flag.NewFlagSet("motion loop", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, motionUsage); fs.PrintDefaults() }
	seconds := fs.Float64("seconds", 10, "how long to measure")
	boardName := fs.String("board", "sim", "board profile: a built-in name (sim, rpi) or a profile file")
	rate := fs.Int("rate", 0, "loop rate in Hz (default: the profile's, else 200)")
	anim := fs.String("move", "look-around", "animation to play in a loop while measuring; empty to hold still")
	load := fs.Bool("load", false, "run the whole robot and feed its utterance pipeline typed utterances as fast as it handles them, several in flight on each of two inputs, while measuring (docs/motion.md)")
	inFlight := fs.Int("load-inflight", loadgen.DefaultInFlight, fmt.Sprintf("with --load: utterances each input keeps in flight (1..%d)", loadgen.MaxInFlight))
	rest := fs.Float64("rest", 0, "with --load: seconds to keep the robot still after the load, then report its resident memory")
	timer := fs.String("timer", "precise", "how the loop sleeps between ticks: precise (nanosleep on its own thread) or go (Go timers)")
	realtime := fs.Bool("realtime", true, realtimeUsage)
	loopProcess := fs.Bool("loop-process", defaultLoopProcess, loopProcessUsage)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	if *seconds <= 0 || *seconds > maxLoopSeconds {
		return usageError{fmt.Sprintf("--seconds %g: want 0..%d", *seconds, maxLoopSeconds)}
	}
	if *rest < 0 || *rest > maxLoopSeconds {
		return usageError{fmt.Sprintf("--rest %g: want 0..%d", *rest, maxLoopSeconds)}
	}
	if *timer != "precise" && *timer != "go" {
		return usageError{fmt.Sprintf("--timer %q: want precise or go", *timer)}
	}
	if *inFlight < 1 || *inFlight > loadgen.MaxInFlight {
		return usageError{fmt.Sprintf("--load-inflight %d: want 1..%d", *inFlight, loadgen.MaxInFlight)}
	}
	if *rate != 0 && (*rate < motion.MinRate || *rate > motion.MaxRate) {
		return usageError{fmt.Sprintf("--rate %d: want %d..%d", *rate, motion.MinRate, motion.MaxRate)}
	}
	prof, err := runtime.LoopProfile(*boardName, *rate)
	if err != nil {
		return err
	}
	rep, err := runtime.MeasureLoop(ctx, runtime.LoopConfig{Profile: prof, Duration: time.Duration(*seconds * float64(time.Second)), Animation: *anim,
		Load: *load, InFlight: *inFlight, Rest: time.Duration(*rest * float64(time.Second)), GoTimers: *timer == "go", RealTime: *realtime, LoopProcess: *loopProcess, Version: version, Trainer: tr})
	if err != nil {
		return err
	}
	return rep.Write(stdout, *asJSON)
}
