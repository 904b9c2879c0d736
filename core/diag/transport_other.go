//go:build !linux

package diag

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
)

// The robot runs Linux: its transports use Linux terminals and sockets.
// Elsewhere the package builds, and every transport says it is missing.

// DefaultBaud is the serial console's speed.
const DefaultBaud = 115200

// Hello is the first line `jibod shell` sends on the socket.
const Hello = "jibod-shell/1"

var errNotLinux = errors.New("the diagnostics shell's transports need Linux")

func OpenSerial(string, int) (Conn, error)                           { return Conn{}, errNotLinux }
func (s *Server) ServeSerial(context.Context, string, int) error     { return errNotLinux }
func OpenStdio(in, out *os.File) (Conn, error)                       { return Conn{}, errNotLinux }
func ListenUnix(string) (*net.UnixListener, error)                   { return nil, errNotLinux }
func (s *Server) ServeUnix(context.Context, *net.UnixListener) error { return errNotLinux }
func Attach(context.Context, string, *os.File, *os.File) error       { return errNotLinux }
func DefaultSocket(string) string                                    { return "" }
func CheckBaud(int) error                                            { return errNotLinux }

func ReadSecret(*os.File, io.Writer, string) (string, error) { return "", errNotLinux }
