package protocol

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// replaceOnce replaces old, which must occur in s, once.
func replaceOnce(t *testing.T, s []byte, old, new string) []byte {
	t.Helper()
	require.Contains(t, string(s), old)
	return []byte(strings.Replace(string(s), old, new, 1))
}

// Two parsers must not disagree about one message: a member given twice,
// anywhere in it (verbatim members such as the JCP action included), is
// refused with its path (issue 22 item 9).
func TestDuplicateMembersRefused(t *testing.T) {
	asr := readShared(t, "robot-to-hub/client_asr.json")
	action := readShared(t, "hub-to-robot/skill_action.json")
	skillAction := readShared(t, "skill/skill_action.json")
	manifest := readShared(t, "manifest/timer.json")
	tests := []struct {
		name   string
		decode func([]byte) error
		in     []byte
		want   string
	}{
		{"two types in a hub message", decodeHubRequest,
			replaceOnce(t, asr, `"type": "CLIENT_ASR",`, `"type": "CLIENT_ASR", "type": "CLIENT_NLU",`),
			`decode robot-to-hub message: type: member given twice ("type")`},
		{"two texts in CLIENT_ASR", decodeHubRequest,
			replaceOnce(t, asr, `"text": "what can you do"`, `"text": "what can you do", "text": "stop"`),
			`data.text: member given twice ("text")`},
		{"esml twice in a forwarded JCP behaviour", decodeHubResponse,
			replaceOnce(t, action, `"esml": `, `"esml": "Hi.", "esml": `),
			`data.action.config.jcp.config.play.esml: member given twice ("esml")`},
		{"esml twice in a skill's action", decodeResponse,
			replaceOnce(t, skillAction, `"esml": "For how long?"`, `"esml": "For how long?", "esml": "Bye."`),
			`member given twice ("esml")`},
		{"two ids in a skill manifest (jibo.md §2.6)", decodeManifest,
			replaceOnce(t, manifest, `"id": "openjibo/timer",`, `"id": "openjibo/timer", "id": "openjibo/clock",`),
			`decode skill manifest: id: member given twice ("id")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.decode(tt.in)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			var fe *FieldError
			assert.ErrorAs(t, err, &fe, "the member's path is a FieldError")
		})
	}
}

// Text a person said is refused, not silently altered, when it is not
// UTF-8 (encoding/json would turn it into U+FFFD) or holds control
// characters (issue 22 item 10).
func TestUtteranceTextRefused(t *testing.T) {
	asr := readShared(t, "robot-to-hub/client_asr.json")
	tests := []struct {
		name, text, want string
	}{
		{"invalid UTF-8", "caf\xe9", "data.text: invalid UTF-8"},
		{"a lone surrogate escape", `\ud83e`, `data.text: invalid UTF-8 (\ud83e is half a UTF-16 surrogate pair)`},
		{"BEL", `ring\u0007`, "data.text: control character U+0007 (BEL) at byte 4"},
		{"NUL", `a\u0000b`, "data.text: control character U+0000 (NUL) at byte 1"},
		{"right-to-left override", `play \u202egnos`, "data.text: control character U+202E (RLO) at byte 5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeHubRequest(replaceOnce(t, asr, `"what can you do"`, `"`+tt.text+`"`))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	// Built in Go, the same text fails validation, so it is not sent.
	assert.ErrorContains(t, NewClientASR("ring\a").Validate(), "control character U+0007")
	assert.ErrorContains(t, (&ASRResult{Text: "a\x1b[2J"}).validate(), "control character U+001B (ESC)")
}

func decodeHubRequest(b []byte) error  { _, err := DecodeHubRequest(b); return err }
func decodeHubResponse(b []byte) error { _, err := DecodeHubResponse(b); return err }
func decodeResponse(b []byte) error    { _, err := DecodeResponse(b); return err }
func decodeManifest(b []byte) error    { _, err := DecodeManifest(b); return err }
