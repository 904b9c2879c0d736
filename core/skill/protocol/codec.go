package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
)

// DecodeRequest decodes and validates one JSON skill request. It checks the
// package limits first and keeps every member it does not model, so
// re-encoding the result loses nothing. Errors name the offending member's
// JSON path.
func DecodeRequest(data []byte) (*Request, error) {
	if err := checkJSON(data); err != nil {
		return nil, fmt.Errorf("decode skill request: %w", err)
	}
	data, err := entry(data)
	if err != nil {
		return nil, fmt.Errorf("decode skill request: %w", err)
	}
	r, err := parseRequest(data)
	if err == nil {
		err = r.Validate()
	}
	if err != nil {
		return nil, fmt.Errorf("decode skill request: %w", err)
	}
	return &r, nil
}

// DecodeResponse decodes and validates one JSON skill response, like
// DecodeRequest.
func DecodeResponse(data []byte) (*Response, error) {
	if err := checkJSON(data); err != nil {
		return nil, fmt.Errorf("decode skill response: %w", err)
	}
	data, err := entry(data)
	if err != nil {
		return nil, fmt.Errorf("decode skill response: %w", err)
	}
	r, err := parseResponse(data)
	if err == nil {
		err = r.Validate()
	}
	if err != nil {
		return nil, fmt.Errorf("decode skill response: %w", err)
	}
	return &r, nil
}

// DecodeEnvelope decodes one JSON message of any type with its data left
// verbatim, checking the package limits and that it has a type and a
// message id.
func DecodeEnvelope(data []byte) (*Envelope, error) {
	if err := checkJSON(data); err != nil {
		return nil, fmt.Errorf("decode message: %w", err)
	}
	data, err := entry(data)
	if err != nil {
		return nil, fmt.Errorf("decode message: %w", err)
	}
	e, err := parseEnvelope(data)
	if err == nil {
		err = e.Validate()
	}
	if err != nil {
		return nil, fmt.Errorf("decode message: %w", err)
	}
	return &e, nil
}

// EncodeJSON encodes v (a Request, Response, Envelope or any value
// encoding/json accepts) as compact JSON. Unlike json.Marshal it leaves <, >
// and & unescaped, so ESML reaches peers as written. It fails if the result
// is over the package limits, so it never produces what the decoders
// refuse.
func EncodeJSON(v any) ([]byte, error) {
	var out []byte
	if a, ok := v.(appender); ok && !isNilPointer(v) {
		// This package's own types write compact JSON directly.
		var err error
		if out, err = a.appendJSON(nil); err != nil {
			return nil, fmt.Errorf("encode json: %w", err)
		}
	} else {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return nil, fmt.Errorf("encode json: %w", err)
		}
		out = bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	}
	if err := checkJSON(out); err != nil {
		return nil, fmt.Errorf("encode json: %w", err)
	}
	return out, nil
}

// isNilPointer reports whether v is a nil pointer, which encoding/json
// writes as null but a value-receiver method would panic on.
func isNilPointer(v any) bool {
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}
