package protocol

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The examples shipped for `jibod protocol check` (examples/protocol at
// the repository root) are this package's test data for the hub link and
// the manifest, so the two never drift apart.
const sharedExamples = "../../../examples/protocol"

func readShared(t testing.TB, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sharedExamples, rel))
	require.NoError(t, err)
	return b
}

func sharedFiles(t testing.TB, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(sharedExamples, dir, "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	return files
}

// hubMessage is what both hub decoders return.
type hubMessage interface {
	json.Marshaler
}

func decodeHub(t testing.TB, dir string, data []byte) (hubMessage, error) {
	t.Helper()
	if dir == "robot-to-hub" {
		return DecodeHubRequest(data)
	}
	return DecodeHubResponse(data)
}

// Every hub example decodes, validates and re-encodes with every member it
// came with, the top-level transID and unknown members at every level
// included. The only members added are the documented zero values of
// required members a peer left out (CONTEXT's general from a real robot).
func TestHubExamplesRoundTrip(t *testing.T) {
	added := map[string][]string{
		"context_idle.json": {"data.general.accountID", "data.general.robotID", "data.general.lang"},
	}
	for _, dir := range []string{"robot-to-hub", "hub-to-robot"} {
		for _, file := range sharedFiles(t, dir) {
			name := filepath.Base(file)
			t.Run(dir+"/"+name, func(t *testing.T) {
				in, err := os.ReadFile(file)
				require.NoError(t, err)
				msg, err := decodeHub(t, dir, in)
				require.NoError(t, err)
				out, err := EncodeJSON(msg)
				require.NoError(t, err)

				want := in
				for _, path := range added[name] {
					want = edit(t, want, path, `""`)
				}
				require.Equal(t, canon(t, want), canon(t, out))

				again, err := decodeHub(t, dir, out)
				require.NoError(t, err)
				outAgain, err := EncodeJSON(again)
				require.NoError(t, err)
				assert.Equal(t, string(out), string(outAgain), "re-encoding is stable")

				c, err := EncodeCBOR(msg)
				require.NoError(t, err)
				back, err := DecodeCBOR(c)
				require.NoError(t, err)
				fromCBOR, err := decodeHub(t, dir, back)
				require.NoError(t, err, "JSON→CBOR→JSON decodes")
				assert.Equal(t, canon(t, out), canon(t, mustJSON(t, fromCBOR)), "JSON→CBOR→JSON keeps every value")
			})
		}
	}
}

func TestDecodeHubRequestErrors(t *testing.T) {
	listen := readShared(t, "robot-to-hub/listen.json")
	context := readShared(t, "robot-to-hub/context.json")
	trigger := readShared(t, "robot-to-hub/trigger.json")
	cmd := readShared(t, "robot-to-hub/cmd_result.json")
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{name: "unknown type", in: edit(t, listen, "type", `"HELLO"`), want: `type: unknown robot-to-hub message type "HELLO"`},
		{name: "hub-to-robot type", in: edit(t, listen, "type", `"SOS"`), want: `type: unknown robot-to-hub message type "SOS"`},
		{name: "msgID missing", in: edit(t, listen, "msgID", remove), want: "msgID: required"},
		{name: "data null", in: edit(t, listen, "data", `null`), want: "data: required"},
		{name: "data missing", in: edit(t, context, "data", remove), want: "data: required"},
		{name: "lang missing", in: edit(t, listen, "data.lang", remove), want: "data.lang: required"},
		{name: "hotphrase not boolean", in: edit(t, listen, "data.hotphrase", `"yes"`), want: "data.hotphrase: want boolean"},
		{name: "rule not string", in: edit(t, listen, "data.rules[1]", `2`), want: "data.rules[1]: want string"},
		{name: "unknown mode", in: edit(t, listen, "data.mode", `"CLIENT_TEXT"`), want: `data.mode: "CLIENT_TEXT" is not one of "", "CLIENT_ASR", "CLIENT_NLU"`},
		{name: "asr string not FAKE", in: edit(t, listen, "data.asr", `"fake"`), want: `data.asr: want object or "FAKE", got "fake"`},
		{name: "asr number", in: edit(t, listen, "data.asr", `7`), want: "data.asr: want object"},
		{name: "sample rate zero", in: edit(t, listen, "data.asr.sampleRate", `0`), want: "data.asr.sampleRate: 0 outside 1..192000"},
		{name: "sample rate fractional", in: edit(t, listen, "data.asr.sampleRate", `16000.5`), want: "data.asr.sampleRate: want integer, got 16000.5"},
		{name: "sos timeout negative", in: edit(t, listen, "data.asr.sosTimeout", `-1`), want: "data.asr.sosTimeout: -1 ms outside 0..600000"},
		{name: "max speech timeout too long", in: edit(t, listen, "data.asr.maxSpeechTimeout", `600001`), want: "data.asr.maxSpeechTimeout: 600001 ms outside 0..600000"},
		{name: "hint not string", in: edit(t, listen, "data.asr.hints[0]", `{}`), want: "data.asr.hints[0]: want string"},
		{name: "agent rules not array", in: edit(t, listen, "data.agents.smalltalk.rules", `"x"`), want: "data.agents.smalltalk.rules: want array"},
		{name: "context without release", in: edit(t, context, "data.general.release", remove), want: "data.general.release: required (hubs take a robot without one for release 1.8.0)"},
		{name: "context session without skill id", in: edit(t, context, "data.skill.id", `null`), want: "data.skill.id: required with a session"},
		{name: "unknown trigger source", in: edit(t, trigger, "data.triggerSource", `"BORED"`), want: `data.triggerSource: "BORED" is not one of "NEW_ARRIVAL", "SURPRISE"`},
		{name: "trigger source missing", in: edit(t, trigger, "data.triggerSource", remove), want: "data.triggerSource: required"},
		{name: "looperID not string", in: edit(t, trigger, "data.triggerData.looperID", `3`), want: "data.triggerData.looperID: want string"},
		{name: "command missing", in: edit(t, cmd, "data.input.command", remove), want: "data.input.command: required"},
		{name: "client ASR text not string", in: edit(t, readShared(t, "robot-to-hub/client_asr.json"), "data.text", `1`), want: "data.text: want string"},
		{name: "client NLU rules not array", in: edit(t, readShared(t, "robot-to-hub/client_nlu.json"), "data.rules", `{}`), want: "data.rules: want array"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := DecodeHubRequest(tt.in)
			require.EqualError(t, err, "decode robot-to-hub message: "+tt.want)
			assert.Nil(t, r, "nothing half-decoded is returned")
			var fe *FieldError
			require.ErrorAs(t, err, &fe)
		})
	}
}

