//go:build linux

package motion

import (
	"errors"
	"strings"

	"golang.org/x/sys/unix"
)

// maxBootLogRecords bounds how much of the kernel's log bootLog reads.
const maxBootLogRecords = 100000

// bootLog returns the first line of the kernel's log (/dev/kmsg, which
// needs CAP_SYSLOG where dmesg is restricted) that starts with prefix,
// or "" when none does. It reads what the log holds now and never waits
// for more.
func bootLog(prefix string) (string, error) {
	fd, err := unix.Open("/dev/kmsg", unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", errors.Join(errNoBootLog, err)
	}
	defer unix.Close(fd)
	buf := make([]byte, 8192)
	for range maxBootLogRecords {
		n, err := unix.Read(fd, buf)
		switch {
		case errors.Is(err, unix.EPIPE):
			continue // records overwritten while reading: go on from the next
		case err != nil || n <= 0:
			return "", nil // EAGAIN: the end of the log
		}
		// "level,seq,usec,flags;message\n"
		_, msg, ok := strings.Cut(string(buf[:n]), ";")
		if !ok {
			continue
		}
		msg, _, _ = strings.Cut(msg, "\n")
		if strings.HasPrefix(msg, prefix) {
			return msg, nil
		}
	}
	return "", nil
}
