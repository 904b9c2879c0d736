package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/openjibo/jibod/core/diag"
	"github.com/openjibo/jibod/core/runtime"
)

const shellUsage = `Usage:
  jibod shell [--socket PATH] [--state DIR] [-c COMMANDS]   attach to the running jibod's diagnostics shell
  jibod shell --hash-pin                                    make a technician PIN's hash for the robot's configuration

On a terminal the session is interactive (help lists the commands, Ctrl-D
leaves); with standard input from a file or pipe, or with -c, each line is
run as a command and only the output is printed.

Flags:
`

// maxShellCommands bounds -c.
const maxShellCommands = 16 << 10

func cmdShell(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("shell", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, shellUsage); fs.PrintDefaults() }
	socket := fs.String("socket", "", "the shell's socket (default: the first there of $XDG_RUNTIME_DIR/jibod-shell.sock, shell.sock in the state folder, /run/jibod/shell.sock, /var/lib/jibod/shell.sock)")
	stateDir := fs.String("state", runtime.DefaultStateDir(), "the state folder jibod runs with (for the default socket)")
	commands := fs.String("c", "", "run these commands (one per line) instead of reading standard input")
	hashPIN := fs.Bool("hash-pin", false, "read a PIN (4-12 digits) and print its hash for "+pinHashEnv+" or the shell-pin file")
	iterations := fs.Int("iterations", diag.DefaultPINIterations, "PBKDF2 iterations for --hash-pin")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	in, _ := stdin.(*os.File)
	out, _ := stdout.(*os.File)
	if *hashPIN {
		if in == nil {
			return errors.New("--hash-pin reads the PIN from standard input")
		}
		h, err := diag.AskPINHash(in, stderr, *iterations)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, h)
		return nil
	}
	if len(*commands) > maxShellCommands {
		return usageError{fmt.Sprintf("-c: %d bytes, at most %d", len(*commands), maxShellCommands)}
	}
	path := *socket
	if path == "" {
		sd := *stateDir
		if sd == runtime.NoState {
			sd = ""
		}
		candidates := diag.SocketCandidates(sd)
		if len(candidates) == 0 {
			return usageError{"no socket to look for: give --socket PATH"}
		}
		var err error
		if path, err = diag.FindSocket(candidates); err != nil {
			return err
		}
	}
	if out == nil {
		return errors.New("jibod shell writes to standard output directly")
	}
	if *commands != "" {
		// The commands fit in a pipe's buffer (64 KiB on Linux), so they
		// are written before anything reads them.
		r, w, err := os.Pipe()
		if err != nil {
			return err
		}
		defer r.Close()
		_, err = io.WriteString(w, *commands+"\n")
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("-c: %w", err)
		}
		in = r
	}
	if in == nil {
		return errors.New("jibod shell reads standard input directly")
	}
	return diag.Attach(ctx, path, in, out)
}
