//go:build !linux

package motion

import (
	"errors"
	"os"
	"runtime"
)

// rtSupported says whether this system can serve the loop in real time.
const rtSupported = false

// otherRT is the real-time set-up's system where it is not wired: every
// request is refused.
type otherRT struct{ goRuntime }

func newRTSystem() rtSystem { return otherRT{} }

var errRTUnsupported = errors.New("not supported on " + runtime.GOOS)

func (otherRT) setFIFO(int) error        { return errRTUnsupported }
func (otherRT) cpus() ([]int, error)     { return nil, errRTUnsupported }
func (otherRT) pin(int, []int) error     { return errRTUnsupported }
func (otherRT) threads() ([]int, error)  { return nil, errRTUnsupported }
func (otherRT) self() int                { return 0 }
func (otherRT) lockMemory() error        { return errRTUnsupported }
func (otherRT) unlockMemory() error      { return errRTUnsupported }
func (otherRT) getenv(key string) string { return os.Getenv(key) }
func threadGone(error) bool              { return false }
