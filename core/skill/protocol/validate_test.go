package protocol

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func decodeRequestExample(t *testing.T, name string) *Request {
	t.Helper()
	r, err := DecodeRequest(readExample(t, name))
	require.NoError(t, err)
	return r
}

func decodeResponseExample(t *testing.T, name string) *Response {
	t.Helper()
	r, err := DecodeResponse(readExample(t, name))
	require.NoError(t, err)
	return r
}

func TestRequestValidate(t *testing.T) {
	long := strings.Repeat("x", MaxStringLen+1)
	tooLong := "16385 bytes, limit 16384"
	tests := []struct {
		name    string
		example string
		mutate  func(r *Request)
		want    string
	}{
		{name: "unknown type", example: "listen_launch", mutate: func(r *Request) { r.Type = "LISTEN" }, want: `type: unknown request type "LISTEN"`},
		{name: "response type", example: "listen_launch", mutate: func(r *Request) { r.Type = TypeSkillAction }, want: `type: unknown request type "SKILL_ACTION"`},
		{name: "long type is quoted short", example: "listen_launch", mutate: func(r *Request) { r.Type = strings.Repeat("A", 100) }, want: `type: unknown request type "` + strings.Repeat("A", 64) + `…"`},
		{name: "msgID missing", example: "listen_launch", mutate: func(r *Request) { r.MsgID = "" }, want: "msgID: required"},
		{name: "msgID too long", example: "listen_launch", mutate: func(r *Request) { r.MsgID = long }, want: "msgID: " + tooLong},
		{name: "ts negative", example: "listen_launch", mutate: func(r *Request) { r.TS = -1 }, want: "ts: must not be negative"},
		{name: "transID too long", example: "listen_launch", mutate: func(r *Request) { r.TransID = long }, want: "transID: " + tooLong},
		{name: "data missing", example: "listen_launch", mutate: func(r *Request) { r.Data = nil }, want: "data: required"},
		{name: "launch without nlu", example: "listen_launch", mutate: func(r *Request) { r.Data.Result.NLU = nil }, want: "data.result.nlu: required for LISTEN_LAUNCH"},
		{name: "update without nlu", example: "listen_update", mutate: func(r *Request) { r.Data.Result.NLU = nil }, want: "data.result.nlu: required for LISTEN_UPDATE"},
		{name: "update without skill id", example: "listen_update", mutate: func(r *Request) { r.Data.Skill.ID = nil }, want: "data.skill.id: required with a session"},
		{name: "update without skill id or session", example: "listen_update", mutate: func(r *Request) { r.Data.Skill = SkillData{} }, want: "data.skill.id: required for LISTEN_UPDATE"},
		{name: "update with empty skill id", example: "listen_update", mutate: func(r *Request) { r.Data.Skill = Skill("") }, want: "data.skill.id: required for LISTEN_UPDATE"},
		{name: "session without skill id", example: "proactive_launch", mutate: func(r *Request) {
			r.Data.Skill = SkillData{Session: &Session{ID: "s"}}
		}, want: "data.skill.id: required with a session"},
		{name: "negative nodeID", example: "listen_update", mutate: func(r *Request) { r.Data.Skill.Session.NodeID = -1 }, want: "data.skill.session.nodeID: must not be negative"},
		{name: "trace too long", example: "listen_update", mutate: func(r *Request) {
			r.Data.Skill.Session.Trace = make([]TraceEntry, MaxTraceLen+1)
		}, want: "data.skill.session.trace: 4097 entries, limit 4096"},
		{name: "trace entry negative nodeID", example: "listen_update", mutate: func(r *Request) { r.Data.Skill.Session.Trace[2].NodeID = -5 }, want: "data.skill.session.trace[2].nodeID: must not be negative"},
		{name: "trace transition too long", example: "listen_update", mutate: func(r *Request) { r.Data.Skill.Session.Trace[1].Transition = &long }, want: "data.skill.session.trace[1].transition: " + tooLong},
		{name: "session id too long", example: "listen_update", mutate: func(r *Request) { r.Data.Skill.Session.ID = long }, want: "data.skill.session.id: " + tooLong},
		{name: "skill id too long", example: "listen_launch", mutate: func(r *Request) { r.Data.Skill.ID = &long }, want: "data.skill.id: " + tooLong},
		{name: "asr confidence above 1", example: "listen_launch", mutate: func(r *Request) { r.Data.Result.ASR.Confidence = 1.5 }, want: "data.result.asr.confidence: 1.5 outside [0, 1]"},
		{name: "asr confidence negative", example: "listen_update", mutate: func(r *Request) { r.Data.Result.ASR.Confidence = -0.1 }, want: "data.result.asr.confidence: -0.1 outside [0, 1]"},
		{name: "asr text too long", example: "listen_launch", mutate: func(r *Request) { r.Data.Result.ASR.Text = long }, want: "data.result.asr.text: " + tooLong},
		{name: "too many entities", example: "listen_launch", mutate: func(r *Request) {
			for i := range MaxEntities + 1 {
				r.Data.Result.NLU.Entities["e"+itoa(i)] = i
			}
		}, want: "data.result.nlu.entities: 261 entities, limit 256"},
		{name: "too many rules", example: "listen_launch", mutate: func(r *Request) { r.Data.Result.NLU.Rules = make([]string, MaxRules+1) }, want: "data.result.nlu.rules: 257 rules, limit 256"},
		{name: "rule too long", example: "listen_launch", mutate: func(r *Request) { r.Data.Result.NLU.Rules[1] = long }, want: "data.result.nlu.rules[1]: " + tooLong},
		{name: "intent too long", example: "listen_launch", mutate: func(r *Request) { r.Data.Result.NLU.Intent = &long }, want: "data.result.nlu.intent: " + tooLong},
		{name: "external agent checked", example: "listen_launch", mutate: func(r *Request) {
			ext := r.Data.Result.NLU.External["smalltalk"]
			ext.Rules = []string{long}
			r.Data.Result.NLU.External["smalltalk"] = ext
		}, want: "data.result.nlu.external.smalltalk.rules[0]: " + tooLong},
		{name: "memo invalid JSON", example: "proactive_launch", mutate: func(r *Request) { r.Data.Result.Memo = json.RawMessage(`{"mim":`) }, want: "data.result.memo: want a JSON value"},
		{name: "robotID too long", example: "listen_launch", mutate: func(r *Request) { r.Data.General.RobotID = long }, want: "data.general.robotID: " + tooLong},
		{name: "city too long", example: "listen_launch", mutate: func(r *Request) { r.Data.Runtime.Location.City = long }, want: "data.runtime.location.city: " + tooLong},
		{name: "looper name too long", example: "listen_launch", mutate: func(r *Request) { r.Data.Runtime.Loop.Users[0].FirstName = long }, want: "data.runtime.loop.users[0].firstName: " + tooLong},
		{name: "speaker too long", example: "listen_launch", mutate: func(r *Request) { r.Data.Runtime.Perception.Speaker = &long }, want: "data.runtime.perception.speaker: " + tooLong},
		{name: "person id too long", example: "listen_launch", mutate: func(r *Request) { r.Data.Runtime.Perception.PeoplePresent[1].ID = long }, want: "data.runtime.perception.peoplePresent[1].id: " + tooLong},
		{name: "emotion name too long", example: "listen_launch", mutate: func(r *Request) { r.Data.Runtime.Character.Emotion.Name = long }, want: "data.runtime.character.emotion.name: " + tooLong},
		{name: "jibo id too long", example: "listen_launch", mutate: func(r *Request) { r.Data.Runtime.Loop.Jibo.ID = long }, want: "data.runtime.loop.jibo.id: " + tooLong},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := decodeRequestExample(t, tt.example)
			tt.mutate(r)
			err := r.Validate()
			require.EqualError(t, err, tt.want)
			var fe *FieldError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, tt.want, fe.Path+": "+fe.Problem)
		})
	}
}

