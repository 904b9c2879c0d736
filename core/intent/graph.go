package intent

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Structure limits of the template engine. A template is compiled into a
// word graph and matched as it stands; nothing is expanded, so GRM-12's
// count limit becomes a limit on the structure's size.
const (
	// MaxTemplateNodes caps the graph nodes one template compiles to,
	// counting each node of the vocabularies it uses once. The largest
	// template of Home Assistant's English sentences needs a few hundred.
	MaxTemplateNodes = 50_000
	// MaxGluedForms caps the spellings of one run of text glued to groups
	// or slots without a space ("light[s]", "{name}['s]"): such a run is
	// spelled out, because its words are only known per branch.
	MaxGluedForms = 1_000
	// maxClauseWords caps the words of one prefilter clause; a larger
	// choice is not worth checking.
	maxClauseWords = 32
)

type gkind uint8

const (
	gWord gkind = iota // one literal word
	gSeq               // children in order
	gAlt               // one of the branches, or nothing when null
	gTrie              // one of a set of literal word sequences
	gSlot              // one or more words bound to a slot
)

// gnode is one node of a compiled template. Nodes are shared: within one
// definition, equal subtrees (a vocabulary, a repeated group) are one node,
// so the matcher computes each once per utterance position.
type gnode struct {
	kind gkind
	id   int32  // index into the matcher's memo table
	word string // gWord: the word; an optional gTrie: its optional word
	// opt marks a word of the language's lexicon that a speaker may drop
	// ("the", "for"), or a choice with such a word ("(for|on)"): it may go
	// unsaid at a tolerance cost, as that word alone may.
	opt     bool
	kids    []*gnode
	null    bool // gAlt, gTrie: may match no words at all
	trie    *trieNode
	phrases []string // gTrie: its phrases, words joined by spaces, sorted
	words   []string // gTrie: every word of its phrases, sorted
	last    []string // gTrie: the last words of its phrases
	slot    *gslot

	minW    int        // fewest utterance words it can take
	lit     bool       // some path takes a whole literal word
	clauses [][]string // each needs one of its words in the utterance
}

// trieNode is one state of a word trie.
type trieNode struct {
	next map[string]*trieNode
	end  bool
}

func (t *trieNode) insert(words []string) {
	n := t
	for _, w := range words {
		if n.next == nil {
			n.next = map[string]*trieNode{}
		}
		c := n.next[w]
		if c == nil {
			c = &trieNode{}
			n.next[w] = c
		}
		n = c
	}
	n.end = true
}

// gslot is one slot occurrence: its name, and the literal text glued to
// it inside its first and last word ("{name}s" has suffix "s").
type gslot struct {
	info           *slotInfo
	prefix, suffix string
}

// slotInfo is what a definition says about one slot name: its type, its
// entity values (GRM-15), the values it may not take (RES-06) and whether
// it is required (DEF-08).
type slotInfo struct {
	name  string
	typ   string // "number", "duration", ... or ""
	ent   *gnode // entity values, nil when none
	black *gnode // slot_blacklist values, nil when none
	bit   uint32 // its bit in a parse's mask when required, else 0

	// The words of its entity values, and those that follow another word
	// in some value, for the bound; worked out once (see summarize).
	entWords, entRest []string
	summarized        bool
}

// builder compiles the templates of one definition against its
// vocabularies. Vocabularies and equal subtrees are compiled once and
// shared.
type builder struct {
	vocab   map[string][]string
	lex     *Lexicon
	slots   map[string]*slotInfo
	shared  map[string]*gnode
	vocabs  map[string]vocabGraph
	active  []string
	nextID  int32
	created int // nodes created for the current template
	limit   int
	// normWarned is set once a GRM-02 warning was given for the current
	// template.
	normWarned bool
	warnings   []Warning
	// where places vocabulary template i of name in its file, for errors.
	where func(name string, i int) (file string, line, col int)
}

type vocabGraph struct {
	g   *gnode
	err error
}

