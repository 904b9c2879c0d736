//go:build !linux

package motion

import (
	"errors"
	"os"
	"runtime"
)

var errNoProcess = errors.New("a control loop process of its own needs Linux, not " + runtime.GOOS)

func newMirrorMemory(*Controller) (*os.File, *mirror, error) { return nil, nil, errNoProcess }
func mapMirror(*os.File) (*mirror, error)                    { return nil, errNoProcess }
func connFile() *os.File                                     { return nil }
func startProcess(Process, *os.File) (*loopProc, error)      { return nil, errNoProcess }
func dropCleanFilePages() error                              { return nil }
func (*realTime) hurryOthers() error                         { return errNoProcess }

func killGroup(p *os.Process) { _ = p.Kill() }
