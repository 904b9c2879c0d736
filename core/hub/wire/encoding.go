package wire

import (
	"fmt"
	"strings"

	"github.com/openjibo/jibod/core/skill/protocol"
)

// Websocket subprotocols naming the hub link's encodings.
const (
	// SubprotocolJSON is JSON in text frames, as real robots speak.
	SubprotocolJSON = "jibo.json.v1"
	// SubprotocolCBOR is deterministic CBOR in binary frames.
	SubprotocolCBOR = "jibo.cbor.v1"
)

// MaxFrameSize bounds one frame in bytes in either encoding; every Conn
// sets it as its websocket read limit.
const MaxFrameSize = protocol.MaxMessageSize

// Encoding is how messages are encoded on one link.
type Encoding uint8

// The encodings.
const (
	// JSON is the real robots' encoding (text frames).
	JSON Encoding = iota
	// CBOR is the compact encoding (binary frames).
	CBOR
)

// String returns "json" or "cbor".
func (e Encoding) String() string {
	switch e {
	case JSON:
		return "json"
	case CBOR:
		return "cbor"
	}
	return fmt.Sprintf("encoding(%d)", uint8(e))
}

// Subprotocol returns the websocket subprotocol naming e.
func (e Encoding) Subprotocol() string {
	if e == CBOR {
		return SubprotocolCBOR
	}
	return SubprotocolJSON
}

// ParseEncoding reads an encoding's name: "json" or "cbor" (any case), as
// flags and configuration give it.
func ParseEncoding(s string) (Encoding, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "json":
		return JSON, nil
	case "cbor":
		return CBOR, nil
	}
	return 0, fmt.Errorf("encoding %q: want json or cbor", s)
}

// Negotiated maps the subprotocol a websocket upgrade settled on to its
// encoding: "" (the client offered none, or none the server accepts) is
// JSON; an unknown subprotocol is an error.
func Negotiated(subprotocol string) (Encoding, error) {
	switch {
	case subprotocol == "":
		return JSON, nil
	case strings.EqualFold(subprotocol, SubprotocolJSON):
		return JSON, nil
	case strings.EqualFold(subprotocol, SubprotocolCBOR):
		return CBOR, nil
	}
	return 0, fmt.Errorf("websocket subprotocol %q: want %q, %q or none", subprotocol, SubprotocolCBOR, SubprotocolJSON)
}

// AcceptSubprotocols is what a hub accepts, in its order of preference
// (websocket.AcceptOptions.Subprotocols): CBOR, then JSON. A client
// offering neither still gets JSON.
func AcceptSubprotocols() []string { return []string{SubprotocolCBOR, SubprotocolJSON} }

// Offer is what a client preferring e offers
// (websocket.DialOptions.Subprotocols): CBOR offers both, so a hub that
// only speaks JSON still answers; JSON offers only JSON.
func Offer(e Encoding) []string {
	if e == CBOR {
		return []string{SubprotocolCBOR, SubprotocolJSON}
	}
	return []string{SubprotocolJSON}
}
