package intent

import (
	"fmt"
	"slices"
	"strings"
)

// Dialogs are output: what the robot says, written with case and
// punctuation (GRM-02). Real OVOS skills write them more freely than input
// templates, and ovos-core speaks them: a line may be only a slot
// ("{time}"), hold two slots side by side ("{speed} {speed_unit}"), and use
// parentheses as text ("(sighs)"). So a .dialog line is read with its own,
// forgiving rules rather than the input grammar:
//
//   - "(a|b)" is a choice and "[x]" is optional, nested as in templates;
//     a '|' outside any group makes the whole line a choice;
//   - a group with no '|' directly inside, and any bracket that is never
//     closed, is text: "(sighs)" is said with its parentheses;
//   - "{name}", "{{name}}" and "{type:name}" are the slot "{name}"; any
//     other '{' is an error, since the robot would say it.

// ExpandDialogLine returns the phrases one .dialog line can say, in order,
// without duplicates, spaces collapsed; slots come out as "{name}". limit
// caps how many phrases the line may expand to (DefaultMaxSamples when
// <= 0). A line that says nothing at all is an error.
func ExpandDialogLine(text string, limit int) ([]string, error) {
	if limit <= 0 {
		limit = DefaultMaxSamples
	}
	if len(text) > MaxTemplateBytes {
		return nil, &SyntaxError{Kind: ErrTooLarge, Msg: fmt.Sprintf("line is %d bytes, limit is %d", len(text), MaxTemplateBytes)}
	}
	p := &dialogParser{src: []rune(text), limit: limit}
	p.pairBrackets()
	alts, _, err := p.seq(len(p.src), 0)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, a := range alts {
		a = strings.Join(strings.Fields(a), " ")
		if a != "" && !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return nil, &SyntaxError{Kind: ErrEmptySample, Msg: fmt.Sprintf("dialog line %q says nothing", text)}
	}
	return out, nil
}

// DialogSlots returns the distinct slot names of a phrase from
// ExpandDialogLine, sorted.
func DialogSlots(phrase string) []string {
	var out []string
	rest := phrase
	for {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			break
		}
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			break
		}
		if name := rest[open+1 : open+end]; dialogSlotName(name) {
			out = append(out, name)
		}
		rest = rest[open+1:]
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// dialogSlotName reports whether s can name a dialog slot: a Python format
// field name, as OVOS fills dialogs with str.format.
func dialogSlotName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'):
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

type dialogParser struct {
	src   []rune
	i     int
	limit int
	// pair maps the index of each bracket that is closed to the index of
	// its closer; brackets not in it are text.
	pair map[int]int
}

// pairBrackets pairs ( with ) and [ with ]: a closer pairs with the
// innermost open bracket when that is its kind, and is text otherwise.
func (p *dialogParser) pairBrackets() {
	p.pair = map[int]int{}
	var stack []int
	for i, r := range p.src {
		switch r {
		case '(', '[':
			stack = append(stack, i)
		case ')', ']':
			if n := len(stack); n > 0 && opener(r) == p.src[stack[n-1]] {
				p.pair[stack[n-1]] = i
				stack = stack[:n-1]
			}
		}
	}
}

// seq reads branches separated by '|' up to the index end (exclusive),
// reporting whether a '|' split them. At the top a '|' makes the whole
// line a choice.
func (p *dialogParser) seq(end, depth int) (alts []string, split bool, err error) {
	if depth > MaxNesting {
		return nil, false, &SyntaxError{Kind: ErrTooLarge, Msg: fmt.Sprintf("groups nested more than %d deep", MaxNesting)}
	}
	tooMany := &SyntaxError{Kind: ErrTooLarge, Msg: fmt.Sprintf("dialog line expands to more than %d phrases (GRM-12)", p.limit)}
	var done []string
	cur := []string{""}
	for p.i < end {
		r := p.src[p.i]
		closeAt, paired := p.pair[p.i]
		switch {
		case r == '|':
			p.i++
			split = true
			done = append(done, cur...)
			cur = []string{""}
		case (r == '(' || r == '[') && paired:
			p.i++
			inner, bar, err := p.seq(closeAt, depth+1)
			if err != nil {
				return nil, false, err
			}
			p.i = closeAt + 1
			if len(cur)*(len(inner)+1) > p.limit {
				return nil, false, tooMany
			}
			switch {
			case r == '[':
				inner = append(inner, "")
			case !bar: // "(sighs)": text, parentheses and all
				for k := range inner {
					inner[k] = "(" + inner[k] + ")"
				}
			}
			cur = dialogProduct(cur, inner)
		case r == '{':
			slot, ok := p.slot(end)
			if !ok {
				return nil, false, &SyntaxError{Col: p.i + 1, Token: "{", Kind: ErrUnbalanced,
					Msg: "'{' does not start a slot {name}; a dialog would say it"}
			}
			cur = dialogProduct(cur, []string{slot})
		default:
			p.i++
			cur = dialogProduct(cur, []string{string(r)})
		}
		if len(done)+len(cur) > p.limit {
			return nil, false, tooMany
		}
	}
	return append(done, cur...), split, nil
}

// slot reads "{name}", "{{name}}" or "{type:name}" at p.i, ending before
// limit, and returns it as "{name}"; anything else is not a slot.
func (p *dialogParser) slot(limit int) (string, bool) {
	start := p.i
	end := slices.Index(p.src[start:limit], '}')
	if end < 0 {
		return "", false
	}
	inner := string(p.src[start+1 : start+end])
	width := end + 1
	if strings.HasPrefix(inner, "{") && start+end+1 < limit && p.src[start+end+1] == '}' {
		inner = inner[1:]
		width++
	}
	if _, name, typed := strings.Cut(inner, ":"); typed {
		inner = name
	}
	if !dialogSlotName(inner) {
		return "", false
	}
	p.i += width
	return "{" + inner + "}", true
}

// dialogProduct appends each of tails to each of heads.
func dialogProduct(heads, tails []string) []string {
	if len(tails) == 1 {
		for k := range heads {
			heads[k] += tails[0]
		}
		return heads
	}
	out := make([]string, 0, len(heads)*len(tails))
	for _, h := range heads {
		for _, t := range tails {
			out = append(out, h+t)
		}
	}
	return out
}
