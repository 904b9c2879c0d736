package diag

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// jibod shell attaches to the first candidate that is a socket; a file in
// the way is passed over, and with none the error lists where it looked.
func TestFindSocket(t *testing.T) {
	dir := t.TempDir()
	file, sock := filepath.Join(dir, "plain"), filepath.Join(dir, "shell.sock")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	l, err := net.Listen("unix", sock)
	require.NoError(t, err)
	defer l.Close()

	got, err := FindSocket([]string{filepath.Join(dir, "missing"), file, sock})
	require.NoError(t, err)
	assert.Equal(t, sock, got)
	_, err = FindSocket([]string{file, filepath.Join(dir, "missing")})
	assert.EqualError(t, err, "no jibod shell socket at "+file+", "+filepath.Join(dir, "missing")+
		" (is jibod running? give --socket PATH if it serves elsewhere)")
}

// A PIN piped in is read once and hashed; a bad one is refused and
// nothing is hashed.
func TestAskPINHash(t *testing.T) {
	ask := func(input string) (string, error) {
		r, w, err := os.Pipe()
		require.NoError(t, err)
		defer r.Close()
		_, err = w.WriteString(input)
		require.NoError(t, err)
		require.NoError(t, w.Close())
		return AskPINHash(r, &strings.Builder{}, MinPINIterations)
	}
	h, err := ask("2468\n")
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(h, pinScheme+"$"), h)
	_, err = ask("12ab\n")
	assert.EqualError(t, err, "a PIN has digits only")
}
