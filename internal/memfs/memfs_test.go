package memfs

import (
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tree passes the standard library's checks of a file system: every
// file and folder opens, reads, stats and lists as io/fs says.
func TestFS(t *testing.T) {
	m := New()
	require.NoError(t, m.File("en-us/yes.intent", []byte("yes\n")))
	require.NoError(t, m.File("en-us/no.intent", []byte("no\nnope\n")))
	require.NoError(t, m.File("rules/who/en-us/who.intent", []byte("it is {name}\n")))
	require.NoError(t, m.Dir("empty/folder"))
	require.NoError(t, fstest.TestFS(m, "en-us/yes.intent", "en-us/no.intent", "rules/who/en-us/who.intent", "empty/folder"))

	sub, err := fs.Sub(m, "rules")
	require.NoError(t, err)
	b, err := fs.ReadFile(sub, "who/en-us/who.intent")
	require.NoError(t, err)
	assert.Equal(t, "it is {name}\n", string(b))

	for _, bad := range []string{"", "/abs", "a/../b", "."} {
		assert.Error(t, m.File(bad, nil), bad)
	}
	_, err = m.Open("missing")
	assert.ErrorIs(t, err, fs.ErrNotExist)
	_, err = m.ReadFile("en-us")
	assert.ErrorContains(t, err, "is a directory")
}
