package bus

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"unicode/utf8"

	"github.com/fxamacker/cbor/v2"

	"github.com/openjibo/jibod/internal/strictjson"
)

// Limits on a message crossing a process boundary. The in-process bus applies
// MaxDepth as well, so a message that cannot leave the robot cannot enter it.
const (
	// MaxMessageBytes bounds one encoded message.
	MaxMessageBytes = 1 << 20
	// MaxDepth bounds the nesting of objects and arrays inside a message.
	MaxDepth = 32
	// MaxElements bounds the entries of any one array or object.
	MaxElements = 65536
)

// Normalize converts a Go value into the JSON-shaped form messages carry
// (nil, bool, string, int64, float64, []any, map[string]any), deep-copying
// as it goes. It rejects non-finite numbers (MSG-17), invalid UTF-8 and
// nesting beyond MaxDepth. Values of other types take a trip through
// encoding/json.
func Normalize(v any) (any, error) { return normalize(v, 0) }

// NormalizeMap is Normalize for an object; nil becomes {}.
func NormalizeMap(m map[string]any) (map[string]any, error) {
	if m == nil {
		return map[string]any{}, nil
	}
	v, err := normalize(m, 0)
	if err != nil {
		return nil, err
	}
	return v.(map[string]any), nil
}

func normalize(v any, depth int) (any, error) {
	if depth > MaxDepth {
		return nil, fmt.Errorf("nesting deeper than %d levels", MaxDepth)
	}
	switch t := v.(type) {
	case nil, bool, int64:
		return t, nil
	case string:
		if !utf8.ValidString(t) {
			return nil, errors.New("string is not valid UTF-8")
		}
		return t, nil
	case int:
		return int64(t), nil
	case int8:
		return int64(t), nil
	case int16:
		return int64(t), nil
	case int32:
		return int64(t), nil
	case uint8:
		return int64(t), nil
	case uint16:
		return int64(t), nil
	case uint32:
		return int64(t), nil
	case uint:
		if uint64(t) > math.MaxInt64 {
			return float64(t), nil
		}
		return int64(t), nil
	case uint64:
		if t > math.MaxInt64 {
			return float64(t), nil
		}
		return int64(t), nil
	case float32:
		return normFloat(float64(t))
	case float64:
		return normFloat(t)
	case json.Number:
		return numberValue(t)
	case json.RawMessage:
		var out any
		if err := decodeJSONValue(t, &out); err != nil {
			return nil, err
		}
		return out, nil
	case []string:
		if len(t) > MaxElements {
			return nil, fmt.Errorf("array longer than %d elements", MaxElements)
		}
		out := make([]any, len(t))
		for i, s := range t {
			if !utf8.ValidString(s) {
				return nil, fmt.Errorf("[%d]: string is not valid UTF-8", i)
			}
			out[i] = s
		}
		return out, nil
	case []any:
		if len(t) > MaxElements {
			return nil, fmt.Errorf("array longer than %d elements", MaxElements)
		}
		out := make([]any, len(t))
		for i, e := range t {
			n, err := normalize(e, depth+1)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			out[i] = n
		}
		return out, nil
	case map[string]any:
		if len(t) > MaxElements {
			return nil, fmt.Errorf("object with more than %d keys", MaxElements)
		}
		out := make(map[string]any, len(t))
		for k, e := range t {
			if !utf8.ValidString(k) {
				return nil, errors.New("object key is not valid UTF-8")
			}
			n, err := normalize(e, depth+1)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			out[k] = n
		}
		return out, nil
	case map[string]string:
		out := make(map[string]any, len(t))
		for k, s := range t {
			if !utf8.ValidString(k) || !utf8.ValidString(s) {
				return nil, fmt.Errorf("%s: string is not valid UTF-8", k)
			}
			out[k] = s
		}
		return out, nil
	}
	// Structs, typed slices and maps: let encoding/json define their shape.
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.IsNil() {
		return nil, nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("value of type %T: %w", v, err)
	}
	var out any
	if err := decodeJSONValue(raw, &out); err != nil {
		return nil, err
	}
	return normalize(out, depth)
}

