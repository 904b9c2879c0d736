package wasmskill

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/jcp"
)

// fakeHost is a Host in memory, for handler tests.
type fakeHost struct {
	kv   map[string][]byte
	logs []string
	now  time.Time
}

func (h *fakeHost) Get(key string) ([]byte, error) {
	if v, ok := h.kv[key]; ok {
		return v, nil
	}
	return nil, &Error{Op: "kv_get", Code: CodeNotFound, Message: "no such key"}
}
func (h *fakeHost) Set(key string, value []byte) error         { h.kv[key] = value; return nil }
func (h *fakeHost) Delete(key string) error                    { delete(h.kv, key); return nil }
func (h *fakeHost) Keys(string) ([]string, error)              { return nil, nil }
func (h *fakeHost) Fetch(FetchRequest) (*FetchResponse, error) { return nil, ErrOffline }
func (h *fakeHost) Log(_ Level, msg string)                    { h.logs = append(h.logs, msg) }
func (h *fakeHost) Now() time.Time                             { return h.now }
func (h *fakeHost) State() (State, error)                      { return State{}, nil }

func example(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "examples", "protocol", "skill", name))
	require.NoError(t, err)
	return b
}

func TestParseRequest(t *testing.T) {
	r, err := ParseRequest(example(t, "listen_launch.json"))
	require.NoError(t, err)
	assert.Equal(t, ListenLaunch, r.Type)
	assert.Equal(t, "openjibo/timer", r.SkillID)
	assert.Equal(t, "en-US", r.Lang)
	assert.Equal(t, "setTimer", r.Intent)
	assert.Equal(t, "set a timer", r.Utterance)
	assert.Equal(t, "PLEASED", r.Emotion)
	assert.Equal(t, "looper-sam", r.Speaker)
	assert.JSONEq(t, `{"entry": "set"}`, string(r.Memo))
	assert.Nil(t, r.Session)

	r, err = ParseRequest(example(t, "listen_update.json"))
	require.NoError(t, err)
	assert.Equal(t, ListenUpdate, r.Type)
	require.NotNil(t, r.Session, "an update carries the kept session")
	assert.NotEmpty(t, r.Session.ID)

	// A request as the robot builds it, with entities.
	req := protocol.NewListenLaunch(protocol.Context{General: protocol.GeneralData{Lang: "en-US"}, Skill: protocol.Skill("community.memo")},
		protocol.NLUFromSlots("remember", map[string]string{"memo": `the "keys" \\ under the mat`}, nil),
		protocol.ASRResult{Text: "remember that …", Confidence: 1}, nil)
	raw, err := protocol.EncodeJSON(req)
	require.NoError(t, err)
	r, err = ParseRequest(raw)
	require.NoError(t, err)
	assert.Equal(t, `the "keys" \\ under the mat`, r.Entity("memo"))
	assert.Equal(t, "", r.Entity("missing"))
	assert.Equal(t, "remember that …", r.Utterance)
	assert.Equal(t, "community.memo", r.SkillID)
	assert.Equal(t, "", r.Speaker)
}

