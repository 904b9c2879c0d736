package intent

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Keyword engine limits used when KeywordOptions leaves a field zero, and
// the fixed ones.
const (
	// MaxKeywordVocabs caps the distinct vocabulary names of one keyword
	// definition, all roles together. The engine tracks which vocabularies
	// occurred in one 64-bit set per intent, so this limit is fixed.
	MaxKeywordVocabs = 64
	// MaxKeywordGroups caps the one_of groups of one definition.
	MaxKeywordGroups = 64
	// DefaultMaxKeywordTemplates caps the sample templates of one keyword
	// definition, all descriptors together.
	DefaultMaxKeywordTemplates = 10_000
	// DefaultMaxKeywordPhrases caps the expanded phrases of one keyword
	// definition.
	DefaultMaxKeywordPhrases = 100_000
	// DefaultMaxKeywordUtteranceWords is the longest utterance, in words,
	// the keyword engine looks at; longer ones match nothing.
	DefaultMaxKeywordUtteranceWords = 256
)

// Method names of definitions (DEF-02).
const (
	MethodKeyword  = "keyword"
	MethodTemplate = "template"
)

// KeywordVocab is a vocabulary descriptor of a keyword definition (REG-05):
// a name and its slot-free sample templates. Its phrases are the union of
// the samples' sample sets (DEF-03).
type KeywordVocab struct {
	Name    string   // [A-Za-z0-9_.-]+, a .voc base name as real skills write it
	Samples []string // slot-free templates (GRM-06)
}

// KeywordIntent is one keyword intent definition (OVOS-INTENT-3): the REG-05
// payload plus the scope it was registered in. At least one of Required and
// OneOf must be non-empty, and a vocabulary name may sit under one role
// only (DEF-05).
type KeywordIntent struct {
	SessionID  string // registering session; "" means DefaultSession (REG-04)
	SkillID    string // owning skill; no ':' (DEF-02)
	IntentName string // unique within the skill; no ':'
	Lang       string // BCP-47 tag, case-insensitive
	// Required vocabularies must all occur in the utterance.
	Required []KeywordVocab
	// Optional vocabularies are captured when they occur.
	Optional []KeywordVocab
	// OneOf groups each need at least one member to occur.
	OneOf [][]KeywordVocab
	// Excluded vocabularies veto the match when any occurs.
	Excluded []KeywordVocab
}

// KeywordRegistration describes one indexed keyword definition, for
// listing.
type KeywordRegistration struct {
	SessionID  string
	SkillID    string
	IntentName string
	Lang       string
	Enabled    bool
	Definition KeywordIntent // as registered, with Lang lowercased
}

// KeywordOptions configures a KeywordEngine. Zero values pick defaults.
type KeywordOptions struct {
	Logger            *slog.Logger // nil means slog.Default()
	MaxSamples        int          // expansion limit per template; see ExpandOptions
	MaxTemplates      int          // templates per definition; DefaultMaxKeywordTemplates
	MaxPhrases        int          // phrases per definition; DefaultMaxKeywordPhrases
	MaxUtteranceWords int          // DefaultMaxKeywordUtteranceWords
	// Lexicons tell content words from filler, optional and function
	// words per primary language subtag, for Result.Evidence and
	// Result.Unexplained; matching itself ignores them. Nil means
	// BuiltinLexicons; an empty map makes every word a content word.
	Lexicons map[string]*Lexicon
}

// KeywordEngine indexes keyword intents (OVOS-INTENT-3, method "keyword")
// and matches utterances against them. Per (session, lang) scope, every
// distinct vocabulary (same name, same phrases) is stored once, however many
// intents declare it, and its phrases sit in a word trie. Each intent is
// anchored on one vocabulary that must occur for it to match: its rarest
// required vocabulary, else every member of its first one_of group. Match
// walks the utterance once from each word to find the vocabularies that
// occur, then looks only at intents anchored on one of them, so a word
// shared by many intents ("on", "please") costs one lookup, not one per
// intent. It is safe for concurrent use: Match shares a read lock, and a
// registration expands its samples before it takes the write lock.
type KeywordEngine struct {
	log  *slog.Logger
	opts KeywordOptions

	mu     sync.RWMutex
	scopes map[scopeKey]*kwScope
	// version counts changes to what is registered or enabled.
	version atomic.Uint64
}

