package runtime

import (
	"context"
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
