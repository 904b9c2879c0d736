package wire

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/coder/websocket"
	"github.com/openjibo/jibod/core/skill/protocol"
)

// ErrAudio reports a binary frame on a JSON link where a robot message was
// expected: audio following a LISTEN without mode (jibo.md §1.1). A hub
// without audio ASR answers it with ERROR code ASR; the link stays usable.
var ErrAudio = errors.New("binary audio frame on a JSON link")

// Close codes of the hub link (4000–4999 are for applications).
const (
	// CloseBadFrame closes a link that sent a frame it must not (oversized
	// frames close with 1009, websocket.StatusMessageTooBig).
	CloseBadFrame websocket.StatusCode = 4400
	// CloseUnauthorized closes a link whose token stopped being valid.
	CloseUnauthorized websocket.StatusCode = 4401
	// CloseTooManyTransactions closes a link that opened transactions
	// beyond its bound.
	CloseTooManyTransactions websocket.StatusCode = 4429
	// CloseShuttingDown closes links when the hub stops.
	CloseShuttingDown websocket.StatusCode = 4503
)

// FrameProblem says what is wrong with a frame.
type FrameProblem uint8

// Frame problems.
const (
	// FrameMalformed: the frame's content is not a valid message (syntax,
	// unknown type, a member wrong or over a limit, …).
	FrameMalformed FrameProblem = iota + 1
	// FrameOversized: the frame is over MaxFrameSize. The connection
	// cannot continue (the websocket library closes it with 1009).
	FrameOversized
	// FrameWrongKind: a text frame on a CBOR link or a binary frame where
	// JSON was expected (other than audio, see ErrAudio).
	FrameWrongKind
)

// String names the problem.
func (p FrameProblem) String() string {
	switch p {
	case FrameMalformed:
		return "malformed"
	case FrameOversized:
		return "oversized"
	case FrameWrongKind:
		return "wrong frame kind"
	}
	return fmt.Sprintf("frame problem %d", uint8(p))
}

// FrameError is a frame that could not be decoded. Err says what is wrong
// and where (a *protocol.FieldError naming the member's JSON path, or an
// error wrapping protocol.ErrLimit); errors.As finds both through it.
type FrameError struct {
	// Problem classifies the error.
	Problem FrameProblem
	// Encoding is the link's encoding.
	Encoding Encoding
	// Direction is "robot-to-hub" or "hub-to-robot".
	Direction string
	// Size is the frame's length in bytes (0 when the read was cut short).
	Size int
	// TransID is the frame's transID when the frame still showed one, so
	// a hub can answer the transaction; empty when unknown.
	TransID string
	// Type is the frame's message type when the frame still showed one.
	Type string
	// Err is the underlying error.
	Err error
}

// Error says what was being decoded and what is wrong.
func (e *FrameError) Error() string {
	s := fmt.Sprintf("decode %s %s frame", e.Direction, e.Encoding)
	if e.Size > 0 {
		s += fmt.Sprintf(" (%d bytes)", e.Size)
	}
	if e.Type != "" {
		s += fmt.Sprintf(" of type %q", e.Type)
	}
	if e.TransID != "" {
		s += fmt.Sprintf(" in transaction %q", e.TransID)
	}
	return s + ": " + e.Problem.String() + ": " + e.Err.Error()
}

// Unwrap returns the underlying error.
func (e *FrameError) Unwrap() error { return e.Err }

// Code is the hub error code to answer the frame with: GENERAL, as the
// protocol has no more specific code for a bad message.
func (e *FrameError) Code() string { return protocol.HubErrorGeneral }

// Fatal reports whether the connection cannot continue after this frame
// (an oversized frame); other bad frames are answered and the link stays
// up.
func (e *FrameError) Fatal() bool { return e.Problem == FrameOversized }

const (
	dirRequest  = "robot-to-hub"
	dirResponse = "hub-to-robot"
)

// maxProbeLen bounds the transID and type a FrameError echoes from a bad
// frame.
const maxProbeLen = 256

// EncodeRequest validates r and encodes it as one frame of encoding e.
func EncodeRequest(e Encoding, r *protocol.HubRequest) (websocket.MessageType, []byte, error) {
	if r == nil {
		return 0, nil, errors.New("encode robot-to-hub message: nil message")
	}
	if err := r.Validate(); err != nil {
		return 0, nil, fmt.Errorf("encode robot-to-hub %s message: %w", r.Type, err)
	}
	return encode(e, r, dirRequest)
}