// kwRole is a vocabulary's role in a definition (DEF-04).
type kwRole uint8

const (
	kwRequired kwRole = iota
	kwOptional
	kwOneOf
	kwExcluded
)

func (r kwRole) String() string {
	return [...]string{"required", "optional", "one_of", "excluded"}[r]
}

// kwVocab is one compiled vocabulary of an intent: its bit in the intent's
// sets is its index in kwIntent.vocabs.
type kwVocab struct {
	name    string
	role    kwRole
	phrases [][]string // sorted, distinct
	shared  *kwShared  // the scope's copy, set when indexed
}

// key identifies equal vocabularies across intents.
func (v *kwVocab) key() string {
	var b strings.Builder
	b.WriteString(v.name)
	for _, p := range v.phrases {
		b.WriteByte(0)
		b.WriteString(strings.Join(p, " "))
	}
	return b.String()
}

// kwIntent is a definition ready for matching.
type kwIntent struct {
	def      KeywordIntent
	enabled  bool
	vocabs   []kwVocab
	required uint64   // vocabularies that must all occur
	optional uint64   // vocabularies captured when they occur
	excluded uint64   // vocabularies that veto
	oneOf    []uint64 // groups that each need one occurrence
	anyOf    uint64   // union of oneOf
	anchors  []*kwShared
}

// kwScope holds the intents of one (session, lang) scope, their distinct
// vocabularies and the phrase trie over those.
type kwScope struct {
	intents map[nameKey]*kwIntent
	vocabs  map[string]*kwShared // by kwVocab.key
	root    kwNode
}

// kwShared is one distinct vocabulary of a scope.
type kwShared struct {
	key      string
	phrases  [][]string
	refs     int         // intents declaring it
	anchored []*kwIntent // intents that can match only if it occurs
}

// kwNode is a trie node: the vocabularies with a phrase that ends after
// the words leading here.
type kwNode struct {
	next map[string]*kwNode
	ends []*kwShared
}

// NewKeywordEngine returns an empty engine.
func NewKeywordEngine(opts KeywordOptions) *KeywordEngine {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.MaxSamples <= 0 {
		opts.MaxSamples = DefaultMaxSamples
	}
	if opts.MaxTemplates <= 0 {
		opts.MaxTemplates = DefaultMaxKeywordTemplates
	}
	if opts.MaxPhrases <= 0 {
		opts.MaxPhrases = DefaultMaxKeywordPhrases
	}
	if opts.MaxUtteranceWords <= 0 {
		opts.MaxUtteranceWords = DefaultMaxKeywordUtteranceWords
	}
	if opts.Lexicons == nil {
		lex, err := BuiltinLexicons()
		if err != nil {
			// Only a broken build gets here (a test loads them); every
			// word then counts as a content word.
			opts.Logger.Error("built-in lexicons unusable; every word is a content word", "err", err)
		}
		opts.Lexicons = lex
	}
	return &KeywordEngine{log: opts.Logger, opts: opts, scopes: map[scopeKey]*kwScope{}}
}

// Methods reports the definition methods the engine accepts (DEF-10).
func (e *KeywordEngine) Methods() []string { return []string{MethodKeyword} }

