package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"time"

	"github.com/openjibo/jibod/core/web"
	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/device/ledring"
)

// webOff is --web's value for no page (the default).
const webOff = "off"

// checkWebFlag validates --web.
func checkWebFlag(addr string) error {
	if addr == "" || addr == webOff {
		return nil
	}
	if err := web.CheckAddr(addr); err != nil {
		return usageError{"--web: " + err.Error()}
	}
	return nil
}

// startWeb serves the robot's web page on addr (--web) and prints its
// address on w; the returned func stops it. A page that cannot be served
// is reported, not fatal: the robot matters more than its page.
func startWeb(r *robot, shell *shellRun, addr string, w io.Writer, log *slog.Logger) (stop func()) {
	if addr == "" || addr == webOff {
		return func() {}
	}
	cfg := web.Config{Addr: addr, Bus: r.bus, Version: version, Board: r.body.Profile.Name, Logger: log}
	if r.parts.motion != nil {
		cfg.Body = r.parts.motion
	}
	if r.body.Lights != nil {
		cfg.Lights = ringColours{r.body.Lights}
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
		log.Error("web page not served", "err", err)
		fmt.Fprintf(w, "jibod: web page not served: %v\n", err)
		return func() {}
	}
	fmt.Fprintf(w, "jibod: web page on http://%s/\n", bound)
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Close(ctx); err != nil {
			log.Warn("stopping the web page", "err", err)
		}
	}
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