func TestDecodeHubResponseErrors(t *testing.T) {
	listen := readShared(t, "hub-to-robot/listen.json")
	redirect := readShared(t, "hub-to-robot/skill_redirect.json")
	hubErr := readShared(t, "hub-to-robot/error.json")
	action := readShared(t, "hub-to-robot/skill_action.json")
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{name: "unknown type", in: edit(t, listen, "type", `"CONTEXT"`), want: `type: unknown hub-to-robot message type "CONTEXT"`},
		{name: "listen without nlu", in: edit(t, listen, "data.nlu", remove), want: "data.nlu: required"},
		{name: "match names no skill", in: edit(t, listen, "data.match", `{"launch":true}`), want: "data.match: names no skill: want skillID or cloudSkill"},
		{name: "match not object", in: edit(t, listen, "data.match", `"clock"`), want: "data.match: want object"},
		{name: "match onRobot not boolean", in: edit(t, listen, "data.match.onRobot", `1`), want: "data.match.onRobot: want boolean"},
		{name: "asr confidence above 1", in: edit(t, listen, "data.asr.confidence", `1.5`), want: "data.asr.confidence: 1.5 outside [0, 1]"},
		{name: "redirect without match", in: edit(t, redirect, "data.match", remove), want: "data.match: required"},
		{name: "redirect with null match", in: edit(t, redirect, "data.match", `null`), want: "data.match: required"},
		{name: "error without message", in: edit(t, hubErr, "data.message", `""`), want: "data.message: required"},
		{name: "unknown error code", in: edit(t, hubErr, "data.code", `"OOPS"`), want: `data.code: "OOPS" is not one of "SKILL_NOT_FOUND", "TIMEOUT_SKILL", "TIMEOUT_PARSER", "TIMEOUT_ASR", "TIMEOUT_CONTEXT", "TIMEOUT_TRANSACTION", "ASR", "PARSER", "GENERAL"`},
		{name: "action without skill id", in: edit(t, action, "data.skill", `{"id":null}`), want: "data.skill.id: required"},
		{name: "SOS data array", in: edit(t, readShared(t, "hub-to-robot/eos.json"), "data", `[]`), want: "data: want object or null"},
		{name: "proactive match names no skill", in: edit(t, readShared(t, "hub-to-robot/proactive.json"), "data.match", `{}`), want: "data.match: names no skill: want skillID or cloudSkill"},
		{name: "interim NLU intent not string", in: edit(t, readShared(t, "hub-to-robot/nlu.json"), "data.intent", `1`), want: "data.intent: want string or null"},
		{name: "interim ASR data missing", in: edit(t, readShared(t, "hub-to-robot/asr.json"), "data", remove), want: "data: required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := DecodeHubResponse(tt.in)
			require.EqualError(t, err, "decode hub-to-robot message: "+tt.want)
			assert.Nil(t, r, "nothing half-decoded is returned")
		})
	}
}

