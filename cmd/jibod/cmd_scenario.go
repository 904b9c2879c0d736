package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/pipeline/scenario"
	"github.com/openjibo/jibod/core/runtime"
)

const scenarioUsage = `Usage:
  jibod scenario run [--summary] [--log-level L] FILE.json
      run a scripted situation through the real orchestrator and print every
      bus message as one JSON line ({"type","data","context"}); with
      --summary, one "<step> <type>" line per message instead
`

// cmdScenario runs scenario files for skill and plugin authors.
func cmdScenario(ctx context.Context, tr runtime.Trainer, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "run" {
		fmt.Fprint(stderr, scenarioUsage)
		if len(args) == 0 {
			return usageError{"scenario: missing command"}
		}
		return usageError{fmt.Sprintf("scenario: unknown command %q", args[0])}
	}
	fs := flag.NewFlagSet("scenario run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	summary := fs.Bool("summary", false, `print "<step> <type>" per message instead of the JSON lines`)
	logLevel := fs.String("log-level", "error", "log level: debug, info, warn or error (logs go to standard error)")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageError{"scenario run: want exactly one scenario file"}
	}
	log, err := newLogger(stderr, *logLevel)
	if err != nil {
		return err
	}
	sc, err := scenario.ParseFile(fs.Arg(0))
	if err != nil {
		return err
	}
	opts := scenario.Options{Logger: log, Intents: func(b *bus.Bus, log *slog.Logger) (scenario.IntentStack, error) {
		return runtime.NewIntentStack(b, log, false, tr)
	}}
	if *summary {
		return scenario.RunSummary(ctx, sc, stdout, opts)
	}
	return scenario.Run(ctx, sc, stdout, opts)
}
