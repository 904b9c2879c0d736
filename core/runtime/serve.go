package runtime

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/openjibo/jibod/audio/listen"
	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/runtime/hearing"
)

// ErrRestart ends a run whose shell asked for a restart (RebootExit):
// jibod exits with RestartExitCode for its service manager to start it
// again.
var ErrRestart = errors.New("restart requested from the diagnostics shell")

// CloseTimeout bounds how long Serve waits for the robot to stop.
const CloseTimeout = 10 * time.Second

// ServeConfig is how Serve lets people reach the robot.
type ServeConfig struct {
	// Input is where typed utterances come from: "console"
	// (interactive), "stdin" (one per line), "none" (hearing only: the run
	// ends with the audio) or "shell" (standard input and output are the
	// diagnostics shell's: the run ends with it).
	Input string
	// Stdin and Stdout are the process's; Stderr takes the web page's
	// address.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// TraceOnStdout says the bus trace writes to Stdout, so the robot's
	// words do not.
	TraceOnStdout bool
	// Lang is the language the console hears stop in.
	Lang string
	// Shell is where the shell is served; its Restart is Serve's own.
	Shell ShellConfig
	// Web is the web page's address; "" or WebOff for none.
	Web string
}

// Serve opens the console, the diagnostics shell and the web page on r,
// serves until the input ends (or ctx does), then stops them and closes r,
// waiting at most CloseTimeout. A restart asked from the shell ends it
// with an error wrapping ErrRestart; an input that ends by ctx's
// cancellation is no error.
func (r *Robot) Serve(ctx context.Context, c ServeConfig) error {
	ctx, restart := context.WithCancelCause(ctx)
	defer restart(nil)
	out := c.Stdout // where people read what the robot does
	if c.TraceOnStdout || c.Input == "shell" {
		out = io.Discard // standard output is the trace's, or the shell's
	}
	con, closeConsole, err := r.OpenConsole(ConsoleConfig{Input: c.Input, In: c.Stdin, Out: out, Lang: c.Lang,
		Show: map[string]func(bus.Message) string{listen.TopicRecognized: hearing.HeardLine, listen.TopicError: hearing.HeardLine}})
	if err != nil {
		_ = r.Close(context.Background()) // the console's error says what went wrong
		return err
	}
	defer closeConsole()
	sc := c.Shell
	sc.Restart = func() { restart(ErrRestart) }
	shell, err := r.StartShell(ctx, sc)
	if err != nil {
		return errors.Join(err, r.Close(context.Background()))
	}
	stopWeb := r.StartWeb(c.Web, shell, c.Stderr)
	if c.Input == "console" {
		con.Printf("jibod %s on the %s board. Type to talk to the robot (\"stop\" stops it); Ctrl-D to leave.\n", r.version, r.Body().Board.Profile.Name)
	}
	var loopErr error
	switch c.Input {
	case "none":
		loopErr = r.Hearing().Wait(ctx) // until the audio ends
	case "shell":
		loopErr = shell.ServeStdio(ctx, c.Stdin, c.Stdout)
	default:
		loopErr = con.Run(ctx)
	}
	stopWeb()
	shell.Stop()
	closeCtx, cancel := context.WithTimeout(context.Background(), CloseTimeout)
	defer cancel()
	err = r.Close(closeCtx)
	if errors.Is(context.Cause(ctx), ErrRestart) {
		return errors.Join(ErrRestart, err)
	}
	if loopErr != nil && !errors.Is(loopErr, context.Canceled) {
		return errors.Join(loopErr, err)
	}
	return err
}
