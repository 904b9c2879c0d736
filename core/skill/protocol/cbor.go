package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fxamacker/cbor/v2"
)

// EncodeCBOR encodes v (a Request, Response, Envelope, any value encoding/
// json accepts, or a json.RawMessage holding JSON) as deterministic CBOR
// (RFC 8949 core deterministic encoding). It goes through v's JSON form, so
// unknown members survive exactly as they do in JSON; see the package
// documentation for how numbers map. The JSON form and the result must both
// be within the package limits.
func EncodeCBOR(v any) ([]byte, error) {
	// EncodeJSON writes this package's types directly (json.Marshal would
	// re-parse what their MarshalJSON wrote) and checks the limits.
	js, err := EncodeJSON(v)
	if err != nil {
		return nil, fmt.Errorf("encode cbor: %w", err)
	}
	tree, err := parseAny(js)
	if err == nil {
		tree, err = cborValue(tree)
	}
	if err != nil {
		return nil, fmt.Errorf("encode cbor: %w", err)
	}
	em, err := cborEncMode()
	if err != nil {
		return nil, fmt.Errorf("encode cbor: %w", err)
	}
	out, err := em.Marshal(tree)
	if err != nil {
		return nil, fmt.Errorf("encode cbor: %w", err)
	}
	if len(out) > MaxMessageSize {
		return nil, fmt.Errorf("encode cbor: %w: %d bytes, limit %d", ErrLimit, len(out), MaxMessageSize)
	}
	return out, nil
}

// DecodeCBOR converts one CBOR-encoded message to its JSON form, ready for
// DecodeRequest, DecodeResponse or DecodeEnvelope. The input size is
// checked first, then the decoder enforces MaxNestedLevels,
// MaxArrayElements and MaxMapPairs. Only items JSON can represent are
// accepted: text-keyed maps, arrays, text, integers (bignums included),
// finite floats, booleans and null; byte strings, undefined, other simple
// values and tags other than bignums are errors, as are duplicate keys.
func DecodeCBOR(data []byte) ([]byte, error) {
	if len(data) > MaxMessageSize {
		return nil, fmt.Errorf("decode cbor: %w: %d bytes, limit %d", ErrLimit, len(data), MaxMessageSize)
	}
	dm, err := cborDecMode()
	if err != nil {
		return nil, fmt.Errorf("decode cbor: %w", err)
	}
	var tree any
	if err := dm.Unmarshal(data, &tree); err != nil {
		return nil, fmt.Errorf("decode cbor: %w", err)
	}
	out, err := appendJSON(nil, tree)
	if err != nil {
		return nil, fmt.Errorf("decode cbor: %w", err)
	}
	// The JSON form must obey the same limits (JSON escapes can make text
	// longer than its CBOR form).
	if err := checkJSON(out); err != nil {
		return nil, fmt.Errorf("decode cbor: %w", err)
	}
	return out, nil
}

// The modes are immutable and safe for concurrent use; building one costs
// more than encoding a typical message, so each is built once.
var (
	cborEncMode = sync.OnceValues(func() (cbor.EncMode, error) { return cbor.CoreDetEncOptions().EncMode() })
	cborDecMode = sync.OnceValues(newCBORDecMode)
)

func newCBORDecMode() (cbor.DecMode, error) {
	simple, err := cbor.NewSimpleValueRegistryFromDefaults(cbor.WithRejectedSimpleValue(cbor.SimpleValue(23))) // undefined
	if err != nil {
		return nil, err
	}
	return cbor.DecOptions{
		DupMapKey: cbor.DupMapKeyEnforcedAPF,
		// One more level than JSON allows, so a bignum tag at the deepest
		// level still decodes; the JSON check afterwards applies the limit.
		MaxNestedLevels:  MaxNestedLevels + 1,
		MaxArrayElements: MaxArrayElements,
		MaxMapPairs:      MaxMapPairs,
		IndefLength:      cbor.IndefLengthAllowed,
		TagsMd:           cbor.TagsAllowed,
		IntDec:           cbor.IntDecConvertNone,
		BigIntDec:        cbor.BigIntDecodePointer,
		DefaultMapType:   reflect.TypeOf(map[string]any(nil)),
		UTF8:             cbor.UTF8RejectInvalid,
		SimpleValues:     simple,
		NaN:              cbor.NaNDecodeForbidden,
		Inf:              cbor.InfDecodeForbidden,
	}.DecMode()
}

// cborValue replaces the json.Numbers of a decoded JSON tree in place:
// integer literals become int64, uint64 or *big.Int, everything else
// float64.
func cborValue(v any) (any, error) {
	switch t := v.(type) {
	case json.Number:
		return cborNumber(string(t))
	case map[string]any:
		for k, e := range t {
			c, err := cborValue(e)
			if err != nil {
				return nil, err
			}
			t[k] = c
		}
	case []any:
		for i, e := range t {
			c, err := cborValue(e)
			if err != nil {
				return nil, err
			}
			t[i] = c
		}
	}
	return v, nil
}

func cborNumber(s string) (any, error) {
	if !strings.ContainsAny(s, ".eE") {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n, nil
		}
		if n, err := strconv.ParseUint(s, 10, 64); err == nil {
			return n, nil
		}
		if n, ok := new(big.Int).SetString(s, 10); ok {
			return n, nil
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, fmt.Errorf("number %s: out of float64 range", truncate(s))
	}
	return f, nil
}

// appendJSON writes a decoded CBOR tree as JSON. Integers are written as
// integers and floats always with a fraction or exponent, so the kind of
// every number survives the next trip to CBOR.
func appendJSON(b []byte, v any) ([]byte, error) {
	switch t := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, t), nil
	case string:
		return appendString(b, t), nil
	case uint64:
		return strconv.AppendUint(b, t, 10), nil
	case int64:
		return strconv.AppendInt(b, t, 10), nil
	case *big.Int:
		return t.Append(b, 10), nil
	case float64:
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return nil, fieldErr("", "float %v has no JSON form", t)
		}
		start := len(b)
		b = strconv.AppendFloat(b, t, 'g', -1, 64)
		if !bytes.ContainsAny(b[start:], ".eE") {
			b = append(b, ".0"...)
		}
		return b, nil
	case []any:
		b = append(b, '[')
		for i, e := range t {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendJSON(b, e); err != nil {
				return nil, at(indexPath("", i), err)
			}
		}
		return append(b, ']'), nil
	case map[string]any:
		b = append(b, '{')
		for i, k := range slices.Sorted(maps.Keys(t)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			var err error
			if b, err = appendJSON(b, t[k]); err != nil {
				return nil, at(k, err)
			}
		}
		return append(b, '}'), nil
	}
	return nil, fieldErr("", "%s has no JSON form", cborKind(v))
}

// cborKind names a decoded CBOR item JSON cannot carry.
func cborKind(v any) string {
	switch t := v.(type) {
	case []byte:
		return "byte string"
	case cbor.Tag:
		return fmt.Sprintf("tag %d", t.Number)
	case time.Time:
		return "time tag"
	}
	return fmt.Sprintf("CBOR item (%T)", v)
}
