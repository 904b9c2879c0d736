package protocol

import (
	"encoding/json"
	"fmt"
)

// Request types: what the hub (or the local skill host) sends a skill.
const (
	// TypeListenLaunch launches a skill from a listen turn.
	TypeListenLaunch = "LISTEN_LAUNCH"
	// TypeListenUpdate hands the running skill the next listen turn.
	TypeListenUpdate = "LISTEN_UPDATE"
	// TypeProactiveLaunch launches a skill the robot chose on its own.
	TypeProactiveLaunch = "PROACTIVE_LAUNCH"
)

// Request is a skill request (jibo.md §2.2).
type Request struct {
	Header
	// Data is the request's data; nil encodes as null and fails Validate.
	Data *RequestData
}

// RequestData is the data of every skill request.
type RequestData struct {
	// General identifies the robot.
	General GeneralData
	// Runtime is the robot's state.
	Runtime RuntimeContext
	// Skill is the skill addressed, with its session for an update.
	Skill SkillData
	// Result is the turn's result.
	Result Result
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

// Result is a request's turn result. Which members a type carries:
// LISTEN_LAUNCH {nlu, asr, memo?}; LISTEN_UPDATE {nlu, asr};
// PROACTIVE_LAUNCH {memo?} with nlu possibly null.
type Result struct {
	// NLU is nil when absent; an explicit null is kept in Extra.
	NLU *NLUResult
	// ASR is nil when absent; an explicit null is kept in Extra.
	ASR *ASRResult
	// Memo is the launch memo from the manifest intent or a redirect,
	// verbatim. Typed {entry?} but used freely: any JSON value, such as
	// {"mim": …, "type": "ScriptedResponse"} or the string "Proactive" of
	// real proactive launches (jibo.md §2.2); nil means absent.
	Memo json.RawMessage
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

// Context is what the robot reports about itself for a turn: the general,
// runtime and skill members every request shares, which a hub fills from
// the robot's CONTEXT message.
type Context struct {
	// General identifies the robot.
	General GeneralData
	// Runtime is the robot's state.
	Runtime RuntimeContext
	// Skill is the skill addressed, with its session for an update.
	Skill SkillData
}

// NewListenLaunch builds a LISTEN_LAUNCH request. memo may be nil.
func NewListenLaunch(c Context, nlu NLUResult, asr ASRResult, memo json.RawMessage, opts ...Option) *Request {
	return newRequest(TypeListenLaunch, c, Result{NLU: &nlu, ASR: &asr, Memo: memo}, opts)
}

// NewListenUpdate builds a LISTEN_UPDATE request for the running skill
// named in c.Skill.
func NewListenUpdate(c Context, nlu NLUResult, asr ASRResult, opts ...Option) *Request {
	return newRequest(TypeListenUpdate, c, Result{NLU: &nlu, ASR: &asr}, opts)
}

// NewProactiveLaunch builds a PROACTIVE_LAUNCH request. memo may be nil.
func NewProactiveLaunch(c Context, memo json.RawMessage, opts ...Option) *Request {
	return newRequest(TypeProactiveLaunch, c, Result{Memo: memo}, opts)
}

func newRequest(typ string, c Context, r Result, opts []Option) *Request {
	return &Request{
		Header: newHeader(typ, "", opts),
		Data:   &RequestData{General: c.General, Runtime: c.Runtime, Skill: c.Skill, Result: r},
	}
}

// Context returns the general, runtime and skill members of the request,
// or the zero Context when it has no data.
func (r *Request) Context() Context {
	if r == nil || r.Data == nil {
		return Context{}
	}
	return Context{General: r.Data.General, Runtime: r.Data.Runtime, Skill: r.Data.Skill}
}

func parseRequest(raw json.RawMessage) (Request, error) {
	var r Request
	o, err := readObject(raw)
	if err != nil {
		return r, err
	}
	r.Header = parseHeader(o)
	field(o, "data", &r.Data, nullOr(parseRequestData))
	r.Extra, err = o.done()
	return r, err
}

// UnmarshalJSON decodes a request without validating it, keeping unknown
// members in Extra. DecodeRequest also checks limits and validates.
func (r *Request) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, r, parseRequest)
}

// MarshalJSON encodes the request, re-emitting Extra.
func (r Request) MarshalJSON() ([]byte, error) { return r.appendJSON(nil) }

func (r Request) appendJSON(b []byte) ([]byte, error) {
	return writeMessage(b, r.Header, orNil(r.Data))
}

func parseRequestData(raw json.RawMessage) (RequestData, error) {
	var d RequestData
	o, err := readObject(raw)
	if err != nil {
		return d, err
	}
	field(o, "general", &d.General, parseGeneralData)
	field(o, "runtime", &d.Runtime, parseRuntimeContext)
	field(o, "skill", &d.Skill, parseSkillData)
	field(o, "result", &d.Result, parseResult)
	d.Extra, err = o.done()
	return d, err
}

// UnmarshalJSON decodes request data, keeping unknown members in Extra.
func (d *RequestData) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, d, parseRequestData)
}

// MarshalJSON encodes request data, re-emitting Extra.
func (d RequestData) MarshalJSON() ([]byte, error) { return d.appendJSON(nil) }

func (d RequestData) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, d.Extra)
	w.obj("general", d.General)
	w.obj("runtime", d.Runtime)
	w.obj("skill", d.Skill)
	w.obj("result", d.Result)
	return w.close()
}

func parseResult(raw json.RawMessage) (Result, error) {
	var r Result
	o, err := readObject(raw)
	if err != nil {
		return r, err
	}
	optField(o, "nlu", &r.NLU, parseNLUResultPtr)
	optField(o, "asr", &r.ASR, parseASRResultPtr)
	optField(o, "memo", &r.Memo, parseRaw)
	r.Extra, err = o.done()
	return r, err
}

// UnmarshalJSON decodes a result, keeping unknown members in Extra.
func (r *Result) UnmarshalJSON(data []byte) error { return unmarshalWith(data, r, parseResult) }

// MarshalJSON encodes a result, re-emitting Extra.
func (r Result) MarshalJSON() ([]byte, error) { return r.appendJSON(nil) }

func (r Result) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, r.Extra)
	if r.NLU != nil {
		w.obj("nlu", r.NLU)
	}
	if r.ASR != nil {
		w.obj("asr", r.ASR)
	}
	w.optRaw("memo", r.Memo)
	return w.close()
}

// truncate shortens a bad value quoted in an error message.
func truncate(s string) string {
	const limit = 64
	if len(s) <= limit {
		return s
	}
	return fmt.Sprintf("%s…", s[:limit])
}
