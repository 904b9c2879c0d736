package mim

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/openjibo/jibod/internal/strictjson"
	"github.com/openjibo/jibod/jcp"
)

// Parse reads one .mim file. name is the file's name (its base name less
// ".mim" becomes Name, the default mim_id) and is used in errors. The MIM
// is fully validated and its conditions and templates compiled; errors are
// *Error values wrapping ErrInvalid or ErrLimit.
func Parse(data []byte, name string) (*MIM, error) {
	return parse(data, name, newCompiler())
}

func parse(data []byte, name string, c *compiler) (*MIM, error) {
	fileErr := func(err error, format string, args ...any) error {
		return &Error{File: name, Prompt: -1, Reason: fmt.Sprintf(format, args...), Err: err}
	}
	if len(data) > MaxFileBytes {
		return nil, fileErr(ErrLimit, "file is %d bytes, limit %d", len(data), MaxFileBytes)
	}
	if !utf8.Valid(data) {
		return nil, fileErr(ErrInvalid, "not valid UTF-8")
	}
	// A member given twice anywhere (gui and other verbatim members
	// included), or an escape leaving half a surrogate pair, is refused.
	var se *strictjson.Error
	if err := strictjson.Check(data); errors.As(err, &se) {
		return nil, &Error{File: name, Prompt: -1, Field: se.Path, Reason: se.Problem(), Err: ErrInvalid}
	}
	obj, err := readObject(data)
	if err != nil {
		return nil, fileErr(ErrInvalid, "%v", err)
	}
	m := &MIM{Name: strings.TrimSuffix(path.Base(name), ".mim"), seen: map[string]bool{}}
	if ferr := m.read(obj); ferr != nil {
		return nil, m.wrap(name, ferr)
	}
	if err := m.validate(name, c); err != nil {
		return nil, err
	}
	return m, nil
}

// wrap turns a member's error into an *Error.
func (m *MIM) wrap(file string, fe *fieldError) *Error {
	return &Error{File: file, Prompt: fe.prompt, Field: fe.field, Column: fe.column, Reason: fe.reason, Err: fe.err}
}

// read takes the MIM's members from obj; what is left becomes Extra.
func (m *MIM) read(obj members) *fieldError {
	s := m.seen
	var typ string
	for _, f := range []func() *fieldError{
		func() *fieldError { return obj.str("mim_id", &m.ID, s) },
		func() *fieldError { return obj.str("mim_type", &typ, s) },
		func() *fieldError { return obj.str("skill_id", &m.SkillID, s) },
		func() *fieldError { return obj.str("rule_name", &m.RuleName, s) },
		func() *fieldError { return obj.number("timeout", &m.Timeout, s) },
		func() *fieldError { return obj.boolean("barge_in", &m.BargeIn, s) },
		func() *fieldError { return obj.optBool("es_auto_tagging", &m.ESAutoTagging) },
		func() *fieldError { return obj.str("notes", &m.Notes, s) },
		func() *fieldError { return obj.optCount("no_matches_for_gui", &m.NoMatchesForGUI) },
		func() *fieldError { return obj.optCount("no_inputs_for_gui", &m.NoInputsForGUI) },
		func() *fieldError { return obj.optCount("num_tries_for_gui", &m.NumTriesForGUI) },
		func() *fieldError { return obj.optCount("max_tries", &m.MaxTries) },
		func() *fieldError { return obj.optBool("parse_all_asr", &m.ParseAllASR) },
		func() *fieldError { return obj.optBool("parse_launch", &m.ParseLaunch) },
		func() *fieldError { return obj.optBool("parse_yes_no", &m.ParseYesNo) },
		func() *fieldError { return obj.optBool("ignore_no_match", &m.IgnoreNoMatch) },
		func() *fieldError { return obj.str("thanks_handling", &m.ThanksHandling, s) },
	} {
		if err := f(); err != nil {
			return err
		}
	}
	m.Type = Type(typ)
	// gui keeps an explicit null: it is the usual value in shipped files.
	if raw, ok := obj["gui"]; ok {
		m.GUI = compact(raw)
		delete(obj, "gui")
	}
	obj.raw("hint_phrases", &m.HintPhrases)
	obj.raw("fast_eos_array", &m.FastEOSArray)
	obj.raw("sample_utterances", &m.SampleUtterances)
	obj.raw("rule_slots", &m.RuleSlots)
	obj.raw("screen_slots_available", &m.ScreenSlotsAvailable)
	obj.raw("force_confirmation", &m.ForceConfirmation)
	obj.raw("photo_quality_light", &m.PhotoQualityLight)
	raw, ok := obj.take("prompts")
	if !ok {
		return invalid("prompts", "missing")
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return invalid("prompts", "want an array of prompts")
	}
	if len(items) > MaxPrompts {
		return overLimit("prompts", "%d prompts, limit %d", len(items), MaxPrompts)
	}
	m.Prompts = make([]Prompt, len(items))
	for i, item := range items {
		if err := m.Prompts[i].read(item); err != nil {
			err.prompt = i
			return err
		}
	}
	m.Extra = obj.rest()
	return nil
}

