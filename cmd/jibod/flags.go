package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/openjibo/jibod/core/diag"
	"github.com/openjibo/jibod/core/hub"
	"github.com/openjibo/jibod/core/hub/wire"
	"github.com/openjibo/jibod/core/runtime"
)

// Environment variables giving the hub when the flags do not.
const (
	hubURLEnv   = "JIBOD_HUB_URL"
	hubTokenEnv = "JIBOD_HUB_TOKEN"
	pinHashEnv  = runtime.PINHashEnv
)

// hubFlags are the hub options of a command line.
type hubFlags struct {
	url, token, ca, encoding, link, triggerOnUp *string
}

func addHubFlags(fs *flag.FlagSet, withTrigger bool) *hubFlags {
	f := &hubFlags{
		url:      fs.String("hub", os.Getenv(hubURLEnv), "the hub's base URL, ws:// or wss:// (default $"+hubURLEnv+"; none: every skill is local)"),
		token:    fs.String("hub-token", os.Getenv(hubTokenEnv), "file holding the robot's hub token (default $"+hubTokenEnv+")"),
		ca:       fs.String("hub-ca", "", "PEM file of an extra CA to trust for wss://"),
		encoding: fs.String("hub-encoding", "cbor", "frame encoding to prefer: cbor or json (the hub chooses)"),
		link:     fs.String("hub-link", string(hub.Persistent), "persistent (one multiplexed websocket) or per-turn (one per transaction, like real robots)"),
	}
	if withTrigger {
		f.triggerOnUp = fs.String("hub-trigger-on-up", "", "send the hub this TRIGGER (NEW_ARRIVAL or SURPRISE) the first time the link comes up")
	}
	return f
}

// config checks the flags.
func (f *hubFlags) config() (runtime.HubConfig, error) {
	c := runtime.HubConfig{URL: *f.url, TokenFile: *f.token, CAFile: *f.ca}
	enc, err := wire.ParseEncoding(*f.encoding)
	if err != nil {
		return c, usageError{fmt.Sprintf("--hub-encoding: %v", err)}
	}
	c.Encoding = enc
	if c.Link, err = hub.ParseLinkMode(*f.link); err != nil {
		return c, usageError{fmt.Sprintf("--hub-link: %v", err)}
	}
	if f.triggerOnUp != nil {
		c.TriggerOnUp = *f.triggerOnUp
		if c.TriggerOnUp != "" && c.TriggerOnUp != "NEW_ARRIVAL" && c.TriggerOnUp != "SURPRISE" {
			return c, usageError{fmt.Sprintf("--hub-trigger-on-up %q: want NEW_ARRIVAL or SURPRISE", c.TriggerOnUp)}
		}
	}
	if c.URL == "" {
		if c.TokenFile != "" && *f.token != os.Getenv(hubTokenEnv) || c.CAFile != "" || c.TriggerOnUp != "" {
			return c, usageError{"--hub-token, --hub-ca and --hub-trigger-on-up need --hub"}
		}
		return c, nil
	}
	if _, err := hub.NewClient(hub.Config{URL: c.URL}); err != nil {
		return c, usageError{fmt.Sprintf("--hub: %v", err)}
	}
	return c, nil
}

// shellFlags are run's flags for the diagnostics shell.
type shellFlags struct {
	Socket  string
	Serial  string
	Baud    int
	PINFile string
	Reboot  string
}

// addShellFlags declares the shell flags on fs.
func addShellFlags(fs *flag.FlagSet) *shellFlags {
	f := &shellFlags{}
	fs.StringVar(&f.Socket, "shell-socket", "", "`PATH` of the diagnostics shell's Unix socket, for jibod shell (default $XDG_RUNTIME_DIR/jibod-shell.sock, else shell.sock in the state folder; off: none)")
	fs.StringVar(&f.Serial, "serial", "", "serve the diagnostics shell on this serial device, e.g. /dev/ttyGS0 (USB gadget) or /dev/ttyS0")
	fs.IntVar(&f.Baud, "serial-baud", diag.DefaultBaud, "the serial console's speed in bits per second (8N1, no flow control)")
	fs.StringVar(&f.PINFile, "shell-pin-file", "", "`file` holding the technician PIN's hash from jibod shell --hash-pin (default shell-pin in the state folder; $"+pinHashEnv+" wins)")
	fs.StringVar(&f.Reboot, "shell-reboot", runtime.RebootExit, "what the shell's reboot does: exit (jibod exits with status 75 for its service manager to restart), system (systemctl reboot) or off")
	return f
}

// check validates the shell flags.
func (f *shellFlags) check() error {
	if f.Serial != "" {
		if err := diag.CheckBaud(f.Baud); err != nil {
			return usageError{"--serial-baud: " + err.Error()}
		}
	}
	switch f.Reboot {
	case runtime.RebootExit, runtime.RebootSystem, runtime.RebootOff:
	default:
		return usageError{fmt.Sprintf("--shell-reboot %q: want exit, system or off", f.Reboot)}
	}
	return nil
}

// checkWebFlag validates --web.
func checkWebFlag(addr string) error {
	if err := runtime.CheckWebAddr(addr); err != nil {
		return usageError{"--web: " + err.Error()}
	}
	return nil
}

// newRunLogger builds the run's logger writing to w at level.
func newRunLogger(w io.Writer, level string) (*runtime.Logs, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(strings.ToUpper(level))); err != nil {
		return nil, usageError{fmt.Sprintf("--log-level %q: want debug, info, warn or error", level)}
	}
	return runtime.NewLogs(w, l), nil
}

// programList is a repeatable flag of program paths.
type programList []string

func (l *programList) String() string { return strings.Join(*l, ",") }

func (l *programList) Set(v string) error {
	if v == "" {
		return errors.New("empty program")
	}
	*l = append(*l, v)
	return nil
}

// errRestart ends a run whose shell asked for a restart.
var errRestart = errors.New("restart requested from the diagnostics shell")

// restartExitCode is the status jibod exits with for a restart.
const restartExitCode = runtime.RestartExitCode

// exitCodeError makes jibod exit with a particular status.
type exitCodeError struct {
	code int
	err  error
}

func (e exitCodeError) Error() string { return e.err.Error() }
func (e exitCodeError) Unwrap() error { return e.err }
