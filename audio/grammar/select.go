package grammar

import (
	"strings"
)

// DefaultSentences is how many sentences one intent gets at most
// (Options.Sentences): enough for every one-change sentence (choices) of
// nearly every intent, since a cap that ends the templates' turns early
// leaves out the later templates' wordings, which the grammar then forces
// onto another intent's sentence.
const DefaultSentences = 120

// A template is read here only to choose among its alternatives; Expand
// has checked it before.
type tnode struct {
	text     string
	branches [][]tnode // a group's; nil for text
}

// parseTemplate reads a template's text and groups. An optional group
// [a|b] is the group (|a|b): its first branch says nothing. Slots and
// vocabulary references are text here.
func parseTemplate(tpl string) []tnode {
	r := []rune(tpl)
	var seq func(i int) ([]tnode, int)
	seq = func(i int) ([]tnode, int) {
		var out []tnode
		var text strings.Builder
		flush := func() {
			if text.Len() > 0 {
				out = append(out, tnode{text: text.String()})
				text.Reset()
			}
		}
		for i < len(r) {
			switch c := r[i]; c {
			case '|', ')', ']':
				flush()
				return out, i
			case '(', '[':
				flush()
				var g tnode
				if c == '[' {
					g.branches = append(g.branches, nil)
				}
				for i++; ; i++ {
					b, j := seq(i)
					g.branches = append(g.branches, b)
					i = j
					if i >= len(r) || r[i] != '|' {
						break
					}
				}
				out = append(out, g)
				i++ // the closer
			case '{', '<':
				closer := map[rune]rune{'{': '}', '<': '>'}[c]
				for i < len(r) && r[i] != closer {
					text.WriteRune(r[i])
					i++
				}
				if i < len(r) {
					text.WriteRune(r[i])
					i++
				}
			default:
				text.WriteRune(c)
				i++
			}
		}
		flush()
		return out, i
	}
	out, _ := seq(0)
	return out
}

// groups lists the groups of seq in reading order, each with the
// alternatives of the groups around it that lead to it.
func groups(seq []tnode, path map[*tnode]int, out *[]*tnode, paths *[]map[*tnode]int) {
	for i := range seq {
		n := &seq[i]
		if n.branches == nil {
			continue
		}
		*out = append(*out, n)
		*paths = append(*paths, path)
		for b := range n.branches {
			inner := make(map[*tnode]int, len(path)+1)
			for k, v := range path {
				inner[k] = v
			}
			inner[n] = b
			groups(n.branches[b], inner, out, paths)
		}
	}
}

// renderPick writes seq with each group's alternative pick[group], 0 when
// not picked.
func renderPick(seq []tnode, pick map[*tnode]int, sb *strings.Builder) {
	for i := range seq {
		n := &seq[i]
		if n.branches == nil {
			sb.WriteString(n.text)
			continue
		}
		renderPick(n.branches[pick[n]], pick, sb)
	}
}

// choices lists an intent's templates as the few sentences the
// recogniser searches, instead of every combination of every alternative
// (a template of twelve verbs, eight objects and ten endings is a
// thousand sentences). A template gives its plainest sentence — every
// group's first alternative, no optional words ("set a timer for
// {duration}") — and then that sentence with one group changed at a
// time, to each of its other alternatives ("start a timer for
// {duration}", "set a new timer for {duration}", "set a timer for
// {duration} please"): every word of the template is in a sentence, each
// in the plainest company the template offers. The templates take turns,
// every plainest sentence first. Each choice is template text for Expand:
// slots stay slots (every value of an entity or class stays in the
// grammar) and a vocabulary reference still gives all its samples.
func choices(templates []string) []string {
	lists := make([][]string, len(templates))
	longest := 0
	for i, t := range templates {
		parsed := parseTemplate(t)
		var gs []*tnode
		var paths []map[*tnode]int
		groups(parsed, map[*tnode]int{}, &gs, &paths)
		var sb strings.Builder
		renderPick(parsed, nil, &sb)
		lists[i] = append(lists[i], sb.String())
		for gi, g := range gs {
			for b := 1; b < len(g.branches); b++ {
				pick := map[*tnode]int{g: b}
				for k, v := range paths[gi] {
					pick[k] = v
				}
				sb.Reset()
				renderPick(parsed, pick, &sb)
				lists[i] = append(lists[i], sb.String())
			}
		}
		longest = max(longest, len(lists[i]))
	}
	var out []string
	for k := range longest {
		for _, l := range lists {
			if k < len(l) {
				out = append(out, l[k])
			}
		}
	}
	return out
}
