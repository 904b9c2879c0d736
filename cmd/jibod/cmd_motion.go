package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/openjibo/jibod/core/runtime"
	"github.com/openjibo/jibod/core/runtime/hearing"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/openjibo/jibod/board"
	"github.com/openjibo/jibod/core/loadgen"
	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/motion"
)

// realtimeUsage is the --realtime flag's help.
const realtimeUsage = "give the motion control loop real-time service where the system permits: SCHED_FIFO on a CPU of its own, spare Go processors, fewer garbage collections, locked memory (docs/motion.md)"

const motionUsage = `Usage:
  jibod motion loop [flags]   run the motion control loop and report how late its ticks start

Flags:
`

// maxLoopSeconds bounds a measurement.
const maxLoopSeconds = 3600

// loopReport is what `jibod motion loop` measured.
type loopReport struct {
	Board   string  `json:"board"`
	Rate    int     `json:"rate_hz"`
	Seconds float64 `json:"seconds"`
	Moving  string  `json:"moving,omitempty"`
	Load    bool    `json:"pipeline_load"`
	Timer   string  `json:"timer"`
	// Utterances counts those handled; Refused and Failed those of them
	// whose skill call was refused or that ended in an error, FirstError
	// the first reason.
	Utterances          int64   `json:"utterances,omitempty"`
	UtterancesPerSecond float64 `json:"utterances_per_second,omitempty"`
	Refused             int64   `json:"refused,omitempty"`
	Failed              int64   `json:"failed,omitempty"`
	FirstError          string  `json:"first_error,omitempty"`
	InFlight            int     `json:"in_flight,omitempty"`
	Ticks               uint64  `json:"ticks"`
	Missed              uint64  `json:"missed"`
	P50us               float64 `json:"p50_us"`
	P99us               float64 `json:"p99_us"`
	MaxUs               float64 `json:"max_us"`
	// RealTime is what real-time service the loop got.
	RealTime motion.RealTimeStatus `json:"realtime"`
}

func cmdMotion(ctx context.Context, args []string, stdout, stderr io.Writer) error {
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
	timer := fs.String("timer", "precise", "how the loop sleeps between ticks: precise (nanosleep on its own thread) or go (Go timers)")
	realtime := fs.Bool("realtime", true, realtimeUsage)
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
	if *timer != "precise" && *timer != "go" {
		return usageError{fmt.Sprintf("--timer %q: want precise or go", *timer)}
	}
	if *inFlight < 1 || *inFlight > loadgen.MaxInFlight {
		return usageError{fmt.Sprintf("--load-inflight %d: want 1..%d", *inFlight, loadgen.MaxInFlight)}
	}
	if *rate != 0 && (*rate < motion.MinRate || *rate > motion.MaxRate) {
		return usageError{fmt.Sprintf("--rate %d: want %d..%d", *rate, motion.MinRate, motion.MaxRate)}
	}
	prof, err := board.LoadAny(*boardName)
	if err != nil {
		return err
	}
	if *rate != 0 {
		prof.Motion.RateHz = *rate
	}
	rep, err := measureLoop(ctx, prof, time.Duration(*seconds*float64(time.Second)), *anim, *load, *inFlight, *timer == "go", *realtime)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		return enc.Encode(rep)
	}
	moving := "holding still"
	if rep.Moving != "" {
		moving = "playing " + rep.Moving
	}
	load2 := "no other load"
	if rep.Load {
		load2 = fmt.Sprintf("pipeline handling utterances (%d handled, %.0f/s, %d in flight on each of %d inputs)", rep.Utterances, rep.UtterancesPerSecond, rep.InFlight, loadgen.DefaultInputs)
		if rep.Refused+rep.Failed > 0 {
			load2 += fmt.Sprintf(", %d of them refused and %d failed (first: %s)", rep.Refused, rep.Failed, rep.FirstError)
		}
	}
	fmt.Fprintf(stdout, "control loop: %d Hz (%s timer) for %.1f s on the %s board, %s, %s\n", rep.Rate, rep.Timer, rep.Seconds, rep.Board, moving, load2)
	fmt.Fprintf(stdout, "real-time service: %s\n", rep.RealTime)
	if len(rep.RealTime.Refused) > 0 {
		fmt.Fprintf(stdout, "not permitted: %s\n", strings.Join(rep.RealTime.Refused, "; "))
	}
	fmt.Fprintf(stdout, "ticks %d, missed %d\n", rep.Ticks, rep.Missed)
	fmt.Fprintf(stdout, "lateness: p50 %s  p99 %s  max %s\n", us(rep.P50us), us(rep.P99us), us(rep.MaxUs))
	return nil
}

