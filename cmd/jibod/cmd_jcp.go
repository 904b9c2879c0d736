package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/openjibo/jibod/board"
	"github.com/openjibo/jibod/jcp"
	"github.com/openjibo/jibod/motion"
)

const jcpUsage = `Usage:
  jibod jcp run [flags] FILE.json   run a JCP action on a board and print its timeline

FILE.json is a JCP action ({"type":"JCP","config":{"jcp":…}}) or a bare
behaviour ({"type":"SLIM",…}), run as an action's root.

The timeline is one JSON object per line: {"t_ms","device","event","values"},
time in milliseconds from when the body was opened. Flags:
`

// maxSettle bounds waiting for the body to come to rest after the action.
const maxSettle = 10 * time.Second

func cmdJCP(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "run" {
		fmt.Fprint(stderr, jcpUsage)
		if len(args) == 0 {
			return usageError{"missing subcommand (want run)"}
		}
		return usageError{fmt.Sprintf("unknown subcommand %q (want run)", args[0])}
	}
	fs := flag.NewFlagSet("jcp run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, jcpUsage); fs.PrintDefaults() }
	boardName := fs.String("board", "sim", "board profile: a built-in name (sim, rpi) or a profile file")
	svg := fs.String("svg", "", "also draw the joint angles, ring colours and behaviours over time as an SVG picture to this file")
	wpm := fs.Int("speak-wpm", -1, "sim speaker rate in words per minute, 0 = instant (default: the profile's)")
	samples := fs.Bool("samples", false, "also print the joint angles and ring colour every 20 ms (device \"sample\")")
	settle := fs.Duration("settle", 2*time.Second, "after the action, wait up to this long for the body to come to rest")
	logLevel := fs.String("log-level", "warn", "log level: debug, info, warn or error (logs go to standard error)")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageError{"want exactly one action file"}
	}
	if *settle < 0 || *settle > maxSettle {
		return usageError{fmt.Sprintf("--settle %v: want 0..%v", *settle, maxSettle)}
	}
	log, err := newLogger(stderr, *logLevel)
	if err != nil {
		return err
	}
	action, err := readAction(fs.Arg(0))
	if err != nil {
		return err
	}
	prof, err := board.LoadAny(*boardName)
	if err != nil {
		return err
	}
	if *wpm >= 0 {
		prof.Speaker.WPM = *wpm
	}
	res, tl, err := runTimeline(ctx, prof, action, *settle, log)
	if err != nil && res == nil {
		return err
	}
	out := tl.sorted()
	if *samples {
		out = withSamples(out, tl.snapshotSamples())
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	for _, e := range out {
		if werr := enc.Encode(e); werr != nil {
			return fmt.Errorf("writing timeline: %w", werr)
		}
	}
	if *svg != "" {
		if serr := writeSVGFile(*svg, fs.Arg(0), res, tl); serr != nil {
			err = errors.Join(err, serr)
		}
	}
	if derr := tl.droppedErr(); derr != nil {
		err = errors.Join(err, derr)
	}
	return err
}

// readAction reads and validates an action file (a JCP action or a bare
// behaviour, as protocol check takes them); an invalid one is refused
// whole, before the body is touched.
func readAction(file string) (*jcp.Action, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("reading action: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, jcp.MaxActionBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading action %s: %w", file, err)
	}
	a, _, err := jcp.ParseActionOrBehavior(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return a, nil
}

// runTimeline opens the body, runs a on it while recording everything,
// waits for the body to settle and closes it.
func runTimeline(ctx context.Context, prof *board.Profile, a *jcp.Action, settle time.Duration, log *slog.Logger) (*jcp.Result, *timeline, error) {
	tl := newTimeline()
	// The timeline needs no tick precision; Go timers also keep the tool
	// testable on a fake clock.
	parts, err := openBody(ctx, prof, bodyOptions{Log: log, Observe: tl.device, ExecObserve: tl.behaviour, GoTimers: true})
	if err != nil {
		return nil, tl, err
	}
	sctx, stopSampling := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	var frames interface {
		Frame() []devRGB
	}
	if parts.board.Lights != nil {
		frames = parts.board.Lights
	}
	wg.Go(func() { tl.sample(sctx, parts.motion, frames) })

	res, runErr := parts.exec.Run(ctx, a)
	if res != nil {
		v := map[string]any{"status": string(res.Status)}
		if res.Error != "" {
			v["error"] = res.Error
		}
		if len(res.Spoken) > 0 {
			v["spoken"] = res.Spoken
		}
		tl.add(time.Now(), "jcp", "result", v)
	}
	waitRest(ctx, parts.motion, settle)
	stopSampling()
	wg.Wait()
	closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if cerr := parts.Close(closeCtx); cerr != nil {
		runErr = errors.Join(runErr, cerr)
	}
	return res, tl, runErr
}

// waitRest waits, at most d, until the body has stopped moving, so the
// timeline shows a stop's deceleration to the end.
func waitRest(ctx context.Context, c *motion.Controller, d time.Duration) {
	deadline := time.Now().Add(d)
	for c.Moving() && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(c.Period())
	}
}

// withSamples merges the state samples into the events as "sample" lines.
func withSamples(ev []tlEvent, samples []tlSample) []tlEvent {
	out := make([]tlEvent, 0, len(ev)+len(samples))
	i := 0
	for _, s := range samples {
		for i < len(ev) && ev[i].T <= s.T {
			out = append(out, ev[i])
			i++
		}
		v := map[string]any{}
		for k := range s.Pose {
			v[motion.AxisName(k)] = roundRad(s.Pose[k])
		}
		if len(s.LED) > 0 {
			v["led"] = formatRGB(s.LED[0])
		}
		out = append(out, tlEvent{T: s.T, Ms: s.T.Milliseconds(), Device: "sample", Event: "state", Values: v})
	}
	return append(out, ev[i:]...)
}
