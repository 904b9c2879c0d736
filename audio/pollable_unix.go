//go:build unix

package audio

import (
	"io"
	"os"
	"syscall"
	"time"
)

// pollable returns a reader for f whose reads a deadline can interrupt,
// when f is a pipe or socket: a duplicate of its descriptor in non-blocking
// mode, which Go's poller then waits on. Anything else (a regular file, a
// terminal) is returned as is, without a deadline.
func pollable(f *os.File) (io.Reader, interface{ SetReadDeadline(time.Time) error }) {
	st, err := f.Stat()
	if err != nil || st.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return f, nil
	}
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		return f, nil
	}
	// O_NONBLOCK belongs to the open file description, shared with f: f is
	// a pipe only this source reads.
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return f, nil
	}
	nf := os.NewFile(uintptr(fd), f.Name())
	return nf, nf
}
