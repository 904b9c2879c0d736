package scenario

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParseFileAndRunSummary: a scenario file runs to its summary lines,
// the run's error after what happened; a bad file is named.
func TestParseFileAndRunSummary(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "hang.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"config": {"deadline_ms": 100, "handler_timeout_ms": 5000, "default_pipeline": ["p"]},
		"plugins": {"p": {"match": {"skill_id": "s", "intent_name": "i"}}},
		"handlers": {"s:i": {"outcome": "hang"}}, `+step+`}`), 0o600))
	f, err := ParseFile(path)
	require.NoError(t, err)
	// The deadline is the scenario's clock, not the machine's: in a
	// bubble it passes only once everything else has happened, so a busy
	// machine cannot make the handler start after it.
	synctest.Test(t, func(t *testing.T) {
		var out bytes.Buffer
		err := RunSummary(context.Background(), f, &out, Options{Logger: quiet()})
		assert.True(t, errors.Is(err, ErrDeadline), "%v", err)
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		assert.Equal(t, "1 ovos.utterance.handle", lines[0])
		assert.Contains(t, lines, "1 s:i", "what happened before the deadline is written")
	})

	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"steps": 1}`), 0o600))
	_, err = ParseFile(bad)
	assert.ErrorContains(t, err, bad+": ")
	_, err = ParseFile(filepath.Join(dir, "missing.json"))
	assert.ErrorContains(t, err, "opening scenario: open ")
}
