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
	"unicode"
	"unicode/utf8"
)

// Engine limits used when EngineOptions leaves a field zero.
const (
	// DefaultMaxTemplates caps the templates of one definition: samples,
	// blacklist, entity and slot-blacklist entries together.
	DefaultMaxTemplates = 10_000
	// DefaultMaxIntentSamples caps the expanded samples of one definition.
	DefaultMaxIntentSamples = 100_000
	// DefaultMaxUtteranceWords is the longest utterance, in words, that
	// template samples with slots are matched against. Longer utterances
	// still match exact samples.
	DefaultMaxUtteranceWords = 64
	// MaxVocabTemplates caps the vocabulary templates of one definition.
	MaxVocabTemplates = 10_000
	// MaxIDBytes caps session, skill and intent identifiers.
	MaxIDBytes = 256
)

// DefaultSession is the session scope of registrations and utterances that
// name none (REG-04).
const DefaultSession = "default"

// reservedIntentNames may not be registered by skills (REG-05, REG-06).
var reservedIntentNames = []string{"common_query", "converse", "fallback", "response", "stop"}

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
	MaxSamples        int          // expansion limit per template; see ExpandOptions
	MaxTemplates      int          // templates per definition; DefaultMaxTemplates
	MaxIntentSamples  int          // expanded samples per definition; DefaultMaxIntentSamples
	MaxUtteranceWords int          // see DefaultMaxUtteranceWords
	// Lexicons are the filler phrases and optional words tolerated per
	// primary language subtag ("en") when an utterance matches no sample as
	// it stands. Nil means BuiltinLexicons; an empty map turns tolerant
	// matching off.
	Lexicons map[string]*Lexicon
}

// TemplateEngine indexes template intents and matches utterances against
// them. Match may run concurrently with registration changes: readers share
// a read lock, and a registration expands and compiles its templates before
// it takes the write lock for the index update.
type TemplateEngine struct {
	log  *slog.Logger
	opts EngineOptions

	mu     sync.RWMutex
	scopes map[scopeKey]*scopeIndex
}

type scopeKey struct{ session, lang string }

type nameKey struct{ skill, intent string }

// scopeIndex holds the intents of one (session, lang) scope and the lookup
// structures Match uses instead of scanning samples.
type scopeIndex struct {
	intents map[nameKey]*compiledIntent
	// exact maps a slot-free normalised sample to the intents that have it.
	exact map[string][]*compiledIntent
	// edges maps the literal words a slot sample starts and ends with to
	// the samples; an utterance can only match samples under its own first
	// and last words, so this is where nearly all slot samples live.
	edges map[edgeKey][]*slotSample
	// edgeLens counts edge-indexed samples by the word counts of their
	// literal start and end, so Match looks up only lengths in use.
	edgeLens map[[2]int]int
	// anchors holds slot samples that start and end with a slot, each under
	// one of its literal words, the rarest when it was added; such a
	// sample is only tried when the utterance contains that word.
	anchors map[string][]*slotSample
	// freq counts anchored samples per literal word, to choose rare anchors.
	freq map[string]int

	// The loose index serves tolerant matching, which runs only when the
	// index above finds nothing. looseExact maps the words of a slot-free
	// sample that are not in the language's lexicon to the sample;
	// Slot samples are grouped by the sequence of their words outside the
	// lexicon (looseGroups), since many share it, and each group is held
	// under one of those words, the rarest when the group was made,
	// counted per sample in looseFreq.
	looseExact  map[string][]*slotSample
	looseGroups map[string]*looseGroup
	looseSlot   map[string][]*looseGroup
	looseFreq   map[string]int
}

// looseGroup is the slot samples of a scope that have the same words
// outside the lexicon, in the same order: a tolerant match needs every one
// said, in order, so the group is checked once for all of them.
type looseGroup struct {
	key     string
	words   []string
	anchor  string
	samples []*slotSample
}

// compiledIntent is a definition ready for matching.
type compiledIntent struct {
	def           TemplateIntent
	enabled       bool
	exact         []string
	plain         []*slotSample // the exact samples, compiled, for tolerant matching
	slotted       []*slotSample
	blacklist     [][]string
	required      []string
	entities      map[string]map[string]bool
	slotBlacklist map[string]map[string]bool
}

