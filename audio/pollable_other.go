//go:build !unix

package audio

import (
	"io"
	"os"
	"time"
)

// pollable returns f unchanged: only Unix pipes are made interruptible.
func pollable(f *os.File) (io.Reader, interface{ SetReadDeadline(time.Time) error }) {
	return f, nil
}
