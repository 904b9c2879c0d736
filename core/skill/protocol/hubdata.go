package protocol

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
)

// Values of LISTEN's mode (hub/request ListenMessageMode). Robots that
// stream audio leave mode out or send "".
const (
	ModeClientASR = "CLIENT_ASR"
	ModeClientNLU = "CLIENT_NLU"
)

// FakeASR is the literal string a LISTEN's asr may hold instead of a
// configuration: the transcript then follows as a separate message
// (jibo.md §1.3, [PORT]).
const FakeASR = "FAKE"

// Trigger sources of a TRIGGER (proactive TriggerSource).
const (
	TriggerNewArrival = "NEW_ARRIVAL"
	TriggerSurprise   = "SURPRISE"
)

// Hub error codes of an ERROR (hub/HubErrorCode).
const (
	HubErrorSkillNotFound      = "SKILL_NOT_FOUND"
	HubErrorTimeoutSkill       = "TIMEOUT_SKILL"
	HubErrorTimeoutParser      = "TIMEOUT_PARSER"
	HubErrorTimeoutASR         = "TIMEOUT_ASR"
	HubErrorTimeoutContext     = "TIMEOUT_CONTEXT"
	HubErrorTimeoutTransaction = "TIMEOUT_TRANSACTION"
	HubErrorASR                = "ASR"
	HubErrorParser             = "PARSER"
	HubErrorGeneral            = "GENERAL"
)

var hubErrorCodes = []string{
	HubErrorSkillNotFound, HubErrorTimeoutSkill, HubErrorTimeoutParser, HubErrorTimeoutASR,
	HubErrorTimeoutContext, HubErrorTimeoutTransaction, HubErrorASR, HubErrorParser, HubErrorGeneral,
}