// The hub link's own limits apply before anything is built.
func TestDecodeHubLimits(t *testing.T) {
	big := `{"type":"CLIENT_ASR","msgID":"m","data":{"text":"` + strings.Repeat("a", MaxMessageSize) + `"}}`
	_, err := DecodeHubRequest([]byte(big))
	require.ErrorIs(t, err, ErrLimit)

	deep := strings.Repeat("[", MaxNestedLevels+1) + strings.Repeat("]", MaxNestedLevels+1)
	_, err = DecodeHubResponse([]byte(`{"type":"COMMAND","msgID":"m","data":` + deep + `}`))
	require.ErrorIs(t, err, ErrLimit)
}

func TestHubValidate(t *testing.T) {
	long := strings.Repeat("x", MaxStringLen+1)
	mode := "CLIENT_NLU"
	rate := 16000
	tests := []struct {
		name string
		msg  interface{ Validate() error }
		want string
	}{
		{name: "two data members", msg: &HubRequest{Header: Header{Type: TypeListen, MsgID: "m"},
			Listen: &ListenData{Lang: "en-US"}, ClientASR: &ClientASRData{}}, want: "data: more than one kind of data set; LISTEN takes one"},
		{name: "wrong data member", msg: &HubRequest{Header: Header{Type: TypeContext, MsgID: "m"},
			Listen: &ListenData{Lang: "en-US"}}, want: "data: required"},
		{name: "fake and configured asr", msg: &HubRequest{Header: Header{Type: TypeListen, MsgID: "m"},
			Listen: &ListenData{Lang: "en-US", FakeASR: true, ASR: &ASRConfig{SampleRate: &rate}}}, want: `data.asr: both a configuration and "FAKE"`},
		{name: "too many agents", msg: NewListen(ListenData{Lang: "en-US", Mode: &mode, Agents: manyAgents(MaxAgents + 1)}), want: "data.agents: 17 agents, limit 16"},
		{name: "too many hints", msg: NewListen(ListenData{Lang: "en-US", ASR: &ASRConfig{Hints: make([]string, MaxHints+1)}}), want: "data.asr.hints: 1025 entries, limit 1024"},
		{name: "long access token", msg: NewListen(ListenData{Lang: "en-US", Agents: map[string]AgentRequest{"a": {AccessToken: long}}}), want: "data.agents.a.accessToken: 16385 bytes, limit 16384"},
		{name: "too many rules", msg: NewListen(ListenData{Lang: "en-US", Rules: make([]string, MaxRules+1)}), want: "data.rules: 257 entries, limit 256"},
		{name: "SOS with listen data", msg: &HubResponse{Header: Header{Type: TypeSOS, MsgID: "m"},
			Data: json.RawMessage(`{}`), Listen: &ListenResultData{NLU: &NLUResult{}}}, want: "data: more than one kind of data set; SOS takes one"},
		{name: "unknown hub-to-robot type", msg: &HubResponse{Header: Header{Type: "HELLO", MsgID: "m"}}, want: `type: unknown hub-to-robot message type "HELLO"`},
		{name: "hub error with bad skill", msg: &HubResponse{Header: Header{Type: TypeError, MsgID: "m"},
			Error: &HubErrorData{Message: "x", Skill: &SkillData{Session: &Session{}}}}, want: "data.skill.id: required with a session"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.EqualError(t, tt.msg.Validate(), tt.want)
		})
	}
}

