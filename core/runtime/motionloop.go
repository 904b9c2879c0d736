package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/openjibo/jibod/board"
	"github.com/openjibo/jibod/core/loadgen"
	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/motion"
)

// LoopReport is what MeasureLoop measured (`jibod motion loop`).
type LoopReport struct {
	Board   string  `json:"board"`
	Rate    int     `json:"rate_hz"`
	Seconds float64 `json:"seconds"`
	Moving  string  `json:"moving,omitempty"`
	Load    bool    `json:"pipeline_load"`
	Timer   string  `json:"timer"`
	// Utterances counts those handled (the ones said before the
	// measurement ended, at least the first in flight on each input);
	// Refused and Failed those of them whose skill call was refused or that
	// ended in an error, FirstError the first reason; Unanswered those said
	// whose answer never came.
	Utterances          int64   `json:"utterances,omitempty"`
	UtterancesPerSecond float64 `json:"utterances_per_second,omitempty"`
	Refused             int64   `json:"refused,omitempty"`
	Failed              int64   `json:"failed,omitempty"`
	FirstError          string  `json:"first_error,omitempty"`
	Unanswered          int64   `json:"unanswered,omitempty"`
	InFlight            int     `json:"in_flight,omitempty"`
	Ticks               uint64  `json:"ticks"`
	Missed              uint64  `json:"missed"`
	P50us               float64 `json:"p50_us"`
	P99us               float64 `json:"p99_us"`
	MaxUs               float64 `json:"max_us"`
	// LongestRunUs is the longest a tick ran; MissedRunning counts the
	// missed ticks that followed a tick that ran longer than it started
	// late (the rest followed a late wake-up).
	LongestRunUs  float64 `json:"longest_run_us"`
	MissedRunning uint64  `json:"missed_running"`
	// RestSeconds is how long the robot stayed still after the load
	// (LoopConfig.Rest); RSSLoadMB and RSSRestMB are its resident memory
	// when the load ended and after that rest, where the system says
	// (Linux's /proc/self/status).
	RestSeconds float64 `json:"rest_seconds,omitempty"`
	RSSLoadMB   float64 `json:"rss_load_mb,omitempty"`
	RSSRestMB   float64 `json:"rss_rest_mb,omitempty"`
	// RealTime is what real-time service the loop got.
	RealTime motion.RealTimeStatus `json:"realtime"`
	// LoopProcess is true when the loop ran in a process of its own; the
	// resident memory then counts both processes.
	LoopProcess bool `json:"loop_process,omitempty"`
	// Kernel is how the system's kernel preempts, which decides how late
	// a loop woken on time can get its CPU.
	Kernel motion.Preemption `json:"kernel"`
	// StealMs is each CPU's steal time during the measurement in ms, by
	// CPU ("cpu1"): time the hypervisor ran something else while the CPU
	// had work (/proc/stat; 0 on bare metal). Nil where it was not read,
	// with StealError saying why.
	StealMs    map[string]float64 `json:"steal_ms,omitempty"`
	StealError string             `json:"steal_error,omitempty"`
	// Misses takes apart the late ticks after which ticks were missed
	// (the first motion.MissRecords), each with whose doing it was;
	// MissedByMachine, MissedByProcess and MissedUnexplained count the
	// missed ticks by that verdict (those after a late tick not taken
	// apart count as unexplained).
	Misses            []LoopMiss `json:"misses,omitempty"`
	MissedByMachine   uint64     `json:"missed_by_machine"`
	MissedByProcess   uint64     `json:"missed_by_process"`
	MissedUnexplained uint64     `json:"missed_unexplained,omitempty"`
}

// LoopMiss is a late tick after which ticks were missed, with whose
// doing it was (motion.Miss.Verdict) and when in the measurement it
// came.
type LoopMiss struct {
	motion.Miss
	AtSeconds float64      `json:"at_seconds"`
	Blame     motion.Blame `json:"blame"`
	Why       string       `json:"why"`
}

// maxMissLines bounds the missed ticks the text report lists one by one.
const maxMissLines = 20

