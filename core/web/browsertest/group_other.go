//go:build !unix

package browsertest

import "os/exec"

func setGroup(*exec.Cmd) {}

// killGroup kills the browser; its helpers end when it does.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
