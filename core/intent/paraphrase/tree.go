package paraphrase

import (
	"fmt"
	"strings"

	"github.com/openjibo/jibod/core/intent"
)

// kind is what one element of a template is.
type kind uint8

const (
	kText kind = iota
	kSlot
	kVocab
	kGroup
)

// elem is one element of a parsed template: literal text, a slot, a
// vocabulary reference, or a group of alternative sequences. An optional
// [x] is the group (x|), as OVOS-INTENT-1 §3.2 rewrites it.
type elem struct {
	kind     kind
	text     string // literal text
	name     string // slot or vocabulary name
	typ      string // slot type prefix ("duration" in {duration:d})
	branches [][]elem
}

// parseTemplate checks a template with the grammar's own parser, so a bad
// one gets the same error as anywhere else, then reads its structure. The
// sampler needs the structure, which core/intent keeps to itself.
func parseTemplate(src string) ([]elem, error) {
	if _, err := intent.Parse(src); err != nil {
		return nil, err
	}
	p := treeParser{src: []rune(src)}
	seq, err := p.seq(0)
	if err != nil {
		return nil, fmt.Errorf("template %q: %w", src, err)
	}
	if p.i != len(p.src) {
		return nil, fmt.Errorf("template %q: unexpected %q at rune %d", src, p.src[p.i], p.i+1)
	}
	return seq, nil
}

type treeParser struct {
	src []rune
	i   int
}

// seq reads elements up to a '|', a closing bracket or the end. The
// grammar's parser has already checked balance and names, so the errors
// here only guard against the two parsers disagreeing.
func (p *treeParser) seq(depth int) ([]elem, error) {
	if depth > intent.MaxNesting+1 {
		return nil, fmt.Errorf("nested too deep")
	}
	var out []elem
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			out = append(out, elem{kind: kText, text: text.String()})
			text.Reset()
		}
	}
	for p.i < len(p.src) {
		r := p.src[p.i]
		switch r {
		case '|', ')', ']':
			flush()
			return out, nil
		case '(', '[':
			flush()
			p.i++
			g, err := p.group(r, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, g)
		case '{':
			flush()
			e, err := p.slot()
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		case '<':
			flush()
			j := p.until('>')
			if j < 0 {
				return nil, fmt.Errorf("'<' never closed")
			}
			out = append(out, elem{kind: kVocab, name: string(p.src[p.i+1 : j])})
			p.i = j + 1
		default:
			text.WriteRune(r)
			p.i++
		}
	}
	flush()
	return out, nil
}

func (p *treeParser) group(open rune, depth int) (elem, error) {
	g := elem{kind: kGroup}
	closer := ')'
	if open == '[' {
		closer = ']'
	}
	for {
		b, err := p.seq(depth)
		if err != nil {
			return elem{}, err
		}
		g.branches = append(g.branches, b)
		if p.i >= len(p.src) {
			return elem{}, fmt.Errorf("'%c' never closed", open)
		}
		r := p.src[p.i]
		p.i++
		if r == '|' {
			continue
		}
		if r != closer {
			return elem{}, fmt.Errorf("'%c' closed by '%c'", open, r)
		}
		break
	}
	if open == '[' {
		g.branches = append(g.branches, nil)
	}
	return g, nil
}

func (p *treeParser) slot() (elem, error) {
	braces := 1
	if p.i+1 < len(p.src) && p.src[p.i+1] == '{' {
		braces = 2 // {{name}}
	}
	j := p.until('}')
	if j < 0 {
		return elem{}, fmt.Errorf("'{' never closed")
	}
	content := string(p.src[p.i+braces : j])
	p.i = min(j+braces, len(p.src))
	typ, name, typed := strings.Cut(content, ":")
	if !typed {
		name, typ = typ, ""
	}
	if !intent.IsRegisteredSlotType(typ) {
		typ = "" // GRM-05: an unregistered type reads as a plain slot
	}
	return elem{kind: kSlot, name: name, typ: typ}, nil
}

// until returns the index of the first r at or after p.i, or -1.
func (p *treeParser) until(r rune) int {
	for j := p.i; j < len(p.src); j++ {
		if p.src[j] == r {
			return j
		}
	}
	return -1
}
