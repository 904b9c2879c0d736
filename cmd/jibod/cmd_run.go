package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/openjibo/jibod/audio/listen"
	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/runtime"
	"github.com/openjibo/jibod/core/runtime/config"
	"github.com/openjibo/jibod/core/runtime/hearing"
)

func cmdRun(ctx context.Context, tr runtime.Trainer, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := &config.Run{}
	fs.String("config", "", "read the configuration from this JSON `FILE` first; the environment, then the flags, override it (default $"+config.FileEnv+"; docs/config.md)")
	fs.StringVar(&c.Board, "board", "sim", "board profile: a built-in name (sim) or a profile file")
	fs.StringVar(&c.Input, "input", "console", "where typed utterances come from: console (interactive), stdin (one per line), none (only --audio; the run ends with the audio) or shell (standard input/output is the diagnostics shell; the run ends with it)")
	fs.StringVar(&c.Trace, "trace", "", "write every bus message to this file as JSON lines ('-' for standard output)")
	fs.IntVar(&c.SpeakWPM, "speak-wpm", -1, "sim speaker rate in words per minute, 0 = instant (default: the profile's)")
	fs.StringVar(&c.Lang, "lang", "en-US", "default language")
	fs.StringVar(&c.LogLevel, "log-level", "warn", "log level: debug, info, warn or error (logs go to standard error)")
	fs.StringVar(&c.State, "state", runtime.DefaultStateDir(), "folder keeping skill conversations, timers, run records and the loop across restarts ('none': memory only; default $"+runtime.StateDirEnv+")")
	fs.DurationVar((*time.Duration)(&c.ListenWindow), "listen-window", 0, "how long a skill's question waits for its answer (default 30s)")
	fs.BoolVar(&c.RealTime, "realtime", true, realtimeUsage)
	fs.StringVar(&c.Web, "web", "", "serve the robot's web page on `ADDR`, host:port (127.0.0.1:0 picks a free port; docs/web.md); off by default")
	fs.BoolVar(&c.Offline, "offline", false, "start offline: installed WebAssembly skills cannot fetch from the network, and the hub is not contacted")
	fs.Var((*programList)(&c.LocalSkills), "local-skill", "start this `PROGRAM`, a Go skill built with core/skill/local's Main, and host its skill (repeatable; docs/go-skills.md)")
	hf := addHubFlags(fs, true)
	af := addAudioFlags(fs)
	sf := addShellFlags(fs)
	if err := loadRunConfig(c, fs, args, hf, af, sf); err != nil {
		return err
	}
	if w := time.Duration(c.ListenWindow); w < 0 || w > time.Hour {
		return usageError{fmt.Sprintf("--listen-window %s: want 0..1h", w)}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	if c.Input != "console" && c.Input != "stdin" && c.Input != "none" && c.Input != "shell" {
		return usageError{fmt.Sprintf("--input %q: want console or stdin (or none, with --audio; or shell)", c.Input)}
	}
	if err := af.Check(c.Input); err != nil {
		return err
	}
	if err := sf.check(); err != nil {
		return err
	}
	if err := checkWebFlag(c.Web); err != nil {
		return err
	}
	hubCfg, err := hf.config()
	if err != nil {
		return err
	}
	logs, err := newRunLogger(stderr, c.LogLevel)
	if err != nil {
		return err
	}
	if err := c.Validate(); err != nil {
		return usageError{err.Error()}
	}
	af.Sphinx = c.Sphinx
	log := logs.Log
	// The shell's reboot (--shell-reboot exit) ends the run with errRestart.
	ctx, restart := context.WithCancelCause(ctx)
	defer restart(nil)

	out := stdout // where people read what the robot does
	if c.Trace == "-" {
		out = io.Discard // standard output is the trace's
	}
	if c.Input == "shell" {
		out = io.Discard // standard output is the shell's
	}
	started := time.Now()
	cfg := runtime.Config{Board: c.Board, SpeakWPM: c.SpeakWPM, Lang: c.Lang, Log: log,
		StateDir: c.State, ListenWindow: time.Duration(c.ListenWindow), Offline: c.Offline, Hub: hubCfg, RealTime: c.RealTime,
		LocalSkills: c.LocalSkills, TracePath: c.Trace, TraceOut: stdout, Hearing: *af, Version: version, Trainer: tr}
	r, err := runtime.New(ctx, cfg)
	if err != nil {
		return err
	}

	con, closeConsole, err := r.OpenConsole(runtime.ConsoleConfig{Input: c.Input, In: stdin, Out: out, Lang: c.Lang,
		Show: map[string]func(bus.Message) string{listen.TopicRecognized: hearing.HeardLine, listen.TopicError: hearing.HeardLine}})
	if err != nil {
		r.Close(context.Background())
		return err
	}
	defer closeConsole()
	shell, err := r.StartShell(ctx, runtime.ShellConfig{Socket: sf.Socket, Serial: sf.Serial, Baud: sf.Baud, PINFile: sf.PINFile,
		Reboot: sf.Reboot, Logs: logs, StateDir: c.State, Started: started, Restart: func() { restart(errRestart) }})
	if err != nil {
		return errors.Join(err, r.Close(context.Background()))
	}
	stopWeb := r.StartWeb(c.Web, shell, stderr)
	if c.Input == "console" {
		con.Printf("jibod %s on the %s board. Type to talk to the robot (\"stop\" stops it); Ctrl-D to leave.\n", version, r.Body().Board.Profile.Name)
	}
	var loopErr error
	switch c.Input {
	case "none":
		loopErr = r.Hearing().Wait(ctx) // until the audio ends
	case "shell":
		loopErr = shell.ServeStdio(ctx, stdin, stdout)
	default:
		loopErr = con.Run(ctx)
	}
	stopWeb()
	shell.Stop()
	closeCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = r.Close(closeCtx)
	if errors.Is(context.Cause(ctx), errRestart) {
		return exitCodeError{code: restartExitCode, err: errors.Join(errRestart, err)}
	}
	if loopErr != nil && !errors.Is(loopErr, context.Canceled) {
		return errors.Join(loopErr, err)
	}
	return err
}
