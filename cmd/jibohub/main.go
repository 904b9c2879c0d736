// Command jibohub is the reference hub for jibod's remote skills: robots
// connect over websockets (spec/jibo.md §1) and its skills answer them.
// Subcommands:
//
//	jibohub serve     serve robots (the shipped skills plus HTTP skills)
//	jibohub keygen    write a token signing key
//	jibohub token     issue a robot token
//	jibohub skills    list the hosted skills and their intents
//	jibohub loadtest  simulated robots against a hub (see 'jibohub loadtest -h')
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

const usage = `jibohub: the reference hub for jibod's remote skills

Usage:
  jibohub serve [flags]      serve robots; see 'jibohub serve -h'
  jibohub keygen --out FILE  write a new token signing key (hex, mode 0600)
  jibohub token --key FILE --robot ID [--account ID] [--ttl 720h]
                             print a robot token (JWT)
  jibohub skills [flags]     list the hosted skills, their intents and triggers
  jibohub loadtest [flags]   simulated robots against a hub; see 'jibohub loadtest -h'
  jibohub version            print the version

`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run dispatches a subcommand and returns the exit code: 0 success, 1
// failure, 2 usage error.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "serve":
		err = runServe(ctx, args[1:], stdout, stderr)
	case "keygen":
		err = runKeygen(args[1:], stdout, stderr)
	case "token":
		err = runToken(args[1:], stdout, stderr)
	case "skills":
		err = runSkills(args[1:], stdout, stderr)
	case "loadtest":
		return runLoadtest(ctx, args[1:], stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, "jibohub", version)
		return 0
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "jibohub: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, new(usageError)):
		fmt.Fprintln(stderr, "jibohub:", err)
		return 2
	}
	fmt.Fprintln(stderr, "jibohub:", err)
	return 1
}

// usageError is a command line that cannot be run.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// parseFlags parses args, turning a parse error into a usage error.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usagef("%s: unexpected argument %q", fs.Name(), fs.Arg(0))
	}
	return nil
}
