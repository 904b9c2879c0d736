package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/diag"
	"github.com/openjibo/jibod/core/runtime"
)

// shellEnv is the environment for a jibod under test: its own state, no
// XDG_RUNTIME_DIR (the socket goes in the state folder), the PIN's hash.
func shellTestEnv(state, pinHash string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "XDG_RUNTIME_DIR=") && !strings.HasPrefix(kv, pinHashEnv+"=") {
			env = append(env, kv)
		}
	}
	env = append(env, runtime.StateDirEnv+"="+state)
	if pinHash != "" {
		env = append(env, pinHashEnv+"="+pinHash)
	}
	return env
}

// lockedBuffer collects a process's output while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestShellAgainstRunningJibod is the field technician's way in, end to end
// with the real binary: jibod run on the sim board, and jibod shell
// attaching to it over its socket to utter a command, watch its lifecycle
// with bus tail from a second shell, move a motor in technician mode and
// restart the robot.
func TestShellAgainstRunningJibod(t *testing.T) {
	state := t.TempDir()
	hash, err := diag.HashPIN("2468", diag.MinPINIterations)
	require.NoError(t, err)
	env := shellTestEnv(state, hash)

	robot := exec.Command(jibodBin, "run", "--board", "sim", "--input", "stdin", "--speak-wpm", "0")
	robot.Env = env
	robotIn, err := robot.StdinPipe()
	require.NoError(t, err)
	var robotOut, robotErr lockedBuffer
	robot.Stdout, robot.Stderr = &robotOut, &robotErr
	require.NoError(t, robot.Start())
	exited := make(chan struct{})
	var exitErr error
	go func() {
		defer close(exited)
		exitErr = robot.Wait()
	}()
	defer func() {
		robotIn.Close()
		select {
		case <-exited:
		case <-time.After(20 * time.Second):
			_ = robot.Process.Kill()
			<-exited
		}
	}()
	sock := filepath.Join(state, "shell.sock")
	waitUntil(t, "the shell socket", func() bool { _, err := os.Stat(sock); return err == nil })

	shell := func(script string, args ...string) string {
		t.Helper()
		c := exec.Command(jibodBin, append([]string{"shell"}, args...)...)
		c.Env = env
		c.Stdin = strings.NewReader(script)
		out, err := c.CombinedOutput()
		require.NoError(t, err, string(out))
		return string(out)
	}

	// A second technician watches the bus while the first utters.
	tail := exec.Command(jibodBin, "shell", "-c", "bus tail ovos.utterance ovos.intent --count 6")
	tail.Env = env
	tailOut, err := tail.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, tail.Start())
	tailLines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(tailOut)
		for sc.Scan() {
			tailLines <- sc.Text()
		}
		close(tailLines)
	}()
	require.Equal(t, "(watching ovos.utterance* ovos.intent*; Ctrl-C stops)", <-tailLines)

	out := shell("utter what time is it\n")
	assert.Regexp(t, `ovos\.intent\.matched jibo\.clock:time_now via intents-high`, out)
	assert.Regexp(t, `jibo says: ".*`+clockAnswer.String(), out)
	assert.Contains(t, out, "ovos.utterance.handled")

	var seen []string
	for l := range tailLines {
		if f := strings.Fields(l); len(f) > 1 && !strings.HasPrefix(l, "(") {
			seen = append(seen, f[1])
		} else {
			seen = append(seen, l)
		}
	}
	require.NoError(t, tail.Wait())
	assert.Equal(t, []string{"ovos.utterance.handle", "ovos.intent.matched", "ovos.intent.handler.start",
		"ovos.utterance.speak", "ovos.intent.handler.complete", "ovos.utterance.handled", "(6 shown)"}, seen,
		"bus tail shows the utterance's lifecycle as it happens")

	// Moving a motor needs technician mode.
	out = shell("motor top 0.5\n")
	assert.Contains(t, out, "error: `motor top` needs technician mode")
	out = shell("unlock\n2468\nmotor top 0.5\nmotor limits --json\n")
	// The robot answered facing its listener: the head is turned from home.
	assert.Regexp(t, `topSection_r: -?\d\.\d{3} rad \(-?\d+\.\d deg\) -> 0\.500 rad \(28\.6 deg\)`, out)
	assert.Contains(t, out, "arrived in")
	var limits struct {
		Axes []struct {
			Axis  string  `json:"axis"`
			Angle float64 `json:"angle_rad"`
		} `json:"axes"`
	}
	last := out[strings.LastIndex(strings.TrimSpace(out), "\n")+1:]
	require.NoError(t, json.Unmarshal([]byte(last), &limits), out)
	require.Len(t, limits.Axes, 3)
	assert.Equal(t, "topSection_r", limits.Axes[2].Axis)
	assert.InDelta(t, 0.5, limits.Axes[2].Angle, 1e-9)
	waitUntil(t, "the audit log line", func() bool {
		return strings.Contains(robotErr.String(), `msg="shell: privileged command" session=`) &&
			strings.Contains(robotErr.String(), `command="motor top 0.5"`)
	})

	// status and the PIN-less session's view.
	out = shell("", "-c", "status --json")
	var st map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &st), out)
	assert.Equal(t, "sim", st["board"])
	assert.Equal(t, "none configured (offline)", st["hub"])

	// A restart from the shell ends the run with status 75.
	out = shell("unlock\n2468\nreboot --yes\n")
	assert.Contains(t, out, "rebooting: stop jibod with exit status 75")
	select {
	case <-exited:
		var ee *exec.ExitError
		require.ErrorAs(t, exitErr, &ee, robotErr.String())
		assert.Equal(t, restartExitCode, ee.ExitCode())
	case <-time.After(20 * time.Second):
		t.Fatal("jibod did not exit after reboot")
	}
	assert.Contains(t, robotErr.String(), "restart requested from the diagnostics shell")
	_, err = os.Stat(sock)
	assert.True(t, os.IsNotExist(err), "the socket is removed when jibod ends")
}

// TestShellOnStdio: jibod run --input shell makes standard input and
// output the shell; from a pipe it is a script.
func TestShellOnStdio(t *testing.T) {
	stdout, stderr, code := runJibod(t, "version --json\nskills --json\nexit\n", "run", "--input", "shell", "--state", "none", "--shell-socket", "off")
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	require.Len(t, lines, 2, stdout)
	assert.Contains(t, lines[0], `"version":`)
	assert.Contains(t, lines[1], `"jibo/timer"`)
}

func TestShellUsage(t *testing.T) {
	_, stderr, code := runJibod(t, "", "run", "--shell-reboot", "sometimes")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `shell.reboot (--shell-reboot) "sometimes": want exit, system or off`)
	_, stderr, code = runJibod(t, "", "run", "--serial", "/dev/ttyGS0", "--serial-baud", "1234")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "baud rate 1234 not supported")

	dir := t.TempDir()
	_, stderr, code = runJibod(t, "", "shell", "--socket", filepath.Join(dir, "none.sock"), "-c", "status")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "is jibod running?")

	stdout, _, code := runJibod(t, "1234\n", "shell", "--hash-pin", "--iterations", "1000")
	require.Equal(t, 0, code)
	assert.True(t, strings.HasPrefix(stdout, "pbkdf2-sha256$1000$"), stdout)
	_, stderr, code = runJibod(t, "12\n", "shell", "--hash-pin")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "a PIN has 4 to 12 digits")
}
