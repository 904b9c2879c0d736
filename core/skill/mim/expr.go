package mim

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// env is what expressions are evaluated against: one member per
// PromptData root. Members hold JSON-like Go values.
type env struct {
	Speaker  any
	Referent any
	Loop     any
	DT       any
	Location any
	Jibo     any
	Skill    any
}

// roots are the names an expression may start from.
var roots = map[string]func(*env) any{
	"speaker":  func(e *env) any { return e.Speaker },
	"referent": func(e *env) any { return e.Referent },
	"loop":     func(e *env) any { return e.Loop },
	"dt":       func(e *env) any { return e.DT },
	"location": func(e *env) any { return e.Location },
	"jibo":     func(e *env) any { return e.Jibo },
	"skill":    func(e *env) any { return e.Skill },
}

// program is a compiled expression.
type program struct {
	src  string
	root node
}

// exprError is an expression that failed to compile: Column is 1-based,
// in characters of the source.
type exprError struct {
	Column int
	Reason string
}

func (e *exprError) Error() string { return e.Reason }

// compiler compiles expressions, sharing one program between equal sources
// (shipped MIMs repeat conditions such as jibo.emotion == "PLEASED" many
// times).
type compiler struct {
	cache map[string]*program
}

func newCompiler() *compiler { return &compiler{cache: map[string]*program{}} }

// compile compiles one expression. The error is an *exprError.
func (c *compiler) compile(src string) (*program, error) {
	if p, ok := c.cache[src]; ok {
		return p, nil
	}
	if len(src) > MaxExprBytes {
		return nil, &exprError{Reason: fmt.Sprintf("expression is %d bytes, limit %d", len(src), MaxExprBytes)}
	}
	ps := &parser{src: src}
	if err := ps.next(); err != nil {
		return nil, err
	}
	root, err := ps.expression()
	if err != nil {
		return nil, err
	}
	if ps.tok.kind != tEOF {
		return nil, ps.unexpected()
	}
	p := &program{src: src, root: root}
	c.cache[src] = p
	return p, nil
}

// run evaluates p against e. JavaScript's undefined comes out as nil, as
// null does.
func (p *program) run(e *env) (any, error) {
	ev := &evaluator{env: e, budget: MaxExprMemory}
	v, err := p.root.eval(ev)
	if err != nil {
		return nil, err
	}
	if v == undefined {
		return nil, nil
	}
	return v, nil
}

// undefinedValue is JavaScript's undefined, kept apart from null (nil)
// while an expression runs: a missing member is undefined, a null one is
// null, and === tells them apart as JavaScript does.
type undefinedValue struct{}

var undefined any = undefinedValue{}

// ---- lexer

type tokKind int

const (
	tEOF tokKind = iota
	tNumber
	tString
	tIdent
	tPunct
)

type token struct {
	kind tokKind
	text string  // the punctuator or identifier, or the source of a literal
	str  string  // a string literal's value
	num  float64 // a number literal's value
	pos  int     // byte offset in the source
}

// punctuators, longest first so that === wins over ==.
var punctuators = []string{
	"===", "!==", "==", "!=", "<=", ">=", "&&", "||",
	"(", ")", "[", "]", ".", ",", "?", ":", "!", "<", ">", "+", "-", "*", "/", "%",
}

type parser struct {
	src   string
	pos   int
	tok   token
	nodes int
}

func (p *parser) column(pos int) int { return utf8.RuneCountInString(p.src[:pos]) + 1 }

func (p *parser) errorAt(pos int, format string, args ...any) *exprError {
	return &exprError{Column: p.column(pos), Reason: fmt.Sprintf(format, args...)}
}

func (p *parser) unexpected() *exprError {
	if p.tok.kind == tEOF {
		return p.errorAt(p.tok.pos, "unexpected end of expression")
	}
	return p.errorAt(p.tok.pos, "unexpected %s", p.tok.text)
}

