package wire

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openjibo/jibod/core/skill/protocol"

	"github.com/stretchr/testify/require"
)

// protocolExamples are the protocol package's example hub messages of one
// direction ("robot-to-hub" or "hub-to-robot").
func protocolExamples(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "..", "examples", "protocol", dir, "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	out := make(map[string][]byte, len(files))
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		out[strings.TrimSuffix(filepath.Base(f), ".json")] = b
	}
	return out
}

// canon decodes JSON to a generic tree, so two encodings compare by
// content.
func canon(t testing.TB, b []byte) any {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(b, &v), "%s", b)
	return v
}

// lossless checks that a message decoded from the JSON orig and sent
// through a frame (back) encodes exactly as the directly decoded direct,
// and that every member of orig is still there with its value (decoding
// may add required members orig left out, with zero values).
func lossless(t testing.TB, direct, back any, orig []byte) {
	t.Helper()
	want, err := protocol.EncodeJSON(direct)
	require.NoError(t, err)
	got, err := protocol.EncodeJSON(back)
	require.NoError(t, err)
	require.Equal(t, canon(t, want), canon(t, got))
	contains(t, "", canon(t, orig), canon(t, got))
}

// contains checks that every member of want is in got with the same value.
func contains(t testing.TB, path string, want, got any) {
	t.Helper()
	wm, ok := want.(map[string]any)
	if !ok {
		require.Equal(t, want, got, "member %s", path)
		return
	}
	gm, ok := got.(map[string]any)
	require.True(t, ok, "member %s: want an object, got %v", path, got)
	for k, v := range wm {
		g, ok := gm[k]
		require.True(t, ok, "member %s.%s lost", path, k)
		contains(t, path+"."+k, v, g)
	}
}