func TestParseRequestErrors(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{``, "not a JSON object"},
		{`[]`, "not a JSON object"},
		{`{"type": "LISTEN_LAUNCH"}`, "no data"},
		{`{"type": "SKILL_ACTION", "data": {}}`, `type "SKILL_ACTION" is not a skill request`},
		{`{"type": "LISTEN_LAUNCH", "data": {}} x`, "data after the request"},
		{`{"type": "LISTEN_LAUNCH", "data": {"general": {"lang": 5}}}`, "want a string"},
		{`{"type": "LISTEN_LAUNCH", "data": {"x": 01}}`, "invalid JSON"},
		{`{"type": "LISTEN_LAUNCH", "data": {"x": "a` + "\n" + `"}}`, "control character"},
		{`{"type": "LISTEN_LAUNCH", "data": ` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`, "nested too deep"},
	} {
		_, err := ParseRequest([]byte(tt.in))
		assert.ErrorContains(t, err, tt.want, tt.in)
	}
}

// reference decodes what ParseRequest reads with encoding/json.
func reference(data []byte) (*Request, error) {
	var w struct {
		Type    string `json:"type"`
		MsgID   string `json:"msgID"`
		TransID string `json:"transID"`
		Data    *struct {
			General struct {
				Lang string `json:"lang"`
			} `json:"general"`
			Runtime struct {
				Character struct {
					Emotion struct {
						Name string `json:"name"`
					} `json:"emotion"`
				} `json:"character"`
				Perception struct {
					Speaker *string `json:"speaker"`
				} `json:"perception"`
			} `json:"runtime"`
			Skill struct {
				ID *string `json:"id"`
			} `json:"skill"`
			Result struct {
				NLU *struct {
					Intent   *string                    `json:"intent"`
					Entities map[string]json.RawMessage `json:"entities"`
				} `json:"nlu"`
				ASR *struct {
					Text string `json:"text"`
				} `json:"asr"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.Unmarshal(data, &w); err != nil || w.Data == nil {
		return nil, errors.New("no")
	}
	r := &Request{Type: w.Type, Lang: w.Data.General.Lang, Emotion: w.Data.Runtime.Character.Emotion.Name, msgID: w.MsgID, transID: w.TransID}
	if w.Data.Skill.ID != nil {
		r.SkillID = *w.Data.Skill.ID
	}
	if s := w.Data.Runtime.Perception.Speaker; s != nil {
		r.Speaker = *s
	}
	if n := w.Data.Result.NLU; n != nil {
		if n.Intent != nil {
			r.Intent = *n.Intent
		}
		r.Entities = n.Entities
	}
	if a := w.Data.Result.ASR; a != nil {
		r.Utterance = a.Text
	}
	return r, nil
}

// caseVariant reports whether data has a member named like one the SDK
// reads but in other case.
func caseVariant(data []byte) bool {
	known := []string{"type", "msgID", "transID", "data", "general", "lang", "runtime", "character", "emotion", "name",
		"perception", "speaker", "skill", "id", "result", "nlu", "intent", "entities", "asr", "text"}
	var walk func(v any) bool
	walk = func(v any) bool {
		switch t := v.(type) {
		case map[string]any:
			for k, c := range t {
				for _, n := range known {
					if k != n && strings.EqualFold(k, n) {
						return true
					}
				}
				if walk(c) {
					return true
				}
			}
		case []any:
			for _, c := range t {
				if walk(c) {
					return true
				}
			}
		}
		return false
	}
	var v any
	return json.Unmarshal(data, &v) == nil && walk(v)
}

// FuzzParseRequest: ParseRequest never panics, accepts only valid JSON,
// and reads what encoding/json reads.
func FuzzParseRequest(f *testing.F) {
	for _, name := range []string{"listen_launch.json", "listen_update.json", "proactive_launch.json"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "examples", "protocol", "skill", name))
		require.NoError(f, err)
		f.Add(b)
	}
	f.Add([]byte(`{"type":"LISTEN_LAUNCH","data":{"result":{"nlu":{"intent":"a\u00e9\ud83d\ude00","entities":{"x":"\ud800"}}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := ParseRequest(data)
		if err != nil {
			return
		}
		require.True(t, json.Valid(data), "accepted invalid JSON: %q", data)
		if caseVariant(data) {
			return // encoding/json matches member names case-insensitively; the protocol does not
		}
		want, err := reference(data)
		if err != nil {
			return // a member of another type than encoding/json's struct wants: skipped by ParseRequest
		}
		assert.Equal(t, want.Type, got.Type)
		assert.Equal(t, want.Lang, got.Lang)
		assert.Equal(t, want.Intent, got.Intent)
		assert.Equal(t, want.Utterance, got.Utterance)
		assert.Equal(t, want.SkillID, got.SkillID)
		assert.Equal(t, want.Speaker, got.Speaker)
		assert.Equal(t, want.Emotion, got.Emotion)
		assert.Equal(t, want.transID, got.transID)
		assert.Equal(t, len(want.Entities), len(got.Entities))
		for k, v := range want.Entities {
			assert.JSONEq(t, string(v), string(got.Entities[k]))
		}
	})
}

// answer runs fn on a request for skill "community.memo" and decodes the
// response as the robot does.
func answer(t *testing.T, h Host, fn Handler) *protocol.Response {
	t.Helper()
	req := protocol.NewListenLaunch(protocol.Context{General: protocol.GeneralData{Lang: "en-US"}, Skill: protocol.Skill("community.memo")},
		protocol.NLUFromSlots("remember", nil, nil), protocol.ASRResult{Text: "x", Confidence: 1}, nil, protocol.WithTransID("tid-1"))
	raw, err := protocol.EncodeJSON(req)
	require.NoError(t, err)
	out := Answer(h, raw, fn)
	resp, err := protocol.DecodeResponse(out)
	require.NoError(t, err, "%s", out)
	assert.Equal(t, "tid-1", resp.TransID, "the turn's transaction id is echoed")
	return resp
}

func TestAnswers(t *testing.T) {
	h := &fakeHost{kv: map[string][]byte{}}
	slimOf := func(t *testing.T, resp *protocol.Response) *jcp.SLIM {
		require.Equal(t, protocol.TypeSkillAction, resp.Type)
		a, err := jcp.ParseAction(resp.Action.Action)
		require.NoError(t, err)
		s, ok := a.Behavior.(*jcp.SLIM)
		require.True(t, ok)
		return s
	}

	resp := answer(t, h, func(Host, *Request) (*Response, error) {
		return Say(`Tom & Jerry <3 "quotes" \ and` + "\n" + "\u2028 é"), nil
	})
	s := slimOf(t, resp)
	assert.Equal(t, `Tom &amp; Jerry &lt;3 "quotes" \ and`+"\n"+"\u2028 é", s.Play.ESML, "escaped for ESML, exactly once")
	assert.True(t, *resp.Action.Final)
	assert.Equal(t, "community.memo", resp.Action.Skill.Name())

	resp = answer(t, h, func(Host, *Request) (*Response, error) {
		return Ask("Which one?", "community.memo/which").Keep(map[string]int{"step": 2})
	})
	s = slimOf(t, resp)
	require.NotNil(t, s.Listen)
	assert.Equal(t, []string{"community.memo/which"}, s.Listen.Contexts)
	assert.False(t, *resp.Action.Final)
	assert.JSONEq(t, `{"step":2}`, string(resp.Action.Skill.Session.Data))

	resp = answer(t, h, func(Host, *Request) (*Response, error) { return End(), nil })
	assert.Equal(t, "null", string(resp.Action.Action))
	assert.True(t, *resp.Action.Final)

	resp = answer(t, h, func(Host, *Request) (*Response, error) { return SayESML("<break size='0.5'/>Hi"), nil })
	assert.Equal(t, "<break size='0.5'/>Hi", slimOf(t, resp).Play.ESML)

	for name, fn := range map[string]Handler{
		"error":       func(Host, *Request) (*Response, error) { return nil, errors.New("disk on fire") },
		"no answer":   func(Host, *Request) (*Response, error) { return nil, nil },
		"panic":       func(Host, *Request) (*Response, error) { panic("oops") },
		"fail":        func(Host, *Request) (*Response, error) { return Fail("cannot"), nil },
		"zero answer": func(Host, *Request) (*Response, error) { return &Response{}, nil },
	} {
		resp := answer(t, h, fn)
		require.Equal(t, protocol.TypeError, resp.Type, name)
		assert.NotEmpty(t, resp.Error.Message, name)
	}
	assert.Contains(t, strings.Join(h.logs, "\n"), "panic: oops", "a panic is logged with its stack")

	out := Answer(h, []byte("not json"), func(Host, *Request) (*Response, error) { return Say("x"), nil })
	resp, err := protocol.DecodeResponse(out)
	require.NoError(t, err, "even a request that does not read gets a valid ERROR")
	assert.Contains(t, resp.Error.Message, "reading the skill request")
	assert.Len(t, clip(strings.Repeat("é", 2000)), maxErrorMessage-1, "clipped on a rune boundary")
}

func TestErrorsMatchByCode(t *testing.T) {
	err := fmt.Errorf("loading: %w", &Error{Op: "kv_get", Code: CodeNotFound, Message: "no such key"})
	assert.ErrorIs(t, err, ErrNotFound)
	assert.NotErrorIs(t, err, ErrQuota)
	assert.Equal(t, "loading: kv_get: no such key (code -2)", err.Error())
}

func BenchmarkParseRequest(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "protocol", "skill", "listen_launch.json"))
	require.NoError(b, err)
	for b.Loop() {
		if _, err := ParseRequest(data); err != nil {
			b.Fatal(err)
		}
	}
}
