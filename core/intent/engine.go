package intent

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/openjibo/jibod/core/pipeline"
)

// Engine limits used when EngineOptions leaves a field zero.
const (
	// DefaultMaxTemplates caps the templates of one definition: samples,
	// blacklist, entity and slot-blacklist entries together.
	DefaultMaxTemplates = 10_000
	// DefaultMaxIntentNodes caps the compiled graph nodes of one
	// definition, its vocabularies and entity values included (GRM-12 as
	// a limit on structure).
	DefaultMaxIntentNodes = 200_000
	// DefaultMaxUtteranceWords is the longest utterance, in words, that
	// templates with slots are matched against. Longer utterances still
	// match templates without slots, up to MaxMatchWords.
	DefaultMaxUtteranceWords = 64
	// MaxMatchWords is the longest utterance, in words, matched at all.
	MaxMatchWords = 200
	// MaxRequiredSlots caps the required slots of one definition: a parse
	// tracks them in a bit mask.
	MaxRequiredSlots = 28
	// MaxVocabTemplates caps the vocabulary templates of one definition.
	MaxVocabTemplates = 10_000
	// MaxIDBytes caps session, skill and intent identifiers.
	MaxIDBytes = 256
)

// DefaultSession is the session scope of registrations and utterances that
// name none (REG-04).
const DefaultSession = "default"

// TemplateIntent is one template intent definition: the REG-06 payload plus
// the scope it was registered in and the resources it refers to.
type TemplateIntent struct {
	SessionID     string              // registering session; "" means DefaultSession (REG-04)
	SkillID       string              // owning skill; no ':' (DEF-02)
	IntentName    string              // unique within the skill; no ':'
	Lang          string              // BCP-47 tag, case-insensitive
	Samples       []string            // templates (INTENT-1); required, non-empty
	Blacklist     []string            // phrases that suppress the intent (RES-06)
	RequiredSlots []string            // slots that must be bound to match (DEF-08)
	SlotTypes     map[string]string   // slot → type; kept, not used for matching
	SlotBlacklist map[string][]string // slot → values that must not fill it (RES-06)
	Entities      map[string][]string // slot → value templates from .entity files (GRM-15)
	Vocab         map[string][]string // vocabulary → templates, for <name> (GRM-06)
}

// Registration describes one indexed definition, for listing.
type Registration struct {
	SessionID  string
	SkillID    string
	IntentName string
	Lang       string
	Enabled    bool
	Definition TemplateIntent // as registered, with Lang lowercased
}

// EngineOptions configures a TemplateEngine. Zero values pick defaults.
type EngineOptions struct {
	Logger            *slog.Logger // nil means slog.Default()
	MaxTemplates      int          // templates per definition; DefaultMaxTemplates
	MaxIntentNodes    int          // graph nodes per definition; DefaultMaxIntentNodes
	MaxUtteranceWords int          // see DefaultMaxUtteranceWords
	// Lexicons are the filler phrases and optional words the engine may
	// skip or tolerate per primary language subtag ("en"). Nil means
	// BuiltinLexicons; an empty map turns skipping off.
	Lexicons map[string]*Lexicon
	// OnChange, if set, is called after every change to what is
	// registered or enabled, outside the engine's lock; it must not block
	// (the intent stack wakes its learners with it).
	OnChange func()
}

// TemplateEngine indexes template intents and matches utterances against
// them. Templates are compiled into word graphs and matched as they stand
// (see chart): nothing is expanded, at registration or at match time.
// Match may run concurrently with registration changes: readers share a
// read lock, and a registration compiles its templates before it takes the
// write lock for the index update.
type TemplateEngine struct {
	log  *slog.Logger
	opts EngineOptions

	mu     sync.RWMutex
	scopes map[scopeKey]*scopeIndex
	// version counts changes to what is registered or enabled.
	version atomic.Uint64

	charts sync.Pool
}