// next reads the next token into p.tok.
func (p *parser) next() error {
	s := p.src
	// JavaScript's white space includes Unicode's and the byte order mark.
	for p.pos < len(s) {
		r, n := utf8.DecodeRuneInString(s[p.pos:])
		if !unicode.IsSpace(r) && r != '\uFEFF' {
			break
		}
		p.pos += n
	}
	start := p.pos
	if start == len(s) {
		p.tok = token{kind: tEOF, pos: start}
		return nil
	}
	c := s[start]
	switch {
	case c == '"' || c == '\'' || c == '`':
		v, end, err := p.stringLit(start)
		if err != nil {
			return err
		}
		p.tok = token{kind: tString, text: s[start:end], str: v, pos: start}
		p.pos = end
	case c >= '0' && c <= '9' || c == '.' && start+1 < len(s) && s[start+1] >= '0' && s[start+1] <= '9':
		end, f, ok := numberLit(s, start)
		if !ok {
			return p.errorAt(start, "bad number %s", s[start:end])
		}
		lit := s[start:end]
		p.tok = token{kind: tNumber, text: lit, num: f, pos: start}
		p.pos = end
	case isIdentStart(c):
		end := start + 1
		for end < len(s) && isIdentPart(s[end]) {
			end++
		}
		p.tok = token{kind: tIdent, text: s[start:end], pos: start}
		p.pos = end
	default:
		for _, op := range punctuators {
			if strings.HasPrefix(s[start:], op) {
				p.tok = token{kind: tPunct, text: op, pos: start}
				p.pos = start + len(op)
				return nil
			}
		}
		r, _ := utf8.DecodeRuneInString(s[start:])
		if r == '=' {
			return p.errorAt(start, "assignment is not allowed (use == or ===)")
		}
		return p.errorAt(start, "unexpected character %q", r)
	}
	return nil
}

