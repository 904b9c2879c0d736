//go:build linux

package diag

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Transport limits.
const (
	// DefaultBaud is the serial console's speed.
	DefaultBaud = 115200
	// serialRetryMin and serialRetryMax bound the wait before reopening a
	// serial device that failed or is missing.
	serialRetryMin = time.Second
	serialRetryMax = 5 * time.Second
	// helloTimeout bounds reading a socket client's hello line.
	helloTimeout = 10 * time.Second
	// maxSocketPath is the longest Unix socket path Linux takes.
	maxSocketPath = 107
)

// Hello is the first line `jibod shell` sends on the socket, followed by
// the mode ("terminal" or "script").
const Hello = "jibod-shell/1"

// openFile opens path without blocking and without making it the
// controlling terminal, as a pollable *os.File, so deadlines and Close
// reach a Read in progress.
func openFile(path string) (*os.File, error) {
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// OpenSerial opens a serial device (a UART such as /dev/ttyS0 or
// /dev/ttyAMA0, a USB adapter, or the USB gadget serial /dev/ttyGS0) in raw
// mode at baud, 8N1, no flow control. Closing the returned Conn puts the
// device's settings back.
func OpenSerial(path string, baud int) (Conn, error) {
	f, err := openFile(path)
	if err != nil {
		return Conn{}, fmt.Errorf("serial console: %w", err)
	}
	var restore func() error
	ctlErr := control(f, func(fd int) error {
		var err error
		restore, err = makeRaw(fd, true, baud)
		return err
	})
	if ctlErr != nil {
		f.Close()
		return Conn{}, fmt.Errorf("serial console %s: %w", path, ctlErr)
	}
	var once sync.Once
	closeFn := func() error {
		var err error
		once.Do(func() {
			_ = control(f, func(int) error { return restore() })
			err = f.Close()
		})
		return err
	}
	return Conn{R: f, W: f, Close: closeFn, SetWriteDeadline: f.SetWriteDeadline, Name: "serial " + path, Mode: Terminal}, nil
}

// control runs fn on f's descriptor without changing its blocking mode.
func control(f *os.File, fn func(fd int) error) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var inner error
	if err := rc.Control(func(fd uintptr) { inner = fn(int(fd)) }); err != nil {
		return err
	}
	return inner
}