func manyAgents(n int) map[string]AgentRequest {
	m := map[string]AgentRequest{}
	for i := range n {
		m["agent"+itoa(i)] = AgentRequest{}
	}
	return m
}

// The constructors build messages that validate and carry exactly the
// members the spec names.
func TestHubConstructors(t *testing.T) {
	c := testContext()
	nlu := NLUFromSlots("setTimer", nil, []string{"launch"})
	asr := ASRResult{Text: "set a timer", Confidence: 0.9}
	mode := ModeClientNLU
	skill := "openjibo/timer"
	opts := []Option{WithTime(fixedTime), WithMsgID("mid-1"), WithTransID("tid-1")}
	tests := []struct {
		name     string
		msg      interface{ Validate() error }
		wantType string
		wantData string
	}{
		{name: "listen", msg: NewListen(ListenData{Lang: "en-US", Hotphrase: true, Rules: []string{"launch"}, Mode: &mode, FakeASR: true}, opts...),
			wantType: TypeListen, wantData: `{"lang":"en-US","hotphrase":true,"rules":["launch"],"mode":"CLIENT_NLU","asr":"FAKE"}`},
		{name: "context", msg: NewContext(Context{General: GeneralData{Release: "1.9.2"}}, opts...),
			wantType: TypeContext, wantData: `{"general":{"accountID":"","robotID":"","lang":"","release":"1.9.2"},"runtime":` + string(mustJSON(t, RuntimeContext{})) + `,"skill":{"id":null}}`},
		{name: "trigger", msg: NewTrigger(TriggerSurprise, "looper-sam", opts...),
			wantType: TypeTrigger, wantData: `{"triggerSource":"SURPRISE","triggerData":{"looperID":"looper-sam"}}`},
		{name: "command result", msg: NewCmdResult("en-US", c, "SKILL_ACTION", json.RawMessage(`{"status":"SUCCEEDED"}`), opts...),
			wantType: TypeCmdResult, wantData: `{"lang":"en-US","general":` + string(mustJSON(t, c.General)) + `,"runtime":` + string(mustJSON(t, c.Runtime)) +
				`,"skill":{"id":"@be/weather"},"input":{"command":"SKILL_ACTION","result":{"status":"SUCCEEDED"}}}`},
		{name: "client ASR", msg: NewClientASR("what can you do", opts...), wantType: TypeClientASR, wantData: `{"text":"what can you do"}`},
		{name: "client NLU", msg: NewClientNLU(nlu, opts...), wantType: TypeClientNLU, wantData: `{"intent":"setTimer","entities":{},"rules":["launch"]}`},
		{name: "SOS", msg: NewSpeechMark(TypeSOS, opts...), wantType: TypeSOS},
		{name: "EOS", msg: NewSpeechMark(TypeEOS, opts...), wantType: TypeEOS},
		{name: "listen result", msg: NewListenResult(&nlu, &asr, &MatchData{SkillID: skill}, false, opts...),
			wantType: TypeListen, wantData: `{"asr":{"text":"set a timer","confidence":0.9},"nlu":{"intent":"setTimer","entities":{},"rules":["launch"]},"match":{"skillID":"openjibo/timer"}}`},
		{name: "listen result without asr or match", msg: NewListenResult(&nlu, nil, nil, true, opts...),
			wantType: TypeListen, wantData: `{"nlu":{"intent":"setTimer","entities":{},"rules":["launch"]}}`},
		{name: "forwarded action", msg: NewHubSkillAction(&SkillActionData{Skill: Skill(skill)}, opts...),
			wantType: TypeSkillAction, wantData: `{"skill":{"id":"openjibo/timer"},"action":null}`},
		{name: "redirect", msg: NewHubRedirect(HubRedirectData{Match: &MatchData{CloudSkill: "openjibo/chitchat"}, Memo: json.RawMessage(`{"mim":"X"}`)}, opts...),
			wantType: TypeSkillRedirect, wantData: `{"match":{"cloudSkill":"openjibo/chitchat"},"memo":{"mim":"X"}}`},
		{name: "proactive, nothing eligible", msg: NewProactive(nil, opts...), wantType: TypeProactive, wantData: `{}`},
		{name: "hub error", msg: NewHubError(HubErrorTimeoutSkill, "too slow", opts...),
			wantType: TypeError, wantData: `{"message":"too slow","code":"TIMEOUT_SKILL"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NoError(t, tt.msg.Validate())
			b, err := EncodeJSON(tt.msg)
			require.NoError(t, err)
			var got struct {
				Type    string          `json:"type"`
				MsgID   string          `json:"msgID"`
				TS      int64           `json:"ts"`
				TransID string          `json:"transID"`
				Data    json.RawMessage `json:"data"`
			}
			require.NoError(t, json.Unmarshal(b, &got))
			assert.Equal(t, tt.wantType, got.Type)
			assert.Equal(t, "mid-1", got.MsgID)
			assert.Equal(t, "tid-1", got.TransID)
			assert.Equal(t, fixedTime.UnixMilli(), got.TS)
			if tt.wantData == "" {
				assert.Nil(t, got.Data, "no data member")
			} else {
				assert.JSONEq(t, tt.wantData, string(got.Data))
			}
		})
	}
	final := NewListenResult(&nlu, nil, nil, true)
	require.NotNil(t, final.Final)
	assert.True(t, *final.Final, "a LISTEN result says whether the turn ends")
}

// NewHeader fills a fresh message id and the current time.
func TestNewHeader(t *testing.T) {
	h := NewHeader(TypeContext, WithTransID("tid-x"))
	assert.Equal(t, TypeContext, h.Type)
	assert.Regexp(t, msgIDPattern, h.MsgID)
	assert.Equal(t, "tid-x", h.TransID)
	assert.Positive(t, h.TS)
}

// jibo.md §1.6 on the hub's LISTEN result.
func TestListenResultState(t *testing.T) {
	intent := "setTimer"
	tests := []struct {
		name string
		d    ListenResultData
		want ListenState
	}{
		{name: "intent", d: ListenResultData{NLU: &NLUResult{Intent: &intent}}, want: ListenMatch},
		{name: "CLIENT_NLU turn without asr and intent", d: ListenResultData{NLU: &NLUResult{}}, want: ListenNoInput},
		{name: "heard but not understood", d: ListenResultData{NLU: &NLUResult{}, ASR: &ASRResult{Text: "hmm"}}, want: ListenNoMatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.d.State())
		})
	}
}

// Explicit nulls the spec allows for optional members survive: a LISTEN
// result's "match": null (nothing matched) and a LISTEN's "asr": null.
func TestHubNullsKept(t *testing.T) {
	in := readShared(t, "hub-to-robot/listen_no_match.json")
	r, err := DecodeHubResponse(in)
	require.NoError(t, err)
	assert.Nil(t, r.Listen.Match)
	assert.JSONEq(t, `null`, string(r.Listen.Extra["match"]))
	assert.Equal(t, ListenNoInput, r.Listen.State())

	q, err := DecodeHubRequest(edit(t, readShared(t, "robot-to-hub/listen.json"), "data.asr", `null`))
	require.NoError(t, err)
	assert.Nil(t, q.Listen.ASR)
	assert.False(t, q.Listen.FakeASR)
	assert.Contains(t, string(mustJSON(t, q)), `"asr":null`)
}
