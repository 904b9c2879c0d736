package timeline

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/jcp"
)

// TestReadAction: an action file is read as a JCP action or a bare
// behaviour; a bad one is refused naming the file.
func TestReadAction(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o600))
		return p
	}
	tests := []struct {
		name, text, err string
	}{
		{"action", `{"type":"JCP","config":{"jcp":{"type":"SLIM","id":"s","config":{"play":{"esml":"hi"}}}}}`, ""},
		{"bare behaviour", `{"type":"SLIM","id":"s","config":{"play":{"esml":"hi"}}}`, ""},
		{"not JSON", `{"type":`, "not_JSON.json: parse JCP action: invalid JSON"},
		{"unknown type", `{"type":"DANCE"}`, "unknown_type.json: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := ReadAction(write(strings.ReplaceAll(tc.name, " ", "_")+".json", tc.text))
			if tc.err == "" {
				require.NoError(t, err)
				assert.NotNil(t, a)
				return
			}
			assert.ErrorContains(t, err, tc.err)
			assert.Nil(t, a)
		})
	}
	_, err := ReadAction(filepath.Join(dir, "missing.json"))
	assert.ErrorContains(t, err, "reading action: open ")
}

// TestWriteJSONAndFinish: the events are one JSON object a line, with the
// samples merged in on request; Finish draws the SVG file and says what
// was dropped.
func TestWriteJSONAndFinish(t *testing.T) {
	tl := New()
	tl.Device(device.Event{Time: tl.start.Add(30 * time.Millisecond), Device: "speaker", Kind: "say", Values: map[string]any{"text": "a<b"}})
	tl.mu.Lock()
	tl.samples = []Sample{{T: 20 * time.Millisecond, LED: []device.RGB{{R: 0xff, A: 0xff}}}}
	tl.mu.Unlock()

	var plain, with strings.Builder
	require.NoError(t, tl.WriteJSON(&plain, false))
	assert.Equal(t, `{"t_ms":30,"device":"speaker","event":"say","values":{"text":"a<b"}}`+"\n", plain.String())
	require.NoError(t, tl.WriteJSON(&with, true))
	lines := strings.Split(strings.TrimSpace(with.String()), "\n")
	require.Len(t, lines, 2)
	var sample map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &sample))
	assert.Equal(t, "sample", sample["device"])

	svg := filepath.Join(t.TempDir(), "run.svg")
	require.NoError(t, tl.Finish(svg, "run.json", &jcp.Result{Status: jcp.StatusSucceeded}))
	b, err := os.ReadFile(svg)
	require.NoError(t, err)
	assert.Contains(t, string(b), "<svg")
	require.NoError(t, tl.Finish("", "run.json", nil), "no picture asked for")

	for range MaxEvents {
		tl.Add(time.Now(), "ring", "color", nil)
	}
	assert.ErrorContains(t, tl.Finish("", "run.json", nil), "1 events beyond the limit")
}
