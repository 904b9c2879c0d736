package mim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/openjibo/jibod/jcp"
)

// Limits on what a MIM may contain. Anything beyond them is a load error.
const (
	// MaxFileBytes bounds one .mim file.
	MaxFileBytes = 256 << 10
	// MaxPrompts bounds the prompts of one MIM.
	MaxPrompts = 512
	// MaxPromptBytes bounds one prompt's text, before and after templates
	// are resolved: it becomes a PLAY's ESML.
	MaxPromptBytes = jcp.MaxESMLBytes
	// MaxTemplates bounds the ${…} templates of one prompt.
	MaxTemplates = 32
	// MaxExprBytes bounds one condition or template expression.
	MaxExprBytes = 1 << 10
	// MaxExprNodes bounds the syntax tree of one expression.
	MaxExprNodes = 256
	// MaxExprMemory bounds what one evaluation may build, in bytes of
	// text (and 16 per array element).
	MaxExprMemory = 64 << 10
	// MaxStringBytes bounds the other strings of a MIM: ids, rule names,
	// notes, media, thanks handling. A rule name becomes a LISTEN context,
	// so it is further bounded by jcp.MaxStringBytes.
	MaxStringBytes = 16 << 10
	// MaxTimeout bounds a MIM's timeout, in seconds.
	MaxTimeout = 3600
	// MaxCounter bounds the GUI thresholds and tries of a MIM and a prompt's
	// index.
	MaxCounter = 1000
	// MaxWeight bounds a prompt's weight.
	MaxWeight = 1e6
	// MaxSetSize bounds the MIMs of one Set (Jibo's chitchat alone had
	// 3,889).
	MaxSetSize = 20000
	// MaxLoadErrors bounds the errors LoadDir reports at once.
	MaxLoadErrors = 20
)

// Errors wrapped by what this package returns, for errors.Is.
var (
	// ErrInvalid is wrapped by every error about a malformed MIM or
	// category list.
	ErrInvalid = errors.New("invalid MIM")
	// ErrLimit is wrapped by every error about a MIM over one of the limits.
	ErrLimit = errors.New("MIM exceeds a limit")
	// ErrNotFound is returned when a Set has no MIM of the id asked for, or
	// no category holds a value.
	ErrNotFound = errors.New("MIM not found")
	// ErrDuplicate is returned when two MIMs of a Set share an id.
	ErrDuplicate = errors.New("duplicate MIM id")
	// ErrNoPrompt is returned when no prompt of the category asked for is
	// eligible (outside the Errors ladder, where that is the ladder's end).
	ErrNoPrompt = errors.New("no eligible prompt")
	// ErrNotAnnouncement is returned for a sequence holding a MIM that is
	// not an announcement.
	ErrNotAnnouncement = errors.New("only announcements can be sequenced")
)

// Error locates a problem in a MIM file: the file, the prompt (by index in
// prompts) and the member, then says what is wrong.
type Error struct {
	// File is the file's name as given to Parse or Load.
	File string
	// Prompt is the index of the prompt in prompts, or -1 for a top-level
	// member.
	Prompt int
	// Field is the member's wire name ("condition", "gui.data.buttons[1]"),
	// or "" for the file as a whole.
	Field string
	// Column is the 1-based column (in characters) of an expression error
	// within the member's string, or 0.
	Column int
	// Reason says what is wrong.
	Reason string
	// Err is the category (ErrInvalid or ErrLimit) or the cause.
	Err error
}

// Error reports "file: prompts[i].field: column c: reason".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	path := e.Field
	if e.Prompt >= 0 {
		path = fmt.Sprintf("prompts[%d]", e.Prompt)
		if e.Field != "" {
			path += "." + e.Field
		}
	}
	if path != "" {
		b.WriteString(": ")
		b.WriteString(path)
	}
	if e.Column > 0 {
		fmt.Fprintf(&b, ": column %d", e.Column)
	}
	b.WriteString(": ")
	b.WriteString(e.Reason)
	return b.String()
}

// Unwrap returns the error's category or cause.
func (e *Error) Unwrap() error { return e.Err }

// Type is a MIM's mim_type.
type Type string