// read takes a prompt's members from raw.
func (p *Prompt) read(raw json.RawMessage) *fieldError {
	obj, err := readObject(raw)
	if err != nil {
		return invalid("", "%v", err)
	}
	p.seen = map[string]bool{}
	s := p.seen
	var cat, sub string
	for _, f := range []func() *fieldError{
		func() *fieldError { return obj.str("prompt_category", &cat, s) },
		func() *fieldError { return obj.str("prompt_sub_category", &sub, s) },
		func() *fieldError { return obj.count("index", &p.Index, s) },
		func() *fieldError { return obj.str("condition", &p.Condition, s) },
		func() *fieldError { return obj.str("prompt", &p.Text, s) },
		func() *fieldError { return obj.str("media", &p.Media, s) },
		func() *fieldError { return obj.str("prompt_id", &p.ID, s) },
		func() *fieldError { return obj.number("weight", &p.Weight, s) },
		func() *fieldError { return obj.str("mim_id", &p.MimID, s) },
	} {
		if err := f(); err != nil {
			return err
		}
	}
	p.Category, p.SubCategory = Category(cat), SubCategory(sub)
	// auto_rule_override keeps an explicit null: it means "use the MIM's
	// es_auto_tagging", as absent does, and shipped files write it.
	if raw, ok := obj["auto_rule_override"]; ok {
		p.AutoRuleOverride = compact(raw)
		delete(obj, "auto_rule_override")
	}
	obj.raw("extra", &p.ExtraData)
	p.Extra = obj.rest()
	return nil
}

// Validate checks a MIM by the rules Parse applies and compiles its
// conditions and templates; the Slimmer needs that done. It is for MIMs
// built in Go; Parse has already done it. Errors name m.Name as the file.
func (m *MIM) Validate() error {
	if m.compiled {
		return nil
	}
	return m.validate(m.Name, newCompiler())
}

func (m *MIM) validate(file string, c *compiler) error {
	if err := m.check(); err != nil {
		return m.wrap(file, err)
	}
	for i := range m.Prompts {
		if err := m.Prompts[i].compile(c); err != nil {
			err.prompt = i
			return m.wrap(file, err)
		}
	}
	m.compiled = true
	return nil
}

