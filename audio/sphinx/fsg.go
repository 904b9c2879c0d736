package sphinx

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The grammar as the decoder searches it: pocketsphinx's grammar search
// spends time in every frame on every state of its finite-state grammar
// (fsg_history_end_frame walks states × phones), whether anything was
// said there or not. pocketsphinx's own JSGF compiler gives a state per
// word of the text and copies a rule at every reference, so a grammar of
// many sentences has many states that hear the same words next. Here the
// JSGF is compiled to the smallest deterministic automaton with the same
// sentences and weights instead: prefixes and suffixes the sentences
// share are states they share.

// automaton is a finite-state grammar as pocketsphinx's FSG search takes
// it: states 0..states-1, one start and one final state, word and null
// transitions.
type automaton struct {
	states       int
	start, final int
	arcs         []fsgArc
}

// fsgArc is one transition: a word ("" for a null transition) and its
// probability (1 unless the grammar weighted the word).
type fsgArc struct {
	from, to int
	word     string
	prob     float64
}

// Bounds on compiling a grammar; past them the decoder compiles the JSGF
// itself.
const (
	maxNFAStates = 1 << 20
	maxDFAStates = 1 << 18
)

// errUnsupported marks JSGF this compiler leaves to pocketsphinx's own
// (recursion, repetition, imports, several public rules).
var errUnsupported = errors.New("not compiled here")

// exprKind is what an expansion is.
type exprKind int

const (
	exWord exprKind = iota
	exRule
	exNull
	exVoid
	exSeq
	exAlt
	exOpt
)

// expr is a parsed JSGF expansion.
type expr struct {
	kind  exprKind
	word  string  // exWord
	rule  string  // exRule
	items []*expr // exSeq: in order; exAlt: the alternatives; exOpt: one
	// weights are exAlt's alternatives' weights (1 when not given).
	weights []float64
}

// compileGrammar compiles a JSGF grammar to its minimal automaton.
func compileGrammar(jsgf string) (*automaton, error) {
	rules, top, err := parseJSGF(jsgf)
	if err != nil {
		return nil, err
	}
	b := &nfaBuilder{rules: rules, expanding: map[string]bool{}}
	start := b.state()
	end, err := b.expand(rules[top], start)
	if err != nil {
		return nil, err
	}
	if end < 0 {
		return nil, errors.New("grammar: the public rule has no sentence")
	}
	d, err := determinize(b.out, start, end)
	if err != nil {
		return nil, err
	}
	return d.minimal()
}

// parseJSGF parses the rules of a grammar and names its public rule.
func parseJSGF(jsgf string) (map[string]*expr, string, error) {
	if len(jsgf) > MaxGrammarBytes {
		return nil, "", fmt.Errorf("grammar of %d bytes: more than %d", len(jsgf), MaxGrammarBytes)
	}
	s, err := stripComments(jsgf)
	if err != nil {
		return nil, "", err
	}
	rules := map[string]*expr{}
	top := ""
	for i := 0; i < len(s); {
		end := statementEnd(s, i)
		if end < 0 {
			if strings.TrimSpace(s[i:]) != "" {
				return nil, "", fmt.Errorf("grammar: statement at byte %d has no ';'", i)
			}
			break
		}
		st := strings.TrimSpace(s[i:end])
		i = end + 1
		switch {
		case st == "" || strings.HasPrefix(st, "#JSGF") || strings.HasPrefix(st, "grammar "):
			continue
		case strings.HasPrefix(st, "import "):
			return nil, "", fmt.Errorf("grammar: imports: %w", errUnsupported)
		}
		eq := strings.IndexByte(st, '=')
		if eq < 0 {
			return nil, "", fmt.Errorf("grammar: statement %q is not a rule definition", clip(st))
		}
		head := strings.Fields(st[:eq])
		if len(head) == 0 || len(head) > 2 || (len(head) == 2 && head[0] != "public") {
			return nil, "", fmt.Errorf("grammar: statement %q: want [public] <name> = …", clip(st))
		}
		name := head[len(head)-1]
		if len(name) < 3 || name[0] != '<' || name[len(name)-1] != '>' {
			return nil, "", fmt.Errorf("grammar: statement %q: want [public] <name> = …", clip(st))
		}
		name = name[1 : len(name)-1]
		if _, dup := rules[name]; dup {
			return nil, "", fmt.Errorf("grammar: rule <%s> defined twice: %w", name, errUnsupported)
		}
		p := &exprParser{toks: tokenize(st[eq+1:])}
		e, err := p.alternatives()
		if err == nil && p.pos < len(p.toks) {
			err = fmt.Errorf("unexpected %q", p.toks[p.pos])
		}
		if err != nil {
			return nil, "", fmt.Errorf("grammar: rule <%s>: %w", name, err)
		}
		rules[name] = e
		if len(head) == 2 {
			if top != "" {
				// pocketsphinx takes the first of its hash table's.
				return nil, "", fmt.Errorf("grammar: several public rules: %w", errUnsupported)
			}
			top = name
		}
	}
	if top == "" {
		return nil, "", errors.New("grammar: no public rule")
	}
	return rules, top, nil
}

