package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/openjibo/jibod/core/runtime"
	"github.com/openjibo/jibod/core/selftest"
)

func cmdSelftest(ctx context.Context, tr runtime.Trainer, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("selftest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	boardName := fs.String("board", "sim", "board profile to test (a built-in name or a file)")
	logLevel := fs.String("log-level", "error", "log level for the runtime under test")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	log, err := newLogger(stderr, *logLevel)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "jibod %s selftest on the %s board\n", version, *boardName)
	passed, failed, started := selftest.Run(ctx, runtime.Selftest(runtime.Config{Board: *boardName, Log: log, Version: version, Trainer: tr}), func(s selftest.Step) {
		switch {
		case s.Err != nil:
			fmt.Fprintf(stdout, "[FAIL] %s: %v\n", s.Name, s.Err)
		case s.Detail == "":
			fmt.Fprintf(stdout, "[pass] %s\n", s.Name)
		default:
			fmt.Fprintf(stdout, "[pass] %s: %s\n", s.Name, s.Detail)
		}
	})
	if !started {
		return errors.New("selftest failed")
	}
	fmt.Fprintf(stdout, "selftest: %d passed, %d failed\n", passed, failed)
	if failed > 0 {
		return errors.New("selftest failed")
	}
	return nil
}
