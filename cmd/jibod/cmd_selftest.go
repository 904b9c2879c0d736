package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/openjibo/jibod/core/selftest"
)

func cmdSelftest(ctx context.Context, args []string, stdout, stderr io.Writer) error {
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
	passed, failed, started := selftest.Run(ctx, selftestRobot(*boardName, log), func(s selftest.Step) {
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

// selftestRobot starts a robot on boardName with its state in memory for
// the self-test; jibod selftest and the shell's selftest command share it.
func selftestRobot(boardName string, log *slog.Logger) selftest.Starter {
	return func(ctx context.Context) (*selftest.Robot, func(context.Context) error, error) {
		r, err := newRobot(ctx, robotConfig{Board: boardName, SpeakWPM: 0, Log: log})
		if err != nil {
			return nil, nil, err
		}
		st := &selftest.Robot{Bus: r.bus, Exec: r.exec, Motors: map[string]selftest.Motor{},
			Devices: func(ctx context.Context) []selftest.Device {
				var out []selftest.Device
				for _, c := range r.body.Check(ctx) {
					out = append(out, selftest.Device{Device: c.Device, Driver: c.Driver, OK: c.OK, Error: c.Error})
				}
				return out
			}}
		for axis, m := range r.body.Motors {
			st.Motors[axis] = m
		}
		return st, r.Close, nil
	}
}