// numberLit reads the number literal starting at s[start]: decimal with
// an optional fraction and exponent, or hexadecimal after 0x. It returns
// the offset past it (past any letters stuck to it, for the error).
func numberLit(s string, start int) (end int, f float64, ok bool) {
	digits := func(i int, hex bool) int {
		for i < len(s) && (s[i] >= '0' && s[i] <= '9' || hex && strings.IndexByte("abcdefABCDEF", s[i]) >= 0) {
			i++
		}
		return i
	}
	end = start
	if strings.HasPrefix(s[start:], "0x") || strings.HasPrefix(s[start:], "0X") {
		end = digits(start+2, true)
		u, err := strconv.ParseUint(s[start+2:end], 16, 64)
		f, ok = float64(u), err == nil || isRangeErr(err)
	} else {
		end = digits(start, false)
		if end < len(s) && s[end] == '.' {
			end = digits(end+1, false)
		}
		if end < len(s) && (s[end] == 'e' || s[end] == 'E') {
			e := end + 1
			if e < len(s) && (s[e] == '+' || s[e] == '-') {
				e++
			}
			if d := digits(e, false); d > e {
				end = d
			}
		}
		var err error
		f, err = strconv.ParseFloat(s[start:end], 64)
		ok = err == nil || isRangeErr(err)
	}
	if end < len(s) && isIdentPart(s[end]) {
		for end < len(s) && isIdentPart(s[end]) {
			end++
		}
		ok = false
	}
	return end, f, ok
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdentPart(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

// stringLit reads the string literal starting at s[start] with
// JavaScript's escapes; it returns the value and the offset past it.
// Template literals are plain strings here: ${ inside one is refused.
func (p *parser) stringLit(start int) (string, int, error) {
	s := p.src
	quote := s[start]
	var b strings.Builder
	i := start + 1
	for {
		if i >= len(s) || quote != '`' && (s[i] == '\n' || s[i] == '\r') {
			return "", 0, p.errorAt(start, "unterminated string literal")
		}
		c := s[i]
		switch {
		case c == quote:
			return b.String(), i + 1, nil
		case quote == '`' && c == '$' && i+1 < len(s) && s[i+1] == '{':
			return "", 0, p.errorAt(i, "${ inside a template literal is not supported")
		case c != '\\':
			b.WriteByte(c)
			i++
			continue
		}
		i++
		if i >= len(s) {
			return "", 0, p.errorAt(start, "unterminated string literal")
		}
		esc := s[i]
		i++
		switch esc {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case '0':
			b.WriteByte(0)
		case '\n':
			// A line continuation.
		case 'x', 'u':
			n := 2
			if esc == 'u' {
				n = 4
			}
			if i+n > len(s) {
				return "", 0, p.errorAt(i-2, "bad escape \\%c", esc)
			}
			u, err := strconv.ParseUint(s[i:i+n], 16, 32)
			if err != nil {
				return "", 0, p.errorAt(i-2, "bad escape \\%c", esc)
			}
			i += n
			r := rune(u)
			// A surrogate pair spelled as two \u escapes is one character.
			if utf16.IsSurrogate(r) && i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
				if lo, err := strconv.ParseUint(s[i+2:i+6], 16, 32); err == nil {
					if pair := utf16.DecodeRune(r, rune(lo)); pair != utf8.RuneError {
						r = pair
						i += 6
					}
				}
			}
			b.WriteRune(r)
		default:
			b.WriteByte(esc)
		}
	}
}

// ---- parser: JavaScript's expression grammar without assignment,
// objects or functions, plus expr's spellings and, or and not.

func (p *parser) add(n node) (node, error) {
	p.nodes++
	if p.nodes > MaxExprNodes {
		return nil, p.errorAt(n.at(), "expression has more than %d nodes", MaxExprNodes)
	}
	return n, nil
}

func (p *parser) is(op string) bool {
	return p.tok.kind == tPunct && p.tok.text == op
}

func (p *parser) isWord(w string) bool { return p.tok.kind == tIdent && p.tok.text == w }

func (p *parser) expect(op string) error {
	if !p.is(op) {
		return p.unexpected()
	}
	return p.next()
}

func (p *parser) expression() (node, error) {
	cond, err := p.logical(0)
	if err != nil || !p.is("?") {
		return cond, err
	}
	pos := p.tok.pos
	if err := p.next(); err != nil {
		return nil, err
	}
	yes, err := p.expression()
	if err != nil {
		return nil, err
	}
	if err := p.expect(":"); err != nil {
		return nil, err
	}
	no, err := p.expression()
	if err != nil {
		return nil, err
	}
	return p.add(&condNode{pos: pos, cond: cond, yes: yes, no: no})
}

// binary operators by precedence, loosest first; level 0 and 1 are the
// logical ones.
var levels = [][]string{
	{"||", "or"},
	{"&&", "and"},
	{"==", "!=", "===", "!=="},
	{"<", "<=", ">", ">="},
	{"+", "-"},
	{"*", "/", "%"},
}

func (p *parser) operatorAt(level int) (string, bool) {
	if p.tok.kind != tPunct && p.tok.kind != tIdent {
		return "", false
	}
	for _, op := range levels[level] {
		if p.tok.text == op {
			return op, true
		}
	}
	return "", false
}

func (p *parser) logical(level int) (node, error) {
	if level == len(levels) {
		return p.unary()
	}
	left, err := p.logical(level + 1)
	if err != nil {
		return nil, err
	}
	for {
		op, ok := p.operatorAt(level)
		if !ok {
			return left, nil
		}
		pos := p.tok.pos
		if err := p.next(); err != nil {
			return nil, err
		}
		right, err := p.logical(level + 1)
		if err != nil {
			return nil, err
		}
		switch op {
		case "or":
			op = "||"
		case "and":
			op = "&&"
		}
		if left, err = p.add(&binaryNode{pos: pos, op: op, left: left, right: right}); err != nil {
			return nil, err
		}
	}
}

func (p *parser) unary() (node, error) {
	if p.is("!") || p.is("-") || p.is("+") || p.isWord("not") || p.isWord("typeof") {
		op, pos := p.tok.text, p.tok.pos
		if op == "not" {
			op = "!"
		}
		if err := p.next(); err != nil {
			return nil, err
		}
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		return p.add(&unaryNode{pos: pos, op: op, x: x})
	}
	return p.postfix()
}

func (p *parser) postfix() (node, error) {
	x, err := p.primary()
	for err == nil {
		pos := p.tok.pos
		switch {
		case p.is("."):
			if err = p.next(); err != nil {
				break
			}
			if p.tok.kind != tIdent {
				return nil, p.unexpected()
			}
			name := p.tok.text
			if err = p.next(); err == nil {
				x, err = p.add(&memberNode{pos: pos, x: x, key: &literal{pos: pos, v: name}})
			}
		case p.is("["):
			var key node
			if err = p.next(); err != nil {
				break
			}
			if key, err = p.expression(); err != nil {
				break
			}
			if err = p.expect("]"); err == nil {
				x, err = p.add(&memberNode{pos: pos, x: x, key: key})
			}
		case p.is("("):
			var args []node
			if args, err = p.list(")"); err != nil {
				break
			}
			if err = p.checkIsInRange(x, args); err == nil {
				x, err = p.add(&callNode{pos: pos, fn: x, args: args})
			}
		default:
			return x, nil
		}
	}
	return nil, err
}

// list reads comma-separated expressions after an opening bracket, up to
// close.
func (p *parser) list(close string) ([]node, error) {
	if err := p.next(); err != nil {
		return nil, err
	}
	var items []node
	for !p.is(close) {
		x, err := p.expression()
		if err != nil {
			return nil, err
		}
		items = append(items, x)
		if !p.is(",") {
			break
		}
		if err := p.next(); err != nil {
			return nil, err
		}
	}
	return items, p.expect(close)
}

func (p *parser) primary() (node, error) {
	t := p.tok
	switch t.kind {
	case tNumber, tString:
		if err := p.next(); err != nil {
			return nil, err
		}
		var v any = t.num
		if t.kind == tString {
			v = t.str
		}
		return p.add(&literal{pos: t.pos, v: v})
	case tIdent:
		var n node
		switch t.text {
		case "true", "false":
			n = &literal{pos: t.pos, v: t.text == "true"}
		case "null":
			n = &literal{pos: t.pos, v: nil}
		case "undefined":
			n = &literal{pos: t.pos, v: undefined}
		case "NaN":
			n = &literal{pos: t.pos, v: math.NaN()}
		case "Infinity":
			n = &literal{pos: t.pos, v: math.Inf(1)}
		default:
			get, ok := roots[t.text]
			if !ok {
				return nil, p.errorAt(t.pos, "unknown name %s", t.text)
			}
			n = &rootNode{pos: t.pos, get: get}
		}
		if err := p.next(); err != nil {
			return nil, err
		}
		return p.add(n)
	case tPunct:
		switch t.text {
		case "(":
			if err := p.next(); err != nil {
				return nil, err
			}
			x, err := p.expression()
			if err != nil {
				return nil, err
			}
			return x, p.expect(")")
		case "[":
			items, err := p.list("]")
			if err != nil {
				return nil, err
			}
			return p.add(&arrayNode{pos: t.pos, items: items})
		}
	}
	return nil, p.unexpected()
}

// checkIsInRange rejects at load time an isInRange call whose literal
// arguments are not dates.
func (p *parser) checkIsInRange(fn node, args []node) error {
	m, ok := fn.(*memberNode)
	if !ok {
		return nil
	}
	if name, ok := m.key.(*literal); !ok || name.v != "isInRange" {
		return nil
	}
	if len(args) != 2 {
		return p.errorAt(m.pos+1, "isInRange takes 2 dates ('M/D'), got %d arguments", len(args))
	}
	for _, a := range args {
		l, ok := a.(*literal)
		if !ok {
			continue
		}
		s, ok := l.v.(string)
		if !ok {
			continue
		}
		if _, _, err := parseMonthDay(s); err != nil {
			return p.errorAt(l.pos, "%v", err)
		}
	}
	return nil
}

// ---- evaluation

// evaluator runs one expression; budget is what it may still allocate,
// in bytes of the strings and array slots it builds.
type evaluator struct {
	env    *env
	budget int
}

func (ev *evaluator) spend(n int) error {
	ev.budget -= n
	if ev.budget < 0 {
		return fmt.Errorf("expression builds more than %d bytes", MaxExprMemory)
	}
	return nil
}

type node interface {
	eval(ev *evaluator) (any, error)
	at() int
}

type literal struct {
	pos int
	v   any
}

type rootNode struct {
	pos int
	get func(*env) any
}

type arrayNode struct {
	pos   int
	items []node
}

type memberNode struct {
	pos    int
	x, key node
}

type callNode struct {
	pos  int
	fn   node
	args []node
}

type unaryNode struct {
	pos int
	op  string
	x   node
}

type binaryNode struct {
	pos         int
	op          string
	left, right node
}

type condNode struct {
	pos           int
	cond, yes, no node
}

func (n *literal) at() int    { return n.pos }
func (n *rootNode) at() int   { return n.pos }
func (n *arrayNode) at() int  { return n.pos }
func (n *memberNode) at() int { return n.pos }
func (n *callNode) at() int   { return n.pos }
func (n *unaryNode) at() int  { return n.pos }
func (n *binaryNode) at() int { return n.pos }
func (n *condNode) at() int   { return n.pos }

func (n *literal) eval(*evaluator) (any, error) { return n.v, nil }

func (n *rootNode) eval(ev *evaluator) (any, error) { return n.get(ev.env), nil }

func (n *arrayNode) eval(ev *evaluator) (any, error) {
	if err := ev.spend(16 * len(n.items)); err != nil {
		return nil, err
	}
	out := make([]any, len(n.items))
	for i, x := range n.items {
		v, err := x.eval(ev)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func (n *memberNode) eval(ev *evaluator) (any, error) {
	obj, err := n.x.eval(ev)
	if err != nil {
		return nil, err
	}
	key, err := n.key.eval(ev)
	if err != nil {
		return nil, err
	}
	return member(obj, key)
}

func (n *callNode) eval(ev *evaluator) (any, error) {
	fn, err := n.fn.eval(ev)
	if err != nil {
		return nil, err
	}
	args := make([]any, len(n.args))
	for i, a := range n.args {
		if args[i], err = a.eval(ev); err != nil {
			return nil, err
		}
	}
	switch f := fn.(type) {
	case method:
		return f.call(ev, args)
	case func(string, string) (bool, error):
		if len(args) != 2 {
			return nil, fmt.Errorf("function takes 2 arguments, got %d", len(args))
		}
		return f(toString(args[0]), toString(args[1]))
	case func(...any) (any, error):
		return f(args...)
	}
	return nil, fmt.Errorf("%s is not a function", jsDescribe(fn))
}

func (n *unaryNode) eval(ev *evaluator) (any, error) {
	v, err := n.x.eval(ev)
	if err != nil {
		return nil, err
	}
	switch n.op {
	case "!":
		return !Truthy(v), nil
	case "-":
		return -toNumber(v), nil
	case "+":
		return toNumber(v), nil
	}
	return typeOf(v), nil
}

func (n *binaryNode) eval(ev *evaluator) (any, error) {
	l, err := n.left.eval(ev)
	if err != nil {
		return nil, err
	}
	// a && b is b when a is truthy, else a; a || b is a when a is truthy,
	// else b. Either way b runs only when it decides.
	switch n.op {
	case "&&":
		if !Truthy(l) {
			return l, nil
		}
		return n.right.eval(ev)
	case "||":
		if Truthy(l) {
			return l, nil
		}
		return n.right.eval(ev)
	}
	r, err := n.right.eval(ev)
	if err != nil {
		return nil, err
	}
	switch n.op {
	case "===":
		return strictEqual(l, r), nil
	case "!==":
		return !strictEqual(l, r), nil
	case "==":
		return looseEqual(l, r), nil
	case "!=":
		return !looseEqual(l, r), nil
	case "<", "<=", ">", ">=":
		return compare(n.op, l, r), nil
	case "+":
		l, r = toPrimitive(l), toPrimitive(r)
		if isString(l) || isString(r) {
			ls, rs := toString(l), toString(r)
			if err := ev.spend(len(ls) + len(rs)); err != nil {
				return nil, err
			}
			return ls + rs, nil
		}
		return toNumber(l) + toNumber(r), nil
	case "-":
		return toNumber(l) - toNumber(r), nil
	case "*":
		return toNumber(l) * toNumber(r), nil
	case "/":
		return toNumber(l) / toNumber(r), nil
	}
	return math.Mod(toNumber(l), toNumber(r)), nil
}

func (n *condNode) eval(ev *evaluator) (any, error) {
	c, err := n.cond.eval(ev)
	if err != nil {
		return nil, err
	}
	if Truthy(c) {
		return n.yes.eval(ev)
	}
	return n.no.eval(ev)
}