// The MIM types.
const (
	// Announcement says something and expects no answer.
	Announcement Type = "announcement"
	// Question asks and listens with the MIM's rule.
	Question Type = "question"
	// OptionalResponse says something and listens, but may go unanswered.
	OptionalResponse Type = "optional-response"
)

// Listens reports whether a MIM of this type listens after speaking.
func (t Type) Listens() bool { return t == Question || t == OptionalResponse }

func (t Type) valid() bool {
	switch t {
	case Announcement, Question, OptionalResponse:
		return true
	}
	return false
}

// Category is a prompt's prompt_category.
type Category string

// The prompt categories.
const (
	// EntryCore prompts are what the MIM says when it starts.
	EntryCore Category = "Entry-Core"
	// Errors prompts answer a no-match or no-input, by escalation index.
	Errors Category = "Errors"
	// Response is in Jibo's enum; no shipped MIM uses it.
	Response Category = "Response"
)

func (c Category) valid() bool {
	switch c {
	case EntryCore, Errors, Response:
		return true
	}
	return false
}

// SubCategory is a prompt's prompt_sub_category.
type SubCategory string

// The prompt sub-categories.
const (
	AN         SubCategory = "AN"         // announcement
	Q          SubCategory = "Q"          // question
	NM         SubCategory = "NM"         // no match
	NI         SubCategory = "NI"         // no input
	HoldReturn SubCategory = "HoldReturn" // returning after a hold
	Verbose    SubCategory = "Verbose"    // the long form
	Truncated  SubCategory = "Truncated"  // the short form
	Thanks     SubCategory = "Thanks"     // in Jibo's enum; unused
)

func (s SubCategory) valid() bool {
	switch s {
	case AN, Q, NM, NI, HoldReturn, Verbose, Truncated, Thanks:
		return true
	}
	return false
}

// MediaTTS is the only prompt medium: text to speech.
const MediaTTS = "TTS"

// MIM is one .mim file. Field comments give the wire names. A MIM built in
// Go must be checked with Validate before the Slimmer uses it; Parse does
// that. After Validate a MIM must not be changed; it is safe to share.
type MIM struct {
	// Name is the file's base name without ".mim"; it is not written. It is
	// the MIM's id when the file has no mim_id.
	Name string
	// ID is mim_id; "" when absent.
	ID string
	// Type is mim_type.
	Type Type
	// SkillID is skill_id; "" when absent.
	SkillID string
	// RuleName is rule_name, the NLU rule a question listens with.
	RuleName string
	// Timeout is timeout, in seconds.
	Timeout float64
	// BargeIn is barge_in.
	BargeIn bool
	// ESAutoTagging is es_auto_tagging; nil when absent.
	ESAutoTagging *bool
	// Notes is notes, for authors.
	Notes string
	// Prompts is prompts (at least one).
	Prompts []Prompt
	// GUI is gui, verbatim: nil when absent, JSON null, or an object
	// {type: "Menu"|"Javascript"|"File", data, pause}.
	GUI json.RawMessage
	// NoMatchesForGUI and NoInputsForGUI are no_matches_for_gui and
	// no_inputs_for_gui: the no-match or no-input count from which the gui
	// is shown; nil when absent (never by that count).
	NoMatchesForGUI, NoInputsForGUI *int
	// NumTriesForGUI and MaxTries are num_tries_for_gui and max_tries; nil
	// when absent.
	NumTriesForGUI, MaxTries *int
	// ParseAllASR, ParseLaunch, ParseYesNo and IgnoreNoMatch are
	// parse_all_asr, parse_launch, parse_yes_no and ignore_no_match; nil
	// when absent.
	ParseAllASR, ParseLaunch, ParseYesNo, IgnoreNoMatch *bool
	// ThanksHandling is thanks_handling (e.g. "ignore"); "" when absent.
	ThanksHandling string
	// HintPhrases, FastEOSArray, SampleUtterances, RuleSlots,
	// ScreenSlotsAvailable, ForceConfirmation and PhotoQualityLight are
	// hint_phrases, fast_eos_array, sample_utterances, rule_slots,
	// screen_slots_available, force_confirmation and photo_quality_light,
	// verbatim (their shapes vary between shipped files); nil when absent.
	HintPhrases, FastEOSArray, SampleUtterances, RuleSlots     json.RawMessage
	ScreenSlotsAvailable, ForceConfirmation, PhotoQualityLight json.RawMessage
	// Extra holds members this package does not model, verbatim, and known
	// optional members sent as null.
	Extra map[string]json.RawMessage

	// seen records which members the parsed file had, so that MarshalJSON
	// writes back exactly those (plus any set in Go).
	seen map[string]bool
	// compiled is set by Validate.
	compiled bool
}