// ListenData is the data of the LISTEN that opens a turn
// (ListenMessageData). Validate requires lang, allows mode "", CLIENT_ASR
// or CLIENT_NLU, and checks rules, the ASR configuration and agents
// against the package limits.
type ListenData struct {
	// Lang is the turn's language, e.g. "en-US".
	Lang string
	// Hotphrase is true when "Hey Jibo" started the turn.
	Hotphrase bool
	// Rules are the NLU rule contexts, e.g. ["launch",
	// "globals/global_commands_launch"]; nil encodes as [].
	Rules []string
	// Mode is ModeClientASR or ModeClientNLU when the robot sends the
	// transcript or NLU result itself; nil means absent (audio follows).
	// Real robots send "", which is kept.
	Mode *string
	// ASR configures speech recognition; nil means absent (or FakeASR).
	ASR *ASRConfig
	// FakeASR is true when asr is the string "FAKE"; ASR is then nil.
	FakeASR bool
	// Agents are extra Dialogflow agents by name; nil means absent.
	Agents map[string]AgentRequest
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

// ASRConfig configures speech recognition for a turn (asr.ASRConfig plus
// what robots send). Numbers are milliseconds except SampleRate (Hz); nil
// means absent.
type ASRConfig struct {
	// Encoding is the audio encoding: LINEAR16 (default), FLAC, or
	// OGG_OPUS, which real robots send; empty means absent.
	Encoding string
	// SampleRate is in Hz (default 16000).
	SampleRate *int
	// SOSTimeout is how long to wait for speech to start (wire name
	// "sosTimeout").
	SOSTimeout *int
	// MaxSpeechTimeout bounds the whole utterance.
	MaxSpeechTimeout *int
	// Hints are phrases to bias recognition towards; nil means absent.
	Hints []string
	// EarlyEOS are phrases that end speech early (wire name "earlyEOS",
	// as robots send it); nil means absent.
	EarlyEOS []string
	// RegexpEOS are patterns that end speech early (wire name
	// "regexpEOS", in later typings); nil means absent.
	RegexpEOS []string
	// DetectLangs are languages to detect; nil means absent.
	DetectLangs []string
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

// AgentRequest is an extra NLU agent of a LISTEN (nlu.ExternalAgentRequest).
type AgentRequest struct {
	// AccessToken authenticates with the agent.
	AccessToken string
	// Rules are the agent's NLU rule contexts; nil encodes as [].
	Rules []string
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

// ContextData is the data of a CONTEXT: the robot's general, runtime and
// skill members, as a skill request carries them. Real robots send only
// release in general (the hub fills the ids from the robot's token) and
// skill {"id": null} when no cloud skill is active; members left out are
// written back with their zero values. Validate requires general.release:
// hubs treat a robot without one as release 1.8.0.
type ContextData struct {
	// General identifies the robot.
	General GeneralData
	// Runtime is the robot's state.
	Runtime RuntimeContext
	// Skill is the active cloud skill with its session, or {"id": null}.
	Skill SkillData
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

// TriggerData is the data of a TRIGGER. Validate requires a known
// triggerSource.
type TriggerData struct {
	// TriggerSource is TriggerNewArrival or TriggerSurprise.
	TriggerSource string
	// TriggerData says who the trigger concerns.
	TriggerData TriggerInfo
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

// TriggerInfo is a TRIGGER's triggerData.
type TriggerInfo struct {
	// LooperID is who arrived, or who asked for the skill before a
	// surprise (wire name "looperID"); empty means absent.
	LooperID string
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

// CommandData is the data of a CMD_RESULT (hub/request CommandData).
// Validate requires input.command.
type CommandData struct {
	// Lang is the turn language.
	Lang string
	// General identifies the robot.
	General GeneralData
	// Runtime is the robot's state.
	Runtime RuntimeContext
	// Skill is the skill the command came from.
	Skill SkillData
	// Input is the command and its result.
	Input CommandInput
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

// CommandInput is a CMD_RESULT's input.
type CommandInput struct {
	// Command names the command.
	Command string
	// Result is the command's result, verbatim; nil encodes as null.
	Result json.RawMessage
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

// ClientASRData is the data of a CLIENT_ASR.
type ClientASRData struct {
	// Text is the transcript; empty means nothing was heard.
	Text string
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

// ListenResultData is the data of the hub's LISTEN: the turn's result
// (hub/response ListenResponseData). Validate requires nlu; asr may be
// absent, as in a CLIENT_NLU turn (ClassifyListen reads that as no input).
type ListenResultData struct {
	// ASR is what was heard; nil when absent (an explicit null is kept in
	// Extra).
	ASR *ASRResult
	// NLU is what was understood.
	NLU *NLUResult
	// Match is the skill chosen; nil when absent. The hub sends null when
	// nothing matched, which is kept in Extra and means the same.
	Match *MatchData
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

// MatchData is the skill the hub chose (common GlobalMatchResponseData
// plus the robot side's cloudSkill). The community hub sends intent, rule
// and score instead of skillID, which robots accept; those are kept in
// Extra. Validate requires skillID or cloudSkill.
type MatchData struct {
	// SkillID is the skill to launch (wire name "skillID"); empty means
	// absent.
	SkillID string
	// OnRobot is true for a skill that runs on the robot; nil means absent.
	OnRobot *bool
	// Launch is true when the skill is to be launched; nil means absent.
	Launch *bool
	// IsProactive is true for a proactive launch; nil means absent.
	IsProactive *bool
	// SkipSurprises asks the robot not to follow up with a surprise; nil
	// means absent.
	SkipSurprises *bool
	// CloudSkill is the cloud skill the robot's proxy skill is to run;
	// empty means absent.
	CloudSkill string
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

// HubRedirectData is the data of the hub's SKILL_REDIRECT: the skill it
// launched instead (hub/response SkillRedirectData). Validate requires
// match.
type HubRedirectData struct {
	// Match is the skill launched.
	Match *MatchData
	// Memo is what the redirecting skill handed on, verbatim: any JSON
	// value; nil means absent.
	Memo json.RawMessage
	// ASR is nil when absent.
	ASR *ASRResult
	// NLU is nil when absent.
	NLU *NLUResult
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

// ProactiveData is the data of a PROACTIVE; no match ({}) means nothing
// is eligible.
type ProactiveData struct {
	// Match is the proactive skill chosen; nil when absent.
	Match *MatchData
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

// HubErrorData is the data of the hub's ERROR (hub/response HubErrorData).
// The hub also forwards a skill's ERROR, which carries skill instead of
// code. Validate requires a message and a known code when one is set.
type HubErrorData struct {
	// Message says what went wrong.
	Message string
	// Code is one of the HubError constants; empty means absent.
	Code string
	// Skill is the failing skill of a forwarded skill ERROR; nil means
	// absent.
	Skill *SkillData
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

func parseListenData(raw json.RawMessage) (ListenData, error) {
	var d ListenData
	o, err := readObject(raw)
	if err != nil {
		return d, err
	}
	field(o, "lang", &d.Lang, parseString)
	field(o, "hotphrase", &d.Hotphrase, parseBool)
	field(o, "rules", &d.Rules, arrayOf(parseString))
	optField(o, "mode", &d.Mode, nullOr(parseString))
	if v, ok := o.takeOptional("asr"); ok {
		if kindOf(v) == '"' {
			s, err := parseString(v)
			switch {
			case err != nil:
				o.err = at("asr", err)
			case s != FakeASR:
				o.err = fieldErr("asr", "want object or %q, got %q", FakeASR, truncate(s))
			default:
				d.FakeASR = true
			}
		} else {
			setField(o, "asr", v, &d.ASR, nullOr(parseASRConfig))
		}
	}
	optField(o, "agents", &d.Agents, mapOf(parseAgentRequest))
	d.Extra, err = o.done()
	return d, err
}

// UnmarshalJSON decodes LISTEN data, keeping unknown members in Extra.
func (d *ListenData) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, d, parseListenData)
}

// MarshalJSON encodes LISTEN data, re-emitting Extra.
func (d ListenData) MarshalJSON() ([]byte, error) { return d.appendJSON(nil) }

func (d ListenData) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, d.Extra)
	w.str("lang", d.Lang)
	w.bool("hotphrase", d.Hotphrase)
	w.strs("rules", d.Rules)
	if d.Mode != nil {
		w.str("mode", *d.Mode)
	}
	switch {
	case d.ASR != nil:
		w.obj("asr", d.ASR)
	case d.FakeASR:
		w.str("asr", FakeASR)
	}
	if d.Agents != nil {
		w.obj("agents", agentMap(d.Agents))
	}
	return w.close()
}

// agentMap writes Agents with names in sorted order.
type agentMap map[string]AgentRequest

func (m agentMap) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, nil)
	for _, k := range slices.Sorted(maps.Keys(m)) {
		w.obj(k, m[k])
	}
	return w.close()
}

func parseASRConfig(raw json.RawMessage) (ASRConfig, error) {
	var c ASRConfig
	o, err := readObject(raw)
	if err != nil {
		return c, err
	}
	optField(o, "encoding", &c.Encoding, parseString)
	optField(o, "sampleRate", &c.SampleRate, nullOr(parseInt))
	optField(o, "sosTimeout", &c.SOSTimeout, nullOr(parseInt))
	optField(o, "maxSpeechTimeout", &c.MaxSpeechTimeout, nullOr(parseInt))
	optField(o, "hints", &c.Hints, arrayOf(parseString))
	optField(o, "earlyEOS", &c.EarlyEOS, arrayOf(parseString))
	optField(o, "regexpEOS", &c.RegexpEOS, arrayOf(parseString))
	optField(o, "detectLangs", &c.DetectLangs, arrayOf(parseString))
	c.Extra, err = o.done()
	return c, err
}

// UnmarshalJSON decodes an ASR configuration, keeping unknown members in
// Extra.
func (c *ASRConfig) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, c, parseASRConfig)
}

// MarshalJSON encodes an ASR configuration, re-emitting Extra.
func (c ASRConfig) MarshalJSON() ([]byte, error) { return c.appendJSON(nil) }

func (c ASRConfig) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, c.Extra)
	w.optStr("encoding", c.Encoding)
	optInt(&w, "sampleRate", c.SampleRate)
	optInt(&w, "sosTimeout", c.SOSTimeout)
	optInt(&w, "maxSpeechTimeout", c.MaxSpeechTimeout)
	optStrs(&w, "hints", c.Hints)
	optStrs(&w, "earlyEOS", c.EarlyEOS)
	optStrs(&w, "regexpEOS", c.RegexpEOS)
	optStrs(&w, "detectLangs", c.DetectLangs)
	return w.close()
}

func optInt(w *objWriter, name string, n *int) {
	if n != nil {
		w.int(name, int64(*n))
	}
}

func optBool(w *objWriter, name string, v *bool) {
	if v != nil {
		w.bool(name, *v)
	}
}

// optStrs writes ss unless it is nil (absent); empty writes [].
func optStrs(w *objWriter, name string, ss []string) {
	if ss != nil {
		w.strs(name, ss)
	}
}

func parseAgentRequest(raw json.RawMessage) (AgentRequest, error) {
	var a AgentRequest
	o, err := readObject(raw)
	if err != nil {
		return a, err
	}
	field(o, "accessToken", &a.AccessToken, parseString)
	field(o, "rules", &a.Rules, arrayOf(parseString))
	a.Extra, err = o.done()
	return a, err
}

// UnmarshalJSON decodes an agent request, keeping unknown members in Extra.
func (a *AgentRequest) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, a, parseAgentRequest)
}

// MarshalJSON encodes an agent request, re-emitting Extra.
func (a AgentRequest) MarshalJSON() ([]byte, error) { return a.appendJSON(nil) }

func (a AgentRequest) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, a.Extra)
	w.str("accessToken", a.AccessToken)
	w.strs("rules", a.Rules)
	return w.close()
}

