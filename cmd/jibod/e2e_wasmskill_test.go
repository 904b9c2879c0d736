package main

import (
	"archive/zip"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/invoke"
	"github.com/openjibo/jibod/core/skill/wasm/wasmtest"
)

// memoPackage builds the example Wasm skill (examples/wasm-skills/memo)
// once, beside the test binary of jibod, and lays it out as an installable
// package folder, as `make wasm-skills` does.
func memoPackage(t *testing.T) string {
	t.Helper()
	memoOnce.Do(func() {
		src := filepath.Join("..", "..", "examples", "wasm-skills", "memo")
		dir := filepath.Join(filepath.Dir(jibodBin), "memo")
		memoErr = errors.Join(os.MkdirAll(dir, 0o755),
			wasmtest.GoBuild(context.Background(), src, filepath.Join(dir, "skill.wasm")),
			wasmtest.CopyDir(filepath.Join(src, "locale"), filepath.Join(dir, "locale")))
		if memoErr == nil {
			var manifest []byte
			if manifest, memoErr = os.ReadFile(filepath.Join(src, "manifest.json")); memoErr == nil {
				memoErr = os.WriteFile(filepath.Join(dir, "manifest.json"), manifest, 0o644)
			}
		}
		memoDir = dir
	})
	require.NoError(t, memoErr)
	return memoDir
}

var (
	memoOnce sync.Once
	memoDir  string
	memoErr  error
)

// zipDir packs a package folder into a zip file.
func zipDir(t *testing.T, dir, file string) {
	t.Helper()
	f, err := os.Create(file)
	require.NoError(t, err)
	zw := zip.NewWriter(f)
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		w, err := zw.Create(filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}))
	require.NoError(t, zw.Close())
	require.NoError(t, f.Close())
}

// The example Wasm skill, installed with `jibod skills install`, answers
// utterances through `jibod run`, and what it stored is there after a
// restart; its calls are in `jibod skills runs` and its limits in `jibod
// skills list`.
func TestWasmSkillEndToEnd(t *testing.T) {
	pkg := memoPackage(t)
	state := t.TempDir()
	stdout, stderr, code := runJibod(t, "", "skills", "install", "--state", state, pkg)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "installed community/memo 1.0.0 in "+filepath.Join(state, "skills", "community.memo"))
	assert.Contains(t, stdout, "limits: 2s per call, 30 calls/min, 32 MiB memory")

	first := startJibod(t, state)
	first.say(t, "what did i ask you to remember")
	first.hear(t, "You haven't asked me to remember anything.", 30*time.Second)
	first.say(t, "remember that the keys are under the mat")
	first.hear(t, "I'll remember that the keys are under the mat.", 20*time.Second) // a line of its remembered.dialog
	first.say(t, "what time is it")
	first.hearTime(t, 20*time.Second) // the built-in skills carry on beside it
	require.NoError(t, first.in.Close())
	require.NoError(t, first.cmd.Wait(), "jibod exits cleanly at the end of its input")

	second := startJibod(t, state)
	second.say(t, "what did i ask you to remember")
	second.hear(t, "you asked me to remember: the keys are under the mat.", 30*time.Second)
	require.NoError(t, second.in.Close())
	require.NoError(t, second.cmd.Wait())

	stdout, stderr, code = runJibod(t, "", "skills", "runs", "--state", state, "--skill", "community/memo", "--json")
	require.Equal(t, 0, code, stderr)
	var recs []invoke.Record
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var r invoke.Record
		require.NoError(t, json.Unmarshal([]byte(line), &r), line)
		recs = append(recs, r)
	}
	require.Len(t, recs, 3)
	for _, r := range recs {
		assert.Equal(t, invoke.OutcomeOK, r.Outcome)
	}
	assert.Equal(t, []string{"recall", "remember", "recall"}, []string{recs[2].Intent, recs[1].Intent, recs[0].Intent})

	stdout, stderr, code = runJibod(t, "", "skills", "list", "--state", state)
	require.Equal(t, 0, code, stderr)
	assert.Regexp(t, `community/memo\s+community.memo\s+1.0.0\s+wasm\s+low\s+speech,storage\s+2s per call, 30 calls/min, 32 MiB memory`, stdout)
	stdout, _, code = runJibod(t, "", "skills", "list", "--state", state, "--permission", "storage", "--json")
	require.Equal(t, 0, code)
	assert.Contains(t, stdout, `"id":"community/memo"`)
}

