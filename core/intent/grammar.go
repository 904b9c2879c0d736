package intent

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/openjibo/jibod/internal/textcheck"
)

// Grammar limits. They bound the work and memory one template can cost
// before anything is expanded.
const (
	// MaxTemplateBytes is the longest template Parse accepts.
	MaxTemplateBytes = 4096
	// MaxNesting is the deepest nesting of ( ) and [ ] groups Parse accepts.
	MaxNesting = 32
)

// registeredSlotTypes are the typed-slot prefixes GRM-05 names. Others are
// accepted as plain slots with a warning.
var registeredSlotTypes = []string{"color", "date", "duration", "language", "number"}

// IsRegisteredSlotType reports whether t is one of the typed-slot prefixes
// GRM-05 registers: number, duration, date, color, language.
func IsRegisteredSlotType(t string) bool {
	_, ok := slices.BinarySearch(registeredSlotTypes, t)
	return ok
}

// Slot is one slot token of a template.
type Slot struct {
	Name string // bare name, type prefix stripped (GRM-05)
	Type string // typed-slot prefix, "" for an untyped slot
	Line int
	Col  int
}

// Template is a parsed template: the token tree plus what a loader needs to
// know about it without expanding it.
type Template struct {
	src      string
	nodes    []node
	slots    []Slot
	refs     []node // vocabulary references in source order
	warnings []Warning
}

// String returns the template as written.
func (t *Template) String() string { return t.src }

// Slots returns every slot token in source order, typed ones with their
// type.
func (t *Template) Slots() []Slot { return slices.Clone(t.slots) }