func parseContextData(raw json.RawMessage) (ContextData, error) {
	var d ContextData
	o, err := readObject(raw)
	if err != nil {
		return d, err
	}
	field(o, "general", &d.General, parseGeneralData)
	field(o, "runtime", &d.Runtime, parseRuntimeContext)
	field(o, "skill", &d.Skill, parseSkillData)
	d.Extra, err = o.done()
	return d, err
}

// UnmarshalJSON decodes CONTEXT data, keeping unknown members in Extra.
func (d *ContextData) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, d, parseContextData)
}

// MarshalJSON encodes CONTEXT data, re-emitting Extra.
func (d ContextData) MarshalJSON() ([]byte, error) { return d.appendJSON(nil) }

func (d ContextData) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, d.Extra)
	w.obj("general", d.General)
	w.obj("runtime", d.Runtime)
	w.obj("skill", d.Skill)
	return w.close()
}

// Context returns the general, runtime and skill members.
func (d *ContextData) Context() Context {
	return Context{General: d.General, Runtime: d.Runtime, Skill: d.Skill}
}

func parseTriggerData(raw json.RawMessage) (TriggerData, error) {
	var d TriggerData
	o, err := readObject(raw)
	if err != nil {
		return d, err
	}
	field(o, "triggerSource", &d.TriggerSource, parseString)
	field(o, "triggerData", &d.TriggerData, parseTriggerInfo)
	d.Extra, err = o.done()
	return d, err
}