// ServeSerial runs sessions on a serial device until ctx ends: when a
// session ends (the technician leaves with Ctrl-D, or the link fails) the
// device is opened again for the next one, and a device that is missing
// or fails is retried with a growing pause. It returns ctx's error.
func (s *Server) ServeSerial(ctx context.Context, path string, baud int) error {
	wait := serialRetryMin
	lastErr := ""
	for {
		c, err := OpenSerial(path, baud)
		if err != nil {
			// Said once at warning level; the same failure again only at
			// debug level, so a missing device does not flood the log.
			level := slog.LevelWarn
			if err.Error() == lastErr {
				level = slog.LevelDebug
			}
			lastErr = err.Error()
			s.log.Log(ctx, level, "shell: serial console not available; retrying", "device", path, "err", err, "in", wait)
		} else {
			lastErr = ""
			start := time.Now()
			err = s.Serve(ctx, c)
			if err == nil || time.Since(start) > serialRetryMax {
				wait = serialRetryMin // a session that ran for a while resets the backoff
			}
			if err != nil && ctx.Err() == nil {
				s.log.Info("shell: serial session ended", "device", path, "why", err)
			}
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		if err != nil {
			wait = min(2*wait, serialRetryMax)
		}
	}
}

// OpenStdio makes a Conn of standard input and output. On a terminal the
// input goes to raw mode (put back by Close) and the session is
// interactive; otherwise it is a script. Input is read through a
// non-blocking duplicate of in's descriptor, so Close ends a read in
// progress; Close puts the descriptor's flags back.
func OpenStdio(in, out *os.File) (Conn, error) {
	ifd := int(in.Fd()) // Fd: in is the process's own stdin, already blocking
	mode := Script
	var restoreTerm func() error
	if isTerminal(ifd) {
		mode = Terminal
		var err error
		if restoreTerm, err = makeRaw(ifd, false, 0); err != nil {
			return Conn{}, fmt.Errorf("standard input: %w", err)
		}
	}
	flags, err := unix.FcntlInt(uintptr(ifd), unix.F_GETFL, 0)
	if err != nil {
		if restoreTerm != nil {
			_ = restoreTerm()
		}
		return Conn{}, fmt.Errorf("standard input: %w", err)
	}
	dup, err := unix.Dup(ifd)
	if err != nil {
		if restoreTerm != nil {
			_ = restoreTerm()
		}
		return Conn{}, fmt.Errorf("standard input: %w", err)
	}
	unix.CloseOnExec(dup)
	// A regular file cannot be polled; reading it never blocks anyway.
	_ = unix.SetNonblock(dup, true)
	r := os.NewFile(uintptr(dup), "stdin")
	var once sync.Once
	closeFn := func() error {
		var err error
		once.Do(func() {
			err = r.Close()
			_, _ = unix.FcntlInt(uintptr(ifd), unix.F_SETFL, flags)
			if restoreTerm != nil {
				err = errors.Join(err, restoreTerm())
			}
		})
		return err
	}
	return Conn{R: r, W: out, Close: closeFn, Name: "stdio", Mode: mode}, nil
}

// ListenUnix opens the shell's socket at path, readable and writable by
// its owner only. A stale socket left by a jibod that died is replaced; a
// live one (another jibod serving there) is an error, as is anything else
// at path.
func ListenUnix(path string) (*net.UnixListener, error) {
	if path == "" || len(path) > maxSocketPath {
		return nil, fmt.Errorf("shell socket %q: want a path of 1..%d bytes", path, maxSocketPath)
	}
	if st, err := os.Lstat(path); err == nil {
		if st.Mode()&os.ModeSocket == 0 {
			return nil, fmt.Errorf("shell socket %s: something that is not a socket is there", path)
		}
		if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
			c.Close()
			return nil, fmt.Errorf("shell socket %s: another jibod is serving a shell there", path)
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("shell socket %s: removing a stale socket: %w", path, err)
		}
	}
	old := unix.Umask(0o177) // the socket is created 0600 from the start
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	unix.Umask(old)
	if err != nil {
		return nil, fmt.Errorf("shell socket: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		return nil, fmt.Errorf("shell socket: %w", err)
	}
	return l, nil
}

// ServeUnix accepts `jibod shell` connections on l until ctx ends, each a
// session, then closes l and waits for its sessions. Only the user jibod
// runs as, and root, may connect.
func (s *Server) ServeUnix(ctx context.Context, l *net.UnixListener) error {
	var wg sync.WaitGroup
	stop := context.AfterFunc(ctx, func() { l.Close() })
	defer stop()
	defer wg.Wait()
	defer l.Close()
	wait := 10 * time.Millisecond
	for {
		conn, err := l.AcceptUnix()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if errors.Is(err, net.ErrClosed) {
				return err
			}
			// Out of descriptors or the like: pause rather than spin.
			s.log.Warn("shell: accepting a connection", "err", err)
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C:
			}
			wait = min(2*wait, time.Second)
			continue
		}
		wait = 10 * time.Millisecond
		wg.Add(1)
		go func() { // owned: ServeUnix waits for it
			defer wg.Done()
			s.serveUnixConn(ctx, conn)
		}()
	}
}

func (s *Server) serveUnixConn(ctx context.Context, conn *net.UnixConn) {
	who, err := peer(conn)
	if err != nil {
		s.log.Warn("shell: connection refused", "err", err)
		_, _ = io.WriteString(conn, "jibod shell: "+err.Error()+"\n")
		conn.Close()
		return
	}
	_ = conn.SetReadDeadline(time.Now().Add(helloTimeout))
	br := bufio.NewReaderSize(conn, 256)
	line, err := br.ReadSlice('\n')
	_ = conn.SetReadDeadline(time.Time{})
	var mode Mode
	if err == nil {
		switch strings.TrimRight(string(line), "\r\n") {
		case Hello + " terminal":
			mode = Terminal
		case Hello + " script":
			mode = Script
		default:
			err = errors.New("not a jibod shell client")
		}
	}
	if err != nil {
		s.log.Warn("shell: connection refused", "from", who, "err", err)
		_, _ = io.WriteString(conn, "jibod shell: want \""+Hello+" terminal|script\" first (connect with `jibod shell`)\n")
		conn.Close()
		return
	}
	c := Conn{R: br, W: conn, Close: conn.Close, SetWriteDeadline: conn.SetWriteDeadline, Name: "unix " + who, Mode: mode}
	if err := s.Serve(ctx, c); err != nil && ctx.Err() == nil {
		s.log.Info("shell: socket session ended", "from", who, "why", err)
	}
}