func newBuilder(vocab map[string][]string, lex *Lexicon) *builder {
	return &builder{vocab: vocab, lex: lex, slots: map[string]*slotInfo{}, shared: map[string]*gnode{},
		vocabs: map[string]vocabGraph{}, limit: MaxTemplateNodes}
}

// errTooLarge reports a structure over MaxTemplateNodes.
func (b *builder) errTooLarge(t *Template) error {
	return &SyntaxError{Line: startLine(t), Col: startCol(t), Kind: ErrTooLarge,
		Msg: fmt.Sprintf("template compiles to more than %d nodes (GRM-12)", b.limit)}
}

// template validates a parsed template (GRM-06, GRM-07, structurally) and
// compiles it. Its slots are registered in b.slots.
func (b *builder) template(t *Template) (*gnode, error) {
	for _, ref := range t.refs {
		if _, err := b.vocabNode(ref.name); err != nil {
			return nil, refError(ref, err)
		}
	}
	if err := checkStructure(t); err != nil {
		return nil, err
	}
	b.created, b.normWarned = 0, false
	g, err := b.seq(t, t.nodes)
	if err != nil {
		return nil, err
	}
	if b.created > b.limit {
		return nil, b.errTooLarge(t)
	}
	if g == nil {
		return nil, &SyntaxError{Line: startLine(t), Col: startCol(t), Kind: ErrEmptySample,
			Msg: fmt.Sprintf("template %q has no words after normalisation", t.src)}
	}
	if !g.lit {
		return nil, &SyntaxError{Line: startLine(t), Col: startCol(t), Kind: ErrSlotOnly,
			Msg: fmt.Sprintf("template %q has no whole literal word and would match almost any utterance", t.src)}
	}
	return g, nil
}

// phrases compiles slot-free templates (entity values, blacklists) into
// one node, skipping bad ones with a warning; nil when none is usable.
// Plain word lists, the common case, go straight into a trie.
func (b *builder) phrases(templates []string, field string) *gnode {
	var branches []*gnode
	var plain []string
	for i, src := range templates {
		where := fmt.Sprintf("%s[%d]", field, i)
		if !strings.ContainsAny(src, "()[]{}<>|") && len(src) <= MaxTemplateBytes && utf8.ValidString(src) {
			if norm := Normalize(src); norm != "" {
				plain = append(plain, norm)
				continue
			}
		}
		t, err := parse(src, 1, 1)
		if err == nil && len(t.slots) > 0 {
			err = fmt.Errorf("has slot {%s}; phrases are slot-free", t.slots[0].Name)
		}
		var g *gnode
		if err == nil {
			b.created = 0
			for _, ref := range t.refs {
				if _, verr := b.vocabNode(ref.name); verr != nil {
					err = refError(ref, verr)
					break
				}
			}
			if err == nil {
				err = checkStructure(t)
			}
			if err == nil {
				g, err = b.seq(t, t.nodes)
			}
			if err == nil && b.created > b.limit {
				err = b.errTooLarge(t)
			}
			if err == nil && g == nil {
				err = fmt.Errorf("has no words after normalisation")
			}
		}
		if err != nil {
			b.warnings = append(b.warnings, Warning{File: where, Msg: fmt.Sprintf("phrase %q skipped: %v", src, err)})
			continue
		}
		b.warnings = append(b.warnings, withFile(t.Warnings(), where)...)
		branches = append(branches, g)
	}
	if len(plain) > 0 {
		branches = append(branches, b.trie(plain, false))
	}
	if len(branches) == 0 {
		return nil
	}
	return b.alt(branches, false)
}

// vocabNode compiles vocabulary name: the choice of its templates
// (GRM-06), each slot-free.
func (b *builder) vocabNode(name string) (*gnode, error) {
	if v, ok := b.vocabs[name]; ok {
		return v.g, v.err
	}
	if i := slices.Index(b.active, name); i >= 0 {
		return nil, &cycleError{chain: append(slices.Clone(b.active[i:]), name)}
	}
	templates, ok := b.vocab[name]
	if !ok {
		return nil, &undefinedError{name: name}
	}
	b.active = append(b.active, name)
	g, err := b.compileVocab(name, templates)
	b.active = b.active[:len(b.active)-1]
	b.vocabs[name] = vocabGraph{g, err}
	return g, err
}