func normFloat(f float64) (any, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, errors.New("number is not finite (MSG-17)")
	}
	return f, nil
}

func numberValue(n json.Number) (any, error) {
	if i, err := n.Int64(); err == nil {
		return i, nil
	}
	f, err := n.Float64()
	if err != nil {
		return nil, fmt.Errorf("number %q: %w", n, err)
	}
	return normFloat(f)
}

// decodeJSONValue decodes one JSON value keeping integers exact.
func decodeJSONValue(raw []byte, out *any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("decoding JSON: %w", err)
	}
	if dec.More() {
		return errors.New("decoding JSON: trailing data after the value")
	}
	n, err := convertNumbers(v, 0)
	if err != nil {
		return err
	}
	*out = n
	return nil
}

func convertNumbers(v any, depth int) (any, error) {
	if depth > MaxDepth {
		return nil, fmt.Errorf("nesting deeper than %d levels", MaxDepth)
	}
	switch t := v.(type) {
	case json.Number:
		return numberValue(t)
	case []any:
		if len(t) > MaxElements {
			return nil, fmt.Errorf("array longer than %d elements", MaxElements)
		}
		for i, e := range t {
			n, err := convertNumbers(e, depth+1)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			t[i] = n
		}
	case map[string]any:
		if len(t) > MaxElements {
			return nil, fmt.Errorf("object with more than %d keys", MaxElements)
		}
		for k, e := range t {
			n, err := convertNumbers(e, depth+1)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			t[k] = n
		}
	}
	return v, nil
}

// DecodeJSON parses one message from JSON. It enforces MSG-03 (an object with
// a valid string type, and objects for data and context when present),
// MSG-17 (UTF-8, escapes included, finite numbers), no key given twice,
// and the size and nesting limits. Unknown
// top-level keys are ignored (MSG-02) and reported in unknown so the caller
// can log them.
func DecodeJSON(raw []byte) (m Message, unknown []string, err error) {
	if len(raw) > MaxMessageBytes {
		return Message{}, nil, fmt.Errorf("%w: %d bytes exceeds the %d-byte limit", ErrMalformed, len(raw), MaxMessageBytes)
	}
	if !utf8.Valid(raw) {
		return Message{}, nil, fmt.Errorf("%w: not valid UTF-8 (MSG-17)", ErrMalformed)
	}
	raw = bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf"))
	// A key given twice (the last would win) or an escape leaving half a
	// surrogate pair (it would become U+FFFD) is refused.
	if err := strictjson.CheckMembers(raw); err != nil {
		return Message{}, nil, fmt.Errorf("%w: %w (MSG-17)", ErrMalformed, err)
	}
	var v any
	if err := decodeJSONValue(raw, &v); err != nil {
		return Message{}, nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	return fromGeneric(v)
}

// fromGeneric builds a message from a decoded JSON-shaped value.
func fromGeneric(v any) (Message, []string, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return Message{}, nil, fmt.Errorf("%w: not an object (MSG-03)", ErrMalformed)
	}
	var m Message
	var unknown []string
	for k, val := range obj {
		switch k {
		case "type":
			s, ok := val.(string)
			if !ok {
				return Message{}, nil, fmt.Errorf("%w: type is %s, want string (MSG-03)", ErrMalformed, kindOf(val))
			}
			m.Type = s
		case "data", "context":
			var o map[string]any
			switch t := val.(type) {
			case map[string]any:
				o = t
			default:
				return Message{}, nil, fmt.Errorf("%w: %s is %s, want object (MSG-03)", ErrMalformed, k, kindOf(val))
			}
			if k == "data" {
				m.Data = o
			} else {
				m.Context = o
			}
		default:
			unknown = append(unknown, k)
		}
	}
	if _, ok := obj["type"]; !ok {
		return Message{}, nil, fmt.Errorf("%w: type missing (MSG-03)", ErrMalformed)
	}
	if err := m.Validate(); err != nil {
		return Message{}, nil, err
	}
	if m.Data == nil {
		m.Data = map[string]any{}
	}
	if m.Context == nil {
		m.Context = map[string]any{}
	}
	return m, unknown, nil
}