type scopeKey struct{ session, lang string }

type nameKey struct{ skill, intent string }

// scopeIndex holds the intents of one (session, lang) scope and the index
// that finds the templates an utterance can match: each template is held
// under the words of one of its clauses (a set of words one of which every
// sample contains), the rarest when it was added, so an utterance only
// tries templates whose words it has.
type scopeIndex struct {
	intents map[nameKey]*compiledIntent
	byWord  map[string][]*ctemplate
	always  []*ctemplate // templates without a clause: tried on every utterance
	freq    map[string]int
	dict    map[string]int32 // word ids for the bound's bit sets
}

// compiledIntent is a definition ready for matching.
type compiledIntent struct {
	def       TemplateIntent
	enabled   bool
	templates []*ctemplate
	slots     map[string]*slotInfo
	blacklist *gnode // phrases that suppress the intent (RES-06), nil when none
	required  []string
	need      uint32 // mask bits a whole parse must have
	nodes     int32  // node ids run below this
	order     string // sorts definitions for ties (tieBreak)
	// parsedSlots are the slot names of every sample that parses, in
	// the samples' order, each once: what the registration declares
	// (the service's context rules), compiled or not.
	parsedSlots []string
	// topics are what its templates say right after a determiner
	// (topicsOf), for TemplateEngine.Topic.
	topics []string
}

// ctemplate is one compiled template of a definition.
type ctemplate struct {
	intent  *compiledIntent
	src     string
	index   int
	root    *gnode
	clauses [][]string
	anchor  []string // the clause it is indexed under; nil when always tried
	minW    int
	slotted bool

	sum              summary // for the bound
	litBits, entBits bitset  // sum's words by scope id
	restBits         bitset
	firstBits        bitset
	lastBits         bitset
	clauseIDs        [][]int32
	anchorIDs        []int32
}

// NewTemplateEngine returns an empty engine.
func NewTemplateEngine(opts EngineOptions) *TemplateEngine {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.MaxTemplates <= 0 {
		opts.MaxTemplates = DefaultMaxTemplates
	}
	if opts.MaxIntentNodes <= 0 {
		opts.MaxIntentNodes = DefaultMaxIntentNodes
	}
	if opts.MaxUtteranceWords <= 0 {
		opts.MaxUtteranceWords = DefaultMaxUtteranceWords
	}
	opts.MaxUtteranceWords = min(opts.MaxUtteranceWords, MaxMatchWords)
	if opts.Lexicons == nil {
		lex, err := BuiltinLexicons()
		if err != nil {
			// Only a broken build gets here (a test loads them); matching
			// still works, without skipping.
			opts.Logger.Error("built-in lexicons unusable; skip words are off", "err", err)
		}
		opts.Lexicons = lex
	}
	e := &TemplateEngine{log: opts.Logger, opts: opts, scopes: map[scopeKey]*scopeIndex{}}
	e.charts.New = func() any { return &chart{} }
	return e
}

// Register validates, compiles and indexes def under the key (session,
// skill, intent, lang) (REG-04), replacing any definition with that key but
// keeping its enabled state. It rejects, changing nothing, a definition with
// a bad key, a reserved intent name, no samples, no sample that expands, or
// required slots no valid template declares (REG-06, DEF-08). Bad
// individual templates are skipped and reported as warnings.
func (e *TemplateEngine) Register(def TemplateIntent) ([]Warning, error) {
	_, warns, err := e.register(def)
	return warns, err
}

