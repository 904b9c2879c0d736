//go:build !unix

package boltfile

import (
	"os"
	"time"
)

// lockedOpen opens path (creating it when flag says so; created reports
// that). Where there is no flock, bbolt's own lock, taken after the file
// is checked, is the only one.
func lockedOpen(path string, flag int, perm os.FileMode, _ time.Duration) (f *os.File, created bool, err error) {
	return openOrCreate(path, flag, perm)
}
