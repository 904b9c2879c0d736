package wasm

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/jcp"
	"github.com/openjibo/jibod/sdk/wasmskill"
)

// The SDK is a module of its own that requires nothing, so its own tests
// cannot use the robot's parsers. These check the contract from the
// robot's side: the SDK reads the requests the robot sends, and the robot
// reads the answers the SDK writes.

// sdkHost is a wasmskill.Host in memory.
type sdkHost struct {
	kv   map[string][]byte
	logs []string
}

func (h *sdkHost) Get(key string) ([]byte, error) {
	if v, ok := h.kv[key]; ok {
		return v, nil
	}
	return nil, &wasmskill.Error{Op: "kv_get", Code: wasmskill.CodeNotFound, Message: "no such key"}
}
func (h *sdkHost) Set(key string, value []byte) error { h.kv[key] = value; return nil }
func (h *sdkHost) Delete(key string) error            { delete(h.kv, key); return nil }
func (h *sdkHost) Keys(string) ([]string, error)      { return nil, nil }
func (h *sdkHost) Fetch(wasmskill.FetchRequest) (*wasmskill.FetchResponse, error) {
	return nil, wasmskill.ErrOffline
}
func (h *sdkHost) Log(_ wasmskill.Level, msg string)                { h.logs = append(h.logs, msg) }
func (h *sdkHost) Now() time.Time                                   { return time.Time{} }
func (h *sdkHost) State() (wasmskill.State, error)                  { return wasmskill.State{}, nil }
func (h *sdkHost) Dialog(string, map[string]string) (string, error) { return "", wasmskill.ErrNotFound }

func protocolExample(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", "protocol", "skill", name))
	require.NoError(t, err)
	return b
}

func TestSDKReadsTheRobotsRequests(t *testing.T) {
	r, err := wasmskill.ParseRequest(protocolExample(t, "listen_launch.json"))
	require.NoError(t, err)
	assert.Equal(t, wasmskill.ListenLaunch, r.Type)
	assert.Equal(t, "openjibo/timer", r.SkillID)
	assert.Equal(t, "en-US", r.Lang)
	assert.Equal(t, "setTimer", r.Intent)
	assert.Equal(t, "set a timer", r.Utterance)
	assert.Equal(t, "PLEASED", r.Emotion)
	assert.Equal(t, "looper-sam", r.Speaker)
	assert.JSONEq(t, `{"entry": "set"}`, string(r.Memo))

	r, err = wasmskill.ParseRequest(protocolExample(t, "listen_update.json"))
	require.NoError(t, err)
	assert.Equal(t, wasmskill.ListenUpdate, r.Type)
	require.NotNil(t, r.Session, "an update carries the kept session")

	_, err = wasmskill.ParseRequest(protocolExample(t, "proactive_launch.json"))
	require.NoError(t, err)

	// A request as the robot builds it, with entities.
	req := protocol.NewListenLaunch(protocol.Context{General: protocol.GeneralData{Lang: "en-US"}, Skill: protocol.Skill("community.memo")},
		protocol.NLUFromSlots("remember", map[string]string{"memo": `the "keys" \\ under the mat`}, nil),
		protocol.ASRResult{Text: "remember that …", Confidence: 1}, nil)
	raw, err := protocol.EncodeJSON(req)
	require.NoError(t, err)
	r, err = wasmskill.ParseRequest(raw)
	require.NoError(t, err)
	assert.Equal(t, `the "keys" \\ under the mat`, r.Entity("memo"))
	assert.Equal(t, "remember that …", r.Utterance)
	assert.Equal(t, "community.memo", r.SkillID)
}

// sdkAnswer runs fn on a request for skill "community.memo" and decodes
// the answer as the robot does.
func sdkAnswer(t *testing.T, h wasmskill.Host, fn wasmskill.Handler) *protocol.Response {
	t.Helper()
	req := protocol.NewListenLaunch(protocol.Context{General: protocol.GeneralData{Lang: "en-US"}, Skill: protocol.Skill("community.memo")},
		protocol.NLUFromSlots("remember", nil, nil), protocol.ASRResult{Text: "x", Confidence: 1}, nil, protocol.WithTransID("tid-1"))
	raw, err := protocol.EncodeJSON(req)
	require.NoError(t, err)
	out := wasmskill.Answer(h, raw, fn)
	resp, err := protocol.DecodeResponse(out)
	require.NoError(t, err, "%s", out)
	assert.Equal(t, "tid-1", resp.TransID, "the turn's transaction id is echoed")
	return resp
}