// UnmarshalJSON decodes TRIGGER data, keeping unknown members in Extra.
func (d *TriggerData) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, d, parseTriggerData)
}

// MarshalJSON encodes TRIGGER data, re-emitting Extra.
func (d TriggerData) MarshalJSON() ([]byte, error) { return d.appendJSON(nil) }

func (d TriggerData) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, d.Extra)
	w.str("triggerSource", d.TriggerSource)
	w.obj("triggerData", d.TriggerData)
	return w.close()
}

func parseTriggerInfo(raw json.RawMessage) (TriggerInfo, error) {
	var t TriggerInfo
	o, err := readObject(raw)
	if err != nil {
		return t, err
	}
	optField(o, "looperID", &t.LooperID, parseString)
	t.Extra, err = o.done()
	return t, err
}

// UnmarshalJSON decodes a TRIGGER's triggerData, keeping unknown members
// in Extra.
func (t *TriggerInfo) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, t, parseTriggerInfo)
}

// MarshalJSON encodes a TRIGGER's triggerData, re-emitting Extra.
func (t TriggerInfo) MarshalJSON() ([]byte, error) { return t.appendJSON(nil) }

func (t TriggerInfo) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, t.Extra)
	w.optStr("looperID", t.LooperID)
	return w.close()
}

func parseCommandData(raw json.RawMessage) (CommandData, error) {
	var d CommandData
	o, err := readObject(raw)
	if err != nil {
		return d, err
	}
	field(o, "lang", &d.Lang, parseString)
	field(o, "general", &d.General, parseGeneralData)
	field(o, "runtime", &d.Runtime, parseRuntimeContext)
	field(o, "skill", &d.Skill, parseSkillData)
	field(o, "input", &d.Input, parseCommandInput)
	d.Extra, err = o.done()
	return d, err
}

// UnmarshalJSON decodes CMD_RESULT data, keeping unknown members in Extra.
func (d *CommandData) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, d, parseCommandData)
}

// MarshalJSON encodes CMD_RESULT data, re-emitting Extra.
func (d CommandData) MarshalJSON() ([]byte, error) { return d.appendJSON(nil) }