// SlotNames returns the distinct bare slot names the template declares,
// sorted. "[{x}]", "{x}" and "{number:x}" all declare "x" (GRM-16).
func (t *Template) SlotNames() []string {
	names := make([]string, 0, len(t.slots))
	for _, s := range t.slots {
		names = append(names, s.Name)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// VocabRefs returns the distinct vocabulary names referenced as <name>,
// sorted.
func (t *Template) VocabRefs() []string {
	names := make([]string, 0, len(t.refs))
	for _, r := range t.refs {
		names = append(names, r.name)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// Warnings returns what Parse accepted but flagged: single-branch groups
// (GRM-03), empty optionals and unregistered slot types (GRM-05).
func (t *Template) Warnings() []Warning { return slices.Clone(t.warnings) }

// ElementKind is what one element of a parsed template is.
type ElementKind uint8

// The kinds of Element.
const (
	ElementText  ElementKind = iota // literal text
	ElementSlot                     // {name} or {type:name}
	ElementVocab                    // <name>
	ElementGroup                    // (a|b) or [a]
)

// Element is one element of a parsed template, for readers that need its
// structure (the paraphrase tier's sampler) without parsing it again.
type Element struct {
	Kind ElementKind
	// Text is a text element's literal text, as written.
	Text string
	// Name is a slot's bare name or a vocabulary's name.
	Name string
	// Type is a slot's type prefix as written, "" for none.
	Type string
	// Branches are a group's alternative sequences; an optional [x] is
	// the group (x|), with an empty last branch (§3.2 step 3).
	Branches [][]Element
}

// Elements returns the template's structure, a copy the caller owns.
func (t *Template) Elements() []Element { return elements(t.nodes) }

func elements(seq []node) []Element {
	if seq == nil {
		return nil
	}
	out := make([]Element, len(seq))
	for i, n := range seq {
		e := Element{Kind: ElementKind(n.kind), Text: n.text, Name: n.name, Type: n.typ}
		if n.kind == nodeGroup {
			e.Branches = make([][]Element, len(n.branches))
			for j, b := range n.branches {
				e.Branches[j] = elements(b)
			}
		}
		out[i] = e
	}
	return out
}

type nodeKind uint8

// The node kinds are the element kinds (Elements converts one to the
// other).
const (
	nodeText  = nodeKind(ElementText)
	nodeSlot  = nodeKind(ElementSlot)
	nodeVocab = nodeKind(ElementVocab)
	nodeGroup = nodeKind(ElementGroup)
)

// node is one element of a sequence: literal text, a slot, a vocabulary
// reference, or a group whose branches are sequences. Optionals are groups
// with an extra empty branch, exactly as §3.2 step 3 rewrites them.
type node struct {
	kind     nodeKind
	text     string // literal text
	name     string // bare slot name or vocabulary name
	typ      string // slot type prefix
	line     int
	col      int
	token    string // the token as written, for errors
	branches [][]node
}

// Parse parses one template on line 1. It checks everything that can be
// checked without vocabularies or expansion: brackets, names, empty groups,
// length and nesting.
func Parse(template string) (*Template, error) {
	return parse(template, 1, 1)
}

// ParseAt parses a template whose first rune sits at line and col (both
// 1-based, col in runes) of a resource file, so errors and warnings point
// into that file.
func ParseAt(template string, line, col int) (*Template, error) {
	return parse(template, line, col)
}

func isStructural(r rune) bool {
	switch r {
	case '(', ')', '[', ']', '{', '}', '<', '>', '|':
		return true
	}
	return false
}

// validName reports whether s matches ^[a-z_][a-z0-9_]*$ (GRM-04).
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || (c >= 'a' && c <= 'z'):
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

type frame struct {
	open     rune
	line     int
	col      int
	start    int // rune index of the opener
	branches [][]node
	cur      []node
}

type parser struct {
	src   []rune
	line0 int
	col0  int
	nl    []int // rune indexes of newlines, usually none
	t     *Template
}

// pos returns the line and column of rune i; i may be len(src), just past
// the end.
func (p *parser) pos(i int) (line, col int) {
	n, _ := slices.BinarySearch(p.nl, i) // newlines before rune i
	if n == 0 {
		return p.line0, p.col0 + i
	}
	return p.line0 + n, i - p.nl[n-1]
}

func (p *parser) errAt(i int, kind error, token, format string, args ...any) *SyntaxError {
	line, col := p.pos(i)
	return &SyntaxError{Line: line, Col: col, Token: token, Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) warnAt(i int, format string, args ...any) {
	line, col := p.pos(i)
	p.t.warnings = append(p.t.warnings, Warning{Line: line, Col: col, Msg: fmt.Sprintf(format, args...)})
}

// parse parses src whose first rune sits at line, col of its file.
func parse(src string, line, col int) (*Template, error) {
	if line < 1 {
		line = 1
	}
	if col < 1 {
		col = 1
	}
	if len(src) > MaxTemplateBytes {
		return nil, &SyntaxError{Line: line, Col: col, Kind: ErrTooLarge,
			Msg: fmt.Sprintf("template is %d bytes, limit is %d", len(src), MaxTemplateBytes)}
	}
	if !utf8.ValidString(src) {
		off := 0
		for off < len(src) {
			r, n := utf8.DecodeRuneInString(src[off:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			off += n
		}
		return nil, &SyntaxError{Line: line, Col: col + utf8.RuneCountInString(src[:off]), Kind: ErrEncoding,
			Msg: "template is not valid UTF-8"}
	}
	p := &parser{src: []rune(src), line0: line, col0: col, t: &Template{src: src}}
	for i, r := range p.src {
		if r == '\n' {
			p.nl = append(p.nl, i)
		}
	}
	// What is matched and spoken must read as it looks.
	var te *textcheck.Error
	if err := textcheck.Text(src); errors.As(err, &te) {
		return nil, p.errAt(utf8.RuneCountInString(src[:te.Offset]), ErrControl, "", "template contains %s", te.Problem())
	}
	nodes, err := p.run()
	if err != nil {
		return nil, err
	}
	p.t.nodes = nodes
	return p.t, nil
}

func (p *parser) run() ([]node, error) {
	stack := []*frame{{}}
	var text strings.Builder
	textStart := -1
	flush := func() {
		if textStart >= 0 {
			top := stack[len(stack)-1]
			line, col := p.pos(textStart)
			top.cur = append(top.cur, node{kind: nodeText, text: text.String(), line: line, col: col})
			text.Reset()
			textStart = -1
		}
	}
	for i := 0; i < len(p.src); i++ {
		r := p.src[i]
		if !isStructural(r) {
			if textStart < 0 {
				textStart = i
			}
			text.WriteRune(r)
			continue
		}
		flush()
		top := stack[len(stack)-1]
		switch r {
		case '(', '[':
			if len(stack) > MaxNesting {
				return nil, p.errAt(i, ErrTooLarge, string(r), "groups nested more than %d deep", MaxNesting)
			}
			line, col := p.pos(i)
			stack = append(stack, &frame{open: r, line: line, col: col, start: i})
		case '|':
			if len(stack) == 1 {
				return nil, p.errAt(i, ErrUnbalanced, "|", "'|' outside any group")
			}
			top.branches = append(top.branches, top.cur)
			top.cur = nil
		case ')', ']':
			want := opener(r)
			if len(stack) == 1 {
				return nil, p.errAt(i, ErrUnbalanced, string(r), "'%c' without a matching '%c'", r, want)
			}
			if top.open != want {
				return nil, p.errAt(i, ErrUnbalanced, string(r), "'%c' closes the '%c' opened at line %d col %d",
					r, top.open, top.line, top.col)
			}
			stack = stack[:len(stack)-1]
			g, err := p.closeGroup(top, i)
			if err != nil {
				return nil, err
			}
			parent := stack[len(stack)-1]
			parent.cur = append(parent.cur, g)
		case '{':
			n, next, err := p.slot(i)
			if err != nil {
				return nil, err
			}
			top.cur = append(top.cur, n)
			i = next - 1
		case '<':
			n, next, err := p.vocabRef(i)
			if err != nil {
				return nil, err
			}
			top.cur = append(top.cur, n)
			i = next - 1
		case '}', '>':
			return nil, p.errAt(i, ErrUnbalanced, string(r), "'%c' without a matching '%c'", r, opener(r))
		}
	}
	flush()
	if len(stack) > 1 {
		top := stack[len(stack)-1]
		closer := ')'
		if top.open == '[' {
			closer = ']'
		}
		return nil, p.errAt(top.start, ErrUnbalanced, string(top.open), "'%c' is never closed by '%c'", top.open, closer)
	}
	return stack[0].cur, nil
}

// unnormalisedText returns the first literal text of the template that
// Normalize would change, beyond collapsing spaces: text breaking GRM-02 in
// an input-direction template.
func (t *Template) unnormalisedText() (node, bool) {
	var walk func([]node) (node, bool)
	walk = func(seq []node) (node, bool) {
		for _, n := range seq {
			switch n.kind {
			case nodeText:
				if Normalize(n.text) != strings.Join(strings.Fields(n.text), " ") {
					return n, true
				}
			case nodeGroup:
				for _, b := range n.branches {
					if bad, ok := walk(b); ok {
						return bad, true
					}
				}
			}
		}
		return node{}, false
	}
	return walk(t.nodes)
}

// opener returns the bracket that a closing bracket r closes.
func opener(r rune) rune {
	switch r {
	case ')':
		return '('
	case ']':
		return '['
	case '}':
		return '{'
	default:
		return '<'
	}
}

// blank reports whether a branch contributes only whitespace.
func blank(seq []node) bool {
	for _, n := range seq {
		if n.kind != nodeText || strings.TrimFunc(n.text, unicode.IsSpace) != "" {
			return false
		}
	}
	return true
}

func (p *parser) closeGroup(f *frame, end int) (node, error) {
	branches := append(f.branches, f.cur)
	token := string(p.src[f.start : end+1])
	g := node{kind: nodeGroup, line: f.line, col: f.col, token: token}
	if f.open == '[' {
		if len(branches) == 1 && blank(branches[0]) {
			p.warnAt(f.start, "empty optional %q has no effect", token)
		}
		// [x] is exactly (x|) (§3.2 step 3).
		g.branches = append(branches, nil)
		return g, nil
	}
	if len(branches) == 1 {
		if blank(branches[0]) {
			return node{}, p.errAt(f.start, ErrEmptyGroup, token, "empty group %q (GRM-03)", token)
		}
		p.warnAt(f.start, "group %q has a single branch; read as its content (GRM-03)", token)
	}
	g.branches = branches
	return g, nil
}

// scanName returns the index of the first structural rune at or after i,
// or len(src).
func (p *parser) scanName(i int) int {
	for i < len(p.src) && !isStructural(p.src[i]) {
		i++
	}
	return i
}

// slot parses a slot token starting at the '{' at i and returns the node and
// the index just past the token.
func (p *parser) slot(i int) (node, int, error) {
	double := i+1 < len(p.src) && p.src[i+1] == '{'
	start := i + 1
	if double {
		start++
	}
	end := p.scanName(start)
	if end >= len(p.src) || p.src[end] != '}' {
		return node{}, 0, p.errAt(i, ErrUnbalanced, "{", "'{' is never closed by '}'")
	}
	next := end + 1
	if double {
		if next >= len(p.src) || p.src[next] != '}' {
			return node{}, 0, p.errAt(i, ErrUnbalanced, string(p.src[i:next]), "'{{' closed by a single '}'")
		}
		next++
	}
	token := string(p.src[i:next])
	content := string(p.src[start:end])
	typ, name, typed := strings.Cut(content, ":")
	if !typed {
		name, typ = typ, ""
	}
	switch {
	case strings.IndexFunc(content, unicode.IsSpace) >= 0:
		return node{}, 0, p.errAt(i, ErrBadName, token, "slot %s has whitespace inside the braces (GRM-04)", token)
	case typed && !validName(typ):
		return node{}, 0, p.errAt(i, ErrBadName, token, "slot type %q in %s must match [a-z_][a-z0-9_]* (GRM-05)", typ, token)
	case !validName(name):
		return node{}, 0, p.errAt(i, ErrBadName, token, "slot name %q in %s must match [a-z_][a-z0-9_]* (GRM-04)", name, token)
	}
	if typed && !IsRegisteredSlotType(typ) {
		p.warnAt(i, "slot type %q in %s is not registered; read as {%s} (GRM-05)", typ, token, name)
	}
	line, col := p.pos(i)
	n := node{kind: nodeSlot, name: name, typ: typ, line: line, col: col, token: token}
	p.t.slots = append(p.t.slots, Slot{Name: name, Type: typ, Line: n.line, Col: n.col})
	return n, next, nil
}

// vocabRef parses a <name> token starting at i.
func (p *parser) vocabRef(i int) (node, int, error) {
	end := p.scanName(i + 1)
	if end >= len(p.src) || p.src[end] != '>' {
		return node{}, 0, p.errAt(i, ErrUnbalanced, "<", "'<' is never closed by '>'")
	}
	token := string(p.src[i : end+1])
	name := string(p.src[i+1 : end])
	if !validName(name) {
		return node{}, 0, p.errAt(i, ErrBadName, token, "vocabulary name %q in %s must match [a-z_][a-z0-9_]* (GRM-06)", name, token)
	}
	line, col := p.pos(i)
	n := node{kind: nodeVocab, name: name, line: line, col: col, token: token}
	p.t.refs = append(p.t.refs, n)
	return n, end + 1, nil
}
