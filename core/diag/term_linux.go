//go:build linux

package diag

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// bauds are the serial speeds the shell sets, by bits per second.
var bauds = map[int]uint32{
	9600: unix.B9600, 19200: unix.B19200, 38400: unix.B38400, 57600: unix.B57600,
	115200: unix.B115200, 230400: unix.B230400, 460800: unix.B460800, 921600: unix.B921600,
	1000000: unix.B1000000, 1500000: unix.B1500000, 2000000: unix.B2000000,
}

// isTerminal reports whether fd is a terminal.
func isTerminal(fd int) bool {
	_, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	return err == nil
}

// makeRaw puts the terminal fd in raw input mode: bytes arrive as typed,
// unechoed, with no signal keys (Ctrl-C is a byte the shell handles) and
// no software flow control (a stray Ctrl-S cannot freeze the console).
// Output processing stays on, so "\n" reaches the screen as CR LF. With
// serial set it also sets 8N1 at baud, ignores the modem lines and turns
// hardware flow control off. restore puts back what was there.
func makeRaw(fd int, serial bool, baud int) (restore func() error, err error) {
	old, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return nil, fmt.Errorf("not a terminal: %w", err)
	}
	t := *old
	t.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON | unix.IXOFF
	t.Oflag |= unix.OPOST | unix.ONLCR
	t.Oflag &^= unix.OCRNL | unix.ONLRET | unix.ONOCR
	t.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	t.Cc[unix.VMIN], t.Cc[unix.VTIME] = 1, 0
	if serial {
		t.Cflag &^= unix.CSIZE | unix.PARENB | unix.CSTOPB | unix.CRTSCTS
		t.Cflag |= unix.CS8 | unix.CREAD | unix.CLOCAL
		if baud != 0 {
			speed, ok := bauds[baud]
			if !ok {
				return nil, fmt.Errorf("baud rate %d not supported (use one of %s)", baud, baudList())
			}
			t.Cflag &^= unix.CBAUD
			t.Cflag |= speed
			t.Ispeed, t.Ospeed = speed, speed
		}
	}
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, &t); err != nil {
		return nil, fmt.Errorf("setting raw mode: %w", err)
	}
	return func() error { return unix.IoctlSetTermios(fd, unix.TCSETS, old) }, nil
}

// CheckBaud says whether the shell can set baud.
func CheckBaud(baud int) error {
	if _, ok := bauds[baud]; !ok {
		return fmt.Errorf("baud rate %d not supported (use one of %s)", baud, baudList())
	}
	return nil
}

func baudList() string {
	return "9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600, 1000000, 1500000, 2000000"
}