// register is Register, returning what it compiled.
func (e *TemplateEngine) register(def TemplateIntent) (*compiledIntent, []Warning, error) {
	c, warns, err := e.compile(def)
	attrs := []any{"session_id", def.SessionID, "skill_id", def.SkillID, "intent_name", def.IntentName, "lang", def.Lang}
	if err != nil {
		e.log.Warn("template intent rejected", append(attrs, "reason", err.Error())...)
		return nil, nil, fmt.Errorf("registering template intent %s:%s (%s): %w", def.SkillID, def.IntentName, def.Lang, err)
	}
	for _, w := range warns {
		e.log.Warn("template intent: "+w.String(), attrs...)
	}
	e.mu.Lock()
	sk := scopeKey{c.def.SessionID, c.def.Lang}
	s := e.scopes[sk]
	if s == nil {
		s = &scopeIndex{intents: map[nameKey]*compiledIntent{}, byWord: map[string][]*ctemplate{}, freq: map[string]int{},
			dict: map[string]int32{}}
		e.scopes[sk] = s
	}
	nk := nameKey{c.def.SkillID, c.def.IntentName}
	if old := s.intents[nk]; old != nil {
		c.enabled = old.enabled
		s.remove(old)
	}
	s.add(c, lexiconFor(e.opts.Lexicons, c.def.Lang))
	e.version.Add(1)
	e.mu.Unlock()
	e.changed()
	return c, warns, nil
}

// changed tells OnChange about a change made.
func (e *TemplateEngine) changed() {
	if e.opts.OnChange != nil {
		e.opts.OnChange()
	}
}

// Version counts the changes to what is registered or enabled: equal
// versions hold the same definitions.
func (e *TemplateEngine) Version() uint64 { return e.version.Load() }

// Deregister removes the definition (session, skill, intent, lang), or the
// intent in every language when lang is "" (REG-09). It returns how many
// definitions it removed; removing what is not registered is a no-op.
func (e *TemplateEngine) Deregister(sessionID, skillID, intentName, lang string) int {
	e.mu.Lock()
	e.version.Add(1)
	n := deregisterScoped(e.scopes, sessionID, skillID, intentName, lang)
	e.mu.Unlock()
	e.changed()
	return n
}

// RemoveSkill removes every definition of the skill in the session's scope
// only (REG-09, DEF-09) and returns how many it removed.
func (e *TemplateEngine) RemoveSkill(sessionID, skillID string) int {
	e.mu.Lock()
	e.version.Add(1)
	n := removeSkillScoped(e.scopes, sessionID, skillID)
	e.mu.Unlock()
	e.changed()
	return n
}

// SetEnabled enables or disables matching of (session, skill, intent,
// lang), every language when lang is "" (REG-10). Definitions stay indexed
// while disabled. It returns how many definitions it found; unknown ones
// are a no-op.
func (e *TemplateEngine) SetEnabled(sessionID, skillID, intentName, lang string, enabled bool) int {
	e.mu.Lock()
	e.version.Add(1)
	n := setEnabledScoped(e.scopes, sessionID, skillID, intentName, lang, enabled)
	e.mu.Unlock()
	e.changed()
	return n
}

// Enabled reports whether the session's pool (REG-12) holds an enabled
// definition of the intent in the language: what a source that learnt
// the intents earlier checks before it offers one.
func (e *TemplateEngine) Enabled(sessionID, skillID, intentName, lang string) bool {
	lang = strings.ToLower(lang)
	e.mu.RLock()
	defer e.mu.RUnlock()
	var ci *compiledIntent
	for _, s := range e.pools(lang, sessionOrDefault(sessionID)) {
		if x := s.intents[nameKey{skillID, intentName}]; x != nil {
			ci = x // the session's own definition overrides the default's
		}
	}
	return ci != nil && ci.enabled
}

// Registrations lists indexed definitions sorted by session ("default"
// first), skill, intent and language. With sessionID "" it lists every
// scope; otherwise the session's effective pool, "default" ∪ its own
// (REG-12, REG-14).
func (e *TemplateEngine) Registrations(sessionID string) []Registration {
	return registrationsScoped(e.mu.RLocker(), e.scopes, sessionID, func(c *compiledIntent) Registration {
		return Registration{SessionID: c.def.SessionID, SkillID: c.def.SkillID, IntentName: c.def.IntentName,
			Lang: c.def.Lang, Enabled: c.enabled, Definition: cloneDef(c.def)}
	}, func(r Registration) registrationKey {
		return registrationKey{r.SessionID, r.SkillID, r.IntentName, r.Lang}
	})
}