func (d CommandData) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, d.Extra)
	w.str("lang", d.Lang)
	w.obj("general", d.General)
	w.obj("runtime", d.Runtime)
	w.obj("skill", d.Skill)
	w.obj("input", d.Input)
	return w.close()
}

func parseCommandInput(raw json.RawMessage) (CommandInput, error) {
	var in CommandInput
	o, err := readObject(raw)
	if err != nil {
		return in, err
	}
	field(o, "command", &in.Command, parseString)
	field(o, "result", &in.Result, parseRaw)
	in.Extra, err = o.done()
	return in, err
}

// UnmarshalJSON decodes a CMD_RESULT's input, keeping unknown members in
// Extra.
func (in *CommandInput) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, in, parseCommandInput)
}

// MarshalJSON encodes a CMD_RESULT's input, re-emitting Extra.
func (in CommandInput) MarshalJSON() ([]byte, error) { return in.appendJSON(nil) }

func (in CommandInput) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, in.Extra)
	w.str("command", in.Command)
	w.raw("result", in.Result)
	return w.close()
}

func parseClientASRData(raw json.RawMessage) (ClientASRData, error) {
	var d ClientASRData
	o, err := readObject(raw)
	if err != nil {
		return d, err
	}
	field(o, "text", &d.Text, parseString)
	d.Extra, err = o.done()
	return d, err
}

// UnmarshalJSON decodes CLIENT_ASR data, keeping unknown members in Extra.
func (d *ClientASRData) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, d, parseClientASRData)
}

// MarshalJSON encodes CLIENT_ASR data, re-emitting Extra.
func (d ClientASRData) MarshalJSON() ([]byte, error) { return d.appendJSON(nil) }

func (d ClientASRData) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, d.Extra)
	w.str("text", d.Text)
	return w.close()
}

func parseListenResultData(raw json.RawMessage) (ListenResultData, error) {
	var d ListenResultData
	o, err := readObject(raw)
	if err != nil {
		return d, err
	}
	optField(o, "asr", &d.ASR, parseASRResultPtr)
	optField(o, "nlu", &d.NLU, parseNLUResultPtr)
	optField(o, "match", &d.Match, nullOr(parseMatchData))
	d.Extra, err = o.done()
	return d, err
}

// UnmarshalJSON decodes a LISTEN result, keeping unknown members in Extra.
func (d *ListenResultData) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, d, parseListenResultData)
}

// MarshalJSON encodes a LISTEN result, re-emitting Extra.
func (d ListenResultData) MarshalJSON() ([]byte, error) { return d.appendJSON(nil) }

func (d ListenResultData) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, d.Extra)
	if d.ASR != nil {
		w.obj("asr", d.ASR)
	}
	if d.NLU != nil {
		w.obj("nlu", d.NLU)
	}
	if d.Match != nil {
		w.obj("match", d.Match)
	}
	return w.close()
}

// State classifies the result as jibo.md §1.6 says.
func (d *ListenResultData) State() ListenState { return ClassifyListen(d.NLU, d.ASR) }

func parseMatchData(raw json.RawMessage) (MatchData, error) {
	var m MatchData
	o, err := readObject(raw)
	if err != nil {
		return m, err
	}
	optField(o, "skillID", &m.SkillID, parseString)
	optField(o, "onRobot", &m.OnRobot, parseBoolPtr)
	optField(o, "launch", &m.Launch, parseBoolPtr)
	optField(o, "isProactive", &m.IsProactive, parseBoolPtr)
	optField(o, "skipSurprises", &m.SkipSurprises, parseBoolPtr)
	optField(o, "cloudSkill", &m.CloudSkill, parseString)
	m.Extra, err = o.done()
	return m, err
}

// UnmarshalJSON decodes a match, keeping unknown members in Extra.
func (m *MatchData) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, m, parseMatchData)
}

// MarshalJSON encodes a match, re-emitting Extra.
func (m MatchData) MarshalJSON() ([]byte, error) { return m.appendJSON(nil) }

func (m MatchData) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, m.Extra)
	w.optStr("skillID", m.SkillID)
	optBool(&w, "onRobot", m.OnRobot)
	optBool(&w, "launch", m.Launch)
	optBool(&w, "isProactive", m.IsProactive)
	optBool(&w, "skipSurprises", m.SkipSurprises)
	w.optStr("cloudSkill", m.CloudSkill)
	return w.close()
}

