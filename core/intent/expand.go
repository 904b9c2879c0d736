package intent

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// DefaultMaxSamples is the expansion limit when ExpandOptions leaves it
// zero: the most strings one template may produce before deduplication
// (GRM-12).
const DefaultMaxSamples = 10_000

// ExpandOptions tunes Expand.
type ExpandOptions struct {
	// MaxSamples caps the number of strings expansion would produce before
	// deduplication, checked before anything is expanded. For groups that
	// are not nested this is the product of their branch counts (GRM-12).
	// Zero means DefaultMaxSamples.
	MaxSamples int
	// Line and Col place the template in its file for error positions
	// (1-based, Col in runes). Zero means 1. (*Template).Expand ignores
	// them: a parsed template already knows where it is.
	Line int
	Col  int
}

func (o ExpandOptions) limit() int {
	if o.MaxSamples <= 0 {
		return DefaultMaxSamples
	}
	return o.MaxSamples
}

// Expand parses template and returns its sample set (§3.2): sorted, unique,
// whitespace-normalised, with every slot written as a bare {name} (GRM-11).
// vocab maps a vocabulary name to its templates, for <name> references
// (GRM-06); it may be nil. Warnings report accepted oddities such as a
// single-branch group (GRM-03). A malformed template (GRM-07) returns a
// *SyntaxError naming what is wrong and where.
func Expand(template string, vocab map[string][]string, opts ExpandOptions) ([]string, []Warning, error) {
	t, err := parse(template, opts.Line, opts.Col)
	if err != nil {
		return nil, nil, err
	}
	return t.Expand(vocab, opts)
}

// Expand returns the template's sample set; see the package-level Expand.
func (t *Template) Expand(vocab map[string][]string, opts ExpandOptions) ([]string, []Warning, error) {
	e := newExpander(vocab, opts.limit())
	samples, err := e.expand(t)
	if err != nil {
		return nil, nil, err
	}
	return samples, append(t.Warnings(), e.warnings...), nil
}

// expander expands templates against one vocabulary map, remembering each
// vocabulary's sample set so a vocabulary is expanded once however often it
// is referenced.
type expander struct {
	vocab    map[string][]string
	limit    int
	memo     map[string]vocabResult
	active   []string // vocabularies being expanded, outermost first
	warnings []Warning
	// where places vocabulary template i of name in its file, for errors;
	// nil names it "<name>[i+1]".
	where func(name string, i int) (file string, line, col int)
}

type vocabResult struct {
	samples []string
	err     error
}

func newExpander(vocab map[string][]string, limit int) *expander {
	return &expander{vocab: vocab, limit: limit, memo: map[string]vocabResult{}}
}

// cycleError carries a reference cycle up to the template that started it.
type cycleError struct{ chain []string }

func (c *cycleError) Error() string {
	parts := make([]string, len(c.chain))
	for i, n := range c.chain {
		parts[i] = "<" + n + ">"
	}
	return "cyclic vocabulary reference " + strings.Join(parts, " → ")
}

// undefinedError reports a missing vocabulary up to the referencing token.
type undefinedError struct{ name string }

func (u *undefinedError) Error() string { return fmt.Sprintf("vocabulary <%s> is not defined", u.name) }

// samplesOf returns the sample set of vocabulary name: the union of its
// templates' expansions (§3.2 step 1).
func (e *expander) samplesOf(name string) ([]string, error) {
	if r, ok := e.memo[name]; ok {
		return r.samples, r.err
	}
	if i := slices.Index(e.active, name); i >= 0 {
		chain := append(slices.Clone(e.active[i:]), name)
		return nil, &cycleError{chain: chain}
	}
	templates, ok := e.vocab[name]
	if !ok {
		return nil, &undefinedError{name: name}
	}
	e.active = append(e.active, name)
	samples, err := e.expandVocab(name, templates)
	e.active = e.active[:len(e.active)-1]
	e.memo[name] = vocabResult{samples: samples, err: err}
	return samples, err
}

