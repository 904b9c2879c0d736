package check

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFiles: every file is checked; each valid one is "FILE: KIND ok" and
// its canonical JSON (none when quiet), each invalid one an error line,
// and the error counts them.
func TestFiles(t *testing.T) {
	valid := filepath.Join("..", "..", "..", "..", "examples", "protocol", "skill", "listen_launch.json")
	bad := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"type": "NOPE"}`), 0o600))

	var out, warn strings.Builder
	err := Files(context.Background(), &out, &warn, []string{valid, bad}, "", false)
	assert.EqualError(t, err, "1 of 2 files invalid")
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 2)
	assert.Equal(t, valid+": skill request LISTEN_LAUNCH ok", lines[0])
	assert.True(t, strings.HasPrefix(lines[1], "{"), lines[1])
	assert.True(t, strings.HasPrefix(warn.String(), bad+": error: "), warn.String())

	out.Reset()
	warn.Reset()
	require.NoError(t, Files(context.Background(), &out, &warn, []string{valid}, SkillRequest, true))
	assert.Equal(t, valid+": skill request LISTEN_LAUNCH ok\n", out.String())
	assert.Empty(t, warn.String())

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, Files(ctx, &out, &warn, []string{valid}, "", true), context.Canceled)
}
