package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/openjibo/jibod/board"
	"github.com/openjibo/jibod/core/runtime"
	"github.com/openjibo/jibod/jcp"
	"github.com/openjibo/jibod/jcp/timeline"
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
	action, err := timeline.ReadAction(fs.Arg(0))
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
	if werr := tl.WriteJSON(stdout, *samples); werr != nil {
		return werr
	}
	return errors.Join(err, tl.Finish(*svg, fs.Arg(0), res))
}

// runTimeline opens the body, runs a on it while recording everything,
// and closes it.
func runTimeline(ctx context.Context, prof *board.Profile, a *jcp.Checked, settle time.Duration, log *slog.Logger) (*jcp.Result, *timeline.Timeline, error) {
	tl := timeline.New()
	// The timeline needs no tick precision; Go timers also keep the tool
	// testable on a fake clock.
	body, err := runtime.OpenBody(ctx, prof, runtime.BodyOptions{Log: log, Observe: tl.Device, ExecObserve: tl.Behaviour, GoTimers: true})
	if err != nil {
		return nil, tl, err
	}
	b := timeline.Body{Exec: body.Exec, Motion: body.Motion}
	if body.Board.Lights != nil {
		b.Ring = body.Board.Lights
	}
	res, runErr := tl.Record(ctx, b, a, settle)
	closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if cerr := body.Close(closeCtx); cerr != nil {
		runErr = errors.Join(runErr, cerr)
	}
	return res, tl, runErr
}
