package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/openjibo/jibod/core/runtime"
	"github.com/openjibo/jibod/core/runtime/config"
)

func cmdRun(ctx context.Context, tr runtime.Trainer, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := &config.Run{}
	fs.String("config", "", "read the configuration from this JSON `FILE` first; the environment, then the flags, override it (default $"+config.FileEnv+"; docs/config.md)")
	fs.StringVar(&c.Board, "board", "sim", "board profile: a built-in name (sim) or a profile file")
	fs.StringVar(&c.Input, "input", "console", "where typed utterances come from: console (interactive), stdin (one per line), none (only --audio; the run ends with the audio) or shell (standard input/output is the diagnostics shell; the run ends with it)")
	fs.StringVar(&c.Trace, "trace", "", "write every bus message to this file as JSON lines ('-' for standard output)")
	fs.IntVar(&c.SpeakWPM, "speak-wpm", -1, "sim speaker rate in words per minute, 0..1000, 0 = instant, -1 = the profile's")
	fs.StringVar(&c.Lang, "lang", "en-US", "default language")
	fs.StringVar(&c.LogLevel, "log-level", "warn", "log level: debug, info, warn or error (logs go to standard error)")
	fs.StringVar(&c.State, "state", runtime.DefaultStateDir(), "folder keeping skill conversations, timers, run records and the loop across restarts ('none': memory only; default $"+runtime.StateDirEnv+")")
	fs.DurationVar((*time.Duration)(&c.ListenWindow), "listen-window", 0, "how long a skill's question waits for its answer, 0..1h (default 0: 30s)")
	fs.BoolVar(&c.RealTime, "realtime", true, realtimeUsage)
	fs.BoolVar(&c.LoopProcess, "loop-process", defaultLoopProcess, loopProcessUsage)
	fs.StringVar(&c.Web, "web", "", "serve the robot's web page on `ADDR`, host:port (127.0.0.1:0 picks a free port; docs/web.md); off by default")
	fs.BoolVar(&c.Offline, "offline", false, "start offline: installed WebAssembly skills cannot fetch from the network, and the hub is not contacted")
	fs.Var((*programList)(&c.LocalSkills), "local-skill", "start this `PROGRAM`, a Go skill built with core/skill/local's Main, and host its skill (repeatable; docs/go-skills.md)")
	addHubFlags(fs, &c.Hub, true)
	af := addAudioFlags(fs)
	addShellFlags(fs, &c.Shell)
	if err := c.Load(fs, args, os.Getenv, func(args []string) error { return parseFlags(fs, args) }, audioBound(af)); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	if err := c.Validate(); err != nil {
		return usageError{err.Error()}
	}
	// The audio flags the configuration does not hold (--wake…), and
	// which sources go with which input.
	if err := af.Check(c.Input); err != nil {
		return err
	}
	hubCfg, err := hubConfig(c.Hub)
	if err != nil {
		return err
	}
	logs := runtime.NewLogs(stderr, c.Level())
	af.Sphinx = c.Sphinx
	started := time.Now()
	cfg := runtime.Config{Board: c.Board, SpeakWPM: c.SpeakWPM, Lang: c.Lang, Log: logs.Log,
		StateDir: c.State, ListenWindow: time.Duration(c.ListenWindow), Offline: c.Offline, Hub: hubCfg, RealTime: c.RealTime, LoopProcess: c.LoopProcess,
		LocalSkills: c.LocalSkills, TracePath: c.Trace, TraceOut: stdout, Hearing: *af, Version: version, Trainer: tr}
	r, err := runtime.New(ctx, cfg)
	if err != nil {
		return err
	}
	err = r.Serve(ctx, runtime.ServeConfig{Input: c.Input, Stdin: stdin, Stdout: stdout, Stderr: stderr, TraceOnStdout: c.Trace == "-",
		Lang: c.Lang, Web: c.Web, Shell: runtime.ShellConfig{Socket: c.Shell.Socket, Serial: c.Shell.Serial, Baud: c.Shell.Baud,
			PINFile: c.Shell.PINFile, Reboot: c.Shell.Reboot, Logs: logs, StateDir: c.State, Started: started}})
	if errors.Is(err, runtime.ErrRestart) {
		return exitCodeError{code: restartExitCode, err: err}
	}
	return err
}
