package settings

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSettingsSurviveReopening(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	f, err := Open(path)
	require.NoError(t, err)
	_, ok := f.Number("volume")
	assert.False(t, ok, "a new robot has none")
	require.NoError(t, f.SetNumber("volume", 0.4))

	g, err := Open(path)
	require.NoError(t, err)
	v, ok := g.Number("volume")
	require.True(t, ok)
	assert.Equal(t, 0.4, v)
	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
}

func TestBadSettingsRefused(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"array":  `[1,2]`,
		"broken": `{"volume": `,
		"huge":   `{"a":"` + strings.Repeat("x", MaxBytes) + `"}`,
	} {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
		_, err := Open(p)
		assert.ErrorContains(t, err, p, name)
	}
	f, err := Open(filepath.Join(dir, "ok.json"))
	require.NoError(t, err)
	assert.Error(t, f.SetNumber("", 1))
	assert.Error(t, f.SetNumber("volume", math.NaN()))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "text.json"), []byte(`{"volume":"loud"}`), 0o600))
	g, err := Open(filepath.Join(dir, "text.json"))
	require.NoError(t, err)
	_, ok := g.Number("volume")
	assert.False(t, ok, "a value of the wrong kind is no setting")
}

func TestFailedWriteChangesNothing(t *testing.T) {
	f, err := Open(filepath.Join(t.TempDir(), "gone", "settings.json"))
	require.NoError(t, err)
	assert.Error(t, f.SetNumber("volume", 0.3))
	_, ok := f.Number("volume")
	assert.False(t, ok)
}
