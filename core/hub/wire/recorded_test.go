package wire

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/jcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every recorded exchange in examples/hub decodes line by line (robot
// lines as HubRequest, hub lines as HubResponse), survives JSON and CBOR
// frames without losing a member, carries "tid-" transIDs and "mid-"
// msgIDs, ends each transaction with exactly one final hub message, and
// its SKILL_ACTIONs hold JCP the executor accepts.
func TestRecordedExchanges(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "..", "examples", "hub", "*.jsonl"))
	require.NoError(t, err)
	require.Len(t, files, 5)
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			f, err := os.Open(file)
			require.NoError(t, err)
			defer f.Close()
			recs, err := ReadRecorded(f)
			require.NoError(t, err)
			require.NotEmpty(t, recs)
			finals := map[string]int{}
			var order []string
			for _, rec := range recs {
				var h protocol.Header
				var direct any
				if rec.Dir == DirRobot {
					h, direct = rec.Request.Header, rec.Request
				} else {
					h, direct = rec.Response.Header, rec.Response
				}
				where := rec.Line
				assert.True(t, strings.HasPrefix(h.TransID, "tid-"), "line %d transID %q", where, h.TransID)
				assert.True(t, strings.HasPrefix(h.MsgID, "mid-"), "line %d msgID %q", where, h.MsgID)
				if !slices.Contains(order, h.TransID) {
					order = append(order, h.TransID)
				}
				for _, enc := range []Encoding{JSON, CBOR} {
					if rec.Dir == DirRobot {
						typ, b, err := EncodeRequest(enc, rec.Request)
						require.NoError(t, err, "line %d", where)
						back, err := DecodeRequest(enc, typ, b)
						require.NoError(t, err, "line %d", where)
						lossless(t, direct, back, rec.Raw)
						continue
					}
					typ, b, err := EncodeResponse(enc, rec.Response)
					require.NoError(t, err, "line %d", where)
					back, err := DecodeResponse(enc, typ, b)
					require.NoError(t, err, "line %d", where)
					lossless(t, direct, back, rec.Raw)
				}
				if rec.Dir != DirHub {
					continue
				}
				assert.Zero(t, finals[h.TransID], "line %d: a message after the final one of %s", where, h.TransID)
				if h.Final != nil && *h.Final {
					finals[h.TransID]++
				}
				if rec.Response.Type == protocol.TypeSkillAction && rec.Response.Action.Action != nil {
					_, err := jcp.ParseAction(rec.Response.Action.Action)
					assert.NoError(t, err, "line %d: SKILL_ACTION's JCP", where)
				}
			}
			for _, tid := range order {
				assert.Equal(t, 1, finals[tid], "transaction %s ends with one final hub message", tid)
			}
		})
	}
}

func TestReadRecordedRefuses(t *testing.T) {
	tests := []struct {
		name, in, wantErr string
	}{
		{"bad dir", `{"dir":"cloud","msg":{}}`, `line 1: dir "cloud": want "robot" or "hub"`},
		{"unknown member", `{"dir":"hub","msg":{},"note":1}`, `line 1: json: unknown field "note"`},
		{"bad endpoint", `{"dir":"robot","endpoint":"/v2/x","msg":{}}`, `line 1: endpoint "/v2/x"`},
		{"robot sends hub type", "\n" + `{"dir":"robot","msg":{"type":"SOS","msgID":"m"}}`, `line 2: decode robot-to-hub message: type: unknown robot-to-hub message type "SOS"`},
		{"not json", `{"dir":`, "line 1: unexpected EOF"},
		{"dir twice", `{"dir":"robot","dir":"hub","msg":{}}`, `line 1: dir: member given twice ("dir")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadRecorded(strings.NewReader(tt.in))
			require.ErrorContains(t, err, tt.wantErr)
		})
	}
}
