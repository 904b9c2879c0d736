package protocol

import (
	"encoding/json"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	msgIDPattern   = regexp.MustCompile(`^mid-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	transIDPattern = regexp.MustCompile(`^tid-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	fixedTime      = time.Date(2024, 6, 10, 16, 0, 0, 123_000_000, time.UTC)
)

func TestIDs(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		id := NewMsgID()
		require.Regexp(t, msgIDPattern, id)
		require.False(t, seen[id], "ids are unique")
		seen[id] = true
		require.Regexp(t, transIDPattern, NewTransID())
	}
}

func testContext() Context {
	speaker := "looper-ada"
	return Context{
		General: GeneralData{AccountID: "acct", RobotID: "Maple-Otter-Lantern-Quiet", Lang: "en-US", Release: "1.9.2"},
		Runtime: RuntimeContext{Perception: Perception{Speaker: &speaker}},
		Skill:   Skill("@be/weather"),
	}
}

func TestNewRequests(t *testing.T) {
	c := testContext()
	nlu := NLUFromSlots("askForecast", map[string]string{"day": "tomorrow"}, []string{"launch"})
	asr := ASRResult{Text: "weather tomorrow", Confidence: 0.9}
	memo := json.RawMessage(`{"entry":"forecast"}`)

	launch := NewListenLaunch(c, nlu, asr, memo, WithTime(fixedTime), WithTransID("tid-1"))
	update := NewListenUpdate(c, nlu, asr, WithTime(fixedTime))
	proactive := NewProactiveLaunch(c, nil, WithTime(fixedTime), WithMsgID("mid-fixed"))

	tests := []struct {
		req      *Request
		typ      string
		transID  string
		wantData string
	}{
		{req: launch, typ: TypeListenLaunch, transID: "tid-1", wantData: `"result":{"nlu":{"intent":"askForecast","entities":{"day":"tomorrow"},"rules":["launch"]},"asr":{"text":"weather tomorrow","confidence":0.9},"memo":{"entry":"forecast"}}`},
		{req: update, typ: TypeListenUpdate, wantData: `"result":{"nlu":{"intent":"askForecast","entities":{"day":"tomorrow"},"rules":["launch"]},"asr":{"text":"weather tomorrow","confidence":0.9}}`},
		{req: proactive, typ: TypeProactiveLaunch, wantData: `"result":{}`},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			require.NoError(t, tt.req.Validate())
			assert.Equal(t, tt.typ, tt.req.Type)
			assert.Equal(t, int64(1718035200123), tt.req.TS)
			assert.Equal(t, tt.transID, tt.req.TransID)
			assert.Equal(t, c, tt.req.Context())
			js := string(mustJSON(t, tt.req))
			assert.Contains(t, js, tt.wantData)
			assert.Contains(t, js, `"skill":{"id":"@be/weather"}`)
			if tt.transID == "" {
				assert.NotContains(t, js, "transID", "an empty transID is absent")
			}
			again, err := DecodeRequest([]byte(js))
			require.NoError(t, err)
			assert.Equal(t, js, string(mustJSON(t, again)))
		})
	}
	assert.Regexp(t, msgIDPattern, launch.MsgID)
	assert.Equal(t, "mid-fixed", proactive.MsgID)
}

