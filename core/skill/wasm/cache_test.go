package wasm

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/wasm/wasmtest"
)

// cacheEntries lists the compiled modules in a compile cache folder.
func cacheEntries(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			out = append(out, p)
		}
		return err
	}))
	return out
}

// The compile cache is derived data: an entry torn by a power cut, emptied
// or garbled is discarded with a WARN and its module compiled again, so
// the skill loads and the entry is sound for the next start (issue 22
// item 2: every Wasm skill failed "compilationcache: error reading header:
// EOF", and installing again failed "invalid magic number").
func TestDamagedCompileCacheEntriesAreRecompiled(t *testing.T) {
	module := wasmtest.Raw{MemoryPages: 1, Funcs: []wasmtest.Func{
		{Export: "jibo_abi_version", Results: []byte{wasmtest.I32}, Body: wasmtest.I32Const(1)},
		{Export: "jibo_handle", Params: []byte{wasmtest.I32}, Results: []byte{wasmtest.I32}, Body: wasmtest.I32Const(0)},
	}}.Bytes()
	for _, tc := range []struct {
		name   string
		damage func(raw []byte) []byte
	}{
		{"torn", func(raw []byte) []byte { return raw[:len(raw)/2] }},
		{"cut in its header", func(raw []byte) []byte { return raw[:5] }},
		{"empty", func([]byte) []byte { return []byte{} }},
		{"garbled", func(raw []byte) []byte {
			for i := range raw {
				raw[i] = byte(i*31 + 7)
			}
			return raw
		}},
		{"garbled code", func(raw []byte) []byte {
			raw[len(raw)/2] ^= 0xFF
			return raw
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			first := newRig(t, Config{CacheDir: dir})
			s := first.load(t, hostileManifest(""), module)
			require.NoError(t, s.Close(context.Background()))
			entries := cacheEntries(t, dir)
			require.Len(t, entries, 1, "one compiled module cached")
			raw, err := os.ReadFile(entries[0])
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(entries[0], tc.damage(raw), 0o600))

			second := newRig(t, Config{CacheDir: dir})
			s, err = second.e.Load(context.Background(), writePkg(t, hostileManifest(""), module))
			require.NoError(t, err, "the skill loads")
			require.NoError(t, s.Close(context.Background()))
			assert.Contains(t, second.logs.String(), "level=WARN msg=\"wasm compile cache entry unreadable: discarded, and the module compiled again\"")
			assert.Equal(t, entries, cacheEntries(t, dir), "the entry is replaced, nothing left beside it")

			// `jibod skills install` checks a package with an engine of its
			// own over the same cache: the healed entry serves it.
			third := newRig(t, Config{CacheDir: dir})
			require.NoError(t, third.e.Check(context.Background(), writePkg(t, hostileManifest(""), module)))
			assert.NotContains(t, third.logs.String(), "compile cache", "the entry is sound again")
		})
	}
}

// A module that does not compile is the module's fault, whatever the
// cache holds: the error says so and the cache is left as it is.
func TestBadModuleIsNotBlamedOnTheCache(t *testing.T) {
	dir := t.TempDir()
	r := newRig(t, Config{CacheDir: dir})
	_, err := r.e.Load(context.Background(), writePkg(t, hostileManifest(""), []byte("\x00asm\x01\x00\x00\x00garbage")))
	assert.ErrorIs(t, err, ErrBadModule)
	assert.NotContains(t, r.logs.String(), "compile cache")
	assert.Empty(t, cacheEntries(t, dir))
}

// Folders a process left in the middle of a recompile are swept once
// stale; a fresh one may be another process's, at work.
func TestLeftoverRecompileFoldersAreSwept(t *testing.T) {
	dir := t.TempDir()
	stale, fresh := filepath.Join(dir, healPrefix+"1"), filepath.Join(dir, healPrefix+"2")
	require.NoError(t, os.MkdirAll(stale, 0o700))
	require.NoError(t, os.MkdirAll(fresh, 0o700))
	old := time.Now().Add(-2 * staleRecompile)
	require.NoError(t, os.Chtimes(stale, old, old))
	newRig(t, Config{CacheDir: dir})
	assert.NoDirExists(t, stale)
	assert.DirExists(t, fresh)
}