func sessionRank(s string) int {
	if s == DefaultSession {
		return 0
	}
	return 1
}

func sessionOrDefault(s string) string {
	if s == "" {
		return DefaultSession
	}
	return s
}

// normalizeKey checks a definition's key (session, skill, intent, lang)
// as every engine does, and returns the session (the default one for "")
// and the normalised language. rule names the registration rule that
// reserves intent names for the definition's kind.
func normalizeKey(sessionID, skillID, intentName, lang, rule string) (string, string, error) {
	sessionID = sessionOrDefault(sessionID)
	if err := validID("session_id", sessionID, true); err != nil {
		return "", "", err
	}
	if err := validID("skill_id", skillID, false); err != nil {
		return "", "", err
	}
	if err := validID("intent_name", intentName, false); err != nil {
		return "", "", err
	}
	if pipeline.IsReservedIntent(intentName) {
		return "", "", fmt.Errorf("intent_name %q is reserved (%s)", intentName, rule)
	}
	lang, err := NormalizeLang(lang)
	if err != nil {
		return "", "", err
	}
	return sessionID, lang, nil
}

// validID checks a session, skill or intent identifier.
func validID(what, s string, colonOK bool) error {
	switch {
	case s == "":
		return fmt.Errorf("%s is empty", what)
	case len(s) > MaxIDBytes:
		return fmt.Errorf("%s is %d bytes, limit is %d", what, len(s), MaxIDBytes)
	case !utf8.ValidString(s):
		return fmt.Errorf("%s %q is not valid UTF-8", what, s)
	case strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0:
		return fmt.Errorf("%s %q contains whitespace or control characters", what, s)
	case !colonOK && strings.Contains(s, ":"):
		return fmt.Errorf("%s %q contains ':' (DEF-02)", what, s)
	}
	return nil
}

// NormalizeLang lowercases a BCP-47 language tag and checks its shape: a
// 2–3 letter primary language subtag (ISO 639), then '-'-separated subtags
// of 1–8 letters or digits. Tags are case-insensitive (RES-01, REG-04).
func NormalizeLang(tag string) (string, error) {
	t := strings.ToLower(tag)
	parts := strings.Split(t, "-")
	ok := len(t) <= 64
	for i, p := range parts {
		if !ok {
			break
		}
		if len(p) < 1 || len(p) > 8 || (i == 0 && (len(p) < 2 || len(p) > 3)) {
			ok = false
		}
		for j := 0; j < len(p) && ok; j++ {
			c := p[j]
			ok = (c >= 'a' && c <= 'z') || (i > 0 && c >= '0' && c <= '9')
		}
	}
	if !ok {
		return "", fmt.Errorf("language tag %q is not a BCP-47 tag", tag)
	}
	return t, nil
}