func (e *expander) expandVocab(name string, templates []string) ([]string, error) {
	if len(templates) == 0 {
		return nil, fmt.Errorf("vocabulary <%s> has no templates", name)
	}
	var all []string
	for i, src := range templates {
		t, at, err := parseVocabTemplate(e.where, name, i, src)
		if err != nil {
			return nil, err
		}
		samples, err := e.expand(t)
		if err != nil {
			return nil, atFile(err, at.file)
		}
		e.warnings = append(e.warnings, withFile(t.Warnings(), at.file)...)
		all = append(all, samples...)
		if len(all) > e.limit {
			return nil, &SyntaxError{File: at.file, Line: at.line, Col: at.col, Kind: ErrTooLarge,
				Msg: fmt.Sprintf("vocabulary <%s> has more than %d samples (GRM-12)", name, e.limit)}
		}
	}
	slices.Sort(all)
	return slices.Compact(all), nil
}

// templatePlace is where a vocabulary template starts in its file.
type templatePlace struct {
	file      string
	line, col int
}

// parseVocabTemplate parses template i of vocabulary name, placed in its
// file by where (nil names it "<name>[i+1]"), and refuses a slot in it
// (GRM-06). It also returns the place, for errors found further on.
func parseVocabTemplate(where func(name string, i int) (file string, line, col int), name string, i int, src string) (*Template, templatePlace, error) {
	at := templatePlace{fmt.Sprintf("<%s>[%d]", name, i+1), 1, 1}
	if where != nil {
		at.file, at.line, at.col = where(name, i)
	}
	t, err := parse(src, at.line, at.col)
	if err != nil {
		return nil, at, atFile(err, at.file)
	}
	if len(t.slots) > 0 {
		s := t.slots[0]
		return nil, at, &SyntaxError{File: at.file, Line: s.Line, Col: s.Col, Token: "{" + s.Name + "}", Kind: ErrSlotInVocab,
			Msg: fmt.Sprintf("vocabulary <%s> template %q has slot {%s}; vocabularies are slot-free (GRM-06)", name, src, s.Name)}
	}
	return t, at, nil
}

// atFile sets File on a *SyntaxError that has none, so errors inside a
// vocabulary template name the entry.
func atFile(err error, file string) error {
	var se *SyntaxError
	if errors.As(err, &se) && se.File == "" {
		se.File = file
	}
	return err
}

// resolve gives the samples of each vocabulary reference t makes.
func (e *expander) resolve(t *Template) (map[string][]string, error) {
	resolved := make(map[string][]string, len(t.refs))
	for _, ref := range t.refs {
		if _, done := resolved[ref.name]; done {
			continue
		}
		samples, err := e.samplesOf(ref.name)
		if err != nil {
			return nil, refError(ref, err)
		}
		resolved[ref.name] = samples
	}
	return resolved, nil
}

// expand runs §3.2 on a parsed template.
func (e *expander) expand(t *Template) ([]string, error) {
	resolved, err := e.resolve(t)
	if err != nil {
		return nil, err
	}
	n := countSeq(t.nodes, resolved, e.limit)
	if n > e.limit {
		return nil, &SyntaxError{Line: startLine(t), Col: startCol(t), Kind: ErrTooLarge,
			Msg: fmt.Sprintf("template expands to more than %d samples (GRM-12)", e.limit)}
	}
	return finish(t, n, func(yield func([]piece)) {
		en := enumerator{resolved: resolved, yield: yield}
		en.walk(t.nodes, nil)
	})
}

// check accepts and refuses t exactly as expand does, without enumerating
// its samples: its vocabulary references resolve, its sample count is
// within the limit, and checkStructure's GRM-07 checks hold (GRM-08).
func (e *expander) check(t *Template) error {
	resolved, err := e.resolve(t)
	if err != nil {
		return err
	}
	if n := countSeq(t.nodes, resolved, e.limit); n > e.limit {
		return &SyntaxError{Line: startLine(t), Col: startCol(t), Kind: ErrTooLarge,
			Msg: fmt.Sprintf("template expands to more than %d samples (GRM-12)", e.limit)}
	}
	return checkStructure(t)
}

func startLine(t *Template) int {
	if len(t.nodes) > 0 {
		return t.nodes[0].line
	}
	return 1
}

func startCol(t *Template) int {
	if len(t.nodes) > 0 {
		return t.nodes[0].col
	}
	return 1
}

