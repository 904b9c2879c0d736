//go:build unix

package people

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// lockWait bounds waiting for another process's change of the loop.
const lockWait = 5 * time.Second

// lockFile takes an exclusive advisory lock on path (created if missing),
// so two processes changing the loop at once (jibod people add while jibod
// creates the file) take turns instead of one losing the other's change.
// The kernel drops the lock if the process dies.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("locking the loop: %w", err)
	}
	deadline := time.Now().Add(lockWait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("locking the loop: %w", err)
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("locking the loop: another process has been changing it for %s (%s)", lockWait, path)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
