package motion

import (
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/openjibo/jibod/device"
)

// The loop process reports to the parent on every tick (its motors'
// events) and at every job's end. Those reports allocate nothing once
// warm: their frames are buffers the writer has sent and handed back,
// and an event's values are written straight into its frame.

// freeFrames bounds the sent frames kept for reuse; maxFreeFrame the
// size of one kept (an animation's frame is not worth keeping).
const (
	freeFrames   = 64
	maxFreeFrame = 4 << 10
)

// frame starts a frame of kind k in a buffer the writer has sent, or in
// a new one when none is free.
func (s *server) frame(k frameKind) frame {
	select {
	case b := <-s.free:
		return append(b[:0], 0, 0, 0, 0, byte(k))
	default:
		return newFrame(k)
	}
}

// recycle keeps b, a frame the writer has sent, for a later frame.
func (s *server) recycle(b []byte) {
	if cap(b) > maxFreeFrame {
		return
	}
	select {
	case s.free <- b:
	default:
	}
}

// eventFrame is e as a frame: its values as a JSON object, written
// without allocating when they are numbers, bools, strings or nil (what
// the devices report), else by encoding/json; "{}" for values JSON
// cannot hold.
func (s *server) eventFrame(e device.Event) ([]byte, error) {
	f := s.frame(fEvent).u64(uint64(e.Time.UnixNano())).str(e.Device).str(e.Kind)
	if out, ok := appendValues(f, e.Values); ok {
		return out.done()
	}
	values, err := json.Marshal(e.Values)
	if err != nil {
		values = []byte("{}")
	}
	return f.bytes(values).done()
}

// appendValues appends values to f as a JSON object; ok is false, and
// f's own bytes untouched, when a value is of another kind than
// appendValue writes.
func appendValues(f frame, values map[string]any) (_ frame, ok bool) {
	b := append(f, '{')
	for k, v := range values {
		if len(b) > len(f)+1 {
			b = append(b, ',')
		}
		if b, ok = appendString(b, k); !ok {
			return f, false
		}
		b = append(b, ':')
		if b, ok = appendValue(b, v); !ok {
			return f, false
		}
	}
	return append(b, '}'), true
}

// appendValue appends v as JSON when it is a finite number, a bool, a
// string of UTF-8 or nil.
func appendValue(b []byte, v any) ([]byte, bool) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), true
	case bool:
		return strconv.AppendBool(b, v), true
	case string:
		return appendString(b, v)
	case int:
		return strconv.AppendInt(b, int64(v), 10), true
	case int64:
		return strconv.AppendInt(b, v, 10), true
	case uint64:
		return strconv.AppendUint(b, v, 10), true
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return b, false
		}
		return strconv.AppendFloat(b, v, 'g', -1, 64), true
	case float32:
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return b, false
		}
		return strconv.AppendFloat(b, float64(v), 'g', -1, 32), true
	}
	return b, false
}

// appendString appends s as a JSON string; ok is false for a string
// that is not UTF-8, which encoding/json mends instead.
func appendString(b []byte, s string) ([]byte, bool) {
	if !utf8.ValidString(s) {
		return b, false
	}
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"'), true
}