// refError reports a vocabulary failure at the <name> token that needed it.
func refError(ref node, err error) error {
	se := &SyntaxError{Line: ref.line, Col: ref.col, Token: ref.token}
	var cyc *cycleError
	var undef *undefinedError
	var inner *SyntaxError
	switch {
	case errors.As(err, &cyc):
		se.Kind, se.Msg = ErrVocabCycle, cyc.Error()+" (GRM-07)"
	case errors.As(err, &undef):
		se.Kind, se.Msg = ErrUndefinedVocab, undef.Error()+" (GRM-07)"
	case errors.As(err, &inner) && (inner.Kind == ErrSlotInVocab || inner.Kind == ErrVocabCycle):
		// Flattened: the cycle's chain or the offending entry says it all.
		se.Kind, se.Msg = inner.Kind, inner.Msg
	default:
		se.Kind, se.Msg, se.Err = ErrBadVocab, fmt.Sprintf("vocabulary %s is malformed", ref.token), err
	}
	return se
}

// countSeq returns how many strings a sequence expands to before
// deduplication, saturating just above limit so it never overflows.
func countSeq(seq []node, resolved map[string][]string, limit int) int {
	total := 1
	for _, n := range seq {
		c := 1
		switch n.kind {
		case nodeVocab:
			c = len(resolved[n.name])
		case nodeGroup:
			c = 0
			for _, b := range n.branches {
				c += countSeq(b, resolved, limit)
				if c > limit {
					c = limit + 1
					break
				}
			}
		}
		if c > 0 && total > limit/c {
			return limit + 1
		}
		total *= c
	}
	return total
}

// piece is one part of a sample under construction: literal text, or a slot
// (slot points at its token for error positions).
type piece struct {
	text string
	slot *node
}

// build expands a sequence into every combination of its groups' branches
// (§3.2 steps 3 and 4). Substitution is textual, so a group inside a word
// joins the word (light[s] gives "light" and "lights").
func build(seq []node, resolved map[string][]string) [][]piece {
	out := [][]piece{nil}
	for i := range seq {
		n := &seq[i]
		switch n.kind {
		case nodeText:
			for j := range out {
				out[j] = append(out[j], piece{text: n.text})
			}
		case nodeSlot:
			for j := range out {
				out[j] = append(out[j], piece{slot: n})
			}
		case nodeVocab:
			alts := make([][]piece, len(resolved[n.name]))
			for j, s := range resolved[n.name] {
				alts[j] = []piece{{text: s}}
			}
			out = product(out, alts)
		case nodeGroup:
			var alts [][]piece
			for _, b := range n.branches {
				alts = append(alts, build(b, resolved)...)
			}
			out = product(out, alts)
		}
	}
	return out
}

func product(heads, tails [][]piece) [][]piece {
	out := make([][]piece, 0, len(heads)*len(tails))
	for _, h := range heads {
		for _, t := range tails {
			c := make([]piece, 0, len(h)+len(t))
			c = append(append(c, h...), t...)
			out = append(out, c)
		}
	}
	return out
}

// enumerator lists the combinations build would, in the same order, one
// at a time in a single buffer: a template's samples are rendered and
// deduplicated as they come, without the lists of pieces build makes.
type enumerator struct {
	resolved map[string][]string
	buf      []piece
	// yield is called with each combination; the slice is reused.
	yield func([]piece)
}

// walk appends seq's pieces to buf, every branch and vocabulary sample in
// turn, and then runs k (nil: yield).
func (en *enumerator) walk(seq []node, k func()) {
	if len(seq) == 0 {
		if k != nil {
			k()
		} else {
			en.yield(en.buf)
		}
		return
	}
	n, rest := &seq[0], seq[1:]
	mark := len(en.buf)
	switch n.kind {
	case nodeText:
		en.buf = append(en.buf, piece{text: n.text})
		en.walk(rest, k)
	case nodeSlot:
		en.buf = append(en.buf, piece{slot: n})
		en.walk(rest, k)
	case nodeVocab:
		for _, s := range en.resolved[n.name] {
			en.buf = append(en.buf[:mark], piece{text: s})
			en.walk(rest, k)
		}
	case nodeGroup:
		next := func() { en.walk(rest, k) }
		for _, b := range n.branches {
			en.buf = en.buf[:mark]
			en.walk(b, next)
		}
	}
	en.buf = en.buf[:mark]
}