// Write prints the report for people (WriteText), or as one JSON object
// with asJSON.
func (rep *LoopReport) Write(w io.Writer, asJSON bool) error {
	if asJSON {
		return json.NewEncoder(w).Encode(rep)
	}
	return rep.WriteText(w)
}

// LoopProfile is the board profile name gives (a built-in name or a
// profile file) for a measurement, its loop run at rate Hz when rate is
// not 0 (the profile's own rate otherwise).
func LoopProfile(name string, rate int) (*board.Profile, error) {
	prof, err := board.LoadAny(name)
	if err != nil {
		return nil, err
	}
	if rate != 0 {
		prof.Motion.RateHz = rate
	}
	return prof, nil
}

// WriteText prints the report for people.
func (rep *LoopReport) WriteText(stdout io.Writer) error {
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
	where := ""
	if rep.LoopProcess {
		where = " (in the loop's own process)"
	}
	fmt.Fprintf(stdout, "real-time service%s: %s\n", where, rep.RealTime)
	if len(rep.RealTime.Refused) > 0 {
		fmt.Fprintf(stdout, "not permitted: %s\n", strings.Join(rep.RealTime.Refused, "; "))
	}
	fmt.Fprintf(stdout, "ticks %d, missed %d\n", rep.Ticks, rep.Missed)
	fmt.Fprintf(stdout, "lateness: p50 %s  p99 %s  max %s\n", us(rep.P50us), us(rep.P99us), us(rep.MaxUs))
	fmt.Fprintf(stdout, "longest tick %s; missed after a long tick %d, after a late wake-up %d\n", us(rep.LongestRunUs), rep.MissedRunning, rep.Missed-rep.MissedRunning)
	switch {
	case rep.StealMs != nil:
		fmt.Fprintf(stdout, "steal (the hypervisor running something else on a CPU with work): %s\n", stealText(rep.StealMs, rep.RealTime.CPU))
	case rep.StealError != "":
		fmt.Fprintf(stdout, "steal: not read (%s)\n", rep.StealError)
	}
	if rep.Missed > 0 {
		fmt.Fprintf(stdout, "missed ticks by cause: %d the machine's (hypervisor, timer, kernel), %d the process's (Go runtime, the tick)", rep.MissedByMachine, rep.MissedByProcess)
		if rep.MissedUnexplained > 0 {
			fmt.Fprintf(stdout, ", %d not taken apart", rep.MissedUnexplained)
		}
		fmt.Fprintln(stdout)
		for i, m := range rep.Misses {
			if i == maxMissLines {
				fmt.Fprintf(stdout, "  ... %d more in --json\n", len(rep.Misses)-i)
				break
			}
			fmt.Fprintf(stdout, "  at %.2f s: %d missed after a tick %s late that ran %s: %s: %s\n", m.AtSeconds, m.Skipped, us(float64(m.Late.Nanoseconds())/1000), us(float64(m.Ran.Nanoseconds())/1000), m.Blame, m.Why)
		}
	}
	fmt.Fprintf(stdout, "kernel: %s\n", rep.Kernel)
	if rep.RealTime.Priority > 0 {
		if a := rep.Kernel.Advice(rep.RealTime.CPU); a != "" {
			// Without the loop thread's accounts, a guess.
			if late := rep.Missed - rep.MissedRunning; late > 0 && rep.MissedByMachine+rep.MissedByProcess == 0 && rep.Kernel.Mode != "" && !rep.Kernel.Preemptible {
				fmt.Fprintf(stdout, "the ticks missed after a late wake-up (%d) are most likely the kernel's doing: it does not preempt a task in the kernel for the loop\n", late)
			}
			fmt.Fprintf(stdout, "%s (docs/motion.md)\n", a)
		}
	}
	if rep.RSSLoadMB > 0 {
		fmt.Fprintf(stdout, "resident memory: %.1f MB when the load ended, %.1f MB after %.0f s at rest\n", rep.RSSLoadMB, rep.RSSRestMB, rep.RestSeconds)
	}
	return nil
}