// compile validates def and builds everything Match needs, outside the
// lock.
func (e *TemplateEngine) compile(def TemplateIntent) (*compiledIntent, []Warning, error) {
	def = cloneDef(def)
	var err error
	if def.SessionID, def.Lang, err = normalizeKey(def.SessionID, def.SkillID, def.IntentName, def.Lang, "REG-06"); err != nil {
		return nil, nil, err
	}
	if len(def.Samples) == 0 {
		return nil, nil, errors.New("samples is missing or empty (REG-06)")
	}
	n := len(def.Samples) + len(def.Blacklist)
	for _, v := range def.Entities {
		n += len(v)
	}
	for _, v := range def.SlotBlacklist {
		n += len(v)
	}
	if n > e.opts.MaxTemplates {
		return nil, nil, fmt.Errorf("definition has %d templates, limit is %d", n, e.opts.MaxTemplates)
	}
	// Vocabularies are counted apart: a loader hands every intent the whole
	// language's vocabularies, and only referenced ones are compiled.
	nv := 0
	for _, v := range def.Vocab {
		nv += len(v)
	}
	if nv > MaxVocabTemplates {
		return nil, nil, fmt.Errorf("vocab has %d templates, limit is %d", nv, MaxVocabTemplates)
	}

	c := &compiledIntent{def: def, enabled: true, order: orderKey(def), parsedSlots: []string{}}
	b := newBuilder(def.Vocab, lexiconFor(e.opts.Lexicons, def.Lang))
	var warns []Warning
	declared := map[string]bool{}
	for i, src := range def.Samples {
		field := fmt.Sprintf("samples[%d]", i)
		t, err := parse(src, 1, 1)
		var root *gnode
		if err == nil {
			for _, name := range t.SlotNames() {
				if !slices.Contains(c.parsedSlots, name) {
					c.parsedSlots = append(c.parsedSlots, name)
				}
			}
			root, err = b.template(t)
		}
		if err != nil {
			warns = append(warns, Warning{File: field, Msg: fmt.Sprintf("template %q skipped: %v", src, err)})
			b.warnings = nil
			continue
		}
		warns = append(warns, withFile(t.Warnings(), field)...)
		warns = append(warns, withFile(b.warnings, field)...)
		b.warnings = nil
		for _, name := range t.SlotNames() {
			declared[name] = true
		}
		ct := &ctemplate{intent: c, src: src, index: i, root: root, clauses: root.clauses, minW: root.minW, slotted: len(t.slots) > 0}
		c.templates = append(c.templates, ct)
		if b.nextID > int32(e.opts.MaxIntentNodes) {
			return nil, nil, fmt.Errorf("templates compile to more than %d nodes", e.opts.MaxIntentNodes)
		}
	}
	if len(c.templates) == 0 {
		return nil, nil, errors.New("no sample parses and compiles to a matchable template (REG-06)")
	}
	for _, r := range def.RequiredSlots {
		if !validName(r) {
			return nil, nil, fmt.Errorf("required slot %q is not a valid slot name (GRM-04)", r)
		}
		if !declared[r] {
			return nil, nil, fmt.Errorf("required slot %q is not declared by any valid template (REG-06, DEF-08)", r)
		}
	}
	c.required = slices.Clone(def.RequiredSlots)
	slices.Sort(c.required)
	c.required = slices.Compact(c.required)
	if len(c.required) > MaxRequiredSlots {
		return nil, nil, fmt.Errorf("%d required slots, limit is %d", len(c.required), MaxRequiredSlots)
	}
	c.need = bitLit
	for i, r := range c.required {
		b.slots[r].bit = 1 << (i + 1)
		c.need |= b.slots[r].bit
	}

	for _, name := range slices.Sorted(maps.Keys(def.SlotTypes)) {
		typ := def.SlotTypes[name]
		switch {
		case !validName(name) || !declared[name]:
			warns = append(warns, Warning{File: "slot_types", Msg: fmt.Sprintf("slot %q is not declared by any valid template; ignored", name)})
		case !IsRegisteredSlotType(typ):
			warns = append(warns, Warning{File: "slot_types", Msg: fmt.Sprintf("slot %q has unregistered type %q (GRM-05)", name, typ)})
		default:
			b.slots[name].typ = typ
		}
	}

	c.blacklist = b.phrases(def.Blacklist, "blacklist")
	warns = append(warns, b.warnings...)
	b.warnings = nil
	for _, kind := range []struct {
		field string
		m     map[string][]string
		set   func(*slotInfo, *gnode)
	}{
		{"entities", def.Entities, func(s *slotInfo, g *gnode) { s.ent = g }},
		{"slot_blacklist", def.SlotBlacklist, func(s *slotInfo, g *gnode) { s.black = g }},
	} {
		for _, slot := range slices.Sorted(maps.Keys(kind.m)) {
			where := kind.field + "." + slot
			if !validName(slot) || !declared[slot] {
				warns = append(warns, Warning{File: where, Msg: fmt.Sprintf("slot %q is not declared by any valid template; ignored", slot)})
				continue
			}
			kind.set(b.slots[slot], b.phrases(kind.m[slot], where))
			warns = append(warns, b.warnings...)
			b.warnings = nil
		}
	}
	if b.nextID > int32(e.opts.MaxIntentNodes) {
		return nil, nil, fmt.Errorf("templates and values compile to more than %d nodes", e.opts.MaxIntentNodes)
	}
	c.slots = b.slots
	c.nodes = b.nextID
	em := newEdgeMemo()
	for _, t := range c.templates {
		t.sum = summarize(t.root, em)
	}
	c.topics = topicsOf(c.templates, b.lex)
	return c, dedupeWarnings(warns), nil
}