func TestRequestValidateAccepts(t *testing.T) {
	tests := []struct {
		name    string
		example string
		mutate  func(r *Request)
	}{
		{name: "example as is", example: "listen_launch", mutate: func(*Request) {}},
		{name: "proactive without nlu or memo", example: "proactive_launch", mutate: func(r *Request) { r.Data.Result = Result{} }},
		{name: "update without session", example: "listen_update", mutate: func(r *Request) { r.Data.Skill.Session = nil }},
		{name: "launch with null skill id", example: "listen_launch", mutate: func(r *Request) { r.Data.Skill.ID = nil }},
		{name: "asr confidence bounds", example: "listen_launch", mutate: func(r *Request) { r.Data.Result.ASR.Confidence = 1 }},
		{name: "entities at limit", example: "listen_update", mutate: func(r *Request) {
			for i := range MaxEntities {
				r.Data.Result.NLU.Entities["e"+itoa(i)] = i
			}
		}},
		{name: "trace at limit", example: "listen_update", mutate: func(r *Request) { r.Data.Skill.Session.Trace = make([]TraceEntry, MaxTraceLen) }},
		{name: "string at limit", example: "listen_launch", mutate: func(r *Request) { r.Data.Result.ASR.Text = strings.Repeat("x", MaxStringLen) }},
		{name: "memo null", example: "listen_launch", mutate: func(r *Request) { r.Data.Result.Memo = json.RawMessage(`null`) }},
		// A CLIENT_NLU turn carries no transcript (jibo.md §1.3); §1.6
		// classifies a missing asr, so the skill can still be reached.
		{name: "launch without asr", example: "listen_launch", mutate: func(r *Request) { r.Data.Result.ASR = nil }},
		{name: "update without asr", example: "listen_update", mutate: func(r *Request) { r.Data.Result.ASR = nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := decodeRequestExample(t, tt.example)
			tt.mutate(r)
			require.NoError(t, r.Validate())
		})
	}
}