// rendered is one sample string and what the GRM-07 checks need to know.
type rendered struct {
	text     string
	hasText  bool  // some non-space literal text
	adjacent *node // second slot of the first adjacent pair
	repeated *node // second occurrence of the first repeated slot
	prev     *node // the slot adjacent or repeated is paired with
}

// render joins pieces with whitespace collapsed and trimmed (§3.2 step 5)
// and slots written bare (GRM-11), into b; seen is scratch space. Text is
// left for the caller to set from b.
func render(ps []piece, b []byte, seen []*node) (rendered, []byte, []*node) {
	var r rendered
	space := false
	var lastSlot *node // set while only spaces follow the last slot
	for _, p := range ps {
		if p.slot != nil {
			if len(b) > 0 && space {
				b = append(b, ' ')
			}
			space = false
			if lastSlot != nil && r.adjacent == nil {
				r.adjacent, r.prev = p.slot, lastSlot
			}
			for _, s := range seen {
				if s.name == p.slot.name && r.repeated == nil {
					r.repeated = p.slot
					if r.adjacent == nil {
						r.prev = s
					}
				}
			}
			seen = append(seen, p.slot)
			b = append(b, '{')
			b = append(b, p.slot.name...)
			b = append(b, '}')
			lastSlot = p.slot
			continue
		}
		for _, c := range p.text {
			if unicode.IsSpace(c) {
				space = len(b) > 0
				continue
			}
			if space {
				b = append(b, ' ')
				space = false
			}
			b = utf8.AppendRune(b, c)
			r.hasText = true
			lastSlot = nil
		}
	}
	return r, b, seen
}

// finish renders, deduplicates and sorts the samples seqs lists (at
// most n) (§3.2 steps 5 and 6)
// and applies the GRM-07 checks to the result.
func finish(t *Template, n int, seqs func(yield func([]piece))) ([]string, error) {
	byText := make(map[string]rendered, n)
	var text []byte
	var seen []*node
	seqs(func(ps []piece) {
		var r rendered
		r, text, seen = render(ps, text[:0], seen[:0])
		if _, dup := byText[string(text)]; !dup {
			r.text = string(text)
			byText[r.text] = r
		}
	})
	samples := make([]string, 0, len(byText))
	for s := range byText {
		samples = append(samples, s)
	}
	slices.Sort(samples)
	if len(samples) > 0 && samples[0] == "" {
		line, col, token := startLine(t), startCol(t), t.src
		for _, n := range t.nodes {
			if n.kind != nodeText || strings.TrimFunc(n.text, unicode.IsSpace) != "" {
				line, col, token = n.line, n.col, n.token
				break
			}
		}
		return nil, &SyntaxError{Line: line, Col: col, Token: token, Kind: ErrEmptySample,
			Msg: fmt.Sprintf("template %q can expand to an empty sample (GRM-07)", t.src)}
	}
	slotOnly := true
	for _, s := range samples {
		r := byText[s]
		if r.adjacent != nil {
			return nil, &SyntaxError{Line: r.adjacent.line, Col: r.adjacent.col, Token: r.adjacent.token, Kind: ErrAdjacentSlots,
				Msg: fmt.Sprintf("slots {%s} and {%s} are adjacent in sample %q (GRM-07)", r.prev.name, r.adjacent.name, s)}
		}
		if r.repeated != nil {
			return nil, &SyntaxError{Line: r.repeated.line, Col: r.repeated.col, Token: r.repeated.token, Kind: ErrRepeatedSlot,
				Msg: fmt.Sprintf("slot {%s} appears twice in sample %q (GRM-07)", r.repeated.name, s)}
		}
		slotOnly = slotOnly && !r.hasText
	}
	if slotOnly && len(t.slots) > 0 {
		s := t.slots[0]
		return nil, &SyntaxError{Line: s.Line, Col: s.Col, Token: "{" + s.Name + "}", Kind: ErrSlotOnly,
			Msg: fmt.Sprintf("template %q has only slots and no words (GRM-07)", t.src)}
	}
	return samples, nil
}
