package mim

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf16"
)

// JavaScript's values, conversions and operators over the JSON-like Go
// values of PromptData: numbers of any Go kind, strings (and ESML), bools,
// nil for null, maps with string keys and structs as objects, slices and
// arrays as arrays.

// method is a string or array method bound to its receiver.
type method struct {
	recv any
	name string
}

// stringMethods and arrayMethods are the methods expressions may call.
var (
	stringMethods = map[string]bool{"toLowerCase": true, "toUpperCase": true, "trim": true, "includes": true, "startsWith": true, "endsWith": true, "indexOf": true}
	arrayMethods  = map[string]bool{"includes": true, "indexOf": true, "join": true}
)

func (m method) call(ev *evaluator, args []any) (any, error) {
	arg := func(i int) any {
		if i < len(args) {
			return args[i]
		}
		return undefined
	}
	if s, ok := asString(m.recv); ok {
		switch m.name {
		case "toLowerCase", "toUpperCase", "trim":
			if err := ev.spend(len(s)); err != nil {
				return nil, err
			}
			switch m.name {
			case "toLowerCase":
				return strings.ToLower(s), nil
			case "toUpperCase":
				return strings.ToUpper(s), nil
			}
			return strings.TrimSpace(s), nil
		case "includes":
			return strings.Contains(s, toString(arg(0))), nil
		case "startsWith":
			return strings.HasPrefix(s, toString(arg(0))), nil
		case "endsWith":
			return strings.HasSuffix(s, toString(arg(0))), nil
		}
		i := strings.Index(s, toString(arg(0)))
		if i < 0 {
			return -1.0, nil
		}
		return float64(utf16Len(s[:i])), nil
	}
	rv := reflect.ValueOf(m.recv)
	switch m.name {
	case "includes", "indexOf":
		want := arg(0)
		for i := range rv.Len() {
			v := rv.Index(i).Interface()
			if strictEqual(v, want) || m.name == "includes" && isNaN(v) && isNaN(want) {
				if m.name == "includes" {
					return true, nil
				}
				return float64(i), nil
			}
		}
		if m.name == "includes" {
			return false, nil
		}
		return -1.0, nil
	}
	sep := ","
	if a := arg(0); a != undefined {
		sep = toString(a)
	}
	var b strings.Builder
	for i := range rv.Len() {
		if i > 0 {
			b.WriteString(sep)
		}
		if v := rv.Index(i).Interface(); v != nil && v != undefined {
			t := toString(toPrimitive(v))
			if err := ev.spend(len(t) + len(sep)); err != nil {
				return nil, err
			}
			b.WriteString(t)
		}
	}
	return b.String(), nil
}

// member is obj[key] as JavaScript reads it: a missing member is
// undefined, a member of null or undefined is a TypeError.
func member(obj, key any) (any, error) {
	if obj == nil || obj == undefined {
		return nil, fmt.Errorf("cannot read property %s of %s", quoteKey(key), typeName(obj))
	}
	switch o := obj.(type) {
	case map[string]any:
		if v, ok := o[toString(key)]; ok {
			return v, nil
		}
		return undefined, nil
	case method, func(string, string) (bool, error), func(...any) (any, error):
		return undefined, nil
	}
	if s, ok := asString(obj); ok {
		k := toString(key)
		if k == "length" {
			return float64(utf16Len(s)), nil
		}
		if stringMethods[k] {
			return method{recv: s, name: k}, nil
		}
		if i, ok := index(key); ok && i < len(s) {
			// Characters by UTF-16 unit, as JavaScript indexes them.
			units := utf16.Encode([]rune(s))
			if i < len(units) {
				return string(utf16.Decode(units[i : i+1])), nil
			}
		}
		return undefined, nil
	}
	rv := reflect.ValueOf(obj)
	for rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return nil, fmt.Errorf("cannot read property %s of null", quoteKey(key))
		}
		rv = rv.Elem()
	}
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		k := toString(key)
		if k == "length" {
			return float64(rv.Len()), nil
		}
		if arrayMethods[k] {
			return method{recv: rv.Interface(), name: k}, nil
		}
		if i, ok := index(key); ok && i < rv.Len() {
			return rv.Index(i).Interface(), nil
		}
	case reflect.Map:
		if rv.Type().Key().Kind() == reflect.String {
			v := rv.MapIndex(reflect.ValueOf(toString(key)).Convert(rv.Type().Key()))
			if v.IsValid() {
				return v.Interface(), nil
			}
		}
	case reflect.Struct:
		if f, ok := structField(rv, toString(key)); ok {
			return f.Interface(), nil
		}
	}
	return undefined, nil
}

