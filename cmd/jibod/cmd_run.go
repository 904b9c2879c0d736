package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/audio/listen"
	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/runtime"
)

func cmdRun(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	boardName := fs.String("board", "sim", "board profile: a built-in name (sim) or a profile file")
	input := fs.String("input", "console", "where typed utterances come from: console (interactive), stdin (one per line), none (only --audio; the run ends with the audio) or shell (standard input/output is the diagnostics shell; the run ends with it)")
	trace := fs.String("trace", "", "write every bus message to this file as JSON lines ('-' for standard output)")
	wpm := fs.Int("speak-wpm", -1, "sim speaker rate in words per minute, 0 = instant (default: the profile's)")
	lang := fs.String("lang", "en-US", "default language")
	logLevel := fs.String("log-level", "warn", "log level: debug, info, warn or error (logs go to standard error)")
	stateDir := fs.String("state", defaultStateDir(), "folder keeping skill conversations, timers, run records and the loop across restarts ('none': memory only; default $"+stateDirEnv+")")
	listenWindow := fs.Duration("listen-window", 0, "how long a skill's question waits for its answer (default 30s)")
	realtime := fs.Bool("realtime", true, realtimeUsage)
	webAddr := fs.String("web", "", "serve the robot's web page on `ADDR`, host:port (127.0.0.1:0 picks a free port; docs/web.md); off by default")
	offline := fs.Bool("offline", false, "start offline: installed WebAssembly skills cannot fetch from the network, and the hub is not contacted")
	var localSkills programList
	fs.Var(&localSkills, "local-skill", "start this `PROGRAM`, a Go skill built with core/skill/local's Main, and host its skill (repeatable; docs/go-skills.md)")
	hf := addHubFlags(fs, true)
	af := addAudioFlags(fs)
	sf := addShellFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *listenWindow < 0 || *listenWindow > time.Hour {
		return usageError{fmt.Sprintf("--listen-window %s: want 0..1h", *listenWindow)}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	if *input != "console" && *input != "stdin" && *input != "none" && *input != "shell" {
		return usageError{fmt.Sprintf("--input %q: want console or stdin (or none, with --audio; or shell)", *input)}
	}
	if err := af.check(*input); err != nil {
		return err
	}
	if err := sf.check(); err != nil {
		return err
	}
	if err := checkWebFlag(*webAddr); err != nil {
		return err
	}
	hubCfg, err := hf.config()
	if err != nil {
		return err
	}
	logs, err := newRunLogger(stderr, *logLevel)
	if err != nil {
		return err
	}
	log := logs.Log
	// The shell's reboot (--shell-reboot exit) ends the run with errRestart.
	ctx, restart := context.WithCancelCause(ctx)
	defer restart(nil)

	out := stdout // where people read what the robot does
	var tap *bus.Tap
	var traceFile *os.File
	switch *trace {
	case "":
	case "-":
		tap = bus.NewTap(stdout, true, log)
		out = io.Discard
	default:
		if traceFile, err = os.Create(*trace); err != nil {
			return fmt.Errorf("opening trace: %w", err)
		}
		defer traceFile.Close()
		tap = bus.NewTap(traceFile, false, log)
	}
	if *input == "shell" {
		out = io.Discard // standard output is the shell's
	}
	started := time.Now()
	cfg := robotConfig{Board: *boardName, SpeakWPM: *wpm, Lang: *lang, Log: log,
		StateDir: *stateDir, ListenWindow: *listenWindow, Offline: *offline, Hub: hubCfg, RealTime: *realtime,
		LocalSkills: localSkills, Speech: af.Speech}
	if tap != nil {
		cfg.Tap = tap.Handle
	}
	r, err := newRobot(ctx, cfg)
	if err != nil {
		return err
	}

	con, closeConsole, err := r.OpenConsole(runtime.ConsoleConfig{Input: *input, In: stdin, Out: out, Lang: *lang,
		Show: map[string]func(bus.Message) string{listen.TopicRecognized: heardLine, listen.TopicError: heardLine}})
	if err != nil {
		r.Close(context.Background())
		return err
	}
	defer closeConsole()
	backends, freeBackends := audioBackends(log)
	// The shell hears what the robot hears through a tap on the backends.
	mic := audio.NewTap(af.Audio, backends)
	if mic != nil {
		backends = mic.Backends()
	}
	hear, err := startListening(ctx, r, af, *lang, newRecognizer, backends, log)
	if err != nil {
		return errors.Join(err, freeBackends(), r.Close(context.Background()))
	}
	shell, err := r.StartShell(ctx, runtime.ShellConfig{Socket: sf.Socket, Serial: sf.Serial, Baud: sf.Baud, PINFile: sf.PINFile,
		Reboot: sf.Reboot, Logs: logs, StateDir: *stateDir, Started: started, Mic: mic,
		Listener: hear.listener(), Restart: func() { restart(errRestart) }})
	if err != nil {
		return errors.Join(err, hear.stop(), freeBackends(), r.Close(context.Background()))
	}
	stopWeb := r.StartWeb(*webAddr, shell, stderr)
	if *input == "console" {
		con.Printf("jibod %s on the %s board. Type to talk to the robot (\"stop\" stops it); Ctrl-D to leave.\n", version, r.body.Profile.Name)
	}
	var loopErr error
	switch *input {
	case "none":
		loopErr = hear.wait(ctx) // until the audio ends
	case "shell":
		loopErr = shell.ServeStdio(ctx, stdin, stdout)
	default:
		loopErr = con.Run(ctx)
	}
	stopWeb()
	shell.Stop()
	hearErr := errors.Join(hear.stop(), freeBackends())

	closeConsole()
	closeCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = r.Close(closeCtx)
	if tap != nil {
		err = errors.Join(err, tap.Flush())
	}
	if traceFile != nil {
		err = errors.Join(err, traceFile.Close())
	}
	err = errors.Join(hearErr, err)
	if errors.Is(context.Cause(ctx), errRestart) {
		return exitCodeError{code: restartExitCode, err: errors.Join(errRestart, err)}
	}
	if loopErr != nil && !errors.Is(loopErr, context.Canceled) {
		return errors.Join(loopErr, err)
	}
	return err
}