func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case int64, float64:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// EncodeJSON writes m as one JSON object with exactly the three MSG-01 keys.
// Absent data or context are written as {}.
func EncodeJSON(m Message) ([]byte, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	w := struct {
		Type    string         `json:"type"`
		Data    map[string]any `json:"data"`
		Context map[string]any `json:"context"`
	}{m.Type, m.Data, m.Context}
	if w.Data == nil {
		w.Data = map[string]any{}
	}
	if w.Context == nil {
		w.Context = map[string]any{}
	}
	b, err := json.Marshal(w)
	if err != nil {
		return nil, fmt.Errorf("encoding %s as JSON: %w", m.Type, err)
	}
	return b, nil
}

// CBOR is the binary codec for messages that leave the process. Encoding is
// deterministic (RFC 8949 core deterministic); decoding has explicit limits.
type CBOR struct {
	enc cbor.EncMode
	dec cbor.DecMode
}

// NewCBOR builds the CBOR codec with the package limits.
func NewCBOR() (*CBOR, error) {
	enc, err := cbor.CoreDetEncOptions().EncMode()
	if err != nil {
		return nil, fmt.Errorf("building CBOR encoder: %w", err)
	}
	dec, err := cbor.DecOptions{
		MaxNestedLevels:  MaxDepth + 1, // the envelope itself is one level
		MaxArrayElements: MaxElements,
		MaxMapPairs:      MaxElements,
		DupMapKey:        cbor.DupMapKeyEnforcedAPF,
		IndefLength:      cbor.IndefLengthForbidden,
		TagsMd:           cbor.TagsForbidden,
		IntDec:           cbor.IntDecConvertSignedOrFail,
		DefaultMapType:   reflect.TypeOf(map[string]any(nil)),
		UTF8:             cbor.UTF8RejectInvalid,
	}.DecMode()
	if err != nil {
		return nil, fmt.Errorf("building CBOR decoder: %w", err)
	}
	return &CBOR{enc: enc, dec: dec}, nil
}

// Encode writes m as a CBOR map with the three MSG-01 keys.
func (c *CBOR) Encode(m Message) ([]byte, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	data, err := NormalizeMap(m.Data)
	if err != nil {
		return nil, fmt.Errorf("encoding %s as CBOR: data: %w", m.Type, err)
	}
	ctx, err := NormalizeMap(m.Context)
	if err != nil {
		return nil, fmt.Errorf("encoding %s as CBOR: context: %w", m.Type, err)
	}
	b, err := c.enc.Marshal(map[string]any{"type": m.Type, "data": data, "context": ctx})
	if err != nil {
		return nil, fmt.Errorf("encoding %s as CBOR: %w", m.Type, err)
	}
	if len(b) > MaxMessageBytes {
		return nil, fmt.Errorf("encoding %s as CBOR: %d bytes exceeds the %d-byte limit", m.Type, len(b), MaxMessageBytes)
	}
	return b, nil
}

// Decode parses one CBOR-encoded message with the same rules as DecodeJSON.
func (c *CBOR) Decode(raw []byte) (Message, []string, error) {
	if len(raw) > MaxMessageBytes {
		return Message{}, nil, fmt.Errorf("%w: %d bytes exceeds the %d-byte limit", ErrMalformed, len(raw), MaxMessageBytes)
	}
	var v any
	if err := c.dec.Unmarshal(raw, &v); err != nil {
		return Message{}, nil, fmt.Errorf("%w: decoding CBOR: %w", ErrMalformed, err)
	}
	n, err := normalize(v, 0)
	if err != nil {
		return Message{}, nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	return fromGeneric(n)
}