// MimID returns the MIM's id: mim_id, or the file's base name without it.
func (m *MIM) MimID() string {
	if m.ID != "" {
		return m.ID
	}
	return m.Name
}

// Clone returns a copy of m to change, for instance to give a base MIM a
// skill's prompts. It shares nothing mutable with m and must be validated
// (Validate) before the Slimmer uses it.
func (m *MIM) Clone() *MIM {
	c := *m
	c.compiled = false
	c.seen = maps.Clone(m.seen)
	c.Extra = maps.Clone(m.Extra)
	c.ESAutoTagging = clonePtr(m.ESAutoTagging)
	c.NoMatchesForGUI, c.NoInputsForGUI = clonePtr(m.NoMatchesForGUI), clonePtr(m.NoInputsForGUI)
	c.NumTriesForGUI, c.MaxTries = clonePtr(m.NumTriesForGUI), clonePtr(m.MaxTries)
	c.ParseAllASR, c.ParseLaunch = clonePtr(m.ParseAllASR), clonePtr(m.ParseLaunch)
	c.ParseYesNo, c.IgnoreNoMatch = clonePtr(m.ParseYesNo), clonePtr(m.IgnoreNoMatch)
	for _, raw := range []*json.RawMessage{&c.GUI, &c.HintPhrases, &c.FastEOSArray, &c.SampleUtterances,
		&c.RuleSlots, &c.ScreenSlotsAvailable, &c.ForceConfirmation, &c.PhotoQualityLight} {
		*raw = bytes.Clone(*raw)
	}
	c.Prompts = make([]Prompt, len(m.Prompts))
	for i, p := range m.Prompts {
		p.seen = maps.Clone(p.seen)
		p.Extra = maps.Clone(p.Extra)
		p.AutoRuleOverride, p.ExtraData = bytes.Clone(p.AutoRuleOverride), bytes.Clone(p.ExtraData)
		c.Prompts[i] = p
	}
	return &c
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// HasGUI reports whether the MIM has a gui (present and not null).
func (m *MIM) HasGUI() bool {
	return len(m.GUI) > 0 && string(m.GUI) != "null"
}

// Prompt is one entry of a MIM's prompts.
type Prompt struct {
	// Category is prompt_category.
	Category Category
	// SubCategory is prompt_sub_category.
	SubCategory SubCategory
	// Index is index: the escalation level of an Errors prompt (1 for the
	// first no-match); shipped Entry-Core prompts carry 1 too.
	Index int
	// Condition is condition, a JavaScript expression; "" means always.
	Condition string
	// Text is prompt: ESML with ${…} templates.
	Text string
	// Media is media ("TTS"); "" when absent.
	Media string
	// ID is prompt_id (convention <MIM>_AN_01, <MIM>_NM_1_01).
	ID string
	// Weight is weight, > 0; 0 means absent, which counts as 1.
	Weight float64
	// AutoRuleOverride is auto_rule_override, verbatim: nil when absent,
	// JSON null (use the MIM's es_auto_tagging), a boolean or an object of
	// booleans {hotWords, punctuation, voice, beat}.
	AutoRuleOverride json.RawMessage
	// ExtraData is the prompt's "extra" member, verbatim; nil when absent.
	ExtraData json.RawMessage
	// MimID is the prompt's own mim_id; "" when absent.
	MimID string
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage

	seen map[string]bool
	// cond is the compiled condition; nil means always.
	cond *program
	// parts is Text split into literal text and templates.
	parts []part
}

// EffectiveWeight returns the prompt's weight, 1 when absent.
func (p *Prompt) EffectiveWeight() float64 {
	if p.Weight == 0 {
		return 1
	}
	return p.Weight
}