// tokenize splits an expansion into operators ( ) [ ] | * +, weights
// /w/, rule references <r>, quoted words and words; tags are dropped.
func tokenize(body string) []string {
	var toks []string
	for i := 0; i < len(body); {
		c := body[i]
		closing := func(end byte, from int) int {
			k := strings.IndexByte(body[from:], end)
			if k < 0 {
				return len(body)
			}
			return from + k + 1
		}
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			i++
		case strings.IndexByte("()[]|*+", c) >= 0:
			toks = append(toks, body[i:i+1])
			i++
		case c == '<':
			j := closing('>', i)
			toks = append(toks, body[i:j])
			i = j
		case c == '/':
			j := closing('/', i+1)
			toks = append(toks, body[i:j])
			i = j
		case c == '"':
			j := closing('"', i+1)
			toks = append(toks, body[i:j])
			i = j
		case c == '{':
			i = closing('}', i)
		default:
			j := i
			for j < len(body) && strings.IndexByte("()[]|*+<>{}/\" \t\r\n", body[j]) < 0 {
				j++
			}
			toks = append(toks, body[i:j])
			i = j
		}
	}
	return toks
}

// exprParser reads an expansion's tokens.
type exprParser struct {
	toks []string
	pos  int
}

func (p *exprParser) peek() string {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return ""
}

// alternatives reads seq ('|' seq)*, each seq optionally weighted.
func (p *exprParser) alternatives() (*expr, error) {
	alt := &expr{kind: exAlt}
	for {
		w := 1.0
		if t := p.peek(); len(t) >= 2 && t[0] == '/' && t[len(t)-1] == '/' {
			v, err := strconv.ParseFloat(strings.TrimSpace(t[1:len(t)-1]), 64)
			if err != nil || !(v >= 0) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("weight %s", t)
			}
			w = v
			p.pos++
		}
		seq, err := p.sequence()
		if err != nil {
			return nil, err
		}
		alt.items = append(alt.items, seq)
		alt.weights = append(alt.weights, w)
		if p.peek() != "|" {
			break
		}
		p.pos++
	}
	if len(alt.items) == 1 && alt.weights[0] == 1 {
		return alt.items[0], nil
	}
	return alt, nil
}

// sequence reads items up to '|', ')', ']' or the end.
func (p *exprParser) sequence() (*expr, error) {
	seq := &expr{kind: exSeq}
	for {
		t := p.peek()
		switch {
		case t == "" || t == "|" || t == ")" || t == "]":
			if len(seq.items) == 0 {
				return nil, errors.New("an empty alternative")
			}
			return seq, nil
		case t == "*" || t == "+":
			return nil, fmt.Errorf("repetition %s: %w", t, errUnsupported)
		case t == "(" || t == "[":
			p.pos++
			inner, err := p.alternatives()
			if err != nil {
				return nil, err
			}
			want := map[string]string{"(": ")", "[": "]"}[t]
			if p.peek() != want {
				return nil, fmt.Errorf("%s never closed", t)
			}
			p.pos++
			if t == "[" {
				inner = &expr{kind: exOpt, items: []*expr{inner}}
			}
			seq.items = append(seq.items, inner)
		case t[0] == '/':
			return nil, fmt.Errorf("weight %s inside a sequence", t)
		case t[0] == '<':
			if len(t) < 3 || t[len(t)-1] != '>' {
				return nil, fmt.Errorf("rule reference %s never closed", t)
			}
			p.pos++
			switch name := t[1 : len(t)-1]; name {
			case "NULL":
				seq.items = append(seq.items, &expr{kind: exNull})
			case "VOID":
				seq.items = append(seq.items, &expr{kind: exVoid})
			default:
				seq.items = append(seq.items, &expr{kind: exRule, rule: name})
			}
		case t[0] == '"':
			if len(t) < 2 || t[len(t)-1] != '"' {
				return nil, fmt.Errorf("quote %s never closed", t)
			}
			p.pos++
			if w := t[1 : len(t)-1]; w != "" {
				seq.items = append(seq.items, &expr{kind: exWord, word: w})
			} else {
				seq.items = append(seq.items, &expr{kind: exNull})
			}
		default:
			p.pos++
			seq.items = append(seq.items, &expr{kind: exWord, word: t})
		}
	}
}

