//go:build unix

package boltfile

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// lockPoll is how often a held lock is tried again.
const lockPoll = 20 * time.Millisecond

// lockedOpen opens path (creating it when flag says so; created reports
// that) and takes the exclusive lock bbolt takes, waiting up to timeout,
// so the file is checked, and set aside when damaged, while no other
// process can write it. bbolt's own lock on the same open file then
// succeeds at once. A file renamed away while this waited is let go and
// the path opened again.
func lockedOpen(path string, flag int, perm os.FileMode, timeout time.Duration) (f *os.File, created bool, err error) {
	deadline := time.Now().Add(timeout)
	for {
		if f, created, err = openOrCreate(path, flag, perm); err != nil {
			return nil, false, err
		}
		if err := flockUntil(f, deadline); err != nil {
			_ = f.Close()
			return nil, false, err
		}
		same, err := stillAt(f, path)
		if err != nil {
			_ = f.Close()
			return nil, false, err
		}
		if same {
			return f, created, nil
		}
		_ = f.Close()
		if time.Now().After(deadline) {
			return nil, false, ErrLocked
		}
	}
}

func flockUntil(f *os.File, deadline time.Time) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR):
			return &os.PathError{Op: "flock", Path: f.Name(), Err: err}
		case time.Now().After(deadline):
			return ErrLocked
		}
		time.Sleep(lockPoll)
	}
}

// stillAt reports whether f is still the file at path.
func stillAt(f *os.File, path string) (bool, error) {
	fi, err := f.Stat()
	if err != nil {
		return false, err
	}
	pi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return os.SameFile(fi, pi), nil
}
