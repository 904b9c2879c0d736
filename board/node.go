package board

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
)

// node is a decoded JSON object and its path.
type node struct {
	path   string
	fields map[string]any
}

func (n node) at(key string) string {
	if n.path == "" {
		return key
	}
	return n.path + "." + key
}

// allow rejects fields other than keys, naming the first (in sorted order,
// so the message does not depend on map order).
func (n node) allow(keys ...string) error {
	var unknown []string
	for k := range n.fields {
		if !slices.Contains(keys, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return fieldErr(n.at(unknown[0]), "unknown field")
	}
	return nil
}

func (n node) get(key string, required bool) (any, bool, error) {
	v, ok := n.fields[key]
	if !ok || v == nil {
		if required {
			return nil, false, fieldErr(n.at(key), "missing")
		}
		return nil, false, nil
	}
	return v, true, nil
}

func (n node) str(key string, required bool) (string, bool, error) {
	v, ok, err := n.get(key, required)
	if err != nil || !ok {
		return "", false, err
	}
	s, isStr := v.(string)
	if !isStr {
		return "", false, fieldErr(n.at(key), "is %s, want a string", kindOf(v))
	}
	if len(s) > MaxDescriptionLen {
		return "", false, fieldErr(n.at(key), "is %d bytes, limit %d", len(s), MaxDescriptionLen)
	}
	return s, true, nil
}

func (n node) number(key string, required bool) (float64, bool, error) {
	v, ok, err := n.get(key, required)
	if err != nil || !ok {
		return 0, false, err
	}
	num, isNum := v.(json.Number)
	if !isNum {
		return 0, false, fieldErr(n.at(key), "is %s, want a number", kindOf(v))
	}
	f, err := num.Float64()
	if err != nil {
		return 0, false, fieldErr(n.at(key), "%s is out of range", num)
	}
	return f, true, nil
}

func (n node) integer(key string, required bool) (int, bool, error) {
	v, ok, err := n.get(key, required)
	if err != nil || !ok {
		return 0, false, err
	}
	num, isNum := v.(json.Number)
	if !isNum {
		return 0, false, fieldErr(n.at(key), "is %s, want a whole number", kindOf(v))
	}
	i, err := num.Int64()
	if err != nil || i < math.MinInt32 || i > math.MaxInt32 {
		return 0, false, fieldErr(n.at(key), "is %s, want a whole number", num)
	}
	return int(i), true, nil
}

func (n node) object(key string, required bool) (node, bool, error) {
	v, ok, err := n.get(key, required)
	if err != nil || !ok {
		return node{}, false, err
	}
	m, isObj := v.(map[string]any)
	if !isObj {
		return node{}, false, fieldErr(n.at(key), "is %s, want an object", kindOf(v))
	}
	return node{path: n.at(key), fields: m}, true, nil
}

func (n node) array(key string, required bool) ([]any, bool, error) {
	v, ok, err := n.get(key, required)
	if err != nil || !ok {
		return nil, false, err
	}
	a, isArr := v.([]any)
	if !isArr {
		return nil, false, fieldErr(n.at(key), "is %s, want an array", kindOf(v))
	}
	return a, true, nil
}

// kindOf names a decoded JSON value's type for error messages.
func kindOf(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

func (n node) boolean(key string) (bool, error) {
	v, ok, err := n.get(key, false)
	if err != nil || !ok {
		return false, err
	}
	b, isBool := v.(bool)
	if !isBool {
		return false, fieldErr(n.at(key), "is %s, want a boolean", kindOf(v))
	}
	return b, nil
}
