// Package scenario runs scripted situations through the real orchestrator,
// the way OVOS' ovoscope does, so skill and plugin authors can see the exact
// bus traffic: scripted plugins, transformers, skills and handlers, the
// built-in stop, converse, fallback, template and keyword stages, and a
// list of messages to emit. Every bus message is written as one JSON line.
package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/internal/strictjson"
)

// Limits on a scenario file.
const (
	MaxFileBytes   = 1 << 20
	MaxSteps       = 1000
	MaxPlugins     = 64
	MaxSkills      = 256
	MaxHandlers    = 1024
	MaxSpeaks      = 64
	MaxDurationMS  = 60_000  // any timeout, delay or window
	MaxDeadlineMS  = 600_000 // the whole run
	DefaultDeadMS  = 10_000
	DefaultPollMS  = 500
	defaultLang    = "en-US"
	stepContextKey = "scenario_step"
)

// StepKey is the context key carrying the number of the step a message
// descends from (1-based; 0 for what the runner sends while setting up).
const StepKey = stepContextKey

// File is a parsed, validated scenario.
type File struct {
	Config       Config
	Plugins      map[string]PluginSpec
	Transformers map[pipeline.ChainType][]TransformerSpec
	Skills       map[string]SkillSpec
	Handlers     map[string]HandlerSpec
	Steps        []Step
}

// Config is the scenario's deployment configuration.
type Config struct {
	HandlerTimeoutMS int      `json:"handler_timeout_ms"`
	MatchTimeoutMS   int      `json:"match_timeout_ms"`
	DefaultPipeline  []string `json:"default_pipeline"`
	EnabledLangs     []string `json:"enabled_langs"`
	// Lang is the deployment default language (default: the first enabled
	// language, else en-US).
	Lang string `json:"lang"`
	// DeadlineMS bounds the whole run (default 10 s).
	DeadlineMS int `json:"deadline_ms"`
	// PollWindowMS is the stop, converse and fallback poll window (default 500).
	PollWindowMS int `json:"poll_window_ms"`
	// BreakerThreshold and BreakerCooldownMS configure PIPE-10.
	BreakerThreshold  int `json:"breaker_threshold"`
	BreakerCooldownMS int `json:"breaker_cooldown_ms"`
	// TransformerOrder is the deployer order per chain (TRF-08).
	TransformerOrder map[string][]string `json:"transformer_order"`
}

// PluginSpec is one entry of "plugins": a scripted plugin or a built-in.
type PluginSpec struct {
	// Builtin is "stop", "converse", "fallback", "templates" or "keywords";
	// empty for a scripted plugin.
	Builtin string `json:"builtin"`

	// Scripted: Match is returned (nil: none) after DelayMS; Fail returns an
	// error, Panic panics; IgnoreCancel keeps sleeping through a cancelled
	// context, like a plugin that hangs.
	Match        map[string]any `json:"match"`
	DelayMS      int            `json:"delay_ms"`
	Fail         bool           `json:"fail"`
	Panic        bool           `json:"panic"`
	IgnoreCancel bool           `json:"ignore_cancel"`
	// MutateSession is written, field by field (null deletes), into the
	// session the plugin was handed, in place, before the rest of the
	// script plays: what a misbehaving plugin does, which PIPE-08 makes the
	// orchestrator discard.
	MutateSession map[string]any `json:"mutate_session"`

	// fallback: the stage's priority range, inclusive; absent = open.
	MinPriority *int `json:"min_priority"`
	MaxPriority *int `json:"max_priority"`
	// stop: vocabularies by language (default: the built-in English one).
	Vocab  map[string][]string `json:"vocab"`
	Global map[string][]string `json:"global"`
}

// TransformerSpec is one scripted transformer.
type TransformerSpec struct {
	ID       string `json:"id"`
	Priority *int   `json:"priority"`
	// Utterances replaces the candidate list (utterance chain); [] empties it.
	Utterances *[]string `json:"utterances"`
	// Lang replaces the threaded language (utterance chain).
	Lang *string `json:"lang"`
	// Context is merged into the message context (null deletes a key);
	// {"canceled": true, "cancel_reason": "..."} cancels the lifecycle.
	Context map[string]any `json:"context"`
	// Session is merged into context.session field by field.
	Session map[string]any `json:"session"`
	// Match is merged over the Match (intent chain); slots merge key by key.
	Match map[string]any `json:"match"`
	Fail  bool           `json:"fail"`
	Panic bool           `json:"panic"`
}

