package main

import (
	"errors"
	"flag"
	"os"
	"strings"

	"github.com/openjibo/jibod/core/diag"
	"github.com/openjibo/jibod/core/hub"
	"github.com/openjibo/jibod/core/runtime"
	"github.com/openjibo/jibod/core/runtime/config"
)

// Environment variables giving the hub when the flags do not.
const (
	hubURLEnv   = "JIBOD_HUB_URL"
	hubTokenEnv = "JIBOD_HUB_TOKEN"
	pinHashEnv  = runtime.PINHashEnv
)

// addHubFlags declares the hub flags on fs, bound to h; the trigger only
// withTrigger.
func addHubFlags(fs *flag.FlagSet, h *config.Hub, withTrigger bool) {
	fs.StringVar(&h.URL, "hub", os.Getenv(hubURLEnv), "the hub's base URL, ws:// or wss:// (default $"+hubURLEnv+"; none: every skill is local)")
	fs.StringVar(&h.TokenFile, "hub-token", os.Getenv(hubTokenEnv), "file holding the robot's hub token (default $"+hubTokenEnv+")")
	fs.StringVar(&h.CAFile, "hub-ca", "", "PEM file of an extra CA to trust for wss://")
	fs.StringVar(&h.Encoding, "hub-encoding", "cbor", "frame encoding to prefer: cbor or json (the hub chooses)")
	fs.StringVar(&h.Link, "hub-link", string(hub.Persistent), "persistent (one multiplexed websocket) or per-turn (one per transaction, like real robots)")
	if withTrigger {
		fs.StringVar(&h.TriggerOnUp, "hub-trigger-on-up", "", "send the hub this TRIGGER (NEW_ARRIVAL or SURPRISE) the first time the link comes up")
	}
}

// hubConfig checks the hub flags' values.
func hubConfig(h config.Hub) (runtime.HubConfig, error) {
	c, err := runtime.HubConfigOf(h, os.Getenv(hubTokenEnv))
	if err != nil {
		return c, usageError{err.Error()}
	}
	return c, nil
}

// addShellFlags declares the diagnostics shell's flags on fs, bound to s.
func addShellFlags(fs *flag.FlagSet, s *config.Shell) {
	fs.StringVar(&s.Socket, "shell-socket", "", "`PATH` of the diagnostics shell's Unix socket, for jibod shell (default $XDG_RUNTIME_DIR/jibod-shell.sock, else shell.sock in the state folder; off: none)")
	fs.StringVar(&s.Serial, "serial", "", "serve the diagnostics shell on this serial device, e.g. /dev/ttyGS0 (USB gadget) or /dev/ttyS0")
	fs.IntVar(&s.Baud, "serial-baud", diag.DefaultBaud, "the serial console's speed in bits per second (8N1, no flow control)")
	fs.StringVar(&s.PINFile, "shell-pin-file", "", "`file` holding the technician PIN's hash from jibod shell --hash-pin (default shell-pin in the state folder; $"+pinHashEnv+" wins)")
	fs.StringVar(&s.Reboot, "shell-reboot", runtime.RebootExit, "what the shell's reboot does: exit (jibod exits with status 75 for its service manager to restart), system (systemctl reboot) or off")
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

// restartExitCode is the status jibod exits with for a restart.
const restartExitCode = runtime.RestartExitCode

// exitCodeError makes jibod exit with a particular status.
type exitCodeError struct {
	code int
	err  error
}

func (e exitCodeError) Error() string { return e.err.Error() }
func (e exitCodeError) Unwrap() error { return e.err }
