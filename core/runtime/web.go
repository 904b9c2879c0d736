package runtime

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/console"
	"github.com/openjibo/jibod/core/diag"
	"github.com/openjibo/jibod/core/web"
	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/device/ledring"
)

// WebOff is the web address that serves no page (as does "").
const WebOff = "off"

// StartWeb serves the robot's web page on addr (host:port; "" or WebOff
// for none), with shell's terminal when shell is not nil, and prints its
// address on w. The returned func stops it; the robot's Close stops it
// too. A page that cannot be served is reported, not fatal: the robot
// matters more than its page.
func (r *Robot) StartWeb(addr string, shell *Shell, w io.Writer) (stop func()) {
	if addr == "" || addr == WebOff {
		return func() {}
	}
	b := r.body.Board
	cfg := web.Config{Addr: addr, Bus: r.bus, Version: r.version, Board: b.Profile.Name, Logger: r.log}
	if r.body.Motion != nil {
		cfg.Body = r.body.Motion
	}
	if b.Lights != nil {
		cfg.Lights = ringColours{b.Lights}
	}
	if r.host != nil {
		cfg.Skills = r.host
	}
	if shell != nil {
		cfg.Shell = shell.srv
	}
	srv, err := web.New(cfg)
	var bound net.Addr
	if err == nil {
		if bound, err = srv.Start(); err != nil {
			_ = srv.Close(context.Background())
		}
	}
	if err != nil {
		r.log.Error("web page not served", "err", err)
		fmt.Fprintf(w, "jibod: web page not served: %v\n", err)
		return func() {}
	}
	fmt.Fprintf(w, "jibod: web page on http://%s/\n", bound)
	var once sync.Once
	stop = func() {
		once.Do(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := srv.Close(ctx); err != nil {
				r.log.Warn("stopping the web page", "err", err)
			}
		})
	}
	r.addService(stop)
	return stop
}

// ringColours is the LED ring as the page draws it.
type ringColours struct{ a *ledring.Animator }

// Colors are the ring's colours now, "#rrggbb" each.
func (c ringColours) Colors() []string {
	px := c.a.Frame()
	out := make([]string, len(px))
	for i, p := range px {
		out[i] = device.FormatRGB(p)
	}
	return out
}

var _ web.Lights = ringColours{}

// ConsoleConfig is the text console's configuration beyond the robot.
type ConsoleConfig struct {
	// Input is where typed lines come from: "console" (interactive),
	// "stdin" (one per line); anything else only shows, on Out, what the
	// robot says.
	Input string
	In    io.Reader
	Out   io.Writer
	// Lang is the language the stop words are heard in.
	Lang string
	// Show renders other bus messages on the console, by topic.
	Show map[string]func(bus.Message) string
}

// OpenConsole builds the text console. On a terminal the interactive
// console edits lines in raw mode; close puts the terminal back and may
// be called more than once (the robot's Close calls it too).
func (r *Robot) OpenConsole(c ConsoleConfig) (*console.Console, func(), error) {
	cfg := console.Config{Bus: r.bus, In: c.In, Out: c.Out, Source: c.Input, Interactive: c.Input == "console",
		IsStop: func(s string) bool { return r.stop.Says(s, c.Lang) },
		Show:   c.Show, Logger: r.log}
	closeConn := func() error { return nil }
	if in, ok := c.In.(*os.File); ok && c.Input == "console" {
		if o, ok := c.Out.(*os.File); ok {
			if conn, err := diag.OpenStdio(in, o); err == nil && conn.Mode == diag.Terminal {
				cfg.In, cfg.Out, cfg.Edit, closeConn = conn.R, conn.W, true, conn.Close
			} else if err == nil {
				_ = conn.Close()
			}
		}
	}
	con, err := console.New(cfg)
	if err != nil {
		_ = closeConn()
		return nil, nil, err
	}
	var once sync.Once
	closeFn := func() {
		once.Do(func() {
			con.Close()
			if err := closeConn(); err != nil {
				r.log.Warn("putting the terminal back", "err", err)
			}
		})
	}
	r.addService(closeFn)
	return con, closeFn, nil
}
