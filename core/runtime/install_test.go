package runtime

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Installing what is not there is an error naming it, and leaves the
// state folder as it was: not even made.
func TestInstallSkillOfNothing(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	missing := filepath.Join(t.TempDir(), "memo.zip")
	err := InstallSkill(context.Background(), state, "", missing, io.Discard, io.Discard)
	require.ErrorIs(t, err, os.ErrNotExist)
	assert.ErrorContains(t, err, "installing: stat "+missing)
	_, err = os.Stat(state)
	assert.ErrorIs(t, err, os.ErrNotExist)
}
