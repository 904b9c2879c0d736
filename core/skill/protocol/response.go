package protocol

import (
	"encoding/json"
	"fmt"
)

// Response types: what a skill answers a request with.
const (
	// TypeSkillAction carries a JCP action for the robot to run.
	TypeSkillAction = "SKILL_ACTION"
	// TypeSkillRedirect hands the turn to another skill.
	TypeSkillRedirect = "SKILL_REDIRECT"
	// TypeError reports that the skill failed.
	TypeError = "ERROR"
)

// Response is a skill response (jibo.md §2.3). Exactly one data member is
// set, the one matching Type.
type Response struct {
	Header
	// Action is the data of a SKILL_ACTION.
	Action *SkillActionData
	// Redirect is the data of a SKILL_REDIRECT.
	Redirect *SkillRedirectData
	// Error is the data of an ERROR.
	Error *ErrorData
}

// SkillActionData is the data of a SKILL_ACTION.
type SkillActionData struct {
	// Skill is the skill with its updated session, which the robot stores
	// and sends back with the next turn.
	Skill SkillData
	// Action is the JCP action ({"type":"JCP","config":…}), verbatim; nil
	// encodes as null, which ends the skill.
	Action json.RawMessage
	// Analytics are events to record; nil means absent.
	Analytics Analytics
	// Final marks the skill's last action; nil means absent.
	Final *bool
	// FireAndForget tells the robot not to report back; nil means absent.
	FireAndForget *bool
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

// SkillRedirectData is the data of a SKILL_REDIRECT from a skill (the hub
// tells the robot with a different form carrying "match").
type SkillRedirectData struct {
	// SkillID is the skill to launch instead (wire name "skillID").
	SkillID string
	// Memo is handed to the target skill's LISTEN_LAUNCH, verbatim: any
	// JSON value; nil means absent.
	Memo json.RawMessage
	// ASR is nil when absent.
	ASR *ASRResult
	// NLU is nil when absent.
	NLU *NLUResult
	// Skill is the redirecting skill.
	Skill SkillData
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

// ErrorData is the data of an ERROR from a skill. A hub's ERROR also
// carries "code"; it is kept in Extra.
type ErrorData struct {
	// Message says what went wrong.
	Message string
	// Skill is the failing skill.
	Skill SkillData
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

// respond builds the header of a response to req, echoing its transID.
func respond(typ string, req *Request, opts []Option) Header {
	var transID string
	if req != nil {
		transID = req.TransID
	}
	return newHeader(typ, transID, opts)
}

// NewSkillAction answers req with a JCP action. skill carries the skill's
// updated session. Like Jibo's graph skills it sets fireAndForget to false;
// final says whether this is the skill's last action.
func NewSkillAction(req *Request, skill SkillData, action json.RawMessage, final bool, opts ...Option) *Response {
	fireAndForget := false
	return &Response{
		Header: respond(TypeSkillAction, req, opts),
		Action: &SkillActionData{Skill: skill, Action: action, Final: &final, FireAndForget: &fireAndForget},
	}
}

// NewSkillEnd answers req with the terminal SKILL_ACTION a graph skill
// sends when its graph is done: {action: null, final: true,
// fireAndForget: true}.
func NewSkillEnd(req *Request, skill SkillData, opts ...Option) *Response {
	final, fireAndForget := true, true
	return &Response{
		Header: respond(TypeSkillAction, req, opts),
		Action: &SkillActionData{Skill: skill, Final: &final, FireAndForget: &fireAndForget},
	}
}

// NewRedirect answers req by handing the turn to the skill skillID with
// memo (nil for none). The request's NLU and ASR results are carried over
// so the target skill sees the same utterance; clear them on the result to
// leave them out.
func NewRedirect(req *Request, skillID string, memo json.RawMessage, skill SkillData, opts ...Option) *Response {
	d := &SkillRedirectData{SkillID: skillID, Memo: memo, Skill: skill}
	if req != nil && req.Data != nil {
		d.NLU, d.ASR = req.Data.Result.NLU, req.Data.Result.ASR
	}
	return &Response{Header: respond(TypeSkillRedirect, req, opts), Redirect: d}
}

// NewError answers req with an ERROR naming the request's skill.
func NewError(req *Request, message string, opts ...Option) *Response {
	d := &ErrorData{Message: message}
	if req != nil && req.Data != nil {
		d.Skill = req.Data.Skill
	}
	return &Response{Header: respond(TypeError, req, opts), Error: d}
}

func parseResponse(raw json.RawMessage) (Response, error) {
	var r Response
	o, err := readObject(raw)
	if err != nil {
		return r, err
	}
	r.Header = parseHeader(o)
	if o.err == nil {
		switch r.Type {
		case TypeSkillAction:
			field(o, "data", &r.Action, nullOr(parseSkillActionData))
		case TypeSkillRedirect:
			field(o, "data", &r.Redirect, nullOr(parseSkillRedirectData))
		case TypeError:
			field(o, "data", &r.Error, nullOr(parseErrorData))
		default:
			return r, fieldErr("type", "unknown response type %q", truncate(r.Type))
		}
	}
	r.Extra, err = o.done()
	return r, err
}

// UnmarshalJSON decodes a response without validating it, keeping unknown
// members in Extra. It fails on a type it cannot model, since the data
// could not be kept. DecodeResponse also checks limits and validates.
func (r *Response) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, r, parseResponse)
}

// MarshalJSON encodes the response with the data member matching Type,
// re-emitting Extra.
func (r Response) MarshalJSON() ([]byte, error) {
	return r.appendJSON(nil)
}

func (r Response) appendJSON(b []byte) ([]byte, error) {
	var data appender
	switch r.Type {
	case TypeSkillAction:
		data = orNil(r.Action)
	case TypeSkillRedirect:
		data = orNil(r.Redirect)
	case TypeError:
		data = orNil(r.Error)
	default:
		return nil, fmt.Errorf("encode response: unknown type %q", truncate(r.Type))
	}
	return writeMessage(b, r.Header, data)
}

func parseSkillActionData(raw json.RawMessage) (SkillActionData, error) {
	var d SkillActionData
	o, err := readObject(raw)
	if err != nil {
		return d, err
	}
	field(o, "skill", &d.Skill, parseSkillData)
	field(o, "action", &d.Action, parseRaw)
	optField(o, "analytics", &d.Analytics, parseAnalytics)
	optField(o, "final", &d.Final, parseBoolPtr)
	optField(o, "fireAndForget", &d.FireAndForget, parseBoolPtr)
	d.Extra, err = o.done()
	return d, err
}

// UnmarshalJSON decodes SKILL_ACTION data, keeping unknown members in Extra.
func (d *SkillActionData) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, d, parseSkillActionData)
}