func TestResponseValidate(t *testing.T) {
	long := strings.Repeat("x", MaxStringLen+1)
	tests := []struct {
		name    string
		example string
		mutate  func(r *Response)
		want    string
	}{
		{name: "unknown type", example: "skill_action", mutate: func(r *Response) { r.Type = "LISTEN" }, want: `type: unknown response type "LISTEN"`},
		{name: "msgID missing", example: "error", mutate: func(r *Response) { r.MsgID = "" }, want: "msgID: required"},
		{name: "ts negative", example: "error", mutate: func(r *Response) { r.TS = -7 }, want: "ts: must not be negative"},
		{name: "action data missing", example: "skill_action", mutate: func(r *Response) { r.Action = nil }, want: "data: required"},
		{name: "redirect data missing", example: "skill_redirect", mutate: func(r *Response) { r.Redirect = nil }, want: "data: required"},
		{name: "error data missing", example: "error", mutate: func(r *Response) { r.Error = nil }, want: "data: required"},
		{name: "data of another type", example: "skill_action", mutate: func(r *Response) { r.Action, r.Error = nil, &ErrorData{Message: "m"} }, want: "data: required"},
		{name: "two kinds of data", example: "skill_action", mutate: func(r *Response) { r.Error = &ErrorData{Message: "m"} }, want: "data: more than one kind of data set; SKILL_ACTION takes one"},
		{name: "action without skill id", example: "skill_action_end", mutate: func(r *Response) { r.Action.Skill = SkillData{} }, want: "data.skill.id: required"},
		{name: "action with empty skill id", example: "skill_action", mutate: func(r *Response) { r.Action.Skill = Skill("") }, want: "data.skill.id: required"},
		{name: "action session without id", example: "skill_action", mutate: func(r *Response) { r.Action.Skill.ID = nil }, want: "data.skill.id: required with a session"},
		{name: "action session negative node", example: "skill_action", mutate: func(r *Response) { r.Action.Skill.Session.NodeID = -1 }, want: "data.skill.session.nodeID: must not be negative"},
		{name: "action is an array", example: "skill_action", mutate: func(r *Response) { r.Action.Action = json.RawMessage(`[{"type":"JCP"}]`) }, want: "data.action: want object or null"},
		{name: "action is a string", example: "skill_action", mutate: func(r *Response) { r.Action.Action = json.RawMessage(`"JCP"`) }, want: "data.action: want object or null"},
		{name: "action is invalid JSON", example: "skill_action", mutate: func(r *Response) { r.Action.Action = json.RawMessage(`{"type":`) }, want: "data.action: want object or null"},
		{name: "analytics event unnamed", example: "skill_action", mutate: func(r *Response) { r.Action.Analytics["@be/weather"][1].Event = "" }, want: "data.analytics.@be/weather[1].event: required"},
		{name: "analytics properties not object", example: "skill_action", mutate: func(r *Response) {
			r.Action.Analytics["@be/weather"][0].Properties = json.RawMessage(`"n/a"`)
		}, want: "data.analytics.@be/weather[0].properties: want object or null"},
		{name: "analytics skill unnamed", example: "skill_action", mutate: func(r *Response) { r.Action.Analytics[""] = nil }, want: "data.analytics: empty skill name"},
		{name: "redirect without target", example: "skill_redirect", mutate: func(r *Response) { r.Redirect.SkillID = "" }, want: "data.skillID: required"},
		{name: "redirect target too long", example: "skill_redirect", mutate: func(r *Response) { r.Redirect.SkillID = long }, want: "data.skillID: 16385 bytes, limit 16384"},
		{name: "redirect memo invalid JSON", example: "skill_redirect", mutate: func(r *Response) { r.Redirect.Memo = json.RawMessage(`{`) }, want: "data.memo: want a JSON value"},
		{name: "redirect asr confidence", example: "skill_redirect", mutate: func(r *Response) { r.Redirect.ASR.Confidence = 2 }, want: "data.asr.confidence: 2 outside [0, 1]"},
		{name: "redirect nlu rules", example: "skill_redirect", mutate: func(r *Response) { r.Redirect.NLU.Rules = make([]string, MaxRules+1) }, want: "data.nlu.rules: 257 rules, limit 256"},
		{name: "redirect skill session", example: "skill_redirect", mutate: func(r *Response) {
			r.Redirect.Skill.Session = &Session{NodeID: -2}
		}, want: "data.skill.session.nodeID: must not be negative"},
		{name: "error without message", example: "error", mutate: func(r *Response) { r.Error.Message = "" }, want: "data.message: required"},
		{name: "error message too long", example: "error", mutate: func(r *Response) { r.Error.Message = long }, want: "data.message: 16385 bytes, limit 16384"},
		{name: "error skill session", example: "error", mutate: func(r *Response) { r.Error.Skill.Session = &Session{ID: "s", NodeID: -1} }, want: "data.skill.session.nodeID: must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := decodeResponseExample(t, tt.example)
			tt.mutate(r)
			require.EqualError(t, r.Validate(), tt.want)
		})
	}
}

