package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// protocol check and jcp run agree on what a behaviour is: a bare one
// ({"type":"SLIM",…}, as a MIM's SLIM is written) is the root of an
// action to both, and a bad one is refused by both at the same place.
func TestProtocolCheckAndJCPRunAgreeOnBareBehaviours(t *testing.T) {
	bare := filepath.Join("..", "..", "examples", "protocol", "jcp", "behaviour_slim.json")
	out, stderr, code := runJibod(t, "", "protocol", "check", bare)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "JCP behaviour SLIM")
	out, stderr, code = runJibod(t, "", "jcp", "run", "--speak-wpm", "0", bare)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, `"event":"say"`, "the SLIM's speech ran on the sim body")
	assert.Contains(t, out, "I can set timers")

	bad := writeFile(t, "bad.json", `{"type":"SLIM","id":"s","config":{"play":{"esml":5}}}`)
	_, stderr, code = runJibod(t, "", "protocol", "check", bad)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "config.play.esml")
	_, stderr, code = runJibod(t, "", "jcp", "run", bad)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "config.play.esml")
	assert.NotContains(t, stderr, "config.jcp", "paths start at the behaviour given")

	neither := writeFile(t, "neither.json", `{"type":"SKILL_ACTION","data":{}}`)
	_, stderr, code = runJibod(t, "", "jcp", "run", neither)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, `want "JCP" (an action`)
	assert.Contains(t, stderr, "or a behaviour type (SLIM,")
}