// Register validates, expands and indexes def under the key (session,
// skill, intent, lang) (REG-04), replacing any keyword definition with that
// key but keeping its enabled state (DEF-09). It rejects, changing nothing,
// a bad key, a reserved intent name, a definition with neither required nor
// one_of vocabularies or with one vocabulary under two roles (DEF-05), and
// a descriptor with no samples or none that expands to a phrase (REG-05).
// Same-name descriptors in one role are merged; bad samples are skipped and
// reported as warnings.
func (e *KeywordEngine) Register(def KeywordIntent) ([]Warning, error) {
	c, warns, err := e.compile(def)
	attrs := []any{"session_id", def.SessionID, "skill_id", def.SkillID, "intent_name", def.IntentName, "lang", def.Lang}
	if err != nil {
		e.log.Warn("keyword intent rejected", append(attrs, "reason", err.Error())...)
		return nil, fmt.Errorf("registering keyword intent %s:%s (%s): %w", def.SkillID, def.IntentName, def.Lang, err)
	}
	for _, w := range warns {
		e.log.Warn("keyword intent: "+w.String(), attrs...)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	sk := scopeKey{c.def.SessionID, c.def.Lang}
	s := e.scopes[sk]
	if s == nil {
		s = &kwScope{intents: map[nameKey]*kwIntent{}, vocabs: map[string]*kwShared{}}
		e.scopes[sk] = s
	}
	nk := nameKey{c.def.SkillID, c.def.IntentName}
	if old := s.intents[nk]; old != nil {
		c.enabled = old.enabled
		s.remove(old)
	}
	s.add(c)
	e.version.Add(1)
	return warns, nil
}

// Deregister removes the keyword definition (session, skill, intent, lang),
// or the intent in every language when lang is "" (REG-09). It returns how
// many definitions it removed; removing what is not registered is a no-op.
func (e *KeywordEngine) Deregister(sessionID, skillID, intentName, lang string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.version.Add(1)
	return deregisterScoped(e.scopes, sessionID, skillID, intentName, lang)
}

// RemoveSkill removes every keyword definition of the skill in the
// session's scope only (REG-09, DEF-09) and returns how many it removed.
func (e *KeywordEngine) RemoveSkill(sessionID, skillID string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.version.Add(1)
	return removeSkillScoped(e.scopes, sessionID, skillID)
}

// SetEnabled enables or disables matching of (session, skill, intent,
// lang), every language when lang is "" (REG-10). Definitions stay indexed
// while disabled. It returns how many definitions it found.
func (e *KeywordEngine) SetEnabled(sessionID, skillID, intentName, lang string, enabled bool) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.version.Add(1)
	return setEnabledScoped(e.scopes, sessionID, skillID, intentName, lang, enabled)
}

// Registrations lists indexed keyword definitions sorted by session
// ("default" first), skill, intent and language. With sessionID "" it lists
// every scope; otherwise the session's effective pool, "default" ∪ its own
// (REG-12, REG-14).
func (e *KeywordEngine) Registrations(sessionID string) []KeywordRegistration {
	return registrationsScoped(e.mu.RLocker(), e.scopes, sessionID, func(c *kwIntent) KeywordRegistration {
		return KeywordRegistration{SessionID: c.def.SessionID, SkillID: c.def.SkillID, IntentName: c.def.IntentName,
			Lang: c.def.Lang, Enabled: c.enabled, Definition: cloneKeywordDef(c.def)}
	}, func(r KeywordRegistration) registrationKey {
		return registrationKey{r.SessionID, r.SkillID, r.IntentName, r.Lang}
	})
}