// check validates the MIM's own members and the prompts' plain members.
func (m *MIM) check() *fieldError {
	if m.Type == "" {
		return invalid("mim_type", "missing")
	}
	if !m.Type.valid() {
		return invalid("mim_type", "%q is not one of %s, %s, %s", m.Type, Announcement, Question, OptionalResponse)
	}
	if err := checkText("mim_id", m.ID); err != nil {
		return err
	}
	if m.ID == "" && m.Name == "" {
		return invalid("mim_id", "missing, and no file name to default it to")
	}
	if err := checkText("skill_id", m.SkillID); err != nil {
		return err
	}
	if err := checkText("rule_name", m.RuleName); err != nil {
		return err
	}
	if m.Type.Listens() {
		if strings.TrimSpace(m.RuleName) == "" {
			return invalid("rule_name", "a %s needs the NLU rule to listen with", m.Type)
		}
		if len(m.RuleName) > jcp.MaxStringBytes {
			return overLimit("rule_name", "is %d bytes, limit %d (it becomes a LISTEN context)", len(m.RuleName), jcp.MaxStringBytes)
		}
	}
	if m.Timeout < 0 || m.Timeout > MaxTimeout || math.IsNaN(m.Timeout) {
		return invalid("timeout", "%v is outside 0..%d seconds", m.Timeout, MaxTimeout)
	}
	if err := checkText("notes", m.Notes); err != nil {
		return err
	}
	if err := checkText("thanks_handling", m.ThanksHandling); err != nil {
		return err
	}
	for _, c := range []struct {
		name string
		v    *int
	}{
		{"no_matches_for_gui", m.NoMatchesForGUI}, {"no_inputs_for_gui", m.NoInputsForGUI},
		{"num_tries_for_gui", m.NumTriesForGUI}, {"max_tries", m.MaxTries},
	} {
		if c.v != nil && (*c.v < 0 || *c.v > MaxCounter) {
			return invalid(c.name, "%d is outside 0..%d", *c.v, MaxCounter)
		}
	}
	if err := checkGUI(m.GUI); err != nil {
		return err
	}
	if len(m.Prompts) == 0 {
		return invalid("prompts", "must not be empty")
	}
	if len(m.Prompts) > MaxPrompts {
		return overLimit("prompts", "%d prompts, limit %d", len(m.Prompts), MaxPrompts)
	}
	for i := range m.Prompts {
		if err := m.Prompts[i].check(); err != nil {
			err.prompt = i
			return err
		}
	}
	return nil
}

func checkText(name, s string) *fieldError {
	if len(s) > MaxStringBytes {
		return overLimit(name, "is %d bytes, limit %d", len(s), MaxStringBytes)
	}
	if !utf8.ValidString(s) {
		return invalid(name, "is not valid UTF-8")
	}
	return nil
}

// checkGUI accepts null or {type: Menu|Javascript|File, data?, pause?}; a
// Menu's data is {title?, buttons?: [{label, color?, icon?, utterance?,
// notes?}]}.
func checkGUI(raw json.RawMessage) *fieldError {
	if len(raw) == 0 || isNull(raw) {
		return nil
	}
	obj, err := readObject(raw)
	if err != nil {
		return invalid("gui", "%v", err)
	}
	var typ string
	seen := map[string]bool{}
	if err := obj.str("type", &typ, seen); err != nil {
		err.field = "gui." + err.field
		return err
	}
	switch typ {
	case "Menu", "Javascript", "File":
	case "":
		return invalid("gui.type", "missing")
	default:
		return invalid("gui.type", "%q is not one of Menu, Javascript, File", typ)
	}
	if raw, ok := obj["pause"]; ok {
		var v any
		if json.Unmarshal(raw, &v) != nil {
			return invalid("gui.pause", "not JSON")
		}
		switch v.(type) {
		case nil, bool, float64:
		default:
			return invalid("gui.pause", "want a number or a boolean")
		}
	}
	if typ != "Menu" {
		return nil
	}
	data, ok := obj["data"]
	if !ok || isNull(data) {
		return invalid("gui.data", "a Menu needs data {title, buttons}")
	}
	d, err := readObject(data)
	if err != nil {
		return invalid("gui.data", "%v", err)
	}
	var title string
	if err := d.str("title", &title, seen); err != nil {
		err.field = "gui.data." + err.field
		return err
	}
	buttons, ok := d.take("buttons")
	if !ok {
		return nil
	}
	var items []json.RawMessage
	if json.Unmarshal(buttons, &items) != nil {
		return invalid("gui.data.buttons", "want an array of buttons")
	}
	for i, item := range items {
		b, err := readObject(item)
		if err != nil {
			return invalid(fmt.Sprintf("gui.data.buttons[%d]", i), "%v", err)
		}
		for _, name := range []string{"label", "color", "icon", "utterance", "notes"} {
			var s string
			if err := b.str(name, &s, seen); err != nil {
				err.field = fmt.Sprintf("gui.data.buttons[%d].%s", i, err.field)
				return err
			}
			if name == "label" && s == "" {
				return invalid(fmt.Sprintf("gui.data.buttons[%d].label", i), "missing")
			}
		}
	}
	return nil
}

