package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/wasm/wasmtest"
)

// A skill installed, updated and uninstalled on a running robot takes
// effect at once, without a restart: `jibod skills install` and
// `uninstall` tell the running jibod through its shell socket. An update
// keeps what the skill stored; a package that stops loading is reported,
// the version running keeps running, and so does the robot.
func TestInstallUpdateUninstallWithoutRestart(t *testing.T) {
	pkg := memoPackage(t)
	state := t.TempDir()
	sock := filepath.Join(state, "shell.sock")
	robot := startJibod(t, state, "--shell-socket", sock)
	robot.say(t, "what time is it")
	robot.hearTime(t, 30*time.Second) // answering, it serves its shell

	out, stderr, code := runJibod(t, "", "skills", "install", "--state", state, "--socket", sock, pkg)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "installed community/memo 1.0.0")
	assert.Contains(t, out, "The running jibod ("+sock+"): loaded community/memo 1.0.0.")
	robot.say(t, "remember that the keys are under the mat")
	robot.hear(t, "I'll remember that the keys are under the mat.", 30*time.Second)

	// Version 1.1.0 says it differently; what version 1.0.0 stored stays.
	v2 := filepath.Join(t.TempDir(), "memo-1.1.0")
	require.NoError(t, wasmtest.CopyDir(pkg, v2))
	editFile(t, filepath.Join(v2, "manifest.json"), `"version": "1.0.0"`, `"version": "1.1.0"`)
	require.NoError(t, os.WriteFile(filepath.Join(v2, "locale", "en-us", "recalled_today.dialog"),
		[]byte("Today at {time} you told me: {memo}.\n"), 0o644))
	out, stderr, code = runJibod(t, "", "skills", "install", "--state", state, "--socket", sock, v2)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "The running jibod ("+sock+"): updated community/memo 1.0.0 → 1.1.0.")
	robot.say(t, "what did i ask you to remember")
	robot.hear(t, "you told me: the keys are under the mat.", 30*time.Second)

	// Broken on disk: reported, version 1.1.0 keeps running, so does the robot.
	require.NoError(t, os.WriteFile(filepath.Join(state, "skills", "community.memo", "skill.wasm"), []byte("\x00asm\x01\x00\x00\x00junk"), 0o600))
	out, stderr, code = runJibod(t, "", "shell", "--socket", sock, "-c", "skills sync")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "not loaded community/memo: ")
	assert.Contains(t, out, "not a usable WebAssembly module")
	assert.Contains(t, out, "(version 1.1.0 keeps running)")
	robot.say(t, "what did i ask you to remember")
	robot.hear(t, "you told me: the keys are under the mat.", 30*time.Second)
	robot.say(t, "what time is it")
	robot.hearTime(t, 30*time.Second)

	out, stderr, code = runJibod(t, "", "skills", "uninstall", "--state", state, "--socket", sock, "--purge", "community/memo")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "The running jibod ("+sock+"): unloaded community/memo (was 1.1.0).")
	assert.Contains(t, out, "The running jibod ("+sock+"): deleted the data community/memo stored.")
	robot.say(t, "what did i ask you to remember")
	line := robot.hearMatch(t, "an answer", func(l string) bool { return strings.HasPrefix(l, "jibo: ") }, 30*time.Second)
	assert.NotContains(t, line, "remember", "the memo skill is gone")
	out, stderr, code = runJibod(t, "", "shell", "--socket", sock, "-c", "skills")
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, out, "community/memo")

	require.NoError(t, robot.in.Close())
	require.NoError(t, robot.cmd.Wait(), "jibod exits cleanly at the end of its input")
}

// editFile replaces old by new in a file, which must hold old.
func editFile(t *testing.T, path, old, new string) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(b), old)
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(string(b), old, new, 1)), 0o644))
}
