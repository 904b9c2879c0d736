package main

import (
	"io"
	"log/slog"
	"os"
	"sync"

	"github.com/openjibo/jibod/audio/listen"
	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/console"
	"github.com/openjibo/jibod/core/diag"
)

// openConsole builds the text console of --input (console or stdin; with
// none and shell it only shows, on out, what the robot says). On a
// terminal the interactive console edits lines in raw mode; close puts the
// terminal back and may be called more than once.
func openConsole(r *robot, input string, stdin io.Reader, out io.Writer, lang string, log *slog.Logger) (*console.Console, func(), error) {
	cfg := console.Config{Bus: r.bus, In: stdin, Out: out, Source: input, Interactive: input == "console",
		IsStop: func(s string) bool { return r.stop.Says(s, lang) },
		Show:   map[string]func(bus.Message) string{listen.TopicRecognized: heardLine, listen.TopicError: heardLine},
		Logger: log}
	closeConn := func() error { return nil }
	if in, ok := stdin.(*os.File); ok && input == "console" {
		if o, ok := out.(*os.File); ok {
			if conn, err := diag.OpenStdio(in, o); err == nil && conn.Mode == diag.Terminal {
				cfg.In, cfg.Out, cfg.Edit, closeConn = conn.R, conn.W, true, conn.Close
			} else if err == nil {
				_ = conn.Close()
			}
		}
	}
	c, err := console.New(cfg)
	if err != nil {
		_ = closeConn()
		return nil, nil, err
	}
	var once sync.Once
	return c, func() {
		once.Do(func() {
			c.Close()
			if err := closeConn(); err != nil {
				log.Warn("putting the terminal back", "err", err)
			}
		})
	}, nil
}
