package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// liveJibod is the real binary running `jibod run --input stdin`, talked to
// line by line like a person at the console.
type liveJibod struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan string
	seen  []string
}

func startJibod(t *testing.T, stateDir string, args ...string) *liveJibod {
	t.Helper()
	cmd := exec.Command(jibodBin, append([]string{"run", "--input", "stdin", "--speak-wpm", "0"}, args...)...)
	cmd.Env = append(os.Environ(), "JIBOD_STATE_DIR="+stateDir)
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = io.Discard
	require.NoError(t, cmd.Start())
	j := &liveJibod{cmd: cmd, in: in, lines: make(chan string, 256)}
	go func() { // ends when the process's stdout closes
		defer close(j.lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			j.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return j
}

func (j *liveJibod) say(t *testing.T, line string) {
	t.Helper()
	_, err := io.WriteString(j.in, line+"\n")
	require.NoError(t, err)
}

// hear waits for a line of the robot's containing want. The bound only
// keeps a broken build from hanging the test run.
func (j *liveJibod) hear(t *testing.T, want string, within time.Duration) string {
	t.Helper()
	return j.hearMatch(t, want, func(l string) bool { return strings.Contains(l, want) }, within)
}

// hearTime waits for the robot to tell the time.
func (j *liveJibod) hearTime(t *testing.T, within time.Duration) string {
	t.Helper()
	return j.hearMatch(t, "the time", clockAnswer.MatchString, within)
}

func (j *liveJibod) hearMatch(t *testing.T, what string, match func(string) bool, within time.Duration) string {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case l, ok := <-j.lines:
			if !ok {
				t.Fatalf("jibod ended before saying %q; it said %q", what, j.seen)
			}
			j.seen = append(j.seen, l)
			if match(l) {
				return l
			}
		case <-deadline:
			t.Fatalf("jibod did not say %q within %s; it said %q", what, within, j.seen)
		}
	}
}

// clockAnswer is how the clock skill tells the time: "… 9:05 AM.", and
// "… noon." or "… midnight." on the hour that has a name.
var clockAnswer = regexp.MustCompile(`(\d{1,2}:\d\d [AP]M|noon|midnight)\.`)

// TestTimerConversationEndToEnd drives the real binary through the timer
// conversation of issue 5: a question, a wrong answer, the answer, the
// alarm firing later and "stop" ending it.
func TestTimerConversationEndToEnd(t *testing.T) {
	j := startJibod(t, t.TempDir())
	j.say(t, "set a timer")
	j.hear(t, "For how long?", 20*time.Second)
	j.say(t, "banana")
	j.hear(t, "how many minutes or seconds", 20*time.Second)
	j.say(t, "two seconds")
	j.hear(t, "two seconds, starting now", 20*time.Second)
	j.hear(t, "Your two second timer is done!", 30*time.Second)
	j.say(t, "stop")
	require.NoError(t, j.in.Close())
	require.NoError(t, j.cmd.Wait(), "jibod exits cleanly at the end of its input")
	for l := range j.lines {
		j.seen = append(j.seen, l)
	}
	rings := 0
	for _, l := range j.seen {
		if strings.Contains(l, "timer is done") {
			rings++
		}
	}
	assert.Less(t, rings, 5, "stop ended the alarm before all its rings: %q", j.seen)
}

// TestConversationSurvivesRestart kills jibod while the timer waits for
// its answer; started again on the same state folder, it takes the answer
// and the alarm rings.
func TestConversationSurvivesRestart(t *testing.T) {
	state := t.TempDir()
	first := startJibod(t, state)
	first.say(t, "set a timer")
	first.hear(t, "For how long?", 20*time.Second)
	require.NoError(t, first.cmd.Process.Signal(syscall.SIGKILL))
	_ = first.cmd.Wait()

	second := startJibod(t, state)
	second.say(t, "three seconds")
	second.hear(t, "three seconds, starting now", 20*time.Second)
	second.hear(t, "Your three second timer is done!", 30*time.Second)
	second.say(t, "stop")
	require.NoError(t, second.in.Close())
	require.NoError(t, second.cmd.Wait())

	stdout, stderr, code := runJibod(t, "", "skills", "runs", "--state", state, "--skill", "jibo/timer", "--json")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, `"request_type":"LISTEN_LAUNCH"`)
	assert.Contains(t, stdout, `"request_type":"LISTEN_UPDATE"`, "the answer went to the running skill")
	assert.Contains(t, stdout, `"request_type":"PROACTIVE_LAUNCH"`, "the alarm fired")
}