// stealText lists each CPU's steal time, the loop's CPU named.
func stealText(ms map[string]float64, loopCPU int) string {
	cpus := slices.Sorted(maps.Keys(ms))
	parts := make([]string, 0, len(cpus))
	for _, k := range cpus {
		p := fmt.Sprintf("%s %.0f ms", k, ms[k])
		if k == fmt.Sprintf("cpu%d", loopCPU) {
			p += " (the loop's)"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}

func us(v float64) string {
	if v >= 1000 {
		return fmt.Sprintf("%.2f ms", v/1000)
	}
	return fmt.Sprintf("%.0f µs", v)
}

// LoopConfig is what MeasureLoop measures.
type LoopConfig struct {
	// Profile is the board; its speaker is silenced without Load.
	Profile  *board.Profile
	Duration time.Duration
	// Animation is played in a loop while measuring; "" holds still.
	Animation string
	// Load runs the whole robot and feeds its pipeline utterances,
	// InFlight on each input.
	Load     bool
	InFlight int
	// Rest, with Load, keeps the robot running with the body still for
	// this long after the load has ended, to report how much of the
	// memory the load took it gives back.
	Rest     time.Duration
	GoTimers bool
	RealTime bool
	// LoopProcess runs the loop in a process of its own
	// (BodyOptions.LoopProcess).
	LoopProcess bool
	// Version and Trainer go to the runtime with Load.
	Version string
	Trainer Trainer
}

// MeasureLoop runs the control loop for c.Duration and reports its
// lateness.
func MeasureLoop(ctx context.Context, c LoopConfig) (*LoopReport, error) {
	prof, d, anim, load, inFlight, goTimers, realtime := c.Profile, c.Duration, c.Animation, c.Load, c.InFlight, c.GoTimers, c.RealTime
	discard := slog.New(slog.DiscardHandler)
	var parts *Body
	var r *Robot
	var err error
	var lines []string
	if load {
		var skills []skill.Skill
		if skills, lines, err = loadgen.Skills(loadgen.MaxSkills, discard); err != nil {
			return nil, err
		}
		if r, err = New(ctx, Config{Board: prof.Name, Profile: prof, SpeakWPM: 0, Log: discard, GoTimers: goTimers,
			RealTime: realtime, LoopProcess: c.LoopProcess, Skills: skills, Version: c.Version, Trainer: c.Trainer}); err != nil {
			return nil, err
		}
		parts = r.Body()
	} else {
		prof.Speaker.WPM = 0
		if parts, err = OpenBody(ctx, prof, BodyOptions{Log: discard, GoTimers: goTimers, RealTime: realtime, LoopProcess: c.LoopProcess}); err != nil {
			return nil, err
		}
	}
	ctrl := parts.Motion
	rt := ctrl.RealTime() // before Close undoes it
	rep := &LoopReport{Board: prof.Name, Rate: int(time.Second / ctrl.Period()), Load: load, Timer: "precise", LoopProcess: ctrl.ProcessID() != 0}
	rss := func() int64 {
		n := residentBytes("self")
		if pid := ctrl.ProcessID(); pid != 0 {
			n += residentBytes(strconv.Itoa(pid))
		}
		return n
	}
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
	// The window opens once the loop is seen to tick: a loop in a
	// process of its own, on a loaded machine, may not yet have run when
	// it said it was ready, and a window it never ran in would report no
	// ticks as if the loop were broken. The window itself counts from
	// its opening.
	ctrl.ResetStats()
	if err == nil {
		err = awaitTick(ctx, func() uint64 { return ctrl.Stats().Ticks }, ctrl.Period(), LoopStartWithin)
	}
	var wg sync.WaitGroup
	var lres loadgen.Result
	var lerr error
	mctx, stop := context.WithTimeout(ctx, d)
	defer stop()
	if err == nil && load {
		// The load stops with the measurement and then waits for the
		// answers to what it said.
		wg.Go(func() {
			lres, lerr = loadgen.Run(ctx, loadgen.Config{Bus: r.Bus(), Lines: lines, InFlight: inFlight, Stop: mctx.Done()})
		})
	}
	// The machine's steal time, read beside the loop, tells the
	// hypervisor's part in the ticks missed.
	steal := motion.NewStealLog(0)
	var stealErr error
	var swg sync.WaitGroup
	sctx, stopSteal := context.WithCancel(mctx)
	swg.Go(func() { stealErr = steal.Run(sctx) })
	start := time.Now()
	ctrl.ResetStats()
	if err == nil {
		<-mctx.Done()
	}
	stop()
	s := ctrl.Stats()
	elapsed := time.Since(start)
	stopSteal()
	swg.Wait()
	wg.Wait()
	if job != nil {
		job.Halt()
	}
	var rssLoad, rssRest int64
	if load && c.Rest > 0 && err == nil && lerr == nil {
		rssLoad = rss()
		select {
		case <-time.After(c.Rest):
			rssRest = rss()
		case <-ctx.Done():
		}
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
	rep.Kernel = motion.KernelPreemption()
	if load {
		rep.Utterances, rep.Refused, rep.Failed = lres.Handled+lres.Refused+lres.Failed, lres.Refused, lres.Failed
		rep.FirstError, rep.Unanswered = lres.FirstError, lres.Unanswered
		rep.UtterancesPerSecond, rep.InFlight = lres.PerSecond(), inFlight
	}
	rep.Ticks, rep.Missed = s.Ticks, s.Missed
	rep.P50us = float64(s.P50.Nanoseconds()) / 1000
	rep.P99us = float64(s.P99.Nanoseconds()) / 1000
	rep.MaxUs = float64(s.Max.Nanoseconds()) / 1000
	rep.LongestRunUs, rep.MissedRunning = float64(s.LongestRun.Nanoseconds())/1000, s.MissedRunning
	rep.explainMisses(s, steal, stealErr, start, ctrl.Period())
	if rssLoad > 0 && rssRest > 0 {
		rep.RestSeconds, rep.RSSLoadMB, rep.RSSRestMB = c.Rest.Seconds(), float64(rssLoad)/1e6, float64(rssRest)/1e6
	}
	return rep, cerr
}

// LoopStartWithin bounds MeasureLoop's wait for the loop's first tick.
const LoopStartWithin = 10 * time.Second

// awaitTick waits, looking every period, until ticks reports a tick, and
// says so when none came within the bound.
func awaitTick(ctx context.Context, ticks func() uint64, period, within time.Duration) error {
	if ticks() > 0 {
		return nil
	}
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	look := time.NewTicker(period)
	defer look.Stop()
	for {
		select {
		case <-look.C:
			if ticks() > 0 {
				return nil
			}
		case <-deadline.C:
			return fmt.Errorf("the control loop did not tick within %v of starting: it never ran", within)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// explainMisses fills in the steal time and the missed ticks taken
// apart, each with the steal on the loop's CPU around it.
func (rep *LoopReport) explainMisses(s motion.Stats, steal *motion.StealLog, stealErr error, start time.Time, period time.Duration) {
	if total, _ := steal.Total(); total != nil {
		rep.StealMs = make(map[string]float64, len(total))
		for cpu, d := range total {
			rep.StealMs[fmt.Sprintf("cpu%d", cpu)] = float64(d) / float64(time.Millisecond)
		}
	} else if stealErr != nil {
		rep.StealError = stealErr.Error()
	}
	for _, m := range s.Misses {
		// From the tick before the late one to the late tick's end, on
		// the loop's CPU (any, where it is not pinned).
		m.Stolen = steal.Within(rep.RealTime.CPU, m.At.Add(-m.Late-period), m.At.Add(m.Ran))
		blame, why := m.Verdict()
		rep.Misses = append(rep.Misses, LoopMiss{Miss: m, AtSeconds: m.At.Sub(start).Seconds(), Blame: blame, Why: why})
		switch blame {
		case motion.BlameMachine:
			rep.MissedByMachine += uint64(m.Skipped)
		case motion.BlameProcess:
			rep.MissedByProcess += uint64(m.Skipped)
		}
	}
	if told := rep.MissedByMachine + rep.MissedByProcess; rep.Missed > told {
		rep.MissedUnexplained = rep.Missed - told
	}
}

// residentBytes is process pid's resident memory as Linux reports it
// (VmRSS in /proc/<pid>/status; "self" for this one), 0 where it cannot
// be read.
func residentBytes(pid string) int64 {
	b, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		v, ok := strings.CutPrefix(line, "VmRSS:")
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil {
			return 0
		}
		return kb << 10
	}
	return 0
}
