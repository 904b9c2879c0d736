package protocol

import (
	"encoding/json"
	"fmt"
)

// Robot → hub message types (jibo.md §1.3, hub/MessageType.RequestType).
const (
	// TypeListen opens a turn (robot → hub); the hub answers with a LISTEN
	// result of the same name (see HubResponse).
	TypeListen = "LISTEN"
	// TypeContext reports the robot's context for the turn.
	TypeContext = "CONTEXT"
	// TypeTrigger asks /proactive for a proactive skill.
	TypeTrigger = "TRIGGER"
	// TypeCmdResult reports a command's result; typed but unused by real
	// robots (jibo.md §2.5), supported as an extension.
	TypeCmdResult = "CMD_RESULT"
	// TypeClientASR hands the hub a transcript the robot already has.
	TypeClientASR = "CLIENT_ASR"
	// TypeClientNLU hands the hub an NLU result the robot already has.
	TypeClientNLU = "CLIENT_NLU"
)

// Hub → robot message types (jibo.md §1.4, hub/MessageType.ResponseType)
// that skills do not also use. The hub also sends TypeListen (the turn
// result), TypeSkillAction, TypeSkillRedirect (in its own form, with a
// match) and TypeError (with a code).
const (
	// TypeSOS marks the start of speech.
	TypeSOS = "SOS"
	// TypeEOS marks the end of speech.
	TypeEOS = "EOS"
	// TypeASR is an interim speech recognition result.
	TypeASR = "ASR"
	// TypeNLU is an interim NLU result.
	TypeNLU = "NLU"
	// TypeCommand is in the typings' enum only; its data is unknown and
	// kept verbatim.
	TypeCommand = "COMMAND"
	// TypeProactive answers a TRIGGER.
	TypeProactive = "PROACTIVE"
)

// HubRequest is a message the robot sends the hub (jibo.md §1.3). Exactly
// one data member is set, the one matching Type.
type HubRequest struct {
	Header
	// Listen is the data of a LISTEN.
	Listen *ListenData
	// Context is the data of a CONTEXT.
	Context *ContextData
	// Trigger is the data of a TRIGGER.
	Trigger *TriggerData
	// CmdResult is the data of a CMD_RESULT.
	CmdResult *CommandData
	// ClientASR is the data of a CLIENT_ASR.
	ClientASR *ClientASRData
	// ClientNLU is the data of a CLIENT_NLU: an NLU result.
	ClientNLU *NLUResult
}

// HubResponse is a message the hub sends the robot (jibo.md §1.4). The data
// member matching Type is set: SOS, EOS and COMMAND keep theirs verbatim in
// Data; every other type has its own member.
type HubResponse struct {
	Header
	// Listen is the data of a LISTEN: the turn's result.
	Listen *ListenResultData
	// Action is the data of a SKILL_ACTION, forwarded from the skill.
	Action *SkillActionData
	// Redirect is the data of a SKILL_REDIRECT.
	Redirect *HubRedirectData
	// Proactive is the data of a PROACTIVE.
	Proactive *ProactiveData
	// Error is the data of an ERROR.
	Error *HubErrorData
	// NLU is the data of an interim NLU.
	NLU *NLUResult
	// ASR is the data of an interim ASR.
	ASR *ASRResult
	// Data is the data of SOS, EOS (none or {}) and COMMAND (unknown),
	// verbatim; nil means absent.
	Data json.RawMessage
}

// NewHeader returns the header of a new message of type typ: a fresh
// msgID, the current time, and whatever opts set (WithTransID for a turn's
// messages).
func NewHeader(typ string, opts ...Option) Header { return newHeader(typ, "", opts) }

// NewListen builds a LISTEN opening a turn.
func NewListen(d ListenData, opts ...Option) *HubRequest {
	return &HubRequest{Header: NewHeader(TypeListen, opts...), Listen: &d}
}

// NewContext builds the CONTEXT that follows a LISTEN or TRIGGER.
func NewContext(c Context, opts ...Option) *HubRequest {
	return &HubRequest{Header: NewHeader(TypeContext, opts...),
		Context: &ContextData{General: c.General, Runtime: c.Runtime, Skill: c.Skill}}
}