func TestResponseValidateAccepts(t *testing.T) {
	tests := []struct {
		name    string
		example string
		mutate  func(r *Response)
	}{
		{name: "terminal action", example: "skill_action_end", mutate: func(*Response) {}},
		{name: "nil action is null", example: "skill_action", mutate: func(r *Response) { r.Action.Action = nil }},
		{name: "final and fireAndForget absent", example: "skill_action", mutate: func(r *Response) { r.Action.Final, r.Action.FireAndForget = nil, nil }},
		{name: "analytics absent", example: "skill_action", mutate: func(r *Response) { r.Action.Analytics = nil }},
		{name: "analytics properties absent", example: "skill_action", mutate: func(r *Response) { r.Action.Analytics["@be/weather"][0].Properties = nil }},
		{name: "redirect with only a target", example: "skill_redirect", mutate: func(r *Response) {
			*r.Redirect = SkillRedirectData{SkillID: "chitchat"}
		}},
		{name: "error without skill id", example: "error", mutate: func(r *Response) { r.Error.Skill = SkillData{} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := decodeResponseExample(t, tt.example)
			tt.mutate(r)
			require.NoError(t, r.Validate())
		})
	}
}

func TestEnvelope(t *testing.T) {
	// A hub LISTEN (jibo.md §1.3) as a real robot sends it: not a skill
	// message, but the envelope and its transID are the same.
	listen := []byte(`{"type":"LISTEN","msgID":"mid-1","ts":1718035200000,"transID":"tid-1",` +
		`"data":{"lang":"en-US","hotphrase":true,"rules":["launch","globals/global_commands_launch"],"mode":"",` +
		`"asr":{"hints":[],"earlyEOS":[],"encoding":"OGG_OPUS","sampleRate":16000,"sosTimeout":7000,"maxSpeechTimeout":20000}},"client":"jibod"}`)
	e, err := DecodeEnvelope(listen)
	require.NoError(t, err)
	assert.Equal(t, "LISTEN", e.Type)
	assert.Equal(t, "tid-1", e.TransID)
	assert.Equal(t, map[string]json.RawMessage{"client": json.RawMessage(`"jibod"`)}, e.Extra)
	assert.Equal(t, canon(t, listen), canon(t, mustJSON(t, e)))

	eos := []byte(`{"type":"EOS","msgID":"mid-2","ts":5,"final":false,"timings":{"total":12.5,"asr":7}}`)
	e, err = DecodeEnvelope(eos)
	require.NoError(t, err)
	assert.Nil(t, e.Data)
	assert.JSONEq(t, string(eos), string(mustJSON(t, e)), "no data stays no data")

	tests := []struct {
		name string
		in   string
		want string
	}{
		{name: "no type", in: `{"msgID":"m","ts":1}`, want: "decode message: type: required"},
		{name: "no msgID", in: `{"type":"SOS","ts":1}`, want: "decode message: msgID: required"},
		{name: "timings not object", in: `{"type":"SOS","msgID":"m","timings":[1]}`, want: "decode message: timings: want object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeEnvelope([]byte(tt.in))
			require.EqualError(t, err, tt.want)
		})
	}
}

