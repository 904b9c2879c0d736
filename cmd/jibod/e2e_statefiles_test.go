package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/runtime"
	"github.com/openjibo/jibod/core/skill/store"
	"github.com/openjibo/jibod/core/skill/wasm/kv"
	"github.com/openjibo/jibod/core/skill/wasm/wasmtest"
)

// cutShort keeps the first 16 KiB of a file of 32 KiB or more.
func cutShort(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.GreaterOrEqual(t, fi.Size(), int64(32<<10), path)
	require.NoError(t, os.Truncate(path, 16<<10))
}

// garbleAll overwrites every file under dir with what garble makes of it.
func garbleAll(t *testing.T, dir string, garble func([]byte) []byte) int {
	t.Helper()
	n := 0
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n++
		return os.WriteFile(p, garble(raw), 0o600)
	}))
	return n
}

// A state folder damaged as a field robot's can be (issue 22 items 1–3):
// state.db and skilldata.db cut short, the compile cache torn. jibod
// starts, says what it kept aside and what was lost, answers with every
// skill including the Wasm one, and installing a package works again.
func TestDamagedStateFolderStillStarts(t *testing.T) {
	pkg := memoPackage(t)
	state := t.TempDir()
	_, stderr, code := runJibod(t, "", "skills", "install", "--state", state, pkg)
	require.Equal(t, 0, code, stderr)

	// Files big enough to have pages past 16 KiB, written as jibod does.
	st, err := store.Open(filepath.Join(state, runtime.StateFileName), store.Options{})
	require.NoError(t, err)
	for i := range 12 {
		require.NoError(t, st.PutTimer(store.Timer{ID: fmt.Sprintf("t%d", i), SkillID: "jibo/timer",
			Due: time.Now().Add(24 * time.Hour), Memo: json.RawMessage(`{"pad":"` + strings.Repeat("p", 4000) + `"}`)}))
	}
	require.NoError(t, st.Close())
	data, err := kv.Open(filepath.Join(state, runtime.SkillDataFileName), kv.Options{})
	require.NoError(t, err)
	for i := range 40 {
		require.NoError(t, data.Set("community/memo", fmt.Sprintf("k%02d", i), []byte(strings.Repeat("v", 1000))))
	}
	require.NoError(t, data.Close())
	cutShort(t, filepath.Join(state, runtime.StateFileName))
	cutShort(t, filepath.Join(state, runtime.SkillDataFileName))
	require.Positive(t, garbleAll(t, filepath.Join(state, runtime.CacheDirName), func(raw []byte) []byte { return raw[:len(raw)/3] }))

	stdout, stderr, code := runJibod(t, "what did i ask you to remember\nhello\n", "run", "--input", "stdin", "--speak-wpm", "0", "--state", state)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "You haven't asked me to remember anything.", "the Wasm skill answers, from a new storage file")
	assert.Contains(t, stderr, "skill state file was damaged: kept aside")
	assert.Contains(t, stderr, "Wasm skill storage file was damaged: kept aside")
	assert.Contains(t, stderr, "it was cut short")
	assert.Contains(t, stderr, "wasm compile cache entry unreadable: discarded, and the module compiled again")
	assert.NotContains(t, stderr, "not loaded")
	for _, name := range []string{runtime.StateFileName, runtime.SkillDataFileName} {
		kept, err := filepath.Glob(filepath.Join(state, name+".damaged-*"))
		require.NoError(t, err)
		require.Len(t, kept, 1, name)
		fi, err := os.Stat(kept[0])
		require.NoError(t, err)
		assert.Equal(t, int64(16<<10), fi.Size(), "kept as it was")
	}

	// Installing again over an emptied cache works.
	garbleAll(t, filepath.Join(state, runtime.CacheDirName), func([]byte) []byte { return []byte{} })
	stdout, stderr, code = runJibod(t, "", "skills", "install", "--state", state, pkg)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "installed community/memo")

	// An empty state file is kept aside too, with a warning.
	require.NoError(t, os.WriteFile(filepath.Join(state, runtime.StateFileName), nil, 0o600))
	_, stderr, code = runJibod(t, "hello\n", "run", "--input", "stdin", "--speak-wpm", "0", "--state", state)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "level=WARN")
	assert.Contains(t, stderr, "skill state file was empty, so whatever it held is lost")
	kept, err := filepath.Glob(filepath.Join(state, runtime.StateFileName+".empty-*"))
	require.NoError(t, err)
	assert.Len(t, kept, 1)
}