// NewTrigger builds a TRIGGER from source (TriggerNewArrival or
// TriggerSurprise) for the looper looperID ("" for none).
func NewTrigger(source, looperID string, opts ...Option) *HubRequest {
	return &HubRequest{Header: NewHeader(TypeTrigger, opts...),
		Trigger: &TriggerData{TriggerSource: source, TriggerData: TriggerInfo{LooperID: looperID}}}
}

// NewCmdResult builds a CMD_RESULT reporting result (verbatim JSON; nil
// encodes as null) for command.
func NewCmdResult(lang string, c Context, command string, result json.RawMessage, opts ...Option) *HubRequest {
	return &HubRequest{Header: NewHeader(TypeCmdResult, opts...), CmdResult: &CommandData{
		Lang: lang, General: c.General, Runtime: c.Runtime, Skill: c.Skill,
		Input: CommandInput{Command: command, Result: result},
	}}
}

// NewClientASR builds a CLIENT_ASR carrying text.
func NewClientASR(text string, opts ...Option) *HubRequest {
	return &HubRequest{Header: NewHeader(TypeClientASR, opts...), ClientASR: &ClientASRData{Text: text}}
}

// NewClientNLU builds a CLIENT_NLU carrying nlu.
func NewClientNLU(nlu NLUResult, opts ...Option) *HubRequest {
	return &HubRequest{Header: NewHeader(TypeClientNLU, opts...), ClientNLU: &nlu}
}

// NewSpeechMark builds an SOS or EOS (typ TypeSOS or TypeEOS) without
// data, as the typings' void data encodes.
func NewSpeechMark(typ string, opts ...Option) *HubResponse {
	return &HubResponse{Header: NewHeader(typ, opts...)}
}

// NewListenResult builds the hub's LISTEN result of a turn. match is nil
// when no skill matched; final says whether a SKILL_ACTION follows (false)
// or the turn ends here (true).
func NewListenResult(nlu *NLUResult, asr *ASRResult, match *MatchData, final bool, opts ...Option) *HubResponse {
	h := NewHeader(TypeListen, opts...)
	h.Final = &final
	return &HubResponse{Header: h, Listen: &ListenResultData{NLU: nlu, ASR: asr, Match: match}}
}

// NewHubSkillAction forwards a skill's SKILL_ACTION data to the robot.
func NewHubSkillAction(d *SkillActionData, opts ...Option) *HubResponse {
	return &HubResponse{Header: NewHeader(TypeSkillAction, opts...), Action: d}
}

// NewHubRedirect tells the robot the hub launched match's skill instead.
func NewHubRedirect(d HubRedirectData, opts ...Option) *HubResponse {
	return &HubResponse{Header: NewHeader(TypeSkillRedirect, opts...), Redirect: &d}
}

// NewProactive answers a TRIGGER; match nil means nothing is eligible
// (data {}).
func NewProactive(match *MatchData, opts ...Option) *HubResponse {
	return &HubResponse{Header: NewHeader(TypeProactive, opts...), Proactive: &ProactiveData{Match: match}}
}

// NewHubError builds a hub ERROR; code is one of the HubError constants or
// "" for none.
func NewHubError(code, message string, opts ...Option) *HubResponse {
	return &HubResponse{Header: NewHeader(TypeError, opts...), Error: &HubErrorData{Message: message, Code: code}}
}

func parseHubRequest(raw json.RawMessage) (HubRequest, error) {
	var r HubRequest
	o, err := readObject(raw)
	if err != nil {
		return r, err
	}
	r.Header = parseHeader(o)
	if o.err == nil {
		switch r.Type {
		case TypeListen:
			field(o, "data", &r.Listen, nullOr(parseListenData))
		case TypeContext:
			field(o, "data", &r.Context, nullOr(parseContextData))
		case TypeTrigger:
			field(o, "data", &r.Trigger, nullOr(parseTriggerData))
		case TypeCmdResult:
			field(o, "data", &r.CmdResult, nullOr(parseCommandData))
		case TypeClientASR:
			field(o, "data", &r.ClientASR, nullOr(parseClientASRData))
		case TypeClientNLU:
			field(o, "data", &r.ClientNLU, nullOr(parseNLUResult))
		default:
			return r, fieldErr("type", "unknown robot-to-hub message type %q", truncate(r.Type))
		}
	}
	r.Extra, err = o.done()
	return r, err
}

