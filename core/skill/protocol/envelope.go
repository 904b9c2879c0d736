package protocol

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"time"
)

// Header is the part of the envelope every hub and skill message shares
// (jibo.md §1.2): {type, msgID, ts, data} plus the optional response members
// final and timings, and the top-level transID real robots send.
type Header struct {
	// Type is the message type, e.g. LISTEN_LAUNCH or SKILL_ACTION.
	Type string
	// MsgID identifies this message; robots write "mid-<uuid>".
	MsgID string
	// TS is the send time in milliseconds since the Unix epoch.
	TS int64
	// TransID is the turn's transaction id ("tid-<uuid>"); it is not in the
	// typings but real robots send it on every message and match responses
	// to turns by it, so it is kept and echoed. Empty means absent.
	TransID string
	// Final marks the last response of a turn; nil means absent.
	Final *bool
	// Timings are per-stage durations in milliseconds ({total, …}); nil
	// means absent.
	Timings map[string]float64
	// Extra holds top-level members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

// parseHeader takes the header members from o; data is left for the caller.
func parseHeader(o *objReader) Header {
	var h Header
	field(o, "type", &h.Type, parseString)
	field(o, "msgID", &h.MsgID, parseString)
	field(o, "ts", &h.TS, parseInt64)
	optField(o, "transID", &h.TransID, parseString)
	optField(o, "final", &h.Final, parseBoolPtr)
	optField(o, "timings", &h.Timings, mapOf(parseFloat))
	return h
}

// write emits the header members around the data member, which data
// writes, so every message reads type, msgID, ts, transID, data, ….
func (h *Header) write(w *objWriter, data func()) {
	w.str("type", h.Type)
	w.str("msgID", h.MsgID)
	w.int("ts", h.TS)
	w.optStr("transID", h.TransID)
	data()
	if h.Final != nil {
		w.bool("final", *h.Final)
	}
	if h.Timings != nil {
		w.any("timings", h.Timings)
	}
}

// writeMessage writes a message whose data is one of this package's
// values; nil data is written as null.
func writeMessage(b []byte, h Header, data appender) ([]byte, error) {
	w := openObject(b, h.Extra)
	h.write(&w, func() {
		if data == nil {
			w.raw("data", nil)
		} else {
			w.obj("data", data)
		}
	})
	return w.close()
}

// orNil turns a nil pointer into an untyped nil appender: a typed nil in
// the interface would not compare equal to nil, and its value-receiver
// methods would panic.
func orNil[T any, P interface {
	*T
	appender
}](p P) appender {
	if p == nil {
		return nil
	}
	return p
}

// requireData validates a message's data member, which must be present.
func requireData[T any](d *T, validate func(*T) error) error {
	if d == nil {
		return fieldErr("data", "required")
	}
	return under("data", validate(d))
}

// oneData finishes a message's Validate: the data's own error first, then
// whether more than one kind of data is set.
func oneData(typ string, set int, dataErr error) error {
	if dataErr != nil {
		return dataErr
	}
	if set > 1 {
		return fieldErr("data", "more than one kind of data set; %s takes one", typ)
	}
	return nil
}

// countSet counts the kinds of data a message has set.
func countSet(present ...bool) int {
	n := 0
	for _, p := range present {
		if p {
			n++
		}
	}
	return n
}

// Envelope is any hub or skill message with its data left as raw JSON,
// for reading a message's type before decoding it fully and for passing
// on messages without looking inside.
type Envelope struct {
	Header
	// Data is the message's data member verbatim; nil means absent (SOS and
	// EOS may carry none).
	Data json.RawMessage
}

func parseEnvelope(raw json.RawMessage) (Envelope, error) {
	o, err := readObject(raw)
	if err != nil {
		return Envelope{}, err
	}
	e := Envelope{Header: parseHeader(o)}
	field(o, "data", &e.Data, parseRaw)
	e.Extra, err = o.done()
	return e, err
}

// UnmarshalJSON decodes an envelope, keeping unknown members in Extra.
func (e *Envelope) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, e, parseEnvelope)
}

// MarshalJSON encodes the envelope, re-emitting Extra.
func (e Envelope) MarshalJSON() ([]byte, error) { return e.appendJSON(nil) }

func (e Envelope) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, e.Extra)
	e.write(&w, func() { w.optRaw("data", e.Data) })
	return w.close()
}

// Option adjusts the header of a message a constructor builds.
type Option func(*Header)

// WithTime stamps the message with t instead of the current time.
func WithTime(t time.Time) Option {
	return func(h *Header) { h.TS = t.UnixMilli() }
}

// WithTransID sets the message's transaction id.
func WithTransID(id string) Option {
	return func(h *Header) { h.TransID = id }
}

// WithMsgID sets the message id instead of a fresh random one.
func WithMsgID(id string) Option {
	return func(h *Header) { h.MsgID = id }
}

func newHeader(typ, transID string, opts []Option) Header {
	h := Header{Type: typ, MsgID: NewMsgID(), TS: time.Now().UnixMilli(), TransID: transID}
	for _, opt := range opts {
		opt(&h)
	}
	return h
}

// NewMsgID returns a fresh message id: "mid-" and a random UUID v4.
func NewMsgID() string { return "mid-" + newUUID() }

// NewTransID returns a fresh transaction id: "tid-" and a random UUID v4.
func NewTransID() string { return "tid-" + newUUID() }

func newUUID() string {
	var b [16]byte
	// crypto/rand.Read never fails (it aborts the program if the OS source
	// is broken), so there is no error to handle.
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