func parseHubRedirectData(raw json.RawMessage) (HubRedirectData, error) {
	var d HubRedirectData
	o, err := readObject(raw)
	if err != nil {
		return d, err
	}
	field(o, "match", &d.Match, nullOr(parseMatchData))
	optField(o, "memo", &d.Memo, parseRaw)
	optField(o, "asr", &d.ASR, parseASRResultPtr)
	optField(o, "nlu", &d.NLU, parseNLUResultPtr)
	d.Extra, err = o.done()
	return d, err
}

// UnmarshalJSON decodes the hub's SKILL_REDIRECT data, keeping unknown
// members in Extra.
func (d *HubRedirectData) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, d, parseHubRedirectData)
}

// MarshalJSON encodes the hub's SKILL_REDIRECT data, re-emitting Extra; a
// nil Match encodes as null.
func (d HubRedirectData) MarshalJSON() ([]byte, error) { return d.appendJSON(nil) }

func (d HubRedirectData) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, d.Extra)
	if d.Match != nil {
		w.obj("match", d.Match)
	} else {
		w.raw("match", nil)
	}
	w.optRaw("memo", d.Memo)
	if d.ASR != nil {
		w.obj("asr", d.ASR)
	}
	if d.NLU != nil {
		w.obj("nlu", d.NLU)
	}
	return w.close()
}

func parseProactiveData(raw json.RawMessage) (ProactiveData, error) {
	var d ProactiveData
	o, err := readObject(raw)
	if err != nil {
		return d, err
	}
	optField(o, "match", &d.Match, nullOr(parseMatchData))
	d.Extra, err = o.done()
	return d, err
}

// UnmarshalJSON decodes PROACTIVE data, keeping unknown members in Extra.
func (d *ProactiveData) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, d, parseProactiveData)
}

// MarshalJSON encodes PROACTIVE data, re-emitting Extra.
func (d ProactiveData) MarshalJSON() ([]byte, error) { return d.appendJSON(nil) }

func (d ProactiveData) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, d.Extra)
	if d.Match != nil {
		w.obj("match", d.Match)
	}
	return w.close()
}

func parseHubErrorData(raw json.RawMessage) (HubErrorData, error) {
	var d HubErrorData
	o, err := readObject(raw)
	if err != nil {
		return d, err
	}
	field(o, "message", &d.Message, parseString)
	optField(o, "code", &d.Code, parseString)
	optField(o, "skill", &d.Skill, nullOr(parseSkillData))
	d.Extra, err = o.done()
	return d, err
}

// UnmarshalJSON decodes the hub's ERROR data, keeping unknown members in
// Extra.
func (d *HubErrorData) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, d, parseHubErrorData)
}

// MarshalJSON encodes the hub's ERROR data, re-emitting Extra.
func (d HubErrorData) MarshalJSON() ([]byte, error) { return d.appendJSON(nil) }

func (d HubErrorData) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, d.Extra)
	w.str("message", d.Message)
	w.optStr("code", d.Code)
	if d.Skill != nil {
		w.obj("skill", d.Skill)
	}
	return w.close()
}

// Validation of the hub data types; paths are relative to data.

func (d *ListenData) validate() error {
	if d.Lang == "" {
		return fieldErr("lang", "required")
	}
	if err := firstErr(checkLen("lang", d.Lang), checkStrings("rules", d.Rules, MaxRules)); err != nil {
		return err
	}
	if d.Mode != nil {
		if err := oneOf("mode", *d.Mode, "", ModeClientASR, ModeClientNLU); err != nil {
			return err
		}
	}
	if d.FakeASR && d.ASR != nil {
		return fieldErr("asr", "both a configuration and %q", FakeASR)
	}
	if err := under("asr", d.ASR.validate()); err != nil {
		return err
	}
	if len(d.Agents) > MaxAgents {
		return fieldErr("agents", "%d agents, limit %d", len(d.Agents), MaxAgents)
	}
	for _, name := range slices.Sorted(maps.Keys(d.Agents)) {
		a := d.Agents[name]
		if err := firstErr(checkLen("", name), checkLen("accessToken", a.AccessToken),
			checkStrings("rules", a.Rules, MaxRules)); err != nil {
			return at("agents", at(name, err))
		}
	}
	return nil
}