// NewTemplateEngine returns an empty engine.
func NewTemplateEngine(opts EngineOptions) *TemplateEngine {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.MaxSamples <= 0 {
		opts.MaxSamples = DefaultMaxSamples
	}
	if opts.MaxTemplates <= 0 {
		opts.MaxTemplates = DefaultMaxTemplates
	}
	if opts.MaxIntentSamples <= 0 {
		opts.MaxIntentSamples = DefaultMaxIntentSamples
	}
	if opts.MaxUtteranceWords <= 0 {
		opts.MaxUtteranceWords = DefaultMaxUtteranceWords
	}
	if opts.Lexicons == nil {
		lex, err := BuiltinLexicons()
		if err != nil {
			// Only a broken build gets here (a test loads them); matching
			// still works, without tolerance.
			opts.Logger.Error("built-in lexicons unusable; tolerant matching is off", "err", err)
		}
		opts.Lexicons = lex
	}
	return &TemplateEngine{log: opts.Logger, opts: opts, scopes: map[scopeKey]*scopeIndex{}}
}

// Register validates, expands and indexes def under the key (session,
// skill, intent, lang) (REG-04), replacing any definition with that key but
// keeping its enabled state. It rejects, changing nothing, a definition with
// a bad key, a reserved intent name, no samples, no sample that expands, or
// required slots no valid template declares (REG-06, DEF-08). Bad
// individual templates are skipped and reported as warnings.
func (e *TemplateEngine) Register(def TemplateIntent) ([]Warning, error) {
	c, warns, err := e.compile(def)
	attrs := []any{"session_id", def.SessionID, "skill_id", def.SkillID, "intent_name", def.IntentName, "lang", def.Lang}
	if err != nil {
		e.log.Warn("template intent rejected", append(attrs, "reason", err.Error())...)
		return nil, fmt.Errorf("registering template intent %s:%s (%s): %w", def.SkillID, def.IntentName, def.Lang, err)
	}
	for _, w := range warns {
		e.log.Warn("template intent: "+w.String(), attrs...)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	sk := scopeKey{c.def.SessionID, c.def.Lang}
	s := e.scopes[sk]
	if s == nil {
		s = &scopeIndex{
			intents:  map[nameKey]*compiledIntent{},
			exact:    map[string][]*compiledIntent{},
			edges:    map[edgeKey][]*slotSample{},
			edgeLens: map[[2]int]int{},
			anchors:  map[string][]*slotSample{},
			freq:     map[string]int{},

			looseExact:  map[string][]*slotSample{},
			looseGroups: map[string]*looseGroup{},
			looseSlot:   map[string][]*looseGroup{},
			looseFreq:   map[string]int{},
		}
		e.scopes[sk] = s
	}
	nk := nameKey{c.def.SkillID, c.def.IntentName}
	if old := s.intents[nk]; old != nil {
		c.enabled = old.enabled
		s.remove(old)
	}
	s.add(c)
	return warns, nil
}

// Deregister removes the definition (session, skill, intent, lang), or the
// intent in every language when lang is "" (REG-09). It returns how many
// definitions it removed; removing what is not registered is a no-op.
func (e *TemplateEngine) Deregister(sessionID, skillID, intentName, lang string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return deregisterScoped(e.scopes, sessionID, skillID, intentName, lang)
}

// RemoveSkill removes every definition of the skill in the session's scope
// only (REG-09, DEF-09) and returns how many it removed.
func (e *TemplateEngine) RemoveSkill(sessionID, skillID string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return removeSkillScoped(e.scopes, sessionID, skillID)
}

// SetEnabled enables or disables matching of (session, skill, intent,
// lang), every language when lang is "" (REG-10). Definitions stay indexed
// while disabled. It returns how many definitions it found; unknown ones
// are a no-op.
func (e *TemplateEngine) SetEnabled(sessionID, skillID, intentName, lang string, enabled bool) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return setEnabledScoped(e.scopes, sessionID, skillID, intentName, lang, enabled)
}