// structField finds an exported field by its JSON name, else its Go name.
func structField(rv reflect.Value, name string) (reflect.Value, bool) {
	t := rv.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == name || tag == "" && f.Name == name {
			return rv.Field(i), true
		}
	}
	return reflect.Value{}, false
}

// index reads an array index from a member key: a whole non-negative
// number, or a string spelling one.
func index(key any) (int, bool) {
	f := math.NaN()
	if s, ok := key.(string); ok {
		if n, err := strconv.Atoi(s); err == nil && strconv.Itoa(n) == s {
			f = float64(n)
		}
	} else if isNumber(key) {
		f = toNumber(key)
	}
	if f >= 0 && f == math.Trunc(f) && f < math.MaxInt32 {
		return int(f), true
	}
	return 0, false
}

func quoteKey(key any) string { return strconv.Quote(toString(key)) }

func typeName(v any) string {
	if v == nil {
		return "null"
	}
	return "undefined"
}

// jsDescribe names a value in an error.
func jsDescribe(v any) string {
	switch t := typeOf(v); t {
	case "undefined":
		return "undefined"
	case "object":
		if v == nil {
			return "null"
		}
		return "an object"
	default:
		return "a " + t
	}
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// asString returns v's text when v is a string of some type.
func asString(v any) (string, bool) {
	switch s := v.(type) {
	case string:
		return s, true
	case ESML:
		return string(s), true
	case nil, bool, float64, int, map[string]any, []any, undefinedValue, method:
		return "", false
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.String {
		return rv.String(), true
	}
	return "", false
}

func isString(v any) bool {
	_, ok := asString(v)
	return ok
}

// isNumber reports whether v is a Go number of any kind.
func isNumber(v any) bool {
	switch v.(type) {
	case float64, int, int64, float32:
		return true
	case nil, bool, string, ESML, map[string]any, []any, undefinedValue, method:
		return false
	}
	switch reflect.ValueOf(v).Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

func isNaN(v any) bool { return isNumber(v) && math.IsNaN(toNumber(v)) }

// typeOf is JavaScript's typeof.
func typeOf(v any) string {
	switch {
	case v == undefined:
		return "undefined"
	case v == nil:
		return "object"
	case isNumber(v):
		return "number"
	case isString(v):
		return "string"
	}
	switch v.(type) {
	case bool:
		return "boolean"
	case method, func(string, string) (bool, error), func(...any) (any, error):
		return "function"
	}
	if reflect.ValueOf(v).Kind() == reflect.Bool {
		return "boolean"
	}
	return "object"
}

// toPrimitive turns arrays into their joined text and other objects
// into "[object Object]", as JavaScript's + and == see them.
func toPrimitive(v any) any { return primitive(v, 0) }

// maxJoinDepth bounds how deep nested arrays are joined, so an array that
// holds itself ends.
const maxJoinDepth = 32

func primitive(v any, depth int) any {
	if typeOf(v) != "object" || v == nil {
		return v
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array {
		if depth >= maxJoinDepth {
			return ""
		}
		items := make([]string, rv.Len())
		for i := range items {
			if e := rv.Index(i).Interface(); e != nil && e != undefined {
				items[i] = toString(primitive(e, depth+1))
			}
		}
		return strings.Join(items, ",")
	}
	return "[object Object]"
}

// toNumber is JavaScript's Number(v).
func toNumber(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case int:
		return float64(x)
	case nil:
		return 0
	case bool:
		if x {
			return 1
		}
		return 0
	case undefinedValue:
		return math.NaN()
	}
	if s, ok := asString(v); ok {
		s = strings.TrimSpace(s)
		switch {
		case s == "":
			return 0
		case s == "Infinity" || s == "+Infinity":
			return math.Inf(1)
		case s == "-Infinity":
			return math.Inf(-1)
		case len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'):
			if u, err := strconv.ParseUint(s[2:], 16, 64); err == nil {
				return float64(u)
			}
			return math.NaN()
		}
		if strings.ContainsAny(s, "_xXnNiIpP") {
			return math.NaN()
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil && !isRangeErr(err) {
			return math.NaN()
		}
		return f
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(rv.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return float64(rv.Uint())
	case reflect.Float32, reflect.Float64:
		return rv.Float()
	case reflect.Bool:
		if rv.Bool() {
			return 1
		}
		return 0
	}
	if p := toPrimitive(v); p != v {
		return toNumber(p)
	}
	return math.NaN()
}

// toString is JavaScript's String(v).
func toString(v any) string {
	if s, ok := asString(v); ok {
		return s
	}
	switch {
	case v == nil:
		return "null"
	case v == undefined:
		return "undefined"
	case isNumber(v):
		return jsNumber(toNumber(v))
	}
	switch typeOf(v) {
	case "boolean":
		return strconv.FormatBool(toNumber(v) == 1)
	case "function":
		return "function"
	}
	return toPrimitive(v).(string)
}

// strictEqual is JavaScript's ===; objects are equal only to themselves.
func strictEqual(a, b any) bool {
	ta, tb := typeOf(a), typeOf(b)
	if ta != tb || (a == nil) != (b == nil) {
		return false
	}
	switch ta {
	case "undefined":
		return true
	case "number":
		return toNumber(a) == toNumber(b)
	case "string":
		as, _ := asString(a)
		bs, _ := asString(b)
		return as == bs
	case "boolean":
		return toNumber(a) == toNumber(b)
	}
	if a == nil {
		return true
	}
	return sameObject(a, b)
}

func sameObject(a, b any) bool {
	ra, rb := reflect.ValueOf(a), reflect.ValueOf(b)
	if ra.Type() != rb.Type() {
		return false
	}
	switch ra.Kind() {
	case reflect.Map, reflect.Pointer, reflect.Func:
		return ra.UnsafePointer() == rb.UnsafePointer()
	case reflect.Slice:
		return ra.UnsafePointer() == rb.UnsafePointer() && ra.Len() == rb.Len()
	}
	return false
}

// looseEqual is JavaScript's ==.
func looseEqual(a, b any) bool {
	ta, tb := typeOf(a), typeOf(b)
	nullish := func(v any) bool { return v == nil || v == undefined }
	switch {
	case nullish(a) || nullish(b):
		return nullish(a) && nullish(b)
	case ta == tb:
		return strictEqual(a, b)
	case ta == "object" || ta == "function":
		return looseEqual(toPrimitive(a), b)
	case tb == "object" || tb == "function":
		return looseEqual(a, toPrimitive(b))
	}
	// Primitives of different types compare as numbers.
	return toNumber(a) == toNumber(b)
}

// compare is JavaScript's <, <=, > and >=: strings compare as text,
// anything else as numbers, and NaN compares false.
func compare(op string, a, b any) bool {
	a, b = toPrimitive(a), toPrimitive(b)
	as, aok := asString(a)
	bs, bok := asString(b)
	c := 0
	if aok && bok {
		c = strings.Compare(as, bs)
	} else {
		x, y := toNumber(a), toNumber(b)
		if math.IsNaN(x) || math.IsNaN(y) {
			return false
		}
		switch {
		case x < y:
			c = -1
		case x > y:
			c = 1
		}
	}
	switch op {
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	}
	return c >= 0
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
	case undefinedValue:
		return false
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
	case reflect.Bool:
		return rv.Bool()
	case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice, reflect.Func:
		// JavaScript objects and arrays are true even when empty; only a
		// missing one is false.
		return !rv.IsNil()
	}
	return true
}
