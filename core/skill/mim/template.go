package mim

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ESML is markup a skill means to insert into a prompt as is: a template
// whose value is an ESML is not escaped. The resolved prompt must still
// parse.
type ESML string

// part is a piece of a prompt: literal text, or a template when expr is set.
type part struct {
	text string   // literal text, or the template's source
	expr *program // nil for literal text
	col  int      // 1-based column of the template's "${"
}

// splitTemplates cuts a prompt into literal text and ${…} templates. A
// template ends at the first } outside string literals and nested braces.
// The error is an *exprError whose column is in the prompt.
func splitTemplates(text string, c *compiler) ([]part, error) {
	var parts []part
	n := 0
	rest, offset := text, 0
	for {
		i := strings.Index(rest, "${")
		if i < 0 {
			if rest != "" {
				parts = append(parts, part{text: rest})
			}
			return parts, nil
		}
		if i > 0 {
			parts = append(parts, part{text: rest[:i]})
		}
		col := utf8.RuneCountInString(text[:offset+i]) + 1
		n++
		if n > MaxTemplates {
			return nil, &exprError{Column: col, Reason: fmt.Sprintf("more than %d templates", MaxTemplates)}
		}
		end, err := templateEnd(rest[i+2:])
		if err != nil {
			return nil, &exprError{Column: col, Reason: err.Error()}
		}
		src := rest[i+2 : i+2+end]
		if strings.TrimSpace(src) == "" {
			return nil, &exprError{Column: col, Reason: "empty template ${}"}
		}
		p, err := c.compile(src)
		if err != nil {
			ee := err.(*exprError)
			if ee.Column > 0 {
				ee.Column += col + 1 // past "${"
			} else {
				ee.Column = col
			}
			return nil, ee
		}
		parts = append(parts, part{text: src, expr: p, col: col})
		rest = rest[i+2+end+1:]
		offset += i + 2 + end + 1
	}
}

// templateEnd returns the index of the } closing a template that starts at
// s[0].
func templateEnd(s string) (int, error) {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\'', '`':
			j := i + 1
			for j < len(s) && s[j] != c {
				if s[j] == '\\' && c != '`' {
					j++
				}
				j++
			}
			if j >= len(s) {
				return 0, fmt.Errorf("unterminated string literal in template")
			}
			i = j
		case '{':
			depth++
		case '}':
			if depth == 0 {
				return i, nil
			}
			depth--
		}
	}
	return 0, fmt.Errorf("template ${ is never closed")
}

// standInText is what stands for a template when a prompt's markup is
// checked at load time.
const standInText = "x"

// skeleton returns the prompt with every template replaced by a
// stand-in, to check its markup.
func skeleton(parts []part) string {
	var b strings.Builder
	for _, p := range parts {
		if p.expr != nil {
			b.WriteString(standInText)
		} else {
			b.WriteString(p.text)
		}
	}
	return b.String()
}

// resolve evaluates the templates of a prompt.
func resolve(parts []part, e *env) (string, error) {
	var b strings.Builder
	for _, p := range parts {
		if p.expr == nil {
			b.WriteString(p.text)
			continue
		}
		v, err := p.expr.run(e)
		if err != nil {
			return "", fmt.Errorf("template ${%s} at column %d: %w", p.text, p.col, err)
		}
		s, markup, err := templateText(v)
		if err != nil {
			return "", fmt.Errorf("template ${%s} at column %d: %w", p.text, p.col, err)
		}
		if markup {
			b.WriteString(s)
		} else {
			escapeESML(&b, s)
		}
		if b.Len() > MaxPromptBytes {
			return "", fmt.Errorf("resolved prompt is over %d bytes", MaxPromptBytes)
		}
	}
	return b.String(), nil
}

// templateText turns a template's value into text as JavaScript's String()
// would, refusing what would be spoken as nonsense: null, undefined and
// objects. markup is true for ESML values.
func templateText(v any) (s string, markup bool, err error) {
	switch v := v.(type) {
	case nil:
		return "", false, fmt.Errorf("value is null or undefined")
	case ESML:
		return string(v), true, nil
	case string:
		return v, false, nil
	case bool:
		return strconv.FormatBool(v), false, nil
	case float64:
		return jsNumber(v), false, nil
	case float32:
		return jsNumber(float64(v)), false, nil
	case int:
		return strconv.Itoa(v), false, nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(rv.Int(), 10), false, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(rv.Uint(), 10), false, nil
	case reflect.String:
		return rv.String(), false, nil
	case reflect.Slice, reflect.Array:
		// JavaScript joins an array's elements with commas.
		items := make([]string, rv.Len())
		for i := range items {
			s, _, err := templateText(rv.Index(i).Interface())
			if err != nil {
				return "", false, fmt.Errorf("element %d: %w", i, err)
			}
			items[i] = s
		}
		return strings.Join(items, ","), false, nil
	}
	return "", false, fmt.Errorf("value of type %T cannot be spoken", v)
}

// jsNumber formats a number as JavaScript prints it for ordinary values:
// integers without a fraction, others in shortest form.
func jsNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == math.Trunc(f) && math.Abs(f) < 1e21:
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// escapeESML writes s as ESML text.
func escapeESML(b *strings.Builder, s string) {
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&quot;")
		case '\'':
			b.WriteString("&apos;")
		default:
			b.WriteRune(r)
		}
	}
}
