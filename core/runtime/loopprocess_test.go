package runtime

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/motion"
)

// TestLoopProcessDiesTheRobotKeepsTalking runs the robot with its control
// loop in a process of its own, kills that process, and checks that the
// body reports the fault while the robot goes on answering, and that
// Recover starts the loop again.
func TestLoopProcessDiesTheRobotKeepsTalking(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	r := startRobot(t, Config{LoopProcess: true})
	u := utter(t, r)
	assert.Regexp(t, clockAnswer, said(t, u, "what time is it"))
	m := r.Body().Motion
	pid := m.ProcessID()
	require.NotZero(t, pid, "the loop runs in a process of its own")
	require.NotEqual(t, syscall.Getpid(), pid)

	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for !errors.Is(m.Fault(), motion.ErrProcessExited) {
		select {
		case <-ctx.Done():
			t.Fatalf("no fault after the loop's process was killed: %v", m.Fault())
		case <-time.After(10 * time.Millisecond):
		}
	}
	assert.ErrorContains(t, m.Fault(), "killed")
	assert.Regexp(t, clockAnswer, said(t, u, "what time is it"), "the robot answers without its body")

	require.NoError(t, m.Recover(ctx))
	assert.NoError(t, m.Fault())
	assert.NotEqual(t, pid, m.ProcessID(), "a new process")
	assert.Regexp(t, clockAnswer, said(t, u, "what time is it"))
}