// nfaArc is a transition of the automaton the grammar is first expanded
// to: a word with its probability, or "" for an empty one.
type nfaArc struct {
	to   int
	word string
	prob float64
}

// nfaBuilder expands a grammar's rules in place, each at every reference,
// as pocketsphinx does.
type nfaBuilder struct {
	rules     map[string]*expr
	out       [][]nfaArc
	expanding map[string]bool
}

func (b *nfaBuilder) state() int {
	b.out = append(b.out, nil)
	return len(b.out) - 1
}

func (b *nfaBuilder) arc(from, to int, word string, prob float64) {
	b.out[from] = append(b.out[from], nfaArc{to: to, word: word, prob: prob})
}

// expand adds e's paths from state from and returns the state they end
// in, -1 when e has none (<VOID>).
func (b *nfaBuilder) expand(e *expr, from int) (int, error) {
	if len(b.out) > maxNFAStates {
		return 0, fmt.Errorf("grammar: more than %d states: %w", maxNFAStates, errUnsupported)
	}
	switch e.kind {
	case exWord:
		to := b.state()
		b.arc(from, to, e.word, 1)
		return to, nil
	case exNull:
		return from, nil
	case exVoid:
		return -1, nil
	case exRule:
		r, ok := b.rules[e.rule]
		if !ok {
			return 0, fmt.Errorf("grammar: rule <%s> used but not defined", e.rule)
		}
		if b.expanding[e.rule] {
			return 0, fmt.Errorf("grammar: rule <%s> refers to itself: %w", e.rule, errUnsupported)
		}
		b.expanding[e.rule] = true
		defer delete(b.expanding, e.rule)
		return b.expand(r, from)
	case exSeq:
		at := from
		for _, it := range e.items {
			next, err := b.expand(it, at)
			if err != nil || next < 0 {
				return next, err
			}
			at = next
		}
		return at, nil
	case exOpt:
		end := b.state()
		b.arc(from, end, "", 1)
		at, err := b.expand(e.items[0], from)
		if err != nil {
			return 0, err
		}
		if at >= 0 {
			b.arc(at, end, "", 1)
		}
		return end, nil
	case exAlt:
		end := -1
		for i, alt := range e.items {
			// pocketsphinx puts an alternative's weight on its first
			// word's transition; on anything else it is lost.
			var at int
			var err error
			if w := e.weights[i]; w != 1 && alt.kind == exSeq && alt.items[0].kind == exWord {
				next := b.state()
				b.arc(from, next, alt.items[0].word, w)
				at, err = b.expand(&expr{kind: exSeq, items: alt.items[1:]}, next)
			} else {
				at, err = b.expand(alt, from)
			}
			if err != nil {
				return 0, err
			}
			if at < 0 {
				continue
			}
			if end < 0 {
				end = b.state()
			}
			b.arc(at, end, "", 1)
		}
		return end, nil
	}
	return 0, fmt.Errorf("grammar: expansion of kind %d", e.kind)
}

// label is a transition's word and probability: the deterministic
// automaton is deterministic over both, so every sentence keeps the
// probability it had.
type label struct {
	word string
	prob float64
}

// dfa is the deterministic automaton of subsets of the expanded one.
type dfa struct {
	final []bool
	next  []map[label]int
}

