package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHubStatusCommand: `jibod hub status` against the reference hub says
// the link is up and lists its skills; with no hub it says every skill is
// local; `hub catalog` prints the catalog.
func TestHubStatusCommand(t *testing.T) {
	t.Setenv(hubURLEnv, "")
	t.Setenv(hubTokenEnv, "")
	h := newTestHub(t)
	out, stderr, code := runJibod(t, "", "hub", "status", "--hub", h.url, "--hub-token", h.token, "--json")
	require.Equal(t, 0, code, stderr)
	var st struct {
		URL, Link, Encoding string
		Skills              []struct{ ID string }
	}
	require.NoError(t, json.Unmarshal([]byte(out), &st), out)
	assert.Equal(t, "up", st.Link)
	assert.NotEmpty(t, st.Encoding)
	var ids []string
	for _, s := range st.Skills {
		ids = append(ids, s.ID)
	}
	assert.Contains(t, ids, "openjibo/trivia")

	out, stderr, code = runJibod(t, "", "hub", "catalog", "--hub", h.url, "--hub-token", h.token)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, `"openjibo/trivia"`)

	out, _, code = runJibod(t, "", "hub", "status")
	assert.Equal(t, 0, code)
	assert.Equal(t, "hub: none configured (every skill is local)\n", out)
	_, _, code = runJibod(t, "", "hub", "nope")
	assert.Equal(t, 2, code)
}
