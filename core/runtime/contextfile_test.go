package runtime

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestContextFile: the kept intent context reads back as it was saved;
// no file is no context; a damaged or oversized file is an error, which
// the pipeline reports and starts without.
func TestContextFile(t *testing.T) {
	dir := t.TempDir()
	f := contextFile{path: filepath.Join(dir, ContextFileName)}
	ic, err := f.LoadContext()
	require.NoError(t, err)
	assert.Nil(t, ic, "no file yet")
	want := map[string]any{"jibo.timer:set": map[string]any{"value": "t-1", "turns_remaining": float64(2), "expires_at": 1.7e9}}
	require.NoError(t, f.SaveContext(context.Background(), want))
	ic, err = f.LoadContext()
	require.NoError(t, err)
	assert.Equal(t, want, ic)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, f.SaveContext(ctx, map[string]any{}), context.Canceled)
	ic, err = f.LoadContext()
	require.NoError(t, err)
	assert.Equal(t, want, ic, "a save told to give up leaves the file as it was")
	left, err := filepath.Glob(filepath.Join(dir, "*.tmp"))
	require.NoError(t, err)
	assert.Empty(t, left, "no temporary file is left behind")

	for name, body := range map[string]string{
		"not json":  "{",
		"too large": `{"intent_context":{"k":{"value":"` + strings.Repeat("x", MaxContextFileBytes) + `"}}}`,
	} {
		require.NoError(t, os.WriteFile(f.path, []byte(body), 0o600))
		_, err := f.LoadContext()
		assert.Error(t, err, name)
	}
}

// cutCtx ends after its Err was asked n times: a save told to give up at
// one of the points where it checks.
type cutCtx struct {
	context.Context
	cancel context.CancelFunc
	n      int
}

func (c *cutCtx) Err() error {
	if c.n--; c.n < 0 {
		c.cancel()
	}
	return c.Context.Err()
}

// TestContextFileCutShort: a save told to give up before the temporary
// file is written or synced leaves the old file as it was and no
// temporary file behind; one told after the sync, or not at all, replaces
// it (the synced file is renamed into place).
func TestContextFileCutShort(t *testing.T) {
	dir := t.TempDir()
	f := contextFile{path: filepath.Join(dir, ContextFileName)}
	old := map[string]any{"jibo.timer:set": map[string]any{"value": "t-1", "turns_remaining": float64(2)}}
	next := map[string]any{"jibo.timer:set": map[string]any{"value": "t-2", "turns_remaining": float64(2)}}
	require.NoError(t, f.SaveContext(context.Background(), old))
	cuts := 0
	for n := 0; ; n++ {
		require.Less(t, n, 20, "the save never finished")
		ctx, cancel := context.WithCancel(context.Background())
		err := f.SaveContext(&cutCtx{Context: ctx, cancel: cancel, n: n}, next)
		cancel()
		left, gerr := filepath.Glob(filepath.Join(dir, ".*.tmp"))
		require.NoError(t, gerr)
		assert.Empty(t, left, "cut at check %d: no temporary file is left behind", n)
		ic, lerr := f.LoadContext()
		require.NoError(t, lerr)
		if err == nil {
			assert.Equal(t, next, ic)
			break
		}
		assert.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, old, ic, "cut at check %d: the old file is as it was", n)
		cuts++
	}
	assert.Equal(t, 3, cuts, "checked on entry, before the write and before the sync")
}

// TestContextFileLeftovers: temporary files of saves a crash stopped
// short are removed when jibod starts; the kept context and other files
// stay.
func TestContextFileLeftovers(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ContextFileName)
	keep := []string{ContextFileName, "settings.json", ".settings.json.1.tmp"}
	stale := []string{"." + ContextFileName + ".123.tmp", "." + ContextFileName + ".456.tmp"}
	for _, n := range append(append([]string(nil), keep...), stale...) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, n), []byte("{}"), 0o600))
	}
	newContextFile(path, slog.New(slog.DiscardHandler))
	for _, n := range keep {
		assert.FileExists(t, filepath.Join(dir, n))
	}
	for _, n := range stale {
		assert.NoFileExists(t, filepath.Join(dir, n))
	}
}
