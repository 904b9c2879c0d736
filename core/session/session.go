// Package session is the OVOS session carrier (SESSION-1) that rides in
// context.session of every bus message, and the orchestrator's store for the
// device-local "default" session (SESSION-2).
//
// A Session keeps the carrier exactly as received, unknown keys included
// (SES-07, SES-17); typed accessors read the claimed fields and treat a
// wrong-typed one as omitted (SES-02).
package session

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/internal/ascii"
)

// DefaultID is the id of the device-local session (SES-04, SES-10).
const DefaultID = "default"

// Claimed field names (SES-09) used by the runtime.
const (
	FieldSessionID            = "session_id"
	FieldLang                 = "lang"
	FieldSecondaryLangs       = "secondary_langs"
	FieldOutputLang           = "output_lang"
	FieldSTTLang              = "stt_lang"
	FieldRequestLang          = "request_lang"
	FieldDetectedLang         = "detected_lang"
	FieldPipeline             = "pipeline"
	FieldBlacklistedSkills    = "blacklisted_skills"
	FieldBlacklistedIntents   = "blacklisted_intents"
	FieldBlacklistedPipelines = "blacklisted_pipelines"
	FieldActiveHandlers       = "active_handlers"
)

// Limits on a carrier received from outside.
const (
	// MaxListLen bounds any string list field (pipeline, blacklists).
	MaxListLen = 256
	// MaxIDLen bounds session_id.
	MaxIDLen = 256
)

// ErrMalformedCarrier marks a context.session that is not an object (SES-08):
// the message carrying it must be dropped.
var ErrMalformedCarrier = errors.New("malformed session carrier")

// fieldTypes lists the wire type of each claimed field this package checks.
var stringFields = []string{FieldSessionID, FieldLang, FieldOutputLang, FieldSTTLang, FieldRequestLang, FieldDetectedLang}
var listFields = []string{FieldSecondaryLangs, FieldPipeline, FieldBlacklistedSkills, FieldBlacklistedIntents, FieldBlacklistedPipelines,
	FieldFallbackHandlers,
	"audio_transformers", "utterance_transformers", "metadata_transformers", "intent_transformers", "dialog_transformers", "tts_transformers",
	"blacklisted_audio_transformers", "blacklisted_utterance_transformers", "blacklisted_metadata_transformers",
	"blacklisted_intent_transformers", "blacklisted_dialog_transformers", "blacklisted_tts_transformers"}

// Session is an immutable view of one carrier. Its nested values are never
// changed in place (every change builds new maps and lists), so Sessions may
// share them.
type Session struct {
	raw map[string]any
}

// Parse reads context.session. Absent or null yields the empty carrier
// (session_id "default", SES-04); a non-object is ErrMalformedCarrier
// (SES-08). Wrong-typed or null claimed fields are kept on the wire but read
// as omitted, and each is reported as a warning (SES-02).
func Parse(v any) (Session, []string, error) {
	switch t := v.(type) {
	case nil:
		return Session{raw: map[string]any{}}, nil, nil
	case map[string]any:
		s := Session{raw: bus.CopyMap(t)}
		return s, s.check(), nil
	default:
		return Session{}, nil, fmt.Errorf("%w: context.session is %T, want object (SES-08)", ErrMalformedCarrier, v)
	}
}

// FromMessage parses the session of a bus message.
func FromMessage(m bus.Message) (Session, []string, error) {
	return Parse(m.Context[bus.KeySession])
}