// UnmarshalJSON decodes a robot-to-hub message without validating it,
// keeping unknown members in Extra. It fails on a type it cannot model.
// DecodeHubRequest also checks limits and validates.
func (r *HubRequest) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, r, parseHubRequest)
}

// MarshalJSON encodes the message with the data member matching Type,
// re-emitting Extra.
func (r HubRequest) MarshalJSON() ([]byte, error) { return r.appendJSON(nil) }

func (r HubRequest) appendJSON(b []byte) ([]byte, error) {
	// Missing data stays an untyped nil (null), never a typed nil pointer
	// whose value-receiver method would panic.
	var data appender
	switch r.Type {
	case TypeListen:
		data = orNil(r.Listen)
	case TypeContext:
		data = orNil(r.Context)
	case TypeTrigger:
		data = orNil(r.Trigger)
	case TypeCmdResult:
		data = orNil(r.CmdResult)
	case TypeClientASR:
		data = orNil(r.ClientASR)
	case TypeClientNLU:
		data = orNil(r.ClientNLU)
	default:
		return nil, fmt.Errorf("encode robot-to-hub message: unknown type %q", truncate(r.Type))
	}
	return writeMessage(b, r.Header, data)
}

func parseHubResponse(raw json.RawMessage) (HubResponse, error) {
	var r HubResponse
	o, err := readObject(raw)
	if err != nil {
		return r, err
	}
	r.Header = parseHeader(o)
	if o.err == nil {
		switch r.Type {
		case TypeListen:
			field(o, "data", &r.Listen, nullOr(parseListenResultData))
		case TypeSkillAction:
			field(o, "data", &r.Action, nullOr(parseSkillActionData))
		case TypeSkillRedirect:
			field(o, "data", &r.Redirect, nullOr(parseHubRedirectData))
		case TypeProactive:
			field(o, "data", &r.Proactive, nullOr(parseProactiveData))
		case TypeError:
			field(o, "data", &r.Error, nullOr(parseHubErrorData))
		case TypeNLU:
			field(o, "data", &r.NLU, nullOr(parseNLUResult))
		case TypeASR:
			field(o, "data", &r.ASR, nullOr(parseASRResult))
		case TypeSOS, TypeEOS, TypeCommand:
			field(o, "data", &r.Data, parseRaw)
		default:
			return r, fieldErr("type", "unknown hub-to-robot message type %q", truncate(r.Type))
		}
	}
	r.Extra, err = o.done()
	return r, err
}

// UnmarshalJSON decodes a hub-to-robot message without validating it,
// keeping unknown members in Extra. It fails on a type it cannot model.
// DecodeHubResponse also checks limits and validates.
func (r *HubResponse) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, r, parseHubResponse)
}

// MarshalJSON encodes the message with the data member matching Type,
// re-emitting Extra.
func (r HubResponse) MarshalJSON() ([]byte, error) { return r.appendJSON(nil) }

func (r HubResponse) appendJSON(b []byte) ([]byte, error) {
	var data appender
	switch r.Type {
	case TypeListen:
		data = orNil(r.Listen)
	case TypeSkillAction:
		data = orNil(r.Action)
	case TypeSkillRedirect:
		data = orNil(r.Redirect)
	case TypeProactive:
		data = orNil(r.Proactive)
	case TypeError:
		data = orNil(r.Error)
	case TypeNLU:
		data = orNil(r.NLU)
	case TypeASR:
		data = orNil(r.ASR)
	case TypeSOS, TypeEOS, TypeCommand:
		w := openObject(b, r.Extra)
		r.write(&w, func() { w.optRaw("data", r.Data) })
		return w.close()
	default:
		return nil, fmt.Errorf("encode hub-to-robot message: unknown type %q", truncate(r.Type))
	}
	return writeMessage(b, r.Header, data)
}