// Registrations lists indexed definitions sorted by session ("default"
// first), skill, intent and language. With sessionID "" it lists every
// scope; otherwise the session's effective pool, "default" ∪ its own
// (REG-12, REG-14).
func (e *TemplateEngine) Registrations(sessionID string) []Registration {
	e.mu.RLock()
	var out []Registration
	for sk, s := range e.scopes {
		if sessionID != "" && sk.session != DefaultSession && sk.session != sessionID {
			continue
		}
		for _, c := range s.intents {
			out = append(out, Registration{
				SessionID: c.def.SessionID, SkillID: c.def.SkillID, IntentName: c.def.IntentName,
				Lang: c.def.Lang, Enabled: c.enabled, Definition: cloneDef(c.def),
			})
		}
	}
	e.mu.RUnlock()
	slices.SortFunc(out, func(a, b Registration) int {
		return cmp.Or(
			cmp.Compare(sessionRank(a.SessionID), sessionRank(b.SessionID)),
			cmp.Compare(a.SessionID, b.SessionID),
			cmp.Compare(a.SkillID, b.SkillID),
			cmp.Compare(a.IntentName, b.IntentName),
			cmp.Compare(a.Lang, b.Lang),
		)
	})
	return out
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
	def.SessionID = sessionOrDefault(def.SessionID)
	if err := validID("session_id", def.SessionID, true); err != nil {
		return nil, nil, err
	}
	if err := validID("skill_id", def.SkillID, false); err != nil {
		return nil, nil, err
	}
	if err := validID("intent_name", def.IntentName, false); err != nil {
		return nil, nil, err
	}
	if _, reserved := slices.BinarySearch(reservedIntentNames, strings.ToLower(def.IntentName)); reserved {
		return nil, nil, fmt.Errorf("intent_name %q is reserved (REG-06)", def.IntentName)
	}
	lang, err := NormalizeLang(def.Lang)
	if err != nil {
		return nil, nil, err
	}
	def.Lang = lang
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
	// language's vocabularies, and only referenced ones are expanded.
	nv := 0
	for _, v := range def.Vocab {
		nv += len(v)
	}
	if nv > MaxVocabTemplates {
		return nil, nil, fmt.Errorf("vocab has %d templates, limit is %d", nv, MaxVocabTemplates)
	}

	c := &compiledIntent{def: def, enabled: true}
	ex := newExpander(def.Vocab, e.opts.MaxSamples)
	var warns []Warning
	declared := map[string]bool{}
	type expandedTemplate struct {
		field   string
		samples []string
	}
	var expanded []expandedTemplate
	total := 0
	for i, src := range def.Samples {
		field := fmt.Sprintf("samples[%d]", i)
		t, samples, err := expandOne(ex, src)
		if err != nil {
			warns = append(warns, Warning{File: field, Msg: fmt.Sprintf("template %q skipped: %v", src, err)})
			continue
		}
		warns = append(warns, withFile(t.Warnings(), field)...)
		for _, name := range t.SlotNames() {
			declared[name] = true
		}
		expanded = append(expanded, expandedTemplate{field, samples})
		total += len(samples)
		if total > e.opts.MaxIntentSamples {
			return nil, nil, fmt.Errorf("samples expand to more than %d samples", e.opts.MaxIntentSamples)
		}
	}
	warns = append(warns, withFile(ex.warnings, "vocab")...)
	ex.warnings = nil
	if len(expanded) == 0 {
		return nil, nil, errors.New("no sample parses and expands to a non-empty sample set (REG-06)")
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

	for _, name := range slices.Sorted(maps.Keys(def.SlotTypes)) {
		typ := def.SlotTypes[name]
		switch {
		case !validName(name) || !declared[name]:
			warns = append(warns, Warning{File: "slot_types", Msg: fmt.Sprintf("slot %q is not declared by any valid template; ignored", name)})
		case !IsRegisteredSlotType(typ):
			warns = append(warns, Warning{File: "slot_types", Msg: fmt.Sprintf("slot %q has unregistered type %q (GRM-05)", name, typ)})
		}
	}

	c.blacklist, warns = phrases(ex, def.Blacklist, "blacklist", warns)
	c.entities, warns = slotValues(ex, def.Entities, declared, "entities", warns)
	c.slotBlacklist, warns = slotValues(ex, def.SlotBlacklist, declared, "slot_blacklist", warns)
	warns = append(warns, withFile(ex.warnings, "vocab")...)

	seenExact := map[string]bool{}
	seenSlotted := map[string]bool{}
	for _, x := range expanded {
		warnedGRM02 := false
		for _, s := range x.samples {
			cs, changed, reason := compileSample(s, c)
			if cs == nil {
				warns = append(warns, Warning{File: x.field, Msg: reason})
				continue
			}
			if changed && !warnedGRM02 {
				// Once per template: its other samples differ the same way.
				warnedGRM02 = true
				warns = append(warns, Warning{File: x.field, Msg: fmt.Sprintf(
					"sample %q is not ASR-normalised (GRM-02); indexed as %q", s, cs.text)})
			}
			if missing := missingRequired(cs, c.required); len(missing) > 0 {
				warns = append(warns, Warning{File: x.field, Msg: fmt.Sprintf(
					"sample %q can never match: it does not bind required slots %v (DEF-08)", s, missing)})
				continue
			}
			switch {
			case len(cs.slots) == 0:
				if !seenExact[cs.text] {
					seenExact[cs.text] = true
					c.exact = append(c.exact, cs.text)
					c.plain = append(c.plain, cs)
				}
			case !seenSlotted[cs.text]:
				seenSlotted[cs.text] = true
				c.slotted = append(c.slotted, cs)
			}
		}
	}
	if len(c.exact) == 0 && len(c.slotted) == 0 {
		return nil, nil, errors.New("no sample can be matched after normalisation (REG-06)")
	}
	if lex := lexiconFor(e.opts.Lexicons, def.Lang); lex != nil {
		for _, ss := range c.plain {
			ss.loosen(lex)
		}
		for _, ss := range c.slotted {
			ss.loosen(lex)
		}
	}
	return c, dedupeWarnings(warns), nil
}

func expandOne(ex *expander, src string) (*Template, []string, error) {
	t, err := parse(src, 1, 1)
	if err != nil {
		return nil, nil, err
	}
	samples, err := ex.expand(t)
	if err != nil {
		return nil, nil, err
	}
	return t, samples, nil
}

// dedupeWarnings drops repeats, which normalisation produces when many
// samples of one template share the same oddity.
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

// phrases expands slot-free phrase templates into normalised word runs,
// skipping bad ones with a warning.
func phrases(ex *expander, templates []string, field string, warns []Warning) ([][]string, []Warning) {
	var out [][]string
	seen := map[string]bool{}
	for i, src := range templates {
		where := fmt.Sprintf("%s[%d]", field, i)
		t, samples, err := expandOne(ex, src)
		if err == nil && len(t.slots) > 0 {
			err = fmt.Errorf("has slot {%s}; phrases are slot-free", t.slots[0].Name)
		}
		if err != nil {
			warns = append(warns, Warning{File: where, Msg: fmt.Sprintf("phrase %q skipped: %v", src, err)})
			continue
		}
		warns = append(warns, withFile(t.Warnings(), where)...)
		for _, s := range samples {
			n := Normalize(s)
			if n == "" {
				warns = append(warns, Warning{File: where, Msg: fmt.Sprintf("phrase %q has no words after normalisation; skipped", s)})
				continue
			}
			if !seen[n] {
				seen[n] = true
				out = append(out, strings.Split(n, " "))
			}
		}
	}
	return out, warns
}

// slotValues expands per-slot value templates into sets of normalised
// values.
func slotValues(ex *expander, bySlot map[string][]string, declared map[string]bool, field string, warns []Warning) (map[string]map[string]bool, []Warning) {
	out := map[string]map[string]bool{}
	for _, slot := range slices.Sorted(maps.Keys(bySlot)) {
		where := field + "." + slot
		if !validName(slot) || !declared[slot] {
			warns = append(warns, Warning{File: where, Msg: fmt.Sprintf("slot %q is not declared by any valid template; ignored", slot)})
			continue
		}
		values, w := phrases(ex, bySlot[slot], where, nil)
		warns = append(warns, w...)
		set := make(map[string]bool, len(values))
		for _, v := range values {
			set[strings.Join(v, " ")] = true
		}
		out[slot] = set
	}
	return out, warns
}

func missingRequired(cs *slotSample, required []string) []string {
	var missing []string
	for _, r := range required {
		if !slices.ContainsFunc(cs.slots, func(s int) bool { return cs.elems[s].slot == r }) {
			missing = append(missing, r)
		}
	}
	return missing
}

func (s *scopeIndex) add(c *compiledIntent) {
	s.intents[nameKey{c.def.SkillID, c.def.IntentName}] = c
	for _, t := range c.exact {
		s.exact[t] = append(s.exact[t], c)
	}
	for _, ss := range c.plain {
		if ss.looseKey != "" {
			s.looseExact[ss.looseKey] = append(s.looseExact[ss.looseKey], ss)
		}
	}
	for _, ss := range c.slotted {
		if len(ss.content) > 0 {
			for _, w := range ss.content {
				s.looseFreq[w]++
			}
			g := s.looseGroups[ss.looseKey]
			if g == nil {
				g = &looseGroup{key: ss.looseKey, words: strings.Split(ss.looseKey, " ")}
				g.anchor = slices.MinFunc(ss.content, func(a, b string) int {
					return cmp.Or(cmp.Compare(s.looseFreq[a], s.looseFreq[b]), cmp.Compare(len(b), len(a)), cmp.Compare(a, b))
				})
				s.looseGroups[g.key] = g
				s.looseSlot[g.anchor] = append(s.looseSlot[g.anchor], g)
			}
			g.samples = append(g.samples, ss)
		}
		if ss.edge != (edgeKey{}) {
			s.edges[ss.edge] = append(s.edges[ss.edge], ss)
			s.edgeLens[ss.edgeLen]++
			continue
		}
		for _, w := range ss.literals {
			s.freq[w]++
		}
		ss.anchor = slices.MinFunc(ss.literals, func(a, b string) int {
			return cmp.Or(cmp.Compare(s.freq[a], s.freq[b]), cmp.Compare(len(b), len(a)), cmp.Compare(a, b))
		})
		s.anchors[ss.anchor] = append(s.anchors[ss.anchor], ss)
	}
}

func (s *scopeIndex) remove(c *compiledIntent) {
	delete(s.intents, nameKey{c.def.SkillID, c.def.IntentName})
	for _, t := range c.exact {
		list := slices.DeleteFunc(s.exact[t], func(x *compiledIntent) bool { return x == c })
		if len(list) == 0 {
			delete(s.exact, t)
		} else {
			s.exact[t] = list
		}
	}
	for _, ss := range c.plain {
		if ss.looseKey != "" {
			deleteSample(s.looseExact, ss.looseKey, ss)
		}
	}
	for _, ss := range c.slotted {
		if len(ss.content) > 0 {
			for _, w := range ss.content {
				if s.looseFreq[w]--; s.looseFreq[w] <= 0 {
					delete(s.looseFreq, w)
				}
			}
			g := s.looseGroups[ss.looseKey]
			g.samples = slices.DeleteFunc(g.samples, func(x *slotSample) bool { return x == ss })
			if len(g.samples) == 0 {
				delete(s.looseGroups, g.key)
				list := slices.DeleteFunc(s.looseSlot[g.anchor], func(x *looseGroup) bool { return x == g })
				if len(list) == 0 {
					delete(s.looseSlot, g.anchor)
				} else {
					s.looseSlot[g.anchor] = list
				}
			}
		}
		if ss.edge != (edgeKey{}) {
			list := slices.DeleteFunc(s.edges[ss.edge], func(x *slotSample) bool { return x == ss })
			if len(list) == 0 {
				delete(s.edges, ss.edge)
			} else {
				s.edges[ss.edge] = list
			}
			if s.edgeLens[ss.edgeLen]--; s.edgeLens[ss.edgeLen] <= 0 {
				delete(s.edgeLens, ss.edgeLen)
			}
			continue
		}
		for _, w := range ss.literals {
			if s.freq[w]--; s.freq[w] <= 0 {
				delete(s.freq, w)
			}
		}
		list := slices.DeleteFunc(s.anchors[ss.anchor], func(x *slotSample) bool { return x == ss })
		if len(list) == 0 {
			delete(s.anchors, ss.anchor)
		} else {
			s.anchors[ss.anchor] = list
		}
	}
}

// deleteSample removes ss from the list under key, dropping the key when
// the list empties.
func deleteSample(m map[string][]*slotSample, key string, ss *slotSample) {
	list := slices.DeleteFunc(m[key], func(x *slotSample) bool { return x == ss })
	if len(list) == 0 {
		delete(m, key)
	} else {
		m[key] = list
	}
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