func us(v float64) string {
	if v >= 1000 {
		return fmt.Sprintf("%.2f ms", v/1000)
	}
	return fmt.Sprintf("%.0f µs", v)
}

// measureLoop runs the control loop for d and reports its lateness.
func measureLoop(ctx context.Context, prof *board.Profile, d time.Duration, anim string, load bool, inFlight int, goTimers, realtime bool) (*loopReport, error) {
	discard := slog.New(slog.DiscardHandler)
	var parts *runtime.Body
	var r *robot
	var err error
	var lines []string
	if load {
		var skills []skill.Skill
		if skills, lines, err = loadgen.Skills(loadgen.MaxSkills, discard); err != nil {
			return nil, err
		}
		if r, err = newRobot(ctx, runtime.Config{Board: prof.Name, Profile: prof, SpeakWPM: 0, Log: discard, GoTimers: goTimers,
			RealTime: realtime, Skills: skills}, hearing.Speech{}); err != nil {
			return nil, err
		}
		parts = r.Body()
	} else {
		prof.Speaker.WPM = 0
		if parts, err = runtime.OpenBody(ctx, prof, runtime.BodyOptions{Log: discard, GoTimers: goTimers, RealTime: realtime}); err != nil {
			return nil, err
		}
	}
	ctrl := parts.Motion
	rt := ctrl.RealTime() // before Close undoes it
	rep := &loopReport{Board: prof.Name, Rate: int(time.Second / ctrl.Period()), Load: load, Timer: "precise"}
	if goTimers {
		rep.Timer = "go"
	}
	var job *motion.Job
	if anim != "" {
		a, ok := parts.Exec.Animations().Lookup(anim)
		if !ok {
			err = fmt.Errorf("--move %q: no such animation (have %v)", anim, parts.Exec.Animations().Names())
		} else if job, err = ctrl.Play(a, motion.PlayOptions{Loops: -1, NoLights: true}); err == nil {
			rep.Moving = a.Name
		}
	}
	var wg sync.WaitGroup
	var lres loadgen.Result
	var lerr error
	mctx, stop := context.WithTimeout(ctx, d)
	defer stop()
	if err == nil && load {
		wg.Go(func() { lres, lerr = loadgen.Run(mctx, loadgen.Config{Bus: r.Bus(), Lines: lines, InFlight: inFlight}) })
	}
	start := time.Now()
	ctrl.ResetStats()
	if err == nil {
		<-mctx.Done()
	}
	stop()
	s := ctrl.Stats()
	elapsed := time.Since(start)
	wg.Wait()
	if job != nil {
		job.Halt()
	}
	closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	var cerr error
	if r != nil {
		cerr = r.Close(closeCtx)
	} else {
		cerr = parts.Close(closeCtx)
	}
	if err != nil || lerr != nil || ctx.Err() != nil {
		return nil, errors.Join(err, lerr, ctx.Err(), cerr)
	}
	rep.Seconds = elapsed.Seconds()
	rep.RealTime = rt
	if load {
		rep.Utterances, rep.Refused, rep.Failed = lres.Handled+lres.Refused+lres.Failed, lres.Refused, lres.Failed
		rep.FirstError = lres.FirstError
		rep.UtterancesPerSecond, rep.InFlight = lres.PerSecond(), inFlight
	}
	rep.Ticks, rep.Missed = s.Ticks, s.Missed
	rep.P50us = float64(s.P50.Nanoseconds()) / 1000
	rep.P99us = float64(s.P99.Nanoseconds()) / 1000
	rep.MaxUs = float64(s.Max.Nanoseconds()) / 1000
	return rep, cerr
}