func (s Session) check() []string {
	var warns []string
	for _, f := range stringFields {
		v, ok := s.raw[f]
		if !ok {
			continue
		}
		str, isStr := v.(string)
		switch {
		case !isStr:
			warns = append(warns, fmt.Sprintf("session.%s is %s, want string; read as omitted (SES-02)", f, typeName(v)))
		case f == FieldSessionID && len(str) > MaxIDLen:
			warns = append(warns, fmt.Sprintf("session.session_id longer than %d bytes; read as omitted", MaxIDLen))
		}
	}
	for _, f := range listFields {
		v, ok := s.raw[f]
		if !ok {
			continue
		}
		if _, err := stringList(v); err != nil {
			warns = append(warns, fmt.Sprintf("session.%s: %v; read as omitted (SES-02)", f, err))
		}
	}
	return warns
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case int64, float64, int:
		return "number"
	case []any, []string:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func stringList(v any) ([]string, error) {
	switch t := v.(type) {
	case []string:
		if len(t) > MaxListLen {
			return nil, fmt.Errorf("more than %d entries", MaxListLen)
		}
		return append([]string(nil), t...), nil
	case []any:
		if len(t) > MaxListLen {
			return nil, fmt.Errorf("more than %d entries", MaxListLen)
		}
		out := make([]string, 0, len(t))
		for i, e := range t {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("entry %d is %s, want string", i, typeName(e))
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, fmt.Errorf("is %s, want array of strings", typeName(v))
}

// Clone returns a deep copy: what is done to the copy's carrier, even
// against the rules, never reaches s.
func (s Session) Clone() Session {
	if s.raw == nil {
		return s
	}
	return Session{raw: bus.CopyMap(s.raw)}
}

// Map returns a deep copy of the carrier, as it goes on the wire.
func (s Session) Map() map[string]any { return bus.CopyMap(s.raw) }

// View returns the carrier without copying it, for a message handed
// straight to bus.Publish (which copies what it sends). The caller must not
// change it.
func (s Session) View() map[string]any {
	if s.raw == nil {
		return map[string]any{}
	}
	return s.raw
}

// String reads a string field; ok is false when omitted, null or wrong-typed.
func (s Session) String(field string) (string, bool) {
	v, ok := s.raw[field].(string)
	if field == FieldSessionID && len(v) > MaxIDLen {
		return "", false
	}
	return v, ok
}

// Strings reads a string-list field; ok is false when omitted or malformed.
func (s Session) Strings(field string) ([]string, bool) {
	v, present := s.raw[field]
	if !present {
		return nil, false
	}
	l, err := stringList(v)
	return l, err == nil
}

// Get returns a raw field as received; the value is shared and read-only.
func (s Session) Get(field string) (any, bool) {
	v, ok := s.raw[field]
	return v, ok
}

// ID is session_id, "default" when omitted or empty (SES-04).
func (s Session) ID() string {
	if id, ok := s.String(FieldSessionID); ok && id != "" {
		return id
	}
	return DefaultID
}

// IsDefault reports whether this is the device-local session.
func (s Session) IsDefault() bool { return s.ID() == DefaultID }

// With returns a copy with field set to value (normalised to JSON shape).
// Setting a field to nil removes it: producers never emit null (SES-01).
func (s Session) With(field string, value any) (Session, error) {
	out := s.shallow()
	if value == nil {
		delete(out, field)
		return Session{raw: out}, nil
	}
	v, err := bus.Normalize(value)
	if err != nil {
		return Session{}, fmt.Errorf("setting session.%s: %w", field, err)
	}
	out[field] = v
	return Session{raw: out}, nil
}

// Without returns a copy with field removed.
func (s Session) Without(field string) Session {
	out := s.shallow()
	delete(out, field)
	return Session{raw: out}
}

// Defaults is the deployment configuration that omitted override fields
// resolve to (SES-03, SES-05).
type Defaults struct {
	// Lang is the deployment default language (the last rung of SES-12).
	Lang string
	// EnabledLangs are the languages the deployment accepts; empty means
	// only Lang.
	EnabledLangs []string
	// Pipeline is the default-session pipeline (PIPE-13).
	Pipeline []string
}

// ValidLang reports whether tag looks like a BCP-47 language tag:
// `^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$`.
func ValidLang(tag string) bool { return ascii.Tag(tag, 2, 3, 2, 8, -1) }

// Validate checks the defaults before the runtime starts.
func (d Defaults) Validate() error {
	if !ValidLang(d.Lang) {
		return fmt.Errorf("default language %q is not a BCP-47 tag", d.Lang)
	}
	for _, l := range d.EnabledLangs {
		if !ValidLang(l) {
			return fmt.Errorf("enabled language %q is not a BCP-47 tag", l)
		}
	}
	for _, p := range d.Pipeline {
		if p == "" {
			return errors.New("default pipeline has an empty id")
		}
	}
	return nil
}

// Enabled reports whether lang is enabled, case-insensitively.
func (d Defaults) Enabled(lang string) bool {
	if strings.EqualFold(lang, d.Lang) {
		return true
	}
	for _, l := range d.EnabledLangs {
		if strings.EqualFold(l, lang) {
			return true
		}
	}
	return false
}

// ResolveLang picks the utterance language once at intake (SES-12): entry
// data.lang, then stt_lang, detected_lang, request_lang, lang, then the
// deployment default; a rung counts only when present, non-empty and enabled
// (§14 item 7). It never changes the session.
func (s Session) ResolveLang(entryLang string, d Defaults) string {
	rungs := []string{entryLang}
	for _, f := range []string{FieldSTTLang, FieldDetectedLang, FieldRequestLang, FieldLang} {
		v, _ := s.String(f)
		rungs = append(rungs, v)
	}
	for _, r := range rungs {
		if r != "" && ValidLang(r) && d.Enabled(r) {
			return r
		}
	}
	return d.Lang
}

// Pipeline is the preference list: session.pipeline when non-empty, else
// the default-session pipeline (PIPE-13 step 1).
func (s Session) Pipeline(d Defaults) []string {
	if p, ok := s.Strings(FieldPipeline); ok && len(p) > 0 {
		return p
	}
	return append([]string(nil), d.Pipeline...)
}

// set returns the entries of a string-list field.
func (s Session) set(field string) []string {
	l, _ := s.Strings(field)
	return l
}

// PipelineBlocked reports whether id is in blacklisted_pipelines.
func (s Session) PipelineBlocked(id string) bool { return s.listed(FieldBlacklistedPipelines, id) }

// SkillBlocked reports whether skillID is in blacklisted_skills.
func (s Session) SkillBlocked(skillID string) bool { return s.listed(FieldBlacklistedSkills, skillID) }

// IntentBlocked reports whether "skill:intent" is in blacklisted_intents.
// Bare entries without ':' are never broadened to every owner (PIPE-14).
func (s Session) IntentBlocked(skillID, intentName string) bool {
	return s.listed(FieldBlacklistedIntents, skillID+":"+intentName)
}

// listed reports whether a well-formed string-list field holds v.
func (s Session) listed(field, v string) bool {
	l, ok := s.raw[field].([]any)
	if !ok {
		return slices.Contains(s.set(field), v)
	}
	if len(l) > MaxListLen {
		return false // malformed: read as omitted (SES-02)
	}
	for _, e := range l {
		if _, ok := e.(string); !ok {
			return false
		}
	}
	for _, e := range l {
		if e == v {
			return true
		}
	}
	return false
}

// Store holds the device-local default session between utterances (SES2-01).
type Store struct {
	mu  sync.Mutex
	cur Session
}

// NewStore returns a store holding the empty default session.
func NewStore() *Store { return &Store{cur: Session{raw: map[string]any{}}} }

// Get returns the stored default session.
func (st *Store) Get() Session {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.cur
}

// Merge applies an inbound carrier field by field: present fields replace,
// omitted ones keep their stored value (SES2-02); a null field counts as
// omitted (SES-02); intent_context merges entry by entry (CTX-09). It
// returns the result.
func (st *Store) Merge(in Session) Session {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.cur = MergeFields(st.cur, in)
	return st.cur
}

// MergeFields is the SES2-02 inbound merge of in over into, as Store.Merge
// does it, without a store.
func MergeFields(into, in Session) Session {
	out := into.shallow()
	for k, v := range in.raw {
		switch {
		case v == nil:
			// SES-02: null reads as omitted, so the stored value stays.
		case k == FieldIntentContext:
			out[k] = mergeContext(out[k], v)
		default:
			out[k] = v // Sessions share immutable values
		}
	}
	return Session{raw: out}
}

// mergeContext merges intent_context per entry (CTX-09): an object sets or
// replaces, null deletes the key, absent leaves it. A non-object inbound
// value replaces the field, as any other field would.
func mergeContext(stored, in any) any {
	im, ok := in.(map[string]any)
	if !ok {
		return in
	}
	sm, _ := stored.(map[string]any)
	out := make(map[string]any, len(sm)+len(im))
	for k, v := range sm {
		out[k] = v
	}
	for k, v := range im {
		if v == nil {
			delete(out, k)
			continue
		}
		out[k] = v
	}
	return out
}

// Commit applies what one lifecycle changed, the difference from base (the
// session it started from, advanced by any session syncs of its handler) to
// final, onto the stored session, and returns the result. Fields final
// changed are set, fields it removed are deleted, and intent_context is
// compared entry by entry, so lifecycles running at the same time on the
// default session keep each other's changes. With nothing concurrent this is
// exactly Replace(final) (SES2-02).
func (st *Store) Commit(base, final Session) Session {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := st.cur.shallow()
	for k, fv := range final.raw {
		bv, had := base.raw[k]
		if had && reflect.DeepEqual(bv, fv) {
			continue
		}
		if k == FieldIntentContext {
			if fm, ok := fv.(map[string]any); ok {
				bm, _ := bv.(map[string]any)
				out[k] = commitContext(out[k], bm, fm)
				continue
			}
		}
		out[k] = fv
	}
	for k := range base.raw {
		if _, kept := final.raw[k]; !kept {
			delete(out, k)
		}
	}
	st.cur = Session{raw: out}
	return st.cur
}

// commitContext applies the per-entry difference base → final to stored.
func commitContext(stored any, base, final map[string]any) map[string]any {
	sm, _ := stored.(map[string]any)
	out := make(map[string]any, len(sm)+len(final))
	for k, v := range sm {
		out[k] = v
	}
	for k, fv := range final {
		if bv, had := base[k]; had && reflect.DeepEqual(bv, fv) {
			continue
		}
		out[k] = fv
	}
	for k := range base {
		if _, kept := final[k]; !kept {
			delete(out, k)
		}
	}
	return out
}

// Replace stores a committed snapshot wholesale: a field it lacks is
// deleted (SES2-02).
func (st *Store) Replace(s Session) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.cur = Session{raw: s.shallow()}
}

// Fields returns the carrier's keys in sorted order, for display.
func (s Session) Fields() []string {
	keys := make([]string, 0, len(s.raw))
	for k := range s.raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// IsZero reports whether s is the zero Session (no carrier at all), as
// opposed to the empty default carrier.
func (s Session) IsZero() bool { return s.raw == nil }

// Empty returns the empty carrier (session_id "default").
func Empty() Session { return Session{raw: map[string]any{}} }