// SkillSpec is a scripted skill's answers to the polls. A skill answers a
// poll when it has that poll's can_handle or pong fields; with neither it
// does not answer at all.
type SkillSpec struct {
	// Stop is can_handle for ovos.stop.ping.
	Stop *bool `json:"stop"`
	// Converse is can_handle for ovos.converse.ping; ConverseErrorCode adds
	// error_code.
	Converse          *bool  `json:"converse"`
	ConverseErrorCode string `json:"converse_error_code"`
	// FallbackPriority registers the skill as a fallback handler
	// (ovos.fallback.register) before the first step; Fallback is its
	// can_handle for ovos.fallback.ping (default true).
	FallbackPriority *int  `json:"fallback_priority"`
	Fallback         *bool `json:"fallback"`
	// StopPong, ConversePong and FallbackPong are merged over the data of
	// the skill's answer to that round's ping, field by field (null
	// deletes), unchecked: {"can_handle": "true"} scripts a malformed pong
	// (STOP-04, CONV-06: it cannot claim).
	StopPong     map[string]any `json:"stop_pong"`
	ConversePong map[string]any `json:"converse_pong"`
	FallbackPong map[string]any `json:"fallback_pong"`
}

// Speak is one ovos.utterance.speak a handler emits.
type Speak struct {
	Utterance string `json:"utterance"`
	Listen    bool   `json:"listen"`
	Lang      string `json:"lang"`
}

// HandlerSpec scripts the handler of one "<skill_id>:<intent_name>".
type HandlerSpec struct {
	Speak []Speak `json:"speak"`
	// SetSession is merged into the handler's session field by field before
	// it speaks; ResponseModeS puts the skill in response mode for that many
	// seconds (CONV-05). For the default session the handler then sends
	// ovos.session.sync, so the next utterance sees it.
	SetSession    map[string]any `json:"set_session"`
	ResponseModeS float64        `json:"response_mode_s"`
	// Await waits, after speaking, until a lifecycle that dispatched this
	// topic has ended (ovos.utterance.handled), as a handler waiting for the
	// user's answer does.
	Await string `json:"await"`
	// DelayMS waits before returning.
	DelayMS int `json:"delay_ms"`
	// Outcome is "return" (default), "error" (Error, or a default text),
	// "hang" (until stopped or timed out), "panic" or "garbage" (a session
	// of another session_id, which the orchestrator must ignore).
	Outcome string `json:"outcome"`
	Error   string `json:"error"`
}

// Step emits one message.
type Step struct {
	Emit    bus.Message
	AfterMS int
	// WaitFor delays the step until a message of this type has appeared on
	// the bus since the previous step went out. Without it, the step waits
	// until every lifecycle started so far has ended, unless Overlap.
	WaitFor string
	Overlap bool
}

type rawFile struct {
	Config       json.RawMessage            `json:"config"`
	Plugins      map[string]json.RawMessage `json:"plugins"`
	Transformers map[string]json.RawMessage `json:"transformers"`
	Skills       map[string]json.RawMessage `json:"skills"`
	Handlers     map[string]json.RawMessage `json:"handlers"`
	Steps        []json.RawMessage          `json:"steps"`
}

type rawStep struct {
	Emit    *rawEmit `json:"emit"`
	AfterMS int      `json:"after_ms"`
	WaitFor string   `json:"wait_for"`
	Overlap bool     `json:"overlap"`
}

type rawEmit struct {
	Type    string         `json:"type"`
	Data    map[string]any `json:"data"`
	Context map[string]any `json:"context"`
}

// strict decodes one JSON value, refusing unknown fields and trailing data.
func strict(raw []byte, v any, where string) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	if dec.More() {
		return fmt.Errorf("%s: trailing data after the value", where)
	}
	return nil
}