// validate accepts a nil configuration (absent).
func (c *ASRConfig) validate() error {
	if c == nil {
		return nil
	}
	if err := checkLen("encoding", c.Encoding); err != nil {
		return err
	}
	if c.SampleRate != nil && (*c.SampleRate <= 0 || *c.SampleRate > MaxSampleRate) {
		return fieldErr("sampleRate", "%d outside 1..%d", *c.SampleRate, MaxSampleRate)
	}
	for _, t := range []struct {
		name string
		ms   *int
	}{{"sosTimeout", c.SOSTimeout}, {"maxSpeechTimeout", c.MaxSpeechTimeout}} {
		if t.ms != nil && (*t.ms < 0 || *t.ms > MaxListenTimeoutMS) {
			return fieldErr(t.name, "%d ms outside 0..%d", *t.ms, MaxListenTimeoutMS)
		}
	}
	return firstErr(
		checkStrings("hints", c.Hints, MaxHints),
		checkStrings("earlyEOS", c.EarlyEOS, MaxHints),
		checkStrings("regexpEOS", c.RegexpEOS, MaxHints),
		checkStrings("detectLangs", c.DetectLangs, MaxHints),
	)
}

func (d *ContextData) validate() error {
	if d.General.Release == "" {
		return fieldErr("general.release", "required (hubs take a robot without one for release 1.8.0)")
	}
	return firstErr(
		under("general", d.General.validate()),
		under("runtime", d.Runtime.validate()),
		under("skill", d.Skill.validate()),
	)
}

func (d *TriggerData) validate() error {
	if d.TriggerSource == "" {
		return fieldErr("triggerSource", "required")
	}
	return firstErr(
		oneOf("triggerSource", d.TriggerSource, TriggerNewArrival, TriggerSurprise),
		checkLen("triggerData.looperID", d.TriggerData.LooperID),
	)
}

func (d *CommandData) validate() error {
	if d.Input.Command == "" {
		return fieldErr("input.command", "required")
	}
	return firstErr(
		checkLens("lang", d.Lang, "input.command", d.Input.Command),
		under("general", d.General.validate()),
		under("runtime", d.Runtime.validate()),
		under("skill", d.Skill.validate()),
	)
}

func (d *ClientASRData) validate() error { return checkUtterance("text", d.Text) }

func (d *ListenResultData) validate() error {
	if d.NLU == nil {
		return fieldErr("nlu", "required")
	}
	return firstErr(
		under("asr", d.ASR.validate()),
		under("nlu", d.NLU.validate()),
		under("match", d.Match.validate()),
	)
}

// validate accepts a nil match (absent).
func (m *MatchData) validate() error {
	if m == nil {
		return nil
	}
	if m.SkillID == "" && m.CloudSkill == "" {
		return fieldErr("", "names no skill: want skillID or cloudSkill")
	}
	return checkLens("skillID", m.SkillID, "cloudSkill", m.CloudSkill)
}

func (d *HubRedirectData) validate() error {
	if d.Match == nil {
		return fieldErr("match", "required")
	}
	return firstErr(
		under("match", d.Match.validate()),
		anyValue("memo", d.Memo),
		under("asr", d.ASR.validate()),
		under("nlu", d.NLU.validate()),
	)
}

func (d *ProactiveData) validate() error { return under("match", d.Match.validate()) }

func (d *HubErrorData) validate() error {
	if d.Message == "" {
		return fieldErr("message", "required")
	}
	if err := checkLen("message", d.Message); err != nil {
		return err
	}
	if d.Code != "" {
		if err := oneOf("code", d.Code, hubErrorCodes...); err != nil {
			return err
		}
	}
	if d.Skill != nil {
		return under("skill", d.Skill.validate())
	}
	return nil
}

// checkStrings bounds a list of modelled strings: at most limit entries,
// each within MaxStringLen.
func checkStrings(name string, ss []string, limit int) error {
	if len(ss) > limit {
		return fieldErr(name, "%d entries, limit %d", len(ss), limit)
	}
	for i, s := range ss {
		if err := checkLen("", s); err != nil {
			return at(name, at(indexPath("", i), err))
		}
	}
	return nil
}

// oneOf reports a value outside its enumeration, naming the valid ones.
func oneOf(name, v string, allowed ...string) error {
	if slices.Contains(allowed, v) {
		return nil
	}
	quoted := make([]string, 0, len(allowed))
	for _, a := range allowed {
		quoted = append(quoted, `"`+a+`"`)
	}
	return fieldErr(name, "%q is not one of %s", truncate(v), strings.Join(quoted, ", "))
}
