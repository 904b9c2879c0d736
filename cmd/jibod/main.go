// Command jibod is the robot runtime: it listens, understands, decides and
// moves, all on the robot. Subcommands:
//
//	jibod run       start the robot (simulated board by default)
//	jibod selftest  exercise the whole chain on the sim board and report
//	jibod version   print the version
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"

	jrt "github.com/openjibo/jibod/core/runtime"
	"github.com/openjibo/jibod/core/runtime/hearing"
	"github.com/openjibo/jibod/motion"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

const usage = `jibod: the Jibo-style robot runtime

Usage:
  jibod run [flags]        start the robot; see 'jibod run -h'
  jibod selftest [flags]   exercise the chain on the sim board; exit 0 only if it works
  jibod intents ...        intent tools for skill authors (expand, match, eval)
  jibod scenario run FILE  run a scripted situation and print its bus traffic
  jibod jcp run FILE.json  run a JCP action on the sim board; print the timeline (--svg to draw it)
  jibod protocol check FILE...  validate Jibo messages, JCP actions, manifests and MIMs; print canonical JSON
  jibod motion loop        run the motion control loop and report its tick lateness
  jibod skills ...         the robot's skills: list, install DIR|FILE, uninstall ID, graph SKILL_ID, try, runs
  jibod people ...         the people the robot knows: list, add --first NAME, remove ID|NAME, owner ID|NAME
  jibod board check        open every device of a board profile and report what answers
  jibod audio ...          audio tools: devices, level (a live meter), eval, prompts, enroll, adapt
  jibod hub status|catalog  check the cloud hub link and list its skills (--hub URL --hub-token FILE)
  jibod shell              attach to the running jibod's diagnostics shell (--hash-pin: make a PIN hash)
  jibod version            print the version

`

func main() {
	if motion.IsProcess() {
		os.Exit(jrt.ServeLoopProcess())
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// nil: each robot's paraphrase tier trains itself.
	code := run(ctx, nil, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run dispatches a subcommand and returns the exit code: 0 success, 1
// failure, 2 usage error. tr trains the robots' paraphrase tiers (nil:
// their own training; the tests share remembered models).
func run(ctx context.Context, tr jrt.Trainer, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "run":
		err = cmdRun(ctx, tr, args[1:], stdin, stdout, stderr)
	case "selftest":
		err = cmdSelftest(ctx, tr, args[1:], stdout, stderr)
	case "scenario":
		err = cmdScenario(ctx, tr, args[1:], stdout, stderr)
	case "intents":
		err = cmdIntents(ctx, tr, args[1:], stdin, stdout, stderr)
	case "jcp":
		err = cmdJCP(ctx, args[1:], stdout, stderr)
	case "protocol":
		err = cmdProtocol(ctx, args[1:], stdout, stderr)
	case "motion":
		err = cmdMotion(ctx, tr, args[1:], stdout, stderr)
	case "skills":
		err = cmdSkills(ctx, args[1:], stdin, stdout, stderr)
	case "people", "loop": // loop: the former name, Jibo's word for them
		err = cmdPeople(args[1:], stdout, stderr)
	case "board":
		err = cmdBoard(ctx, args[1:], stdout, stderr)
	case "audio":
		err = cmdAudio(ctx, tr, args[1:], stdin, stdout, stderr)
	case "shell":
		err = cmdShell(ctx, args[1:], stdin, stdout, stderr)
	case "hub":
		err = cmdHub(ctx, args[1:], stdout, stderr)
	case "version", "--version", "-version":
		fmt.Fprintf(stdout, "jibod %s (%s, %s/%s)\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
	default:
		fmt.Fprintf(stderr, "jibod: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	var ec exitCodeError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, new(usageError)), errors.As(err, new(hearing.FlagError)):
		fmt.Fprintf(stderr, "jibod %s: %v\n", args[0], err)
		return 2
	case errors.As(err, &ec): // a run ending on purpose with its own status
		fmt.Fprintf(stderr, "jibod %s: %v\n", args[0], err)
		return ec.code
	default:
		fmt.Fprintf(stderr, "jibod %s: %v\n", args[0], err)
		return 1
	}
}

// usageError is a bad command line.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// newLogger builds the process logger writing to w at level.
func newLogger(w io.Writer, level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(strings.ToUpper(level))); err != nil {
		return nil, usageError{fmt.Sprintf("--log-level %q: want debug, info, warn or error", level)}
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l})), nil
}

// parseFlags parses a subcommand's flags; a bad flag is a usage error (the
// flag package has already printed what it knows).
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err.Error()}
	}
	return nil
}