// EncodeResponse validates r and encodes it as one frame of encoding e.
func EncodeResponse(e Encoding, r *protocol.HubResponse) (websocket.MessageType, []byte, error) {
	if r == nil {
		return 0, nil, errors.New("encode hub-to-robot message: nil message")
	}
	if err := r.Validate(); err != nil {
		return 0, nil, fmt.Errorf("encode hub-to-robot %s message: %w", r.Type, err)
	}
	return encode(e, r, dirResponse)
}

func encode(e Encoding, v any, dir string) (websocket.MessageType, []byte, error) {
	switch e {
	case JSON:
		b, err := protocol.EncodeJSON(v)
		if err != nil {
			return 0, nil, fmt.Errorf("encode %s message: %w", dir, err)
		}
		return websocket.MessageText, b, nil
	case CBOR:
		b, err := protocol.EncodeCBOR(v)
		if err != nil {
			return 0, nil, fmt.Errorf("encode %s message: %w", dir, err)
		}
		return websocket.MessageBinary, b, nil
	}
	return 0, nil, fmt.Errorf("encode %s message: unknown %s", dir, e)
}

// DecodeRequest decodes and validates one robot-to-hub frame of type t
// received on a link of encoding e. A bad frame is a *FrameError; a binary
// frame on a JSON link is ErrAudio.
func DecodeRequest(e Encoding, t websocket.MessageType, b []byte) (*protocol.HubRequest, error) {
	if e == JSON && t == websocket.MessageBinary {
		return nil, fmt.Errorf("%w (%d bytes)", ErrAudio, len(b))
	}
	js, ferr := frameJSON(e, t, b, dirRequest)
	if ferr != nil {
		return nil, ferr
	}
	r, err := protocol.DecodeHubRequest(js)
	if err != nil {
		return nil, malformed(e, b, js, dirRequest, err)
	}
	return r, nil
}

// DecodeResponse decodes and validates one hub-to-robot frame of type t
// received on a link of encoding e. A bad frame is a *FrameError.
func DecodeResponse(e Encoding, t websocket.MessageType, b []byte) (*protocol.HubResponse, error) {
	js, ferr := frameJSON(e, t, b, dirResponse)
	if ferr != nil {
		return nil, ferr
	}
	r, err := protocol.DecodeHubResponse(js)
	if err != nil {
		return nil, malformed(e, b, js, dirResponse, err)
	}
	return r, nil
}

// frameJSON checks a frame's size and kind and returns its JSON form.
func frameJSON(e Encoding, t websocket.MessageType, b []byte, dir string) ([]byte, *FrameError) {
	fe := func(p FrameProblem, err error) *FrameError {
		return &FrameError{Problem: p, Encoding: e, Direction: dir, Size: len(b), Err: err}
	}
	if len(b) > MaxFrameSize {
		return nil, fe(FrameOversized, fmt.Errorf("%w: %d bytes, limit %d", protocol.ErrLimit, len(b), MaxFrameSize))
	}
	switch e {
	case JSON:
		if t != websocket.MessageText {
			return nil, fe(FrameWrongKind, errors.New("binary frame on a JSON link, want text"))
		}
		return b, nil
	case CBOR:
		if t != websocket.MessageBinary {
			return nil, fe(FrameWrongKind, fmt.Errorf("%s frame on a CBOR link, want binary", kindName(t)))
		}
		js, err := protocol.DecodeCBOR(b)
		if err != nil {
			return nil, fe(FrameMalformed, err)
		}
		return js, nil
	}
	return nil, fe(FrameMalformed, fmt.Errorf("unknown %s", e))
}

// malformed builds the FrameError of a frame whose JSON form (js, nil when
// there was none) did not decode, with whatever transID and type it shows.
func malformed(e Encoding, b, js []byte, dir string, err error) *FrameError {
	fe := &FrameError{Problem: FrameMalformed, Encoding: e, Direction: dir, Size: len(b), Err: err}
	if errors.Is(err, protocol.ErrLimit) && len(b) > MaxFrameSize {
		fe.Problem = FrameOversized
	}
	var probe struct {
		Type    any `json:"type"`
		TransID any `json:"transID"`
	}
	if js != nil && json.Unmarshal(js, &probe) == nil {
		if s, ok := probe.TransID.(string); ok && len(s) <= maxProbeLen {
			fe.TransID = s
		}
		if s, ok := probe.Type.(string); ok && len(s) <= maxProbeLen {
			fe.Type = s
		}
	}
	return fe
}

// kindName names a websocket frame kind.
func kindName(t websocket.MessageType) string {
	switch t {
	case websocket.MessageText:
		return "text"
	case websocket.MessageBinary:
		return "binary"
	}
	return fmt.Sprintf("kind-%d", int(t))
}
