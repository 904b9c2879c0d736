package mim

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/vm"
)

// env is the shape expressions are compiled against and the value they
// run on: one member per PromptData root. Members are untyped so that
// expressions are checked for names, not for types, as JavaScript would.
type env struct {
	Speaker  any `expr:"speaker"`
	Referent any `expr:"referent"`
	Loop     any `expr:"loop"`
	DT       any `expr:"dt"`
	Location any `expr:"location"`
	Jibo     any `expr:"jibo"`
	Skill    any `expr:"skill"`
}

// truthyFunc is the function the compiled tree calls for JavaScript
// truthiness; no author can name it by accident.
const truthyFunc = "__js_truthy"

// program is a compiled expression.
type program struct {
	src  string
	prog *vm.Program
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
	translated, err := translateJS(src)
	if err != nil {
		return nil, err
	}
	chk := &jsPatch{}
	prog, err := expr.Compile(translated,
		expr.Env(env{}),
		expr.Patch(chk),
		expr.MaxNodes(MaxExprNodes),
		expr.DisableBuiltin("now"),
		expr.Function(truthyFunc, func(args ...any) (any, error) { return Truthy(args[0]), nil }, new(func(any) bool)),
	)
	if err != nil {
		var fe *file.Error
		if errors.As(err, &fe) {
			return nil, &exprError{Column: fe.Column + 1, Reason: fe.Message}
		}
		return nil, &exprError{Reason: err.Error()}
	}
	if chk.err != nil {
		return nil, chk.err
	}
	p := &program{src: src, prog: prog}
	c.cache[src] = p
	return p, nil
}

// run evaluates p against e within the memory budget.
func (p *program) run(e *env) (any, error) {
	m := vm.VM{MemoryBudget: MaxExprMemory}
	return m.Run(p.prog, e)
}

// translateJS rewrites the JavaScript spellings expr lacks, outside string
// literals, keeping every column in place (see the package comment).
func translateJS(src string) (string, error) {
	var b strings.Builder
	b.Grow(len(src))
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == '"' || c == '\'' || c == '`':
			end := i + 1
			for end < len(src) && src[end] != c {
				if src[end] == '\\' && c != '`' {
					end++
				}
				end++
			}
			if end >= len(src) {
				return "", &exprError{Column: utf8.RuneCountInString(src[:i]) + 1, Reason: "unterminated string literal"}
			}
			b.WriteString(src[i : end+1])
			i = end + 1
		case strings.HasPrefix(src[i:], "==="):
			b.WriteString("== ")
			i += 3
		case strings.HasPrefix(src[i:], "!=="):
			b.WriteString("!= ")
			i += 3
		case isIdentStart(c):
			end := i + 1
			for end < len(src) && isIdentPart(src[end]) {
				end++
			}
			word := src[i:end]
			// A member name (x.null) is not the literal.
			member := strings.HasSuffix(strings.TrimRight(src[:i], " \t"), ".")
			if !member && (word == "null" || word == "undefined") {
				b.WriteString("nil")
				b.WriteString(strings.Repeat(" ", len(word)-3))
			} else {
				b.WriteString(word)
			}
			i = end
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), nil
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdentPart(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

// jsPatch gives the compiled tree JavaScript truthiness and checks the
// literal arguments of isInRange calls.
type jsPatch struct {
	err error
}

func truthyCall(n ast.Node) ast.Node {
	return &ast.CallNode{Callee: &ast.IdentifierNode{Value: truthyFunc}, Arguments: []ast.Node{n}}
}

func isTruthyCall(n ast.Node) bool {
	c, ok := n.(*ast.CallNode)
	if !ok {
		return false
	}
	id, ok := c.Callee.(*ast.IdentifierNode)
	return ok && id.Value == truthyFunc
}

// Visit is called for every node, children first.
func (p *jsPatch) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.UnaryNode:
		if n.Operator == "!" || n.Operator == "not" {
			ast.Patch(node, &ast.UnaryNode{Operator: "!", Node: truthyCall(n.Node)})
		}
	case *ast.BinaryNode:
		switch n.Operator {
		case "&&", "and":
			// a && b is b when a is truthy, else a.
			ast.Patch(node, &ast.ConditionalNode{Ternary: true, Cond: truthyCall(n.Left), Exp1: n.Right, Exp2: n.Left})
		case "||", "or":
			// a || b is a when a is truthy, else b.
			ast.Patch(node, &ast.ConditionalNode{Ternary: true, Cond: truthyCall(n.Left), Exp1: n.Left, Exp2: n.Right})
		}
	case *ast.ConditionalNode:
		if !isTruthyCall(n.Cond) {
			n.Cond = truthyCall(n.Cond)
		}
	case *ast.CallNode:
		p.checkIsInRange(n)
	}
}

// checkIsInRange rejects at load time an isInRange call whose literal
// arguments are not dates.
func (p *jsPatch) checkIsInRange(n *ast.CallNode) {
	m, ok := n.Callee.(*ast.MemberNode)
	if !ok || p.err != nil {
		return
	}
	name, ok := m.Property.(*ast.StringNode)
	if !ok || name.Value != "isInRange" {
		return
	}
	if len(n.Arguments) != 2 {
		p.err = &exprError{Column: n.Location().From + 1, Reason: fmt.Sprintf("isInRange takes 2 dates ('M/D'), got %d arguments", len(n.Arguments))}
		return
	}
	for _, a := range n.Arguments {
		s, ok := a.(*ast.StringNode)
		if !ok {
			continue
		}
		if _, _, err := parseMonthDay(s.Value); err != nil {
			p.err = &exprError{Column: a.Location().From + 1, Reason: err.Error()}
			return
		}
	}
}

// Truthy reports whether JavaScript would take v as true: false, 0, NaN,
// "" and null (nil) are false, everything else is true.
func Truthy(v any) bool {
	if v == nil {
		return false
	}
	switch v := v.(type) {
	case bool:
		return v
	case string:
		return v != ""
	case ESML:
		return v != ""
	case float64:
		return v != 0 && !math.IsNaN(v)
	case float32:
		return v != 0 && !math.IsNaN(float64(v))
	case int:
		return v != 0
	case int64:
		return v != 0
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int() != 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return rv.Uint() != 0
	case reflect.Float32, reflect.Float64:
		f := rv.Float()
		return f != 0 && !math.IsNaN(f)
	case reflect.String:
		return rv.Len() > 0
	case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice, reflect.Func:
		// JavaScript objects and arrays are true even when empty; only a
		// missing one is false.
		return !rv.IsNil()
	}
	return true
}
