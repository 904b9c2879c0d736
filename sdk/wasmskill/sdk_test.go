package wasmskill

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The SDK's module requires nothing, not even a test library: these tests
// use the standard library only. That the robot reads what the SDK writes
// (and the SDK what the robot sends) is checked on the robot's side, in
// core/skill/wasm, against the robot's own protocol and JCP parsers.

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
func (h *fakeHost) Dialog(name string, slots map[string]string) (string, error) {
	return "", &Error{Op: "dialog_render", Code: CodeNotFound, Message: "no dialog " + name}
}

func equal[T any](t *testing.T, want, got T, what string) {
	t.Helper()
	if !reflect.DeepEqual(want, got) {
		t.Errorf("%s: got %#v, want %#v", what, got, want)
	}
}

func noErr(t *testing.T, err error, what string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// launch is a LISTEN_LAUNCH as the robot sends one (spec/jibo.md §2.2).
const launch = `{
  "type": "LISTEN_LAUNCH", "msgID": "mid-1", "ts": 1718035200123, "transID": "tid-1",
  "data": {
    "general": {"accountID": "acct", "robotID": "Copper-Finch", "lang": "en-US", "release": "1.9.2"},
    "runtime": {
      "character": {"emotion": {"name": "PLEASED", "valence": 0.4, "confidence": 0.6}},
      "perception": {"speaker": "looper-sam", "peoplePresent": [{"id": "looper-sam", "type": "PERSON", "confidence": 0.88}]}
    },
    "skill": {"id": "community.memo"},
    "result": {
      "nlu": {"intent": "remember", "entities": {"memo": "the \"keys\" \\ under the mat", "n": 3}, "rules": ["launch"]},
      "asr": {"text": "remember that …", "confidence": 0.93},
      "memo": {"entry": "set"}
    }
  }
}`

// update is a LISTEN_UPDATE carrying the session the skill kept.
const update = `{"type": "LISTEN_UPDATE", "msgID": "mid-2", "data": {"general": {"lang": "en-US"},
  "skill": {"id": "community.memo", "session": {"id": "s-1", "nodeID": 2, "data": {"step": 2}, "trace": []}},
  "result": {"nlu": {"intent": "yes", "entities": null, "rules": ["globals/yes_no"]}, "asr": {"text": "yes", "confidence": 1}}}}`

func TestParseRequest(t *testing.T) {
	r, err := ParseRequest([]byte(launch))
	noErr(t, err, "launch")
	equal(t, ListenLaunch, r.Type, "type")
	equal(t, "community.memo", r.SkillID, "skill id")
	equal(t, "en-US", r.Lang, "lang")
	equal(t, "remember", r.Intent, "intent")
	equal(t, "remember that …", r.Utterance, "utterance")
	equal(t, "PLEASED", r.Emotion, "emotion")
	equal(t, "looper-sam", r.Speaker, "speaker")
	equal(t, `the "keys" \ under the mat`, r.Entity("memo"), "string entity")
	equal(t, "", r.Entity("n"), "a number is no string entity")
	equal(t, "", r.Entity("missing"), "missing entity")
	equal(t, `{"entry": "set"}`, string(r.Memo), "memo")
	if r.Session != nil {
		t.Errorf("a launch carries no session: %+v", r.Session)
	}

	r, err = ParseRequest([]byte(update))
	noErr(t, err, "update")
	equal(t, ListenUpdate, r.Type, "type")
	if r.Session == nil {
		t.Fatal("an update carries the kept session")
	}
	equal(t, "s-1", r.Session.ID, "session id")
	equal(t, 2, r.Session.NodeID, "node id")
	equal(t, `{"step": 2}`, string(r.Session.Data), "session data")
	equal(t, "", r.Speaker, "no speaker")
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
		{`{"type": "LISTEN_LAUNCH", "data": {"x": 1 "y": 2}}`, "at byte 42: want ',' or '}'"},
		{`{"type": "LISTEN_LAUNCH", "data": {"x": [1 2]}}`, "at byte 43: want ',' or ']'"},
		{`{"type": "LISTEN_LAUNCH", "data": {"x": [1, {"y": 2}`, "unexpected end"},
	} {
		_, err := ParseRequest([]byte(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: got %v, want an error containing %q", tt.in, err, tt.want)
		}
	}
	// Nested, empty and filled containers, each closed where it ends.
	r, err := ParseRequest([]byte(`{"type": "LISTEN_LAUNCH", "data": {"x": [1, {"y": [], "z": {}}, []], "general": {"lang": "en-US"}}}`))
	if err != nil || r.Lang != "en-US" {
		t.Errorf("nested containers: got %+v, %v; want lang en-US", r, err)
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

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(a, b []byte) bool {
	var va, vb any
	return json.Unmarshal(a, &va) == nil && json.Unmarshal(b, &vb) == nil && reflect.DeepEqual(va, vb)
}

// FuzzParseRequest: ParseRequest never panics, accepts only valid JSON,
// and reads what encoding/json reads.
func FuzzParseRequest(f *testing.F) {
	f.Add([]byte(launch))
	f.Add([]byte(update))
	f.Add([]byte(`{"type":"PROACTIVE_LAUNCH","data":{"skill":{"id":"community.memo"},"result":{"memo":{"timer":"t-1"}}}}`))
	f.Add([]byte(`{"type":"LISTEN_LAUNCH","data":{"result":{"nlu":{"intent":"a\u00e9\ud83d\ude00","entities":{"x":"\ud800"}}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := ParseRequest(data)
		if err != nil {
			return
		}
		if !json.Valid(data) {
			t.Fatalf("accepted invalid JSON: %q", data)
		}
		if caseVariant(data) {
			return // encoding/json matches member names case-insensitively; the protocol does not
		}
		want, err := reference(data)
		if err != nil {
			return // a member of another type than encoding/json's struct wants: skipped by ParseRequest
		}
		equal(t, want.Type, got.Type, "type")
		equal(t, want.Lang, got.Lang, "lang")
		equal(t, want.Intent, got.Intent, "intent")
		equal(t, want.Utterance, got.Utterance, "utterance")
		equal(t, want.SkillID, got.SkillID, "skill id")
		equal(t, want.Speaker, got.Speaker, "speaker")
		equal(t, want.Emotion, got.Emotion, "emotion")
		equal(t, want.transID, got.transID, "transID")
		equal(t, len(want.Entities), len(got.Entities), "entities")
		for k, v := range want.Entities {
			if !sameJSON(v, got.Entities[k]) {
				t.Errorf("entity %s: got %s, want %s", k, got.Entities[k], v)
			}
		}
	})
}

// answered is what a test reads of an answer.
type answered struct {
	Type    string `json:"type"`
	TransID string `json:"transID"`
	Data    struct {
		Message string `json:"message"`
		Skill   struct {
			ID      string `json:"id"`
			Session *struct {
				ID   string          `json:"id"`
				Data json.RawMessage `json:"data"`
			} `json:"session"`
		} `json:"skill"`
		Final  *bool           `json:"final"`
		Action json.RawMessage `json:"action"`
	} `json:"data"`
	slim struct {
		Config struct {
			JCP struct {
				Type   string `json:"type"`
				Config struct {
					Play struct {
						ESML string `json:"esml"`
					} `json:"play"`
					Listen *struct {
						Contexts []string `json:"contexts"`
					} `json:"listen"`
				} `json:"config"`
			} `json:"jcp"`
		} `json:"config"`
	}
}

// answer runs fn on the launch request and reads the answer.
func answer(t *testing.T, h Host, fn Handler) *answered {
	t.Helper()
	out := Answer(h, []byte(launch), fn)
	var a answered
	noErr(t, json.Unmarshal(out, &a), string(out))
	if len(a.Data.Action) > 0 && string(a.Data.Action) != "null" {
		noErr(t, json.Unmarshal(a.Data.Action, &a.slim), string(a.Data.Action))
	}
	equal(t, "tid-1", a.TransID, "the turn's transaction id is echoed")
	return &a
}

func TestAnswers(t *testing.T) {
	h := &fakeHost{kv: map[string][]byte{}}

	a := answer(t, h, func(Host, *Request) (*Response, error) {
		return Say(`Tom & Jerry <3 "quotes" \ and` + "\n" + "\u2028 é"), nil
	})
	equal(t, "SKILL_ACTION", a.Type, "type")
	equal(t, "SLIM", a.slim.Config.JCP.Type, "behaviour")
	equal(t, `Tom &amp; Jerry &lt;3 "quotes" \ and`+"\n"+"\u2028 é", a.slim.Config.JCP.Config.Play.ESML, "escaped for ESML, exactly once")
	equal(t, true, *a.Data.Final, "final")
	equal(t, "community.memo", a.Data.Skill.ID, "skill id")

	a = answer(t, h, func(Host, *Request) (*Response, error) {
		return Ask("Which one?", "community.memo/which").Keep(map[string]int{"step": 2})
	})
	if a.slim.Config.JCP.Config.Listen == nil {
		t.Fatal("a question listens")
	}
	equal(t, []string{"community.memo/which"}, a.slim.Config.JCP.Config.Listen.Contexts, "contexts")
	equal(t, false, *a.Data.Final, "final")
	equal(t, `{"step":2}`, string(a.Data.Skill.Session.Data), "kept data")

	a = answer(t, h, func(Host, *Request) (*Response, error) { return End(), nil })
	equal(t, "null", string(a.Data.Action), "no action")
	equal(t, true, *a.Data.Final, "final")

	a = answer(t, h, func(Host, *Request) (*Response, error) { return SayESML("<break size='0.5'/>Hi"), nil })
	equal(t, "<break size='0.5'/>Hi", a.slim.Config.JCP.Config.Play.ESML, "ESML as written")

	for name, fn := range map[string]Handler{
		"error":       func(Host, *Request) (*Response, error) { return nil, errors.New("disk on fire") },
		"no answer":   func(Host, *Request) (*Response, error) { return nil, nil },
		"panic":       func(Host, *Request) (*Response, error) { panic("oops") },
		"fail":        func(Host, *Request) (*Response, error) { return Fail("cannot"), nil },
		"zero answer": func(Host, *Request) (*Response, error) { return &Response{}, nil },
	} {
		a := answer(t, h, fn)
		equal(t, "ERROR", a.Type, name)
		if a.Data.Message == "" {
			t.Errorf("%s: an ERROR says why", name)
		}
	}
	if !strings.Contains(strings.Join(h.logs, "\n"), "panic: oops") {
		t.Error("a panic is logged with its stack")
	}

	out := Answer(h, []byte("not json"), func(Host, *Request) (*Response, error) { return Say("x"), nil })
	var bad answered
	noErr(t, json.Unmarshal(out, &bad), "even a request that does not read gets a valid ERROR")
	if !strings.Contains(bad.Data.Message, "reading the skill request") {
		t.Errorf("message %q", bad.Data.Message)
	}
	equal(t, maxErrorMessage-1, len(clip(strings.Repeat("é", 2000))), "clipped on a rune boundary")
}

func TestErrorsMatchByCode(t *testing.T) {
	err := fmt.Errorf("loading: %w", &Error{Op: "kv_get", Code: CodeNotFound, Message: "no such key"})
	if !errors.Is(err, ErrNotFound) || errors.Is(err, ErrQuota) {
		t.Errorf("errors.Is by code: %v", err)
	}
	equal(t, "loading: kv_get: no such key (code -2)", err.Error(), "message")
}

func BenchmarkParseRequest(b *testing.B) {
	data := []byte(launch)
	for b.Loop() {
		if _, err := ParseRequest(data); err != nil {
			b.Fatal(err)
		}
	}
}

func TestEncodeSlots(t *testing.T) {
	equal(t, []byte(nil), encodeSlots(nil), "no slots")
	out := encodeSlots(map[string]string{"b": `say "hi" \ <x>`, "a": "é\n"})
	var m map[string]string
	noErr(t, json.Unmarshal(out, &m), string(out))
	equal(t, map[string]string{"b": `say "hi" \ <x>`, "a": "é\n"}, m, "round trip")
	equal(t, `{"a":"é\n","b":"say \"hi\" \\ <x>"}`, string(out), "sorted by name")
}
