package runtime

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/builtin/basics"
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

// TestConversationMovesTheBodyFromItsLoopProcess holds a conversation with
// the robot as users get it on Linux, its control loop in a process of its
// own: the greeting's wiggle and the turns toward the listener are run by
// that process, their ends come back to the robot and onto its bus, and
// the loop ticks throughout. It asserts no timing: each wait is for what
// the robot does, bounded only to fail rather than hang.
func TestConversationMovesTheBodyFromItsLoopProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	rec := &recorder{}
	r := startRobot(t, Config{LoopProcess: true, Tap: rec.tap})
	m := r.Body().Motion
	require.NotZero(t, m.ProcessID(), "the loop runs in a process of its own")
	u := utter(t, r)

	require.NotEmpty(t, said(t, u, "hello"))
	assert.Regexp(t, clockAnswer, said(t, u, "what time is it"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for !finished(rec, basics.Greeting) {
		select {
		case <-ctx.Done():
			t.Fatalf("the greeting's animation did not finish; body events: %v", bodyKinds(rec))
		case <-time.After(10 * time.Millisecond):
		}
	}
	assert.NotEmpty(t, rec.of("jibo.body.motion.animation"), "the wiggle began")
	assert.NotEmpty(t, rec.of("jibo.body.motion.lookat"), "the robot turned toward the listener")
	assert.NoError(t, m.Fault())
	assert.Positive(t, m.Stats().Ticks, "the loop's timing, from its process")
	assert.Regexp(t, clockAnswer, said(t, u, "what time is it"), "and the robot goes on")
}

// finished reports whether the animation's end is on the bus.
func finished(rec *recorder, name string) bool {
	for _, e := range rec.of("jibo.body.motion.finished") {
		if e.DataString("name") == name {
			return true
		}
	}
	return false
}

// bodyKinds lists the motion events on the bus.
func bodyKinds(rec *recorder) []string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var out []string
	for _, m := range rec.msgs {
		if strings.HasPrefix(m.Type, "jibo.body.motion.") {
			out = append(out, m.Type)
		}
	}
	return out
}