// check validates a prompt's plain members.
func (p *Prompt) check() *fieldError {
	switch {
	case p.Category == "":
		return invalid("prompt_category", "missing")
	case !p.Category.valid():
		return invalid("prompt_category", "%q is not one of %s, %s, %s", p.Category, EntryCore, Errors, Response)
	case p.SubCategory == "":
		return invalid("prompt_sub_category", "missing")
	case !p.SubCategory.valid():
		return invalid("prompt_sub_category", "%q is not one of AN, Q, NM, NI, HoldReturn, Verbose, Truncated, Thanks", p.SubCategory)
	case p.Index < 0 || p.Index > MaxCounter:
		return invalid("index", "%d is outside 0..%d", p.Index, MaxCounter)
	case p.Weight < 0 || math.IsNaN(p.Weight) || p.seen["weight"] && p.Weight == 0:
		return invalid("weight", "%v is not above 0", p.Weight)
	case p.Weight > MaxWeight:
		return overLimit("weight", "%v is over %v", p.Weight, float64(MaxWeight))
	case p.Media != "" && p.Media != MediaTTS:
		return invalid("media", "%q is not %s, the only medium", p.Media, MediaTTS)
	case strings.TrimSpace(p.Text) == "":
		return invalid("prompt", "missing")
	case len(p.Text) > MaxPromptBytes:
		return overLimit("prompt", "is %d bytes, limit %d", len(p.Text), MaxPromptBytes)
	}
	for _, f := range [][2]string{{"condition", p.Condition}, {"prompt", p.Text}, {"prompt_id", p.ID}, {"mim_id", p.MimID}} {
		if err := checkText(f[0], f[1]); err != nil {
			return err
		}
	}
	if err := checkAutoRules(p.AutoRuleOverride); err != nil {
		return err
	}
	return nil
}

// autoRuleNames are the members of an autoRuleConfig object.
var autoRuleNames = map[string]bool{"hotWords": true, "punctuation": true, "voice": true, "beat": true}

// checkAutoRules accepts null, a boolean, or an object of boolean rule
// classes.
func checkAutoRules(raw json.RawMessage) *fieldError {
	if len(raw) == 0 || isNull(raw) {
		return nil
	}
	var b bool
	if json.Unmarshal(raw, &b) == nil {
		return nil
	}
	obj, err := readObject(raw)
	if err != nil {
		return invalid("auto_rule_override", "want null, a boolean or an object of booleans")
	}
	for name, v := range obj {
		if !autoRuleNames[name] {
			return invalid("auto_rule_override."+name, "unknown rule class (want hotWords, punctuation, voice or beat)")
		}
		if json.Unmarshal(v, &b) != nil {
			return invalid("auto_rule_override."+name, "want true or false")
		}
	}
	return nil
}

// compile compiles the prompt's condition and templates and checks its
// markup with the templates stood in for.
func (p *Prompt) compile(c *compiler) *fieldError {
	p.cond = nil
	if strings.TrimSpace(p.Condition) != "" {
		prog, err := c.compile(p.Condition)
		if err != nil {
			ee := asExprError(err)
			return &fieldError{prompt: -1, field: "condition", column: ee.Column, reason: ee.Reason, err: ErrInvalid}
		}
		p.cond = prog
	}
	parts, err := splitTemplates(p.Text, c)
	if err != nil {
		ee := asExprError(err)
		return &fieldError{prompt: -1, field: "prompt", column: ee.Column, reason: ee.Reason, err: ErrInvalid}
	}
	if _, err := jcp.ParseESML(skeleton(parts)); err != nil {
		return invalid("prompt", "ESML: %v", err)
	}
	p.parts = parts
	return nil
}