// Parse reads and validates a scenario. Every error names where in the file
// the problem is; nothing of a bad file is used.
func Parse(r io.Reader) (*File, error) {
	raw, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading scenario: %w", err)
	}
	if len(raw) > MaxFileBytes {
		return nil, fmt.Errorf("scenario is over %d bytes", MaxFileBytes)
	}
	if err := strictjson.CheckMembers(raw); err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	var rf rawFile
	if err := strict(raw, &rf, "scenario"); err != nil {
		return nil, err
	}
	f := &File{Plugins: map[string]PluginSpec{}, Transformers: map[pipeline.ChainType][]TransformerSpec{},
		Skills: map[string]SkillSpec{}, Handlers: map[string]HandlerSpec{}}
	if err := strict(rf.Config, &f.Config, "config"); err != nil {
		return nil, err
	}
	if err := f.Config.validate(); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	if len(rf.Plugins) > MaxPlugins {
		return nil, fmt.Errorf("plugins: %d entries, limit %d", len(rf.Plugins), MaxPlugins)
	}
	for _, id := range sortedKeys(rf.Plugins) {
		var p PluginSpec
		where := "plugins." + id
		if err := strict(rf.Plugins[id], &p, where); err != nil {
			return nil, err
		}
		if err := p.validate(id); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		f.Plugins[id] = p
	}
	for _, typ := range sortedKeys(rf.Transformers) {
		chain := pipeline.ChainType(typ)
		if chain != pipeline.ChainUtterance && chain != pipeline.ChainMetadata && chain != pipeline.ChainIntent {
			return nil, fmt.Errorf("transformers.%s: want utterance, metadata or intent (the dialog and tts chains run in the output layer)", typ)
		}
		var list []TransformerSpec
		if err := strict(rf.Transformers[typ], &list, "transformers."+typ); err != nil {
			return nil, err
		}
		for i, t := range list {
			if err := t.validate(chain); err != nil {
				return nil, fmt.Errorf("transformers.%s[%d]: %w", typ, i, err)
			}
		}
		f.Transformers[chain] = list
	}
	if len(rf.Skills) > MaxSkills {
		return nil, fmt.Errorf("skills: %d entries, limit %d", len(rf.Skills), MaxSkills)
	}
	for _, id := range sortedKeys(rf.Skills) {
		var s SkillSpec
		if err := strict(rf.Skills[id], &s, "skills."+id); err != nil {
			return nil, err
		}
		if id == "" || strings.ContainsAny(id, ": ") {
			return nil, fmt.Errorf("skills.%s: a skill id is non-empty, without ':' or spaces", id)
		}
		if err := s.validate(); err != nil {
			return nil, fmt.Errorf("skills.%s: %w", id, err)
		}
		f.Skills[id] = s
	}
	if len(rf.Handlers) > MaxHandlers {
		return nil, fmt.Errorf("handlers: %d entries, limit %d", len(rf.Handlers), MaxHandlers)
	}
	for _, topic := range sortedKeys(rf.Handlers) {
		var h HandlerSpec
		where := "handlers." + topic
		if err := strict(rf.Handlers[topic], &h, where); err != nil {
			return nil, err
		}
		if err := h.validate(topic); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		f.Handlers[topic] = h
	}
	if len(rf.Steps) == 0 {
		return nil, errors.New("steps: a scenario needs at least one step")
	}
	if len(rf.Steps) > MaxSteps {
		return nil, fmt.Errorf("steps: %d entries, limit %d", len(rf.Steps), MaxSteps)
	}
	for i, rs := range rf.Steps {
		where := fmt.Sprintf("steps[%d]", i)
		var s rawStep
		if err := strict(rs, &s, where); err != nil {
			return nil, err
		}
		st, err := s.build()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		f.Steps = append(f.Steps, st)
	}
	return f, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func checkMS(name string, v, max int) error {
	if v < 0 || v > max {
		return fmt.Errorf("%s %d: want 0..%d", name, v, max)
	}
	return nil
}