// determinize makes the deterministic automaton (over labels) of the
// acyclic automaton out, from start to end.
func determinize(out [][]nfaArc, start, end int) (*dfa, error) {
	// seen[s] == mark: s is in the closure being computed.
	seen := make([]int, len(out))
	mark := 0
	var stack []int
	closure := func(set []int) []int {
		mark++
		res := make([]int, 0, len(set))
		stack = stack[:0]
		for _, s := range set {
			if seen[s] != mark {
				seen[s] = mark
				res = append(res, s)
				stack = append(stack, s)
			}
		}
		for len(stack) > 0 {
			s := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, a := range out[s] {
				if a.word == "" && seen[a.to] != mark {
					seen[a.to] = mark
					res = append(res, a.to)
					stack = append(stack, a.to)
				}
			}
		}
		slices.Sort(res)
		return res
	}
	var kb []byte
	key := func(set []int) string {
		kb = kb[:0]
		for _, s := range set {
			kb = strconv.AppendInt(kb, int64(s), 36)
			kb = append(kb, ',')
		}
		return string(kb)
	}
	d := &dfa{}
	ids := map[string]int{}
	var sets [][]int
	add := func(set []int) int {
		k := key(set)
		if id, ok := ids[k]; ok {
			return id
		}
		id := len(sets)
		ids[k] = id
		sets = append(sets, set)
		d.final = append(d.final, slices.Contains(set, end))
		d.next = append(d.next, nil)
		return id
	}
	add(closure([]int{start}))
	for i := 0; i < len(sets); i++ {
		if len(sets) > maxDFAStates {
			return nil, fmt.Errorf("grammar: more than %d deterministic states: %w", maxDFAStates, errUnsupported)
		}
		targets := map[label][]int{}
		var order []label
		for _, s := range sets[i] {
			for _, a := range out[s] {
				if a.word == "" {
					continue
				}
				l := label{a.word, a.prob}
				if _, ok := targets[l]; !ok {
					order = append(order, l)
				}
				if !slices.Contains(targets[l], a.to) {
					targets[l] = append(targets[l], a.to)
				}
			}
		}
		next := make(map[label]int, len(order))
		for _, l := range order {
			next[l] = add(closure(targets[l]))
		}
		d.next[i] = next
	}
	return d, nil
}

// minimal merges the states of d that hear the same sentences from there
// on (d is acyclic), drops those that reach no sentence's end, and
// numbers what is left from the start, with one final state that null
// transitions lead to from the states where a sentence may end with
// words still able to follow.
func (d *dfa) minimal() (*automaton, error) {
	const unseen, dead = -2, -1
	class := make([]int, len(d.final))
	for i := range class {
		class[i] = unseen
	}
	type signature struct {
		final bool
		arcs  string
	}
	classes := map[signature]int{}
	var classArcs [][]fsgArc // per class: arcs with "to" as a class
	var classFinal []bool
	var visit func(s int) int
	visit = func(s int) int {
		if class[s] != unseen {
			return class[s]
		}
		labels := make([]label, 0, len(d.next[s]))
		for l := range d.next[s] {
			labels = append(labels, l)
		}
		slices.SortFunc(labels, func(a, b label) int {
			if c := strings.Compare(a.word, b.word); c != 0 {
				return c
			}
			return cmpFloat(a.prob, b.prob)
		})
		var arcs []fsgArc
		var sig []byte
		for _, l := range labels {
			c := visit(d.next[s][l])
			if c == dead {
				continue
			}
			arcs = append(arcs, fsgArc{to: c, word: l.word, prob: l.prob})
			sig = append(sig, l.word...)
			sig = append(sig, 0)
			sig = strconv.AppendFloat(sig, l.prob, 'g', -1, 64)
			sig = append(sig, 0)
			sig = strconv.AppendInt(sig, int64(c), 36)
			sig = append(sig, 0)
		}
		if len(arcs) == 0 && !d.final[s] {
			class[s] = dead
			return dead
		}
		k := signature{final: d.final[s], arcs: string(sig)}
		c, ok := classes[k]
		if !ok {
			c = len(classArcs)
			classes[k] = c
			classArcs = append(classArcs, arcs)
			classFinal = append(classFinal, d.final[s])
		}
		class[s] = c
		return c
	}
	root := visit(0)
	if root == dead {
		return nil, errors.New("grammar: no sentence")
	}
	// Number the classes from the start, breadth first; the final state
	// is the class with no transitions (there is one: every sentence
	// ends), or a new one when the grammar is only the empty sentence.
	num := make([]int, len(classArcs))
	for i := range num {
		num[i] = -1
	}
	order := []int{root}
	num[root] = 0
	for i := 0; i < len(order); i++ {
		for _, a := range classArcs[order[i]] {
			if num[a.to] < 0 {
				num[a.to] = len(order)
				order = append(order, a.to)
			}
		}
	}
	a := &automaton{start: 0, final: -1}
	for _, c := range order {
		if len(classArcs[c]) == 0 {
			a.final = num[c]
		}
	}
	a.states = len(order)
	if a.final < 0 {
		a.final = a.states
		a.states++
	}
	for _, c := range order {
		for _, arc := range classArcs[c] {
			a.arcs = append(a.arcs, fsgArc{from: num[c], to: num[arc.to], word: arc.word, prob: arc.prob})
		}
		if classFinal[c] && num[c] != a.final {
			a.arcs = append(a.arcs, fsgArc{from: num[c], to: a.final, prob: 1})
		}
	}
	return a, nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