func TestWasmSkillInstallChecks(t *testing.T) {
	pkg := memoPackage(t)
	state := t.TempDir()

	// From a zip file.
	file := filepath.Join(t.TempDir(), "memo.zip")
	zipDir(t, pkg, file)
	stdout, stderr, code := runJibod(t, "", "skills", "install", "--state", state, file)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "installed community/memo")

	// A manifest asking for an unknown permission installs nothing.
	bad := filepath.Join(t.TempDir(), "bad")
	require.NoError(t, wasmtest.CopyDir(pkg, bad))
	m, err := os.ReadFile(filepath.Join(bad, "manifest.json"))
	require.NoError(t, err)
	m = []byte(strings.Replace(strings.Replace(string(m), `"storage"]`, `"storage", "camera"]`, 1), "community/memo", "community/camera", 1))
	require.NoError(t, os.WriteFile(filepath.Join(bad, "manifest.json"), m, 0o644))
	_, stderr, code = runJibod(t, "", "skills", "install", "--state", state, bad)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, `manifest.json: invalid manifest: permissions[2]: "camera" is not a permission`)

	// A module without the handler export installs nothing.
	require.NoError(t, os.WriteFile(filepath.Join(bad, "manifest.json"),
		[]byte(strings.Replace(string(m), `, "camera"]`, `]`, 1)), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(bad, "skill.wasm"), wasmtest.Raw{MemoryPages: 1, Funcs: []wasmtest.Func{
		{Export: "jibo_abi_version", Results: []byte{wasmtest.I32}, Body: wasmtest.I32Const(1)}}}.Bytes(), 0o644))
	_, stderr, code = runJibod(t, "", "skills", "install", "--state", state, bad)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "not installed: loading skill community/camera from "+bad+": missing export: no function jibo_handle")

	// A dialog whose lines name different slots installs nothing (GRM-16).
	badDialog := filepath.Join(t.TempDir(), "bad-dialog")
	require.NoError(t, wasmtest.CopyDir(pkg, badDialog))
	require.NoError(t, os.WriteFile(filepath.Join(badDialog, "locale", "en-us", "remembered.dialog"),
		[]byte("OK, I'll remember that {memo}.\nOK, noted {note}.\n"), 0o644))
	_, stderr, code = runJibod(t, "", "skills", "install", "--state", state, badDialog)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "remembered.dialog")
	assert.Contains(t, stderr, "GRM-16")
	_, err = os.Stat(filepath.Join(state, "skills", "community.camera"))
	assert.ErrorIs(t, err, fs.ErrNotExist)

	// A package broken on disk after install is left out at start; the
	// robot carries on with its other skills.
	require.NoError(t, os.WriteFile(filepath.Join(state, "skills", "community.memo", "skill.wasm"), []byte("\x00asm\x01\x00\x00\x00junk"), 0o644))
	stdout, stderr, code = runJibod(t, "hello\n", "run", "--input", "stdin", "--speak-wpm", "0", "--state", state)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "jibo: ")
	assert.Contains(t, stderr, "installed skill not loaded")
	assert.Contains(t, stderr, "not a usable WebAssembly module")

	_, stderr, code = runJibod(t, "", "skills", "install", "--state", "none", pkg)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "installed skills live in a state folder")

	// Uninstall: the package goes, --purge takes its stored data too; a
	// skill that is not installed is an error.
	stdout, stderr, code = runJibod(t, "", "skills", "uninstall", "--state", state, "--purge", "community/memo")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "uninstalled community/memo")
	assert.Contains(t, stdout, "deleted the data community/memo stored")
	_, err = os.Stat(filepath.Join(state, "skills", "community.memo"))
	assert.ErrorIs(t, err, fs.ErrNotExist)
	_, stderr, code = runJibod(t, "", "skills", "uninstall", "--state", state, "community/memo")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "uninstalling community/memo: not installed")
}