func (c *Config) validate() error {
	for _, d := range []struct {
		name string
		v    int
		max  int
	}{{"handler_timeout_ms", c.HandlerTimeoutMS, MaxDurationMS}, {"match_timeout_ms", c.MatchTimeoutMS, MaxDurationMS},
		{"poll_window_ms", c.PollWindowMS, MaxDurationMS}, {"breaker_cooldown_ms", c.BreakerCooldownMS, MaxDeadlineMS},
		{"deadline_ms", c.DeadlineMS, MaxDeadlineMS}} {
		if err := checkMS(d.name, d.v, d.max); err != nil {
			return err
		}
	}
	if c.BreakerThreshold < 0 || c.BreakerThreshold > 1000 {
		return fmt.Errorf("breaker_threshold %d: want 0..1000", c.BreakerThreshold)
	}
	for i, l := range c.EnabledLangs {
		if !session.ValidLang(l) {
			return fmt.Errorf("enabled_langs[%d] %q is not a BCP-47 tag", i, l)
		}
	}
	if c.Lang == "" {
		c.Lang = defaultLang
		if len(c.EnabledLangs) > 0 {
			c.Lang = c.EnabledLangs[0]
		}
	}
	if !session.ValidLang(c.Lang) {
		return fmt.Errorf("lang %q is not a BCP-47 tag", c.Lang)
	}
	for i, id := range c.DefaultPipeline {
		if id == "" {
			return fmt.Errorf("default_pipeline[%d] is empty", i)
		}
	}
	if c.DeadlineMS == 0 {
		c.DeadlineMS = DefaultDeadMS
	}
	if c.PollWindowMS == 0 {
		c.PollWindowMS = DefaultPollMS
	}
	return nil
}

var tierIDs = map[string][]string{
	"templates": {"templates-high", "templates-medium", "templates-low"},
	"keywords":  {"keywords-high", "keywords-medium", "keywords-low"},
}