func TestRobotReadsTheSDKsAnswers(t *testing.T) {
	h := &sdkHost{kv: map[string][]byte{}}
	slimOf := func(t *testing.T, resp *protocol.Response) *jcp.SLIM {
		require.Equal(t, protocol.TypeSkillAction, resp.Type)
		a, err := jcp.ParseAction(resp.Action.Action)
		require.NoError(t, err)
		s, ok := a.Behavior.(*jcp.SLIM)
		require.True(t, ok)
		return s
	}

	resp := sdkAnswer(t, h, func(wasmskill.Host, *wasmskill.Request) (*wasmskill.Response, error) {
		return wasmskill.Say(`Tom & Jerry <3 "quotes" \ and` + "\n" + "\u2028 é"), nil
	})
	assert.Equal(t, `Tom &amp; Jerry &lt;3 "quotes" \ and`+"\n"+"\u2028 é", slimOf(t, resp).Play.ESML)
	assert.True(t, *resp.Action.Final)
	assert.Equal(t, "community.memo", resp.Action.Skill.Name())

	resp = sdkAnswer(t, h, func(wasmskill.Host, *wasmskill.Request) (*wasmskill.Response, error) {
		return wasmskill.Ask("Which one?", "community.memo/which").Keep(map[string]int{"step": 2})
	})
	s := slimOf(t, resp)
	require.NotNil(t, s.Listen)
	assert.Equal(t, []string{"community.memo/which"}, s.Listen.Contexts)
	assert.False(t, *resp.Action.Final)
	assert.JSONEq(t, `{"step":2}`, string(resp.Action.Skill.Session.Data))

	resp = sdkAnswer(t, h, func(wasmskill.Host, *wasmskill.Request) (*wasmskill.Response, error) { return wasmskill.End(), nil })
	assert.Equal(t, "null", string(resp.Action.Action))

	resp = sdkAnswer(t, h, func(wasmskill.Host, *wasmskill.Request) (*wasmskill.Response, error) {
		return wasmskill.SayESML("<break size='0.5'/>Hi"), nil
	})
	assert.Equal(t, "<break size='0.5'/>Hi", slimOf(t, resp).Play.ESML)

	for name, fn := range map[string]wasmskill.Handler{
		"error": func(wasmskill.Host, *wasmskill.Request) (*wasmskill.Response, error) {
			return nil, errors.New("disk on fire")
		},
		"no answer": func(wasmskill.Host, *wasmskill.Request) (*wasmskill.Response, error) { return nil, nil },
		"panic":     func(wasmskill.Host, *wasmskill.Request) (*wasmskill.Response, error) { panic("oops") },
		"zero answer": func(wasmskill.Host, *wasmskill.Request) (*wasmskill.Response, error) {
			return &wasmskill.Response{}, nil
		},
	} {
		resp := sdkAnswer(t, h, fn)
		require.Equal(t, protocol.TypeError, resp.Type, name)
		assert.NotEmpty(t, resp.Error.Message, name)
	}

	out := wasmskill.Answer(h, []byte("not json"), func(wasmskill.Host, *wasmskill.Request) (*wasmskill.Response, error) {
		return wasmskill.Say("x"), nil
	})
	bad, err := protocol.DecodeResponse(out)
	require.NoError(t, err, "even a request that does not read gets a valid ERROR")
	assert.Contains(t, bad.Error.Message, "reading the skill request")
}

// FuzzSDKReadsWhatTheRobotReads: a request the robot's decoder accepts is
// read by the SDK alike.
func FuzzSDKReadsWhatTheRobotReads(f *testing.F) {
	for _, name := range []string{"listen_launch.json", "listen_update.json", "proactive_launch.json"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", "protocol", "skill", name))
		require.NoError(f, err)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		req, err := protocol.DecodeRequest(data)
		if err != nil {
			return
		}
		got, err := wasmskill.ParseRequest(data)
		require.NoError(t, err, "the SDK refused a request the robot accepts: %s", data)
		assert.Equal(t, req.Type, got.Type)
		if req.Data == nil {
			return
		}
		assert.Equal(t, req.Data.General.Lang, got.Lang)
		assert.Equal(t, req.Data.Skill.Name(), got.SkillID)
		if n := req.Data.Result.NLU; n != nil {
			assert.Equal(t, n.IntentName(), got.Intent)
		}
		if a := req.Data.Result.ASR; a != nil {
			assert.Equal(t, a.Text, got.Utterance)
		}
	})
}