// nullOr adapts a value parser to a pointer member where null means nil.
func nullOr[T any](parse parser[T]) parser[*T] {
	return func(raw json.RawMessage) (*T, error) {
		if isNull(raw) {
			return nil, nil
		}
		v, err := parse(raw)
		if err != nil {
			return nil, err
		}
		return &v, nil
	}
}

// DecodeHubRequest decodes and validates one JSON message the robot sends
// the hub (LISTEN, CONTEXT, TRIGGER, CMD_RESULT, CLIENT_ASR, CLIENT_NLU),
// like DecodeRequest.
func DecodeHubRequest(data []byte) (*HubRequest, error) {
	return decodeChecked(data, "decode robot-to-hub message", parseHubRequest, (*HubRequest).Validate)
}

// DecodeHubResponse decodes and validates one JSON message the hub sends
// the robot (SOS, EOS, ASR, NLU, LISTEN, SKILL_ACTION, SKILL_REDIRECT,
// PROACTIVE, COMMAND, ERROR), like DecodeRequest.
func DecodeHubResponse(data []byte) (*HubResponse, error) {
	return decodeChecked(data, "decode hub-to-robot message", parseHubResponse, (*HubResponse).Validate)
}

// decodeChecked checks the limits, decodes and validates, returning
// nothing half-decoded.
func decodeChecked[T any](data []byte, what string, parse parser[T], validate func(*T) error) (*T, error) {
	if err := checkJSON(data); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	data, err := entry(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	v, err := parse(data)
	if err == nil {
		err = validate(&v)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return &v, nil
}

// Validate checks what the hub relies on: a robot-to-hub type with its
// data and no other, a message id, and each type's data (see the data
// types' documentation), within the package limits.
func (r *HubRequest) Validate() error {
	if err := r.Header.validate(); err != nil {
		return err
	}
	var err error
	set := countSet(r.Listen != nil, r.Context != nil, r.Trigger != nil, r.CmdResult != nil,
		r.ClientASR != nil, r.ClientNLU != nil)
	switch r.Type {
	case TypeListen:
		err = requireData(r.Listen, (*ListenData).validate)
	case TypeContext:
		err = requireData(r.Context, (*ContextData).validate)
	case TypeTrigger:
		err = requireData(r.Trigger, (*TriggerData).validate)
	case TypeCmdResult:
		err = requireData(r.CmdResult, (*CommandData).validate)
	case TypeClientASR:
		err = requireData(r.ClientASR, (*ClientASRData).validate)
	case TypeClientNLU:
		err = requireData(r.ClientNLU, (*NLUResult).validate)
	default:
		return fieldErr("type", "unknown robot-to-hub message type %q", truncate(r.Type))
	}
	return oneData(r.Type, set, err)
}

// Validate checks what the robot relies on: a hub-to-robot type with its
// data and no other, a message id, and each type's data (see the data
// types' documentation), within the package limits. SOS and EOS data, when
// present, must be an object or null; COMMAND data may be anything.
func (r *HubResponse) Validate() error {
	if err := r.Header.validate(); err != nil {
		return err
	}
	var err error
	set := countSet(r.Listen != nil, r.Action != nil, r.Redirect != nil, r.Proactive != nil,
		r.Error != nil, r.NLU != nil, r.ASR != nil, r.Data != nil)
	switch r.Type {
	case TypeListen:
		err = requireData(r.Listen, (*ListenResultData).validate)
	case TypeSkillAction:
		err = requireData(r.Action, (*SkillActionData).validate)
	case TypeSkillRedirect:
		err = requireData(r.Redirect, (*HubRedirectData).validate)
	case TypeProactive:
		err = requireData(r.Proactive, (*ProactiveData).validate)
	case TypeError:
		err = requireData(r.Error, (*HubErrorData).validate)
	case TypeNLU:
		err = requireData(r.NLU, (*NLUResult).validate)
	case TypeASR:
		err = requireData(r.ASR, (*ASRResult).validate)
	case TypeSOS, TypeEOS:
		err = objectOrNull("data", r.Data)
	case TypeCommand:
	default:
		return fieldErr("type", "unknown hub-to-robot message type %q", truncate(r.Type))
	}
	return oneData(r.Type, set, err)
}