func (b *builder) compileVocab(name string, templates []string) (*gnode, error) {
	if len(templates) == 0 {
		return nil, fmt.Errorf("vocabulary <%s> has no templates", name)
	}
	saved, savedWarned := b.created, b.normWarned
	defer func() { b.created, b.normWarned = saved, savedWarned }()
	var branches []*gnode
	for i, src := range templates {
		t, at, err := parseVocabTemplate(b.where, name, i, src)
		if err != nil {
			return nil, err
		}
		where := at.file
		for _, ref := range t.refs {
			if _, err := b.vocabNode(ref.name); err != nil {
				return nil, atFile(refError(ref, err), where)
			}
		}
		if err := checkStructure(t); err != nil {
			return nil, atFile(err, where)
		}
		b.created = 0
		g, err := b.seq(t, t.nodes)
		if err != nil {
			return nil, atFile(err, where)
		}
		if b.created > b.limit {
			return nil, atFile(b.errTooLarge(t), where)
		}
		b.warnings = append(b.warnings, withFile(t.Warnings(), where)...)
		if g != nil {
			branches = append(branches, g)
		}
	}
	if len(branches) == 0 {
		return nil, fmt.Errorf("vocabulary <%s> has no words after normalisation", name)
	}
	return b.alt(branches, false), nil
}

