package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/openjibo/jibod/board"
)

const boardUsage = `Usage:
  jibod board check [flags]   open every device of a board profile and report what answers

Flags:
`

func cmdBoard(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "check" {
		fmt.Fprint(stderr, boardUsage)
		if len(args) == 0 {
			return usageError{"missing subcommand (want check)"}
		}
		return usageError{fmt.Sprintf("unknown subcommand %q (want check)", args[0])}
	}
	fs := flag.NewFlagSet("board check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, boardUsage); fs.PrintDefaults() }
	boardName := fs.String("board", "sim", "board profile: a built-in name (sim, rpi) or a profile file")
	asJSON := fs.Bool("json", false, "print one JSON object per device")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	prof, err := board.LoadAny(*boardName)
	if err != nil {
		return err
	}
	results, _ := board.Probe(ctx, prof, board.Options{Logger: discardLogger()})
	return board.WriteCheck(stdout, prof, results, *asJSON)
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
