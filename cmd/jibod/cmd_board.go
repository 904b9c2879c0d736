package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"text/tabwriter"

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
	failed := 0
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		for _, r := range results {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
	} else {
		fmt.Fprintf(stdout, "board %s: %s\n", prof.Name, prof.Description)
		tw := tabwriter.NewWriter(stdout, 2, 8, 2, ' ', 0)
		for _, r := range results {
			state, what := "ok", r.Detail
			if !r.OK {
				state, what = "FAIL", r.Error
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Device, r.Driver, r.Where, state, what)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	for _, r := range results {
		if !r.OK {
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d devices did not answer", failed, len(results))
	}
	return nil
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
