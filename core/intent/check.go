package intent

import (
	"fmt"
	"strings"
	"unicode"
)

// The GRM-07 checks on a template's structure, without expanding it
// (GRM-08): every check below asks whether *some* expanded sample has a
// property, and a sequence's children choose their branches independently,
// so each question composes from the children's answers exactly. A
// property test holds these against the expander on random templates.

// shape is what the GRM-07 checks need to know about the samples a
// sequence, group or token can expand to.
type shape struct {
	blank   bool  // some expansion is whitespace only
	text    bool  // some expansion has non-space literal text
	first   *node // a slot some expansion starts with (after spaces), nil if none
	last    *node // a slot some expansion ends with (before spaces), nil if none
	adj     [2]*node
	hasAdj  bool             // some expansion has two slots with only spaces between
	names   map[string]*node // slot names some expansion contains, first token seen
	repeat  [2]*node         // a slot named twice in one expansion: first and second
	hasRept bool
}

// checkShape computes the shape of a sequence. Vocabulary references are
// never blank and always text: a vocabulary whose sample set holds "" is
// itself malformed, which resolving it reports.
func checkShape(seq []node) shape {
	s := shape{blank: true}
	for i := range seq {
		n := &seq[i]
		var c shape
		switch n.kind {
		case nodeText:
			if strings.TrimFunc(n.text, unicode.IsSpace) == "" {
				c = shape{blank: true}
			} else {
				c = shape{text: true}
			}
		case nodeVocab:
			c = shape{text: true}
		case nodeSlot:
			c = shape{first: n, last: n, names: map[string]*node{n.name: n}}
		case nodeGroup:
			c = groupShape(n)
		}
		s = concatShape(s, c)
	}
	return s
}

func groupShape(g *node) shape {
	var out shape
	for i, b := range g.branches {
		c := checkShape(b)
		if i == 0 {
			out = c
			continue
		}
		out.blank = out.blank || c.blank
		out.text = out.text || c.text
		if out.first == nil {
			out.first = c.first
		}
		if out.last == nil {
			out.last = c.last
		}
		if !out.hasAdj && c.hasAdj {
			out.hasAdj, out.adj = true, c.adj
		}
		if !out.hasRept && c.hasRept {
			out.hasRept, out.repeat = true, c.repeat
		}
		for name, n := range c.names {
			if out.names == nil {
				out.names = map[string]*node{}
			}
			if _, ok := out.names[name]; !ok {
				out.names[name] = n
			}
		}
	}
	return out
}

// concatShape is the shape of a followed by b. a.last and b.first are each
// reachable with the other's choice free, so "a ends with a slot and b
// starts with one" is a real sample whenever both are possible.
func concatShape(a, b shape) shape {
	out := shape{
		blank:   a.blank && b.blank,
		text:    a.text || b.text,
		hasAdj:  a.hasAdj,
		adj:     a.adj,
		hasRept: a.hasRept,
		repeat:  a.repeat,
	}
	if !out.hasAdj && b.hasAdj {
		out.hasAdj, out.adj = true, b.adj
	}
	if !out.hasAdj && a.last != nil && b.first != nil {
		out.hasAdj, out.adj = true, [2]*node{a.last, b.first}
	}
	if !out.hasRept && b.hasRept {
		out.hasRept, out.repeat = true, b.repeat
	}
	if !out.hasRept {
		for name, second := range b.names {
			if first, ok := a.names[name]; ok {
				out.hasRept, out.repeat = true, [2]*node{first, second}
				break
			}
		}
	}
	out.first = a.first
	if out.first == nil && a.blank {
		out.first = b.first
	}
	out.last = b.last
	if out.last == nil && b.blank {
		out.last = a.last
	}
	if len(a.names)+len(b.names) > 0 {
		out.names = make(map[string]*node, len(a.names)+len(b.names))
		for k, v := range a.names {
			out.names[k] = v
		}
		for k, v := range b.names {
			if _, ok := out.names[k]; !ok {
				out.names[k] = v
			}
		}
	}
	return out
}

// checkStructure applies GRM-07's sample checks to a parsed template
// structurally: an empty sample, adjacent slots, a slot named twice in
// one sample, a template of slots only. It accepts and rejects exactly
// what expansion does (GRM-08); only the size limit differs, since nothing
// is expanded (GRM-12 as a structure limit, see MaxTemplateNodes).
func checkStructure(t *Template) error {
	s := checkShape(t.nodes)
	if s.blank {
		line, col, token := startLine(t), startCol(t), t.src
		for _, n := range t.nodes {
			if n.kind != nodeText || strings.TrimFunc(n.text, unicode.IsSpace) != "" {
				line, col, token = n.line, n.col, n.token
				break
			}
		}
		return &SyntaxError{Line: line, Col: col, Token: token, Kind: ErrEmptySample,
			Msg: fmt.Sprintf("template %q can expand to an empty sample (GRM-07)", t.src)}
	}
	if s.hasAdj {
		a, b := s.adj[0], s.adj[1]
		return &SyntaxError{Line: b.line, Col: b.col, Token: b.token, Kind: ErrAdjacentSlots,
			Msg: fmt.Sprintf("slots {%s} and {%s} are adjacent in some expanded sample (GRM-07)", a.name, b.name)}
	}
	if s.hasRept {
		b := s.repeat[1]
		return &SyntaxError{Line: b.line, Col: b.col, Token: b.token, Kind: ErrRepeatedSlot,
			Msg: fmt.Sprintf("slot {%s} appears twice in some expanded sample (GRM-07)", b.name)}
	}
	if !s.text && len(t.slots) > 0 {
		sl := t.slots[0]
		return &SyntaxError{Line: sl.Line, Col: sl.Col, Token: "{" + sl.Name + "}", Kind: ErrSlotOnly,
			Msg: fmt.Sprintf("template %q has only slots and no words (GRM-07)", t.src)}
	}
	return nil
}