func TestNewResponses(t *testing.T) {
	req, err := DecodeRequest(readExample(t, "listen_launch"))
	require.NoError(t, err)
	skill := Skill("@be/weather")
	action := json.RawMessage(`{"type":"JCP","config":{"version":"2.0","jcp":{"type":"SLIM","id":"1","config":{"play":{"esml":"Hi."}}}}}`)

	tests := []struct {
		name string
		resp *Response
		want string // expected data member
	}{
		{
			name: "action",
			resp: NewSkillAction(req, skill, action, false, WithTime(fixedTime)),
			want: `{"skill":{"id":"@be/weather"},"action":` + string(action) + `,"final":false,"fireAndForget":false}`,
		},
		{
			name: "final action",
			resp: NewSkillAction(req, skill, action, true, WithTime(fixedTime)),
			want: `{"skill":{"id":"@be/weather"},"action":` + string(action) + `,"final":true,"fireAndForget":false}`,
		},
		{
			name: "end",
			resp: NewSkillEnd(req, skill, WithTime(fixedTime)),
			want: `{"skill":{"id":"@be/weather"},"action":null,"final":true,"fireAndForget":true}`,
		},
		{
			name: "redirect carries the utterance",
			resp: NewRedirect(req, "chitchat", json.RawMessage(`{"mim":"X","type":"ScriptedResponse"}`), skill, WithTime(fixedTime)),
			want: `{"skillID":"chitchat","memo":{"mim":"X","type":"ScriptedResponse"},"asr":` + string(mustJSON(t, req.Data.Result.ASR)) +
				`,"nlu":` + string(mustJSON(t, req.Data.Result.NLU)) + `,"skill":{"id":"@be/weather"}}`,
		},
		{
			name: "error names the request's skill",
			resp: NewError(req, "forecast service unavailable", WithTime(fixedTime)),
			want: `{"message":"forecast service unavailable","skill":{"id":"@be/weather"}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NoError(t, tt.resp.Validate())
			assert.Equal(t, req.TransID, tt.resp.TransID, "transID is echoed")
			assert.Equal(t, int64(1718035200123), tt.resp.TS)
			assert.Regexp(t, msgIDPattern, tt.resp.MsgID)
			assert.NotEqual(t, req.MsgID, tt.resp.MsgID)

			var env Envelope
			require.NoError(t, json.Unmarshal(mustJSON(t, tt.resp), &env))
			assert.JSONEq(t, tt.want, string(env.Data))
			assert.Equal(t, "tid-0c9e4a52-7d13-4b7f-8e21-5a6c3f9d1b44", env.TransID)

			back, err := DecodeResponse(mustJSON(t, tt.resp))
			require.NoError(t, err)
			assert.Equal(t, mustJSON(t, tt.resp), mustJSON(t, back))
		})
	}
}

// Responses can be built without a request (e.g. a hub-side failure).
func TestNewResponsesWithoutRequest(t *testing.T) {
	resp := NewError(nil, "skill not found", WithTime(fixedTime))
	require.NoError(t, resp.Validate())
	assert.Empty(t, resp.TransID)
	var env Envelope
	require.NoError(t, json.Unmarshal(mustJSON(t, resp), &env))
	assert.JSONEq(t, `{"message":"skill not found","skill":{"id":null}}`, string(env.Data))

	redirect := NewRedirect(nil, "chitchat", nil, Skill("a"))
	require.NoError(t, redirect.Validate())
	assert.Nil(t, redirect.Redirect.NLU)
	assert.Nil(t, redirect.Redirect.ASR)
}

func TestResponseMarshalErrors(t *testing.T) {
	tests := []struct {
		name string
		resp Response
		want string
	}{
		{name: "unknown type", resp: Response{Header: Header{Type: "NOPE"}}, want: `encode response: unknown type "NOPE"`},
		{name: "invalid action", resp: *NewSkillAction(nil, Skill("s"), json.RawMessage(`{"a":`), false), want: "encode data.action: unexpected end of JSON input"},
		{name: "invalid extra", resp: Response{Header: Header{Type: TypeError, Extra: map[string]json.RawMessage{"x": json.RawMessage(`nope`)}}, Error: &ErrorData{Message: "m"}}, want: "encode x: invalid character 'o' in literal null (expecting 'u')"},
		{name: "non-finite number", resp: Response{Header: Header{Type: TypeError, Timings: map[string]float64{"total": inf()}}, Error: &ErrorData{Message: "m"}}, want: "encode timings: json: unsupported value: +Inf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.resp.MarshalJSON()
			require.EqualError(t, err, tt.want)
		})
	}
	// Data missing for the type encodes as null (Validate reports it).
	b, err := json.Marshal(Response{Header: Header{Type: TypeSkillAction, MsgID: "m"}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"SKILL_ACTION","msgID":"m","ts":0,"data":null}`, string(b))
}