// MarshalJSON encodes SKILL_ACTION data, re-emitting Extra.
func (d SkillActionData) MarshalJSON() ([]byte, error) { return d.appendJSON(nil) }

func (d SkillActionData) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, d.Extra)
	w.obj("skill", d.Skill)
	w.raw("action", d.Action)
	if d.Analytics != nil {
		w.obj("analytics", d.Analytics)
	}
	if d.Final != nil {
		w.bool("final", *d.Final)
	}
	if d.FireAndForget != nil {
		w.bool("fireAndForget", *d.FireAndForget)
	}
	return w.close()
}

func parseSkillRedirectData(raw json.RawMessage) (SkillRedirectData, error) {
	var d SkillRedirectData
	o, err := readObject(raw)
	if err != nil {
		return d, err
	}
	field(o, "skillID", &d.SkillID, parseString)
	optField(o, "memo", &d.Memo, parseRaw)
	optField(o, "asr", &d.ASR, parseASRResultPtr)
	optField(o, "nlu", &d.NLU, parseNLUResultPtr)
	field(o, "skill", &d.Skill, parseSkillData)
	d.Extra, err = o.done()
	return d, err
}

// UnmarshalJSON decodes SKILL_REDIRECT data, keeping unknown members in
// Extra.
func (d *SkillRedirectData) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, d, parseSkillRedirectData)
}

// MarshalJSON encodes SKILL_REDIRECT data, re-emitting Extra.
func (d SkillRedirectData) MarshalJSON() ([]byte, error) { return d.appendJSON(nil) }

func (d SkillRedirectData) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, d.Extra)
	w.str("skillID", d.SkillID)
	w.optRaw("memo", d.Memo)
	if d.ASR != nil {
		w.obj("asr", d.ASR)
	}
	if d.NLU != nil {
		w.obj("nlu", d.NLU)
	}
	w.obj("skill", d.Skill)
	return w.close()
}

func parseErrorData(raw json.RawMessage) (ErrorData, error) {
	var d ErrorData
	o, err := readObject(raw)
	if err != nil {
		return d, err
	}
	field(o, "message", &d.Message, parseString)
	field(o, "skill", &d.Skill, parseSkillData)
	d.Extra, err = o.done()
	return d, err
}

// UnmarshalJSON decodes ERROR data, keeping unknown members in Extra.
func (d *ErrorData) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, d, parseErrorData)
}

// MarshalJSON encodes ERROR data, re-emitting Extra.
func (d ErrorData) MarshalJSON() ([]byte, error) { return d.appendJSON(nil) }

func (d ErrorData) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, d.Extra)
	w.str("message", d.Message)
	w.obj("skill", d.Skill)
	return w.close()
}