// validVocabName checks a descriptor name against the .voc base-name
// charset as real skills write it (HelloWorldKeyword, volume.mute; see
// docs/ovos-locales.md): the name is also the capture key (DEF-06).
func validVocabName(s string) bool {
	if s == "" || len(s) > MaxIDBytes {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '_' && c != '.' && c != '-' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// compile validates def and builds everything Match needs, outside the
// lock.
func (e *KeywordEngine) compile(def KeywordIntent) (*kwIntent, []Warning, error) {
	def = cloneKeywordDef(def)
	var err error
	if def.SessionID, def.Lang, err = normalizeKey(def.SessionID, def.SkillID, def.IntentName, def.Lang, "REG-05"); err != nil {
		return nil, nil, err
	}
	if len(def.Required) == 0 && len(def.OneOf) == 0 {
		return nil, nil, errors.New("no required and no one_of vocabulary: nothing could ever match (DEF-05)")
	}
	if len(def.OneOf) > MaxKeywordGroups {
		return nil, nil, fmt.Errorf("one_of has %d groups, limit is %d", len(def.OneOf), MaxKeywordGroups)
	}

	// Gather the descriptors in role order, with the field each came from,
	// so every error and warning names its place in the payload.
	type desc struct {
		field string
		role  kwRole
		group int
		v     KeywordVocab
	}
	var descs []desc
	for i, v := range def.Required {
		descs = append(descs, desc{fmt.Sprintf("required[%d]", i), kwRequired, -1, v})
	}
	for i, v := range def.Optional {
		descs = append(descs, desc{fmt.Sprintf("optional[%d]", i), kwOptional, -1, v})
	}
	for g, group := range def.OneOf {
		if len(group) == 0 {
			return nil, nil, fmt.Errorf("one_of[%d] is empty: a group needs a vocabulary that can occur (DEF-04)", g)
		}
		for i, v := range group {
			descs = append(descs, desc{fmt.Sprintf("one_of[%d][%d]", g, i), kwOneOf, g, v})
		}
	}
	for i, v := range def.Excluded {
		descs = append(descs, desc{fmt.Sprintf("excluded[%d]", i), kwExcluded, -1, v})
	}
	templates := 0
	for _, d := range descs {
		templates += len(d.v.Samples)
	}
	if templates > e.opts.MaxTemplates {
		return nil, nil, fmt.Errorf("definition has %d sample templates, limit is %d", templates, e.opts.MaxTemplates)
	}

	c := &kwIntent{def: def, enabled: true, oneOf: make([]uint64, len(def.OneOf))}
	index := map[string]int{}
	var seen []map[string]bool // per vocabulary: its phrases, to union merged samples
	ex := newExpander(nil, e.opts.MaxSamples)
	var warns []Warning
	total := 0
	for _, d := range descs {
		if !validVocabName(d.v.Name) {
			return nil, nil, fmt.Errorf("%s: vocabulary name %q is not [A-Za-z0-9_.-]+, a .voc base name as real skills write it (RES-01)", d.field, d.v.Name)
		}
		i, known := index[d.v.Name]
		switch {
		case known && c.vocabs[i].role != d.role:
			return nil, nil, fmt.Errorf("%s: vocabulary %q is under both %s and %s (DEF-05)", d.field, d.v.Name, c.vocabs[i].role, d.role)
		case !known:
			if len(c.vocabs) == MaxKeywordVocabs {
				return nil, nil, fmt.Errorf("%s: more than %d distinct vocabularies", d.field, MaxKeywordVocabs)
			}
			i = len(c.vocabs)
			index[d.v.Name] = i
			c.vocabs = append(c.vocabs, kwVocab{name: d.v.Name, role: d.role})
			seen = append(seen, map[string]bool{})
		}
		if len(d.v.Samples) == 0 {
			return nil, nil, fmt.Errorf("%s (%q): samples missing or empty (REG-05)", d.field, d.v.Name)
		}
		ps, w := phrases(ex, d.v.Samples, d.field+".samples", nil)
		warns = append(warns, w...)
		if len(ps) == 0 {
			return nil, nil, fmt.Errorf("%s (%q): no sample expands to a non-empty phrase (REG-05)", d.field, d.v.Name)
		}
		for _, p := range ps {
			k := strings.Join(p, " ")
			if seen[i][k] {
				continue
			}
			seen[i][k] = true
			c.vocabs[i].phrases = append(c.vocabs[i].phrases, p)
			if total++; total > e.opts.MaxPhrases {
				return nil, nil, fmt.Errorf("samples expand to more than %d phrases", e.opts.MaxPhrases)
			}
		}
		bit := uint64(1) << i
		switch d.role {
		case kwRequired:
			c.required |= bit
		case kwOptional:
			c.optional |= bit
		case kwOneOf:
			c.oneOf[d.group] |= bit
			c.anyOf |= bit
		case kwExcluded:
			c.excluded |= bit
		}
	}
	for i := range c.vocabs {
		slices.SortFunc(c.vocabs[i].phrases, slices.Compare)
	}
	return c, dedupeWarnings(warns), nil
}

func (s *kwScope) add(c *kwIntent) {
	s.intents[nameKey{c.def.SkillID, c.def.IntentName}] = c
	for i := range c.vocabs {
		v := &c.vocabs[i]
		k := v.key()
		sv := s.vocabs[k]
		if sv == nil {
			sv = &kwShared{key: k, phrases: v.phrases}
			s.vocabs[k] = sv
			for _, p := range v.phrases {
				s.root.insert(p, sv)
			}
		}
		sv.refs++
		v.shared = sv
	}
	// The anchor: the required vocabulary fewest intents are anchored on,
	// or, with no required one, every member of the first one_of group.
	if c.required != 0 {
		var best *kwShared
		for i, v := range c.vocabs {
			if c.required&(1<<i) != 0 && (best == nil || len(v.shared.anchored) < len(best.anchored)) {
				best = v.shared
			}
		}
		c.anchors = []*kwShared{best}
	} else {
		for i, v := range c.vocabs {
			if c.oneOf[0]&(1<<i) != 0 {
				c.anchors = append(c.anchors, v.shared)
			}
		}
	}
	for _, a := range c.anchors {
		a.anchored = append(a.anchored, c)
	}
}

func (s *kwScope) remove(c *kwIntent) {
	delete(s.intents, nameKey{c.def.SkillID, c.def.IntentName})
	for _, a := range c.anchors {
		a.anchored = slices.DeleteFunc(a.anchored, func(x *kwIntent) bool { return x == c })
	}
	for _, v := range c.vocabs {
		sv := v.shared
		if sv.refs--; sv.refs > 0 {
			continue
		}
		delete(s.vocabs, sv.key)
		for _, p := range sv.phrases {
			s.root.prune(p, sv)
		}
	}
}

// insert adds sv at the node the phrase leads to.
func (n *kwNode) insert(phrase []string, sv *kwShared) {
	for _, w := range phrase {
		next := n.next[w]
		if next == nil {
			if n.next == nil {
				n.next = map[string]*kwNode{}
			}
			next = &kwNode{}
			n.next[w] = next
		}
		n = next
	}
	n.ends = append(n.ends, sv)
}

// prune drops sv at the node the phrase leads to and reports whether n is
// left empty, so the caller can unlink it.
func (n *kwNode) prune(phrase []string, sv *kwShared) bool {
	if len(phrase) == 0 {
		n.ends = slices.DeleteFunc(n.ends, func(e *kwShared) bool { return e == sv })
	} else if next := n.next[phrase[0]]; next != nil && next.prune(phrase[1:], sv) {
		delete(n.next, phrase[0])
	}
	return len(n.ends) == 0 && len(n.next) == 0
}

func cloneKeywordDef(d KeywordIntent) KeywordIntent {
	clone := func(vs []KeywordVocab) []KeywordVocab {
		if vs == nil {
			return nil
		}
		out := make([]KeywordVocab, len(vs))
		for i, v := range vs {
			out[i] = KeywordVocab{Name: v.Name, Samples: slices.Clone(v.Samples)}
		}
		return out
	}
	d.Required = clone(d.Required)
	d.Optional = clone(d.Optional)
	d.Excluded = clone(d.Excluded)
	if d.OneOf != nil {
		groups := make([][]KeywordVocab, len(d.OneOf))
		for i, g := range d.OneOf {
			groups[i] = clone(g)
		}
		d.OneOf = groups
	}
	return d
}

// span is a half-open run of utterance words.
type span struct{ start, end int }

// kwOcc is where one vocabulary occurred in the utterance.
type kwOcc struct {
	best  span   // the longest, then earliest occurrence: the capture (DEF-06)
	spans []span // every occurrence
}

func (o *kwOcc) add(sp span) {
	if len(o.spans) == 0 || sp.end-sp.start > o.best.end-o.best.start {
		o.best = sp // spans arrive by start, so the first of a length is the earliest
	}
	o.spans = append(o.spans, sp)
}

// kwCandidate is an intent whose definition the utterance satisfies.
type kwCandidate struct {
	in       *kwIntent
	occurred uint64 // its vocabularies that occurred
	covered  int    // utterance words inside some occurrence
	specific int    // required and one_of vocabularies that occurred
	optional int    // optional vocabularies that occurred
}

// betterKeyword orders candidates: more words covered, then more required
// and one_of vocabularies (a more specific definition), then more optional
// ones, then skill, intent and session ("default" first). The order is
// total, so the winner never depends on map or registration order.
func betterKeyword(a, b *kwCandidate) bool {
	if b == nil {
		return true
	}
	da, db := a.in.def, b.in.def
	return cmp.Or(
		cmp.Compare(b.covered, a.covered),
		cmp.Compare(b.specific, a.specific),
		cmp.Compare(b.optional, a.optional),
		cmp.Compare(da.SkillID, db.SkillID),
		cmp.Compare(da.IntentName, db.IntentName),
		cmp.Compare(sessionRank(da.SessionID), sessionRank(db.SessionID)),
	) < 0
}

// Match returns the best enabled keyword intent whose definition the
// utterance satisfies in the language, from the "default" scope and the
// session's own (REG-14), or nil. The utterance is normalised first
// (Normalize), and a phrase occurs only as a contiguous run of whole words
// (DEF-03: "art" does not occur in "start"). A match has every required
// vocabulary, a member of each one_of group and no excluded vocabulary
// (DEF-04); its Slots map each required, one_of and optional vocabulary
// that occurred to the phrase found, the longest and then the earliest
// when several occur (DEF-06).
//
// Confidence is the share of the utterance's words inside an occurrence of
// one of the intent's required, one_of or optional phrases: 1 when the
// keywords account for every word. Ties go to the more specific definition
// (more required and one_of vocabularies occurred), then to more optional
// vocabularies, then by skill and intent name. Sample is empty. Match is
// safe for concurrent use with itself and with registration changes.
func (e *KeywordEngine) Match(utterance, lang, sessionID string) *Result {
	return e.match(utterance, lang, sessionID, nil)
}

// match is Match among the intents keep keeps (all when nil).
func (e *KeywordEngine) match(utterance, lang, sessionID string, keep func(skill, intent string) bool) *Result {
	norm := Normalize(utterance)
	if norm == "" {
		return nil
	}
	words := strings.Split(norm, " ")
	if len(words) > e.opts.MaxUtteranceWords {
		e.log.Debug("utterance too long for keyword matching", "words", len(words), "limit", e.opts.MaxUtteranceWords)
		return nil
	}
	lang = strings.ToLower(lang)
	sessionID = sessionOrDefault(sessionID)

	e.mu.RLock()
	defer e.mu.RUnlock()
	pools := make([]*kwScope, 0, 2)
	if s := e.scopes[scopeKey{DefaultSession, lang}]; s != nil {
		pools = append(pools, s)
	}
	if s := e.scopes[scopeKey{sessionID, lang}]; s != nil && sessionID != DefaultSession {
		pools = append(pools, s)
	}
	if len(pools) == 0 {
		return nil
	}

	// Which vocabularies occur, and where.
	occ := map[*kwShared]*kwOcc{}
	for _, s := range pools {
		for i := range words {
			n := &s.root
			for j := i; j < len(words); j++ {
				if n = n.next[words[j]]; n == nil {
					break
				}
				for _, sv := range n.ends {
					o := occ[sv]
					if o == nil {
						o = &kwOcc{}
						occ[sv] = o
					}
					o.add(span{i, j + 1})
				}
			}
		}
	}
	if len(occ) == 0 {
		return nil
	}

	// Only intents anchored on an occurring vocabulary can match.
	var best *kwCandidate
	mark := make([]bool, len(words))
	tried := map[*kwIntent]bool{}
	for sv := range occ {
		for _, c := range sv.anchored {
			if tried[c] || !c.enabled || (keep != nil && !keep(c.def.SkillID, c.def.IntentName)) {
				continue
			}
			tried[c] = true
			if cand := evaluate(c, occ, mark); cand != nil && betterKeyword(cand, best) {
				best = cand
			}
		}
	}
	if best == nil {
		return nil
	}
	return best.result(occ, words, norm, lang, lexiconFor(e.opts.Lexicons, lang), mark)
}

// evaluate checks c's definition against the vocabularies that occurred
// (DEF-04) and scores it, or returns nil. mark is scratch space, one entry
// per utterance word.
func evaluate(c *kwIntent, occ map[*kwShared]*kwOcc, mark []bool) *kwCandidate {
	var occurred uint64
	for i, v := range c.vocabs {
		if occ[v.shared] != nil {
			occurred |= 1 << i
		}
	}
	if occurred&c.excluded != 0 || occurred&c.required != c.required {
		return nil
	}
	for _, g := range c.oneOf {
		if occurred&g == 0 {
			return nil
		}
	}
	clear(mark)
	covered := 0
	for i, v := range c.vocabs {
		if occurred&(1<<i) == 0 || v.role == kwExcluded {
			continue
		}
		for _, sp := range occ[v.shared].spans {
			for k := sp.start; k < sp.end; k++ {
				if !mark[k] {
					mark[k] = true
					covered++
				}
			}
		}
	}
	return &kwCandidate{in: c, occurred: occurred, covered: covered,
		specific: bits.OnesCount64(occurred & (c.required | c.anyOf)),
		optional: bits.OnesCount64(occurred & c.optional)}
}

// result turns the winner into a Result with its captures, its evidence
// (content words by lex) and a Why that names each vocabulary found. mark
// is scratch space, one entry per utterance word.
func (b *kwCandidate) result(occ map[*kwShared]*kwOcc, words []string, norm, lang string, lex *Lexicon, mark []bool) *Result {
	c := b.in
	r := &Result{
		SkillID: c.def.SkillID, IntentName: c.def.IntentName, Lang: lang, Utterance: norm,
		Slots:      map[string]string{},
		Confidence: float64(b.covered) / float64(len(words)),
	}
	covered := mark
	clear(covered)
	var notes []string
	for vi, v := range c.vocabs {
		if v.role == kwExcluded || b.occurred&(1<<vi) == 0 {
			continue
		}
		for _, sp := range occ[v.shared].spans {
			for k := sp.start; k < sp.end; k++ {
				covered[k] = true
			}
		}
		sp := occ[v.shared].best
		phrase := strings.Join(words[sp.start:sp.end], " ")
		r.Slots[v.name] = phrase
		notes = append(notes, fmt.Sprintf("%s %s=%q", v.role, v.name, phrase))
	}
	for k := range words {
		switch {
		case !lex.isContent(words, k):
		case covered[k]:
			r.Evidence++
		default:
			r.Unexplained++
		}
	}
	r.Why = fmt.Sprintf("keywords %s; %d of %d words covered; %d required/one_of vocabularies",
		strings.Join(notes, ", "), b.covered, len(words), b.specific)
	return r
}

// phrases expands slot-free phrase templates into normalised word runs,
// skipping bad ones with a warning. Keyword vocabularies are sets of
// phrases by definition (DEF-03), so they are expanded, within the
// expander's limit.
func phrases(ex *expander, templates []string, field string, warns []Warning) ([][]string, []Warning) {
	var out [][]string
	seen := map[string]bool{}
	for i, src := range templates {
		where := fmt.Sprintf("%s[%d]", field, i)
		t, err := parse(src, 1, 1)
		var samples []string
		if err == nil {
			samples, err = ex.expand(t)
		}
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