// A checked response is one that validated: CheckResponse and
// DecodeCheckedResponse fail as Validate and DecodeResponse do, and the
// zero CheckedResponse holds nothing.
func TestCheckedResponse(t *testing.T) {
	req := NewListenLaunch(Context{Skill: Skill("acme.tea")}, NLUFromSlots("offer", nil, nil), ASRResult{Text: "tea"}, nil)
	good := NewSkillAction(req, Skill("acme.tea"), nil, true)
	c, err := CheckResponse(good)
	require.NoError(t, err)
	assert.Same(t, good, c.Response())

	bad := NewSkillAction(req, SkillData{}, nil, true)
	_, err = CheckResponse(bad)
	require.EqualError(t, err, bad.Validate().Error())
	_, err = CheckResponse(nil)
	require.EqualError(t, err, "no response")

	data, err := EncodeJSON(bad)
	require.NoError(t, err)
	_, want := DecodeResponse(data)
	_, err = DecodeCheckedResponse(data)
	require.EqualError(t, err, want.Error())
	data, err = EncodeJSON(good)
	require.NoError(t, err)
	c, err = DecodeCheckedResponse(data)
	require.NoError(t, err)
	assert.Equal(t, "acme.tea", c.Response().Action.Skill.Name())

	assert.Nil(t, (&CheckedResponse{}).Response())
	assert.Nil(t, (*CheckedResponse)(nil).Response())
}