// dedupeWarnings drops repeats.
func dedupeWarnings(ws []Warning) []Warning {
	seen := map[Warning]bool{}
	out := ws[:0]
	for _, w := range ws {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

func (s *scopeIndex) add(c *compiledIntent, lex *Lexicon) {
	s.intents[nameKey{c.def.SkillID, c.def.IntentName}] = c
	for _, t := range c.templates {
		if len(t.clauses) == 0 {
			s.always = append(s.always, t)
			s.encode(t)
			continue
		}
		for _, cl := range t.clauses {
			for _, w := range cl {
				s.freq[w]++
			}
		}
		// The clause whose words the fewest templates use keeps the lists
		// an utterance walks short; a clause of content words comes before
		// one with a word of the lexicon, which most utterances say.
		t.anchor = slices.MinFunc(t.clauses, func(a, b []string) int {
			return cmp.Or(cmp.Compare(lex.common(a), lex.common(b)), cmp.Compare(s.weight(a), s.weight(b)), cmp.Compare(len(a), len(b)))
		})
		for _, w := range t.anchor {
			s.byWord[w] = append(s.byWord[w], t)
		}
		s.encode(t)
	}
}

// weight is how many templates use a clause's words.
func (s *scopeIndex) weight(clause []string) int {
	n := 0
	for _, w := range clause {
		n += s.freq[w]
	}
	return n
}

func (s *scopeIndex) remove(c *compiledIntent) {
	delete(s.intents, nameKey{c.def.SkillID, c.def.IntentName})
	for _, t := range c.templates {
		if t.anchor == nil {
			s.always = slices.DeleteFunc(s.always, func(x *ctemplate) bool { return x == t })
			continue
		}
		for _, cl := range t.clauses {
			for _, w := range cl {
				if s.freq[w]--; s.freq[w] <= 0 {
					delete(s.freq, w)
				}
			}
		}
		for _, w := range t.anchor {
			list := slices.DeleteFunc(s.byWord[w], func(x *ctemplate) bool { return x == t })
			if len(list) == 0 {
				delete(s.byWord, w)
			} else {
				s.byWord[w] = list
			}
		}
	}
	s.compact()
}

func cloneDef(d TemplateIntent) TemplateIntent {
	d.Samples = slices.Clone(d.Samples)
	d.Blacklist = slices.Clone(d.Blacklist)
	d.RequiredSlots = slices.Clone(d.RequiredSlots)
	d.SlotTypes = maps.Clone(d.SlotTypes)
	d.SlotBlacklist = cloneLists(d.SlotBlacklist)
	d.Entities = cloneLists(d.Entities)
	d.Vocab = cloneLists(d.Vocab)
	return d
}

func cloneLists(m map[string][]string) map[string][]string {
	if m == nil {
		return nil
	}
	out := make(map[string][]string, len(m))
	for k, v := range m {
		out[k] = slices.Clone(v)
	}
	return out
}
