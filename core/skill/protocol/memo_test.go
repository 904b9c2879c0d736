package protocol

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// proactiveLaunch is the example PROACTIVE_LAUNCH with its memo as real
// proactive launches carry it: the string "Proactive", not an object.
func proactiveLaunch(t *testing.T, memo string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/proactive_launch.json")
	require.NoError(t, err)
	const old = `"memo": {"mim": "OI_JBO_Greeting_SS_Morning", "type": "SemiSpecificResponse"}`
	require.Contains(t, string(b), old)
	return []byte(strings.Replace(string(b), old, `"memo": `+memo, 1))
}

// data.result.memo is typed {entry?} but real skills use it freely (a
// string "Proactive" in real proactive launches, jibo.md §2.2): any JSON
// value is accepted and carried through unchanged (issue 22 item 15).
func TestMemoIsAnyJSONValue(t *testing.T) {
	launch := proactiveLaunch(t, `"Proactive"`)
	req, err := DecodeRequest(launch)
	require.NoError(t, err)
	assert.Equal(t, `"Proactive"`, string(req.Data.Result.Memo))
	out, err := EncodeJSON(req)
	require.NoError(t, err)
	assert.JSONEq(t, string(launch), string(out), "carried through unchanged")

	for _, memo := range []string{`"Proactive"`, `42`, `true`, `["a",{"b":1}]`, `{"mim":"X","type":"ScriptedResponse"}`, `null`, `""`} {
		t.Run(memo, func(t *testing.T) {
			launch := proactiveLaunch(t, memo)
			req, err := DecodeRequest(launch)
			require.NoError(t, err)
			out, err := EncodeJSON(req)
			require.NoError(t, err)
			assert.JSONEq(t, string(launch), string(out))

			// A redirect hands the memo on, skill to hub and hub to robot.
			redirect := NewRedirect(req, "@be/chitchat", json.RawMessage(memo), Skill("@be/greetings"))
			b, err := EncodeJSON(redirect)
			require.NoError(t, err)
			back, err := DecodeResponse(b)
			require.NoError(t, err)
			if memo != `null` { // an explicit null is kept as an unmodelled member
				assert.JSONEq(t, memo, string(back.Redirect.Memo))
			}
			hub := NewHubRedirect(HubRedirectData{Match: &MatchData{SkillID: "@be/chitchat"}, Memo: json.RawMessage(memo)})
			b, err = EncodeJSON(hub)
			require.NoError(t, err)
			hubBack, err := DecodeHubResponse(b)
			require.NoError(t, err)
			if memo != `null` {
				assert.JSONEq(t, memo, string(hubBack.Redirect.Memo))
			}
		})
	}
}