// hangingPackage lays out a package whose module loops forever in export
// loop (_initialize or jibo_abi_version), with a one-second timeout (so
// the start-up limit is wasm.MinStartTimeout).
func hangingPackage(t *testing.T, dir, id, loop string) {
	t.Helper()
	forever := []byte{wasmtest.OpLoop, wasmtest.BlockEmpty, wasmtest.OpBr, 0x00, wasmtest.OpEnd}
	version := wasmtest.Func{Export: "jibo_abi_version", Results: []byte{wasmtest.I32}, Body: wasmtest.I32Const(1)}
	funcs := []wasmtest.Func{{Export: "jibo_handle", Params: []byte{wasmtest.I32}, Results: []byte{wasmtest.I32}, Body: wasmtest.I32Const(0)}}
	switch loop {
	case "_initialize":
		funcs = append(funcs, version, wasmtest.Func{Export: "_initialize", Body: forever})
	case "jibo_abi_version":
		version.Body = append(append([]byte{}, forever...), wasmtest.OpUnreachable)
		funcs = append(funcs, version)
	}
	manifest := `{"id": "` + id + `", "version": "1.0.0", "name": "Spin", "description": "Never starts.",
		"permissions": ["speech"], "timeout": "1s", "safety_level": "low"}`
	require.NoError(t, wasmtest.WritePackage(dir, manifest, wasmtest.Raw{MemoryPages: 1, Funcs: funcs}.Bytes(),
		map[string]string{"en-us/spin.intent": "spin around and around\n"}))
}

// A module that never finishes starting is stopped at its start-up limit
// (issue 22 item 4: `skills install` hung 120 s and the robot's
// first answer waited as long per bad skill): install refuses it at once
// with the reason, and a robot with such packages installed answers with
// the skills that loaded and lists the others as not loaded.
func TestHangingSkillStartDoesNotHoldTheRobot(t *testing.T) {
	pkg := memoPackage(t)
	state := t.TempDir()
	_, stderr, code := runJibod(t, "", "skills", "install", "--state", state, pkg)
	require.Equal(t, 0, code, stderr)

	for _, loop := range []string{"_initialize", "jibo_abi_version"} {
		dir := filepath.Join(t.TempDir(), "spin")
		hangingPackage(t, dir, "community/spin", loop)
		_, stderr, code := runJibod(t, "", "skills", "install", "--state", state, dir)
		assert.Equal(t, 1, code)
		assert.Contains(t, stderr, "not installed: loading skill community/spin from "+dir+": ")
		assert.Contains(t, stderr, loop+" did not return within 5s, its start-up limit")
	}
	_, err := os.Stat(filepath.Join(state, runtime.SkillsDirName, "community.spin"))
	assert.ErrorIs(t, err, fs.ErrNotExist, "nothing installed")

	// Packages that got there some other way (copied by hand, installed by
	// an older jibod) are loaded beside the memo skill and left out.
	hangingPackage(t, filepath.Join(state, runtime.SkillsDirName, "community.spin-a"), "community/spin-a", "_initialize")
	hangingPackage(t, filepath.Join(state, runtime.SkillsDirName, "community.spin-b"), "community/spin-b", "jibo_abi_version")
	stdout, stderr, code := runJibod(t, "what did i ask you to remember\n", "run", "--input", "stdin", "--speak-wpm", "0", "--state", state)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "You haven't asked me to remember anything.")
	assert.Regexp(t, `level=ERROR msg="installed skill not loaded" skill_id=community/spin-a .*_initialize did not return within 5s`, stderr)
	assert.Regexp(t, `level=ERROR msg="installed skill not loaded" skill_id=community/spin-b .*jibo_abi_version did not return within 5s`, stderr)

	// The shell's `skills` on the running robot lists them, with why.
	env := shellTestEnv(state, "")
	robot := exec.Command(jibodBin, "run", "--input", "stdin", "--speak-wpm", "0")
	robot.Env = env
	robotIn, err := robot.StdinPipe()
	require.NoError(t, err)
	var robotErr bytes.Buffer
	robot.Stderr = &robotErr
	require.NoError(t, robot.Start())
	exited := make(chan struct{})
	go func() { // ends with the robot, which the deferred close of its input ends
		_ = robot.Wait()
		close(exited)
	}()
	defer func() {
		_ = robotIn.Close()
		<-exited
	}()
	// The robot listens once its skills are loaded (the socket file of the
	// run before may still be there): how long that takes is the machine's
	// business, so this waits for it, or for the robot to end.
	var out []byte
	for {
		shell := exec.Command(jibodBin, "shell", "-c", "skills")
		shell.Env = env
		if out, err = shell.CombinedOutput(); err == nil {
			break
		}
		select {
		case <-exited:
			t.Fatalf("the robot ended before its shell answered: %v\n%s", robot.ProcessState, robotErr.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	assert.Regexp(t, `community/memo +1\.0\.0`, string(out))
	assert.Regexp(t, `community/spin-a +not loaded: .*_initialize did not return within 5s`, string(out))
	assert.Regexp(t, `community/spin-b +not loaded: .*jibo_abi_version did not return within 5s`, string(out))
}