// peer names the connecting process and refuses users other than jibod's
// own and root.
func peer(conn *net.UnixConn) (string, error) {
	rc, err := conn.SyscallConn()
	if err != nil {
		return "", err
	}
	var cred *unix.Ucred
	var cerr error
	if err := rc.Control(func(fd uintptr) { cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED) }); err != nil {
		return "", err
	}
	if cerr != nil {
		return "", fmt.Errorf("reading the peer's credentials: %w", cerr)
	}
	who := fmt.Sprintf("uid %d pid %d", cred.Uid, cred.Pid)
	if int(cred.Uid) != os.Getuid() && cred.Uid != 0 {
		return who, fmt.Errorf("user %d may not use this robot's shell", cred.Uid)
	}
	return who, nil
}

// Attach connects the terminal or script on in and out to the shell of the
// jibod serving at path. On a terminal, in goes to raw mode for the
// session (Ctrl-C and Ctrl-D travel to the shell) and is put back after;
// otherwise in is sent as a script and its end ends the session once its
// commands have run. It returns when the session ends or ctx does.
func Attach(ctx context.Context, path string, in, out *os.File) error {
	conn, err := net.DialTimeout("unix", path, 5*time.Second)
	if err != nil {
		return fmt.Errorf("connecting to jibod's shell at %s (is jibod running? --shell-socket says where): %w", path, err)
	}
	uc := conn.(*net.UnixConn)
	defer uc.Close()
	stdin, err := OpenStdio(in, out)
	if err != nil {
		return err
	}
	defer stdin.Close()
	if _, err := io.WriteString(uc, Hello+" "+stdin.Mode.String()+"\n"); err != nil {
		return fmt.Errorf("greeting jibod's shell: %w", err)
	}
	stop := context.AfterFunc(ctx, func() { uc.Close() })
	defer stop()
	sent := make(chan error, 1)
	go func() { // owned: Attach closes stdin below and waits
		_, err := io.Copy(uc, stdin.R)
		if err == nil {
			err = uc.CloseWrite() // the script ended: jibod finishes it and closes
		}
		sent <- err
	}()
	_, err = io.Copy(out, uc)
	stdin.Close()
	<-sent
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil && !errors.Is(err, net.ErrClosed) {
		return fmt.Errorf("shell connection: %w", err)
	}
	return nil
}

// DefaultSocket is where jibod serves its shell: $XDG_RUNTIME_DIR/jibod-shell.sock
// when that is set, else shell.sock in the state folder; "" when there
// is neither.
func DefaultSocket(stateDir string) string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		return d + "/jibod-shell.sock"
	}
	if stateDir != "" {
		return stateDir + "/shell.sock"
	}
	return ""
}

// SocketCandidates are the places `jibod shell` looks for the socket when
// none is named, in order: where a jibod with the same environment would
// serve it, then where the robot's service does (/run/jibod/shell.sock,
// /var/lib/jibod/shell.sock): a technician logged in over ssh has an
// XDG_RUNTIME_DIR and a state folder of their own that the service has not.
func SocketCandidates(stateDir string) []string {
	var out []string
	add := func(p string) {
		for _, o := range out {
			if o == p {
				return
			}
		}
		if p != "" {
			out = append(out, p)
		}
	}
	add(DefaultSocket(stateDir))
	if stateDir != "" {
		add(stateDir + "/shell.sock")
	}
	add("/run/jibod/shell.sock")
	add("/var/lib/jibod/shell.sock")
	return out
}

// ReadSecret reads one line from in without echoing it when in is a
// terminal (prompt goes to out first), for `jibod shell --hash-pin`. From a
// pipe it reads the first line. The line is at most 256 bytes.
func ReadSecret(in *os.File, out io.Writer, prompt string) (string, error) {
	fd := int(in.Fd())
	if old, err := unix.IoctlGetTermios(fd, unix.TCGETS); err == nil {
		t := *old
		t.Lflag &^= unix.ECHO
		t.Lflag |= unix.ICANON | unix.ECHONL
		if err := unix.IoctlSetTermios(fd, unix.TCSETS, &t); err != nil {
			return "", fmt.Errorf("turning echo off: %w", err)
		}
		defer unix.IoctlSetTermios(fd, unix.TCSETS, old)
		_, _ = io.WriteString(out, prompt)
	}
	var b []byte
	one := make([]byte, 1)
	for len(b) <= 256 {
		n, err := in.Read(one)
		if n == 1 {
			if one[0] == '\n' {
				return strings.TrimRight(string(b), "\r"), nil
			}
			b = append(b, one[0])
		}
		if err != nil {
			if err == io.EOF && len(b) > 0 {
				return strings.TrimRight(string(b), "\r"), nil
			}
			return "", err
		}
	}
	return "", errors.New("line too long")
}