// seq compiles a sequence of template tokens. Text is split into words at
// whitespace; a run of tokens with no whitespace between them (a word with
// a group or slot glued to it) is spelled out, everything else stays
// structure. It returns nil for a sequence that takes no words.
func (b *builder) seq(t *Template, nodes []node) (*gnode, error) {
	var items []*gnode
	var run []node
	flush := func() error {
		if len(run) == 0 {
			return nil
		}
		g, err := b.run(t, run)
		run = nil
		if err != nil {
			return err
		}
		items = append(items, g...)
		return nil
	}
	for _, n := range nodes {
		if n.kind != nodeText {
			run = append(run, n)
			continue
		}
		text := n.text
		for text != "" {
			i := strings.IndexFunc(text, unicode.IsSpace)
			if i < 0 {
				run = append(run, node{kind: nodeText, text: text, line: n.line, col: n.col})
				break
			}
			if i > 0 {
				run = append(run, node{kind: nodeText, text: text[:i], line: n.line, col: n.col})
			}
			if err := flush(); err != nil {
				return nil, err
			}
			text = strings.TrimLeftFunc(text[i:], unicode.IsSpace)
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return b.seqOf(items), nil
}

// run compiles one run of glued tokens into the nodes it stands for in
// its sequence.
func (b *builder) run(t *Template, run []node) ([]*gnode, error) {
	if len(run) == 1 {
		n := &run[0]
		switch n.kind {
		case nodeText:
			return b.words(n.text), nil
		case nodeSlot:
			return []*gnode{b.slotNode(n.name, n.typ, "", "")}, nil
		case nodeVocab:
			g, err := b.vocabNode(n.name)
			if err != nil {
				return nil, err
			}
			return []*gnode{g}, nil
		case nodeGroup:
			var branches []*gnode
			null := false
			for _, br := range n.branches {
				g, err := b.seq(t, br)
				if err != nil {
					return nil, err
				}
				if g == nil {
					null = true
					continue
				}
				branches = append(branches, g)
			}
			if g := b.alt(branches, null); g != nil {
				return []*gnode{g}, nil
			}
			return nil, nil
		}
	}
	return b.glued(t, run)
}

// words turns literal text without whitespace into word nodes, normalised
// as an ASR would give it (GRM-02).
func (b *builder) words(text string) []*gnode {
	norm := Normalize(text)
	if norm != text && !b.normWarned {
		b.normWarned = true
		b.warnings = append(b.warnings, Warning{Msg: fmt.Sprintf("text %q is not ASR-normalised (GRM-02); indexed as %q", text, norm)})
	}
	if norm == "" {
		return nil
	}
	var out []*gnode
	for _, w := range strings.Split(norm, " ") {
		out = append(out, b.word(w, b.lex != nil && b.lex.optional[w]))
	}
	return out
}

// glued spells out a run of tokens with no whitespace between them, such
// as "light[s]" or "{name}['s]": each spelling is normalised and split into
// words and slots with their glued text.
func (b *builder) glued(t *Template, run []node) ([]*gnode, error) {
	resolved := map[string][]string{}
	for _, n := range run {
		b.collectRefs(n, resolved)
	}
	for name := range resolved {
		ex := newExpander(b.vocab, MaxGluedForms)
		samples, err := ex.samplesOf(name)
		if err != nil {
			return nil, err
		}
		resolved[name] = samples
	}
	if countSeq(run, resolved, MaxGluedForms) > MaxGluedForms {
		return nil, &SyntaxError{Line: run[0].line, Col: run[0].col, Kind: ErrTooLarge,
			Msg: fmt.Sprintf("a word with groups glued to it has more than %d spellings (GRM-12)", MaxGluedForms)}
	}
	var branches []*gnode
	null := false
	for _, ps := range build(run, resolved) {
		items, err := b.spelling(ps)
		if err != nil {
			return nil, err
		}
		g := b.seqOf(items)
		if g == nil {
			null = true
			continue
		}
		branches = append(branches, g)
	}
	if g := b.alt(branches, null); g != nil {
		return []*gnode{g}, nil
	}
	return nil, nil
}

func (b *builder) collectRefs(n node, into map[string][]string) {
	switch n.kind {
	case nodeVocab:
		into[n.name] = nil
	case nodeGroup:
		for _, br := range n.branches {
			for _, c := range br {
				b.collectRefs(c, into)
			}
		}
	}
}

// spelling normalises one spelled-out run (slots as private-use marks, so
// text glued to a slot stays glued) and returns its words and slots.
func (b *builder) spelling(ps []piece) ([]*gnode, error) {
	var sb strings.Builder
	var slots []*node
	for _, p := range ps {
		if p.slot != nil {
			sb.WriteRune(rune(slotMark + len(slots)))
			slots = append(slots, p.slot)
			continue
		}
		writeLiteral(&sb, p.text)
	}
	isMark := func(r rune) bool { return r >= slotMark && r < slotMark+rune(len(slots)) }
	raw := sb.String()
	norm := normalize(raw, isMark)
	if norm != strings.Join(strings.Fields(raw), " ") && !b.normWarned {
		b.normWarned = true
		b.warnings = append(b.warnings, Warning{Msg: fmt.Sprintf("text %q is not ASR-normalised (GRM-02); indexed as %q",
			markedText(raw, slots), markedText(norm, slots))})
	}
	if norm == "" {
		return nil, nil
	}
	var out []*gnode
	for _, w := range strings.Split(norm, " ") {
		at := strings.IndexFunc(w, isMark)
		if at < 0 {
			out = append(out, b.word(w, false))
			continue
		}
		r := []rune(w[at:])[0]
		size := len(string(r))
		if j := strings.IndexFunc(w[at+size:], isMark); j >= 0 {
			s1, s2 := slots[r-slotMark], slots[[]rune(w[at+size+j:])[0]-slotMark]
			return nil, &SyntaxError{Line: s2.line, Col: s2.col, Token: s2.token, Kind: ErrAdjacentSlots,
				Msg: fmt.Sprintf("slots {%s} and {%s} share one word", s1.name, s2.name)}
		}
		s := slots[r-slotMark]
		out = append(out, b.slotNode(s.name, s.typ, w[:at], w[at+size:]))
	}
	return out, nil
}

// markedText writes slot marks back as {name}, for messages.
func markedText(s string, slots []*node) string {
	var sb strings.Builder
	for _, r := range s {
		if r >= slotMark && r < slotMark+rune(len(slots)) {
			sb.WriteString("{" + slots[r-slotMark].name + "}")
			continue
		}
		sb.WriteRune(r)
	}
	return sb.String()
}

// intern returns the shared node equal to g, registering g when it is the
// first of its kind. Children are already shared, so their ids identify
// them.
func (b *builder) intern(key string, g *gnode) *gnode {
	if old, ok := b.shared[key]; ok {
		return old
	}
	b.created++
	g.id = b.nextID
	b.nextID++
	b.shared[key] = g
	return g
}

func (b *builder) word(w string, opt bool) *gnode {
	key := "w" + w
	if opt {
		key = "o" + w
	}
	if old, ok := b.shared[key]; ok {
		return old
	}
	g := &gnode{kind: gWord, word: w, opt: opt, lit: true}
	if !opt {
		g.minW = 1
		g.clauses = [][]string{{w}}
	}
	return b.intern(key, g)
}

func (b *builder) slotNode(name, typ, prefix, suffix string) *gnode {
	info := b.slots[name]
	if info == nil {
		info = &slotInfo{name: name}
		b.slots[name] = info
	}
	if typ != "" && IsRegisteredSlotType(typ) && info.typ == "" {
		info.typ = typ
	}
	g := &gnode{kind: gSlot, slot: &gslot{info: info, prefix: prefix, suffix: suffix}, minW: 1}
	return b.intern("{"+prefix+"\x00"+name+"\x00"+suffix, g)
}

// seqOf joins items into one sequence node, flattening nested sequences;
// nil for none.
func (b *builder) seqOf(items []*gnode) *gnode {
	var kids []*gnode
	for _, k := range items {
		if k == nil {
			continue
		}
		if k.kind == gSeq {
			kids = append(kids, k.kids...)
		} else {
			kids = append(kids, k)
		}
	}
	switch len(kids) {
	case 0:
		return nil
	case 1:
		return kids[0]
	}
	var key strings.Builder
	key.WriteByte('s')
	for _, k := range kids {
		key.WriteString(strconv.Itoa(int(k.id)))
		key.WriteByte(',')
	}
	if old, ok := b.shared[key.String()]; ok {
		return old
	}
	g := &gnode{kind: gSeq, kids: kids}
	for _, k := range kids {
		g.minW += k.minW
		g.lit = g.lit || k.lit
		g.clauses = append(g.clauses, k.clauses...)
	}
	g.clauses = dedupeClauses(g.clauses)
	return b.intern(key.String(), g)
}

// alt is the choice of branches, or of nothing as well when null. A choice
// of literal word sequences becomes a trie.
func (b *builder) alt(branches []*gnode, null bool) *gnode {
	var kids []*gnode
	for _, k := range branches {
		if k.kind == gAlt {
			kids = append(kids, k.kids...)
			null = null || k.null
		} else {
			kids = append(kids, k)
		}
	}
	slices.SortFunc(kids, func(a, b *gnode) int { return int(a.id - b.id) })
	kids = slices.Compact(kids)
	if len(kids) == 0 {
		return nil
	}
	if len(kids) == 1 && !null {
		return kids[0]
	}
	if phrases, ok := literalPhrases(kids); ok {
		return b.trie(phrases, null)
	}
	var key strings.Builder
	key.WriteByte('a')
	if null {
		key.WriteByte('?')
	}
	for _, k := range kids {
		key.WriteString(strconv.Itoa(int(k.id)))
		key.WriteByte(',')
	}
	if old, ok := b.shared[key.String()]; ok {
		return old
	}
	g := &gnode{kind: gAlt, kids: kids, null: null, minW: -1}
	var clause []string
	clauseOK := !null
	for _, k := range kids {
		if g.minW < 0 || k.minW < g.minW {
			g.minW = k.minW
		}
		g.lit = g.lit || k.lit
		if clauseOK {
			c := smallestClause(k.clauses)
			if c == nil {
				clauseOK = false
			} else {
				clause = append(clause, c...)
			}
		}
	}
	if null {
		g.minW = 0
	}
	if clauseOK {
		slices.Sort(clause)
		clause = slices.Compact(clause)
		if len(clause) <= maxClauseWords {
			g.clauses = [][]string{clause}
		}
	}
	return b.intern(key.String(), g)
}

// literalPhrases returns the word sequences of branches that are all
// literal words, for a trie, each joined by spaces.
func literalPhrases(kids []*gnode) ([]string, bool) {
	var out []string
	for _, k := range kids {
		switch {
		case k.kind == gWord:
			out = append(out, k.word)
		case k.kind == gTrie && !k.null:
			out = append(out, k.phrases...)
		case k.kind == gSeq:
			var p strings.Builder
			for i, w := range k.kids {
				if w.kind != gWord {
					return nil, false
				}
				if i > 0 {
					p.WriteByte(' ')
				}
				p.WriteString(w.word)
			}
			out = append(out, p.String())
		default:
			return nil, false
		}
	}
	return out, true
}

// trie compiles a choice of literal phrases, each its words joined by
// spaces. It sorts phrases in place and keeps them.
func (b *builder) trie(phrases []string, null bool) *gnode {
	joined := phrases
	slices.Sort(joined)
	joined = slices.Compact(joined)
	// A choice with an optional word of the lexicon ("(for|on)") may go
	// unsaid, as that word alone may: "the weather tomorrow" drops the
	// "for" of "the weather for tomorrow".
	opt, optWord := false, ""
	for _, j := range joined {
		if !opt && !null && b.lex != nil && b.lex.optional[j] {
			opt, optWord = true, j
		}
	}
	key := "t" + strings.Join(joined, "|")
	if null {
		key = "T" + key
	}
	if opt {
		key = "o" + key
	}
	if old, ok := b.shared[key]; ok {
		return old
	}
	g := &gnode{kind: gTrie, trie: &trieNode{}, phrases: joined, null: null, opt: opt, word: optWord, minW: -1, lit: true}
	first := map[string]bool{}
	for _, j := range joined {
		p := strings.Split(j, " ")
		g.trie.insert(p)
		g.words = append(g.words, p...)
		g.last = append(g.last, p[len(p)-1])
		first[p[0]] = true
		if g.minW < 0 || len(p) < g.minW {
			g.minW = len(p)
		}
	}
	slices.Sort(g.words)
	g.words = slices.Compact(g.words)
	slices.Sort(g.last)
	g.last = slices.Compact(g.last)
	if null || opt {
		g.minW = 0
	} else if len(first) <= maxClauseWords {
		clause := make([]string, 0, len(first))
		for w := range first {
			clause = append(clause, w)
		}
		slices.Sort(clause)
		g.clauses = [][]string{clause}
	}
	return b.intern(key, g)
}

func smallestClause(cs [][]string) []string {
	var best []string
	for _, c := range cs {
		if best == nil || len(c) < len(best) {
			best = c
		}
	}
	return best
}

func dedupeClauses(cs [][]string) [][]string {
	if len(cs) < 2 {
		return cs
	}
	seen := map[string]bool{}
	out := cs[:0:0]
	for _, c := range cs {
		k := strings.Join(c, "|")
		if !seen[k] {
			seen[k] = true
			out = append(out, c)
		}
	}
	return out
}

// slotMark is the first of the private-use runes that stand in for slots
// while a spelled-out run is normalised, so the words glued to a slot stay
// glued.
const slotMark = 0xF0000

// writeLiteral copies literal text, turning private-use runes into spaces
// so they cannot pose as slot marks; Normalize would drop them anyway.
func writeLiteral(b *strings.Builder, s string) {
	for _, r := range s {
		if unicode.Is(unicode.Co, r) {
			r = ' '
		}
		b.WriteRune(r)
	}
}

// Check validates a template as the template engine does, without
// expanding it: its syntax (GRM-01…GRM-06), its vocabularies, the sample
// checks of GRM-07 done on the structure (GRM-08, same verdicts as Expand),
// and the structure limits MaxTemplateNodes and MaxGluedForms in place of
// Expand's sample count. It also refuses a template the engine could never
// match: one without a whole literal word in any sample.
func Check(template string, vocab map[string][]string) ([]Warning, error) {
	t, err := parse(template, 1, 1)
	if err != nil {
		return nil, err
	}
	b := newBuilder(vocab, nil)
	if _, err := b.template(t); err != nil {
		return nil, err
	}
	return append(t.Warnings(), b.warnings...), nil
}