func asExprError(err error) *exprError {
	var ee *exprError
	if errors.As(err, &ee) {
		return ee
	}
	return &exprError{Reason: err.Error()}
}

// MarshalJSON writes the MIM in canonical form: the members it was read
// with (and any set in Go) in a fixed order, then Extra sorted by name.
// mim_id is written only when the file had it or ID is set. Markup is not
// escaped; json.Marshal re-escapes it (<, > and & as \u003c…), so call
// MarshalJSON directly, or use a json.Encoder with SetEscapeHTML(false),
// to get the readable form.
func (m *MIM) MarshalJSON() ([]byte, error) {
	var w objWriter
	w.open()
	s := m.seen
	w.put("mim_id", s["mim_id"] || m.ID != "", m.ID)
	w.put("mim_type", true, m.Type)
	w.put("skill_id", s["skill_id"] || m.SkillID != "", m.SkillID)
	w.put("rule_name", true, m.RuleName)
	w.put("timeout", s["timeout"] || m.Timeout != 0, m.Timeout)
	w.put("barge_in", s["barge_in"] || m.BargeIn, m.BargeIn)
	w.put("es_auto_tagging", m.ESAutoTagging != nil, m.ESAutoTagging)
	w.put("notes", true, m.Notes)
	prompts := make([]json.RawMessage, len(m.Prompts))
	for i := range m.Prompts {
		b, err := m.Prompts[i].marshal()
		if err != nil {
			return nil, fmt.Errorf("prompts[%d]: %w", i, err)
		}
		prompts[i] = b
	}
	w.put("prompts", true, prompts)
	w.putRaw("gui", m.GUI)
	w.put("no_matches_for_gui", m.NoMatchesForGUI != nil, m.NoMatchesForGUI)
	w.put("no_inputs_for_gui", m.NoInputsForGUI != nil, m.NoInputsForGUI)
	w.put("num_tries_for_gui", m.NumTriesForGUI != nil, m.NumTriesForGUI)
	w.put("max_tries", m.MaxTries != nil, m.MaxTries)
	w.put("parse_all_asr", m.ParseAllASR != nil, m.ParseAllASR)
	w.put("parse_launch", m.ParseLaunch != nil, m.ParseLaunch)
	w.put("parse_yes_no", m.ParseYesNo != nil, m.ParseYesNo)
	w.put("ignore_no_match", m.IgnoreNoMatch != nil, m.IgnoreNoMatch)
	w.put("thanks_handling", s["thanks_handling"] || m.ThanksHandling != "", m.ThanksHandling)
	w.putRaw("hint_phrases", m.HintPhrases)
	w.putRaw("fast_eos_array", m.FastEOSArray)
	w.putRaw("sample_utterances", m.SampleUtterances)
	w.putRaw("rule_slots", m.RuleSlots)
	w.putRaw("screen_slots_available", m.ScreenSlotsAvailable)
	w.putRaw("force_confirmation", m.ForceConfirmation)
	w.putRaw("photo_quality_light", m.PhotoQualityLight)
	w.extra(m.Extra)
	return w.close()
}

// MarshalJSON writes the prompt in canonical form.
func (p *Prompt) MarshalJSON() ([]byte, error) { return p.marshal() }

func (p *Prompt) marshal() ([]byte, error) {
	var w objWriter
	w.open()
	s := p.seen
	w.put("prompt_category", true, p.Category)
	w.put("prompt_sub_category", true, p.SubCategory)
	w.put("index", s["index"] || p.Index != 0, p.Index)
	w.put("condition", s["condition"] || p.Condition != "", p.Condition)
	w.put("prompt", true, p.Text)
	w.put("media", s["media"] || p.Media != "", p.Media)
	w.put("prompt_id", s["prompt_id"] || p.ID != "", p.ID)
	w.put("weight", s["weight"] || p.Weight != 0, p.Weight)
	w.putRaw("auto_rule_override", p.AutoRuleOverride)
	w.putRaw("extra", p.ExtraData)
	w.put("mim_id", s["mim_id"] || p.MimID != "", p.MimID)
	w.extra(p.Extra)
	return w.close()
}