func (p *PluginSpec) validate(id string) error {
	if err := pipeline.ValidatePluginID(id); err != nil {
		return err
	}
	scripted := p.Match != nil || p.DelayMS != 0 || p.Fail || p.Panic || p.IgnoreCancel || p.MutateSession != nil
	fallbackOpts := p.MinPriority != nil || p.MaxPriority != nil
	stopOpts := p.Vocab != nil || p.Global != nil
	switch p.Builtin {
	case "":
		if fallbackOpts || stopOpts {
			return errors.New("min_priority, max_priority, vocab and global belong to built-in plugins")
		}
		if err := checkMS("delay_ms", p.DelayMS, MaxDurationMS); err != nil {
			return err
		}
		if p.Match != nil {
			if err := checkScriptedMatch(p.Match); err != nil {
				return fmt.Errorf("match: %w", err)
			}
		}
		if p.MutateSession != nil {
			if _, err := bus.NormalizeMap(p.MutateSession); err != nil {
				return fmt.Errorf("mutate_session: %w", err)
			}
		}
		return nil
	case "stop", "converse", "fallback", "templates", "keywords":
	default:
		return fmt.Errorf("builtin %q: want stop, converse, fallback, templates or keywords", p.Builtin)
	}
	if scripted {
		return fmt.Errorf("builtin %s takes no match, delay_ms, fail, panic, ignore_cancel or mutate_session", p.Builtin)
	}
	if fallbackOpts && p.Builtin != "fallback" {
		return errors.New("min_priority and max_priority belong to builtin fallback")
	}
	if stopOpts && p.Builtin != "stop" {
		return errors.New("vocab and global belong to builtin stop")
	}
	if p.MinPriority != nil && p.MaxPriority != nil && *p.MinPriority > *p.MaxPriority {
		return fmt.Errorf("priority range [%d, %d] is empty", *p.MinPriority, *p.MaxPriority)
	}
	if ids, ok := tierIDs[p.Builtin]; ok && !contains(ids, id) {
		return fmt.Errorf("builtin %s: the plugin id must be one of %s", p.Builtin, strings.Join(ids, ", "))
	}
	return nil
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// checkScriptedMatch refuses what a Match cannot carry at all; wrong-typed
// fields are kept, as a malformed Match is a legitimate thing to script
// (PIPE-07 makes it a decline).
func checkScriptedMatch(m map[string]any) error {
	known := map[string]bool{"skill_id": true, "intent_name": true, "lang": true, "slots": true, "utterance": true, "updated_session": true}
	for k := range m {
		if !known[k] {
			return fmt.Errorf("unknown field %q", k)
		}
	}
	if us, ok := m["updated_session"]; ok && us != nil {
		if _, ok := us.(map[string]any); !ok {
			return errors.New("updated_session must be an object")
		}
	}
	return nil
}

func (s *SkillSpec) validate() error {
	for _, p := range []struct {
		name string
		m    map[string]any
	}{{"stop_pong", s.StopPong}, {"converse_pong", s.ConversePong}, {"fallback_pong", s.FallbackPong}} {
		if _, err := bus.NormalizeMap(p.m); err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
	}
	if s.FallbackPong != nil && s.FallbackPriority == nil {
		return errors.New("fallback_pong answers the fallback ping, which only a skill with fallback_priority gets")
	}
	return nil
}

func (t *TransformerSpec) validate(chain pipeline.ChainType) error {
	if err := pipeline.ValidateTransformerID(t.ID); err != nil {
		return err
	}
	if t.Utterances != nil || t.Lang != nil {
		if chain != pipeline.ChainUtterance {
			return errors.New("utterances and lang belong to the utterance chain")
		}
	}
	if t.Utterances != nil {
		if len(*t.Utterances) > pipeline.MaxUtterances {
			return fmt.Errorf("utterances: %d, limit %d", len(*t.Utterances), pipeline.MaxUtterances)
		}
	}
	if t.Match != nil {
		if chain != pipeline.ChainIntent {
			return errors.New("match belongs to the intent chain")
		}
		if err := checkScriptedMatch(t.Match); err != nil {
			return fmt.Errorf("match: %w", err)
		}
	}
	return nil
}

var outcomes = map[string]bool{"": true, "return": true, "error": true, "hang": true, "panic": true, "garbage": true}

func (h *HandlerSpec) validate(topic string) error {
	skill, intent, ok := bus.SplitDispatch(topic)
	if !ok {
		return errors.New(`a handler key is "<skill_id>:<intent_name>"`)
	}
	if _, err := bus.DispatchTopic(skill, intent); err != nil {
		return err
	}
	if len(h.Speak) > MaxSpeaks {
		return fmt.Errorf("speak: %d entries, limit %d", len(h.Speak), MaxSpeaks)
	}
	for i, s := range h.Speak {
		if s.Utterance == "" {
			return fmt.Errorf("speak[%d]: utterance is empty", i)
		}
		if s.Lang != "" && !session.ValidLang(s.Lang) {
			return fmt.Errorf("speak[%d]: lang %q is not a BCP-47 tag", i, s.Lang)
		}
	}
	if !outcomes[h.Outcome] {
		return fmt.Errorf("outcome %q: want return, error, hang, panic or garbage", h.Outcome)
	}
	if h.Error != "" && h.Outcome != "error" {
		return errors.New(`error is the message of outcome "error"`)
	}
	if h.Await != "" {
		if _, _, ok := bus.SplitDispatch(h.Await); !ok {
			return fmt.Errorf("await %q: want a dispatch topic <skill_id>:<intent_name>", h.Await)
		}
	}
	if h.ResponseModeS < 0 || h.ResponseModeS > 3600 {
		return fmt.Errorf("response_mode_s %v: want 0..3600", h.ResponseModeS)
	}
	if h.SetSession != nil {
		if _, err := bus.NormalizeMap(h.SetSession); err != nil {
			return fmt.Errorf("set_session: %w", err)
		}
	}
	return checkMS("delay_ms", h.DelayMS, MaxDurationMS)
}

func (s rawStep) build() (Step, error) {
	if s.Emit == nil {
		return Step{}, errors.New("emit is required")
	}
	if err := checkMS("after_ms", s.AfterMS, MaxDurationMS); err != nil {
		return Step{}, err
	}
	if s.WaitFor != "" {
		if err := bus.ValidateTopic(s.WaitFor); err != nil {
			return Step{}, fmt.Errorf("wait_for: %w", err)
		}
	}
	m := bus.Message{Type: s.Emit.Type, Data: s.Emit.Data, Context: s.Emit.Context}
	if err := m.Validate(); err != nil {
		return Step{}, fmt.Errorf("emit: %w", err)
	}
	if _, err := bus.NormalizeMap(m.Data); err != nil {
		return Step{}, fmt.Errorf("emit.data: %w", err)
	}
	if _, err := bus.NormalizeMap(m.Context); err != nil {
		return Step{}, fmt.Errorf("emit.context: %w", err)
	}
	if m.Data == nil {
		m.Data = map[string]any{}
	}
	if m.Context == nil {
		m.Context = map[string]any{}
	}
	return Step{Emit: m, AfterMS: s.AfterMS, WaitFor: s.WaitFor, Overlap: s.Overlap}, nil
}
