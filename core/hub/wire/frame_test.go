package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/coder/websocket"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEncodingNames(t *testing.T) {
	tests := []struct {
		in      string
		want    Encoding
		wantErr string
	}{
		{"json", JSON, ""},
		{"CBOR", CBOR, ""},
		{" cbor ", CBOR, ""},
		{"xml", 0, `encoding "xml": want json or cbor`},
		{"", 0, `encoding "": want json or cbor`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseEncoding(tt.in)
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			back, err := ParseEncoding(got.String())
			require.NoError(t, err)
			assert.Equal(t, got, back)
		})
	}
	assert.Equal(t, SubprotocolJSON, JSON.Subprotocol())
	assert.Equal(t, SubprotocolCBOR, CBOR.Subprotocol())
	assert.Equal(t, "encoding(7)", Encoding(7).String())
}

func TestNegotiated(t *testing.T) {
	tests := []struct {
		sub     string
		want    Encoding
		wantErr bool
	}{
		{"", JSON, false}, // a real robot offers nothing: JSON
		{SubprotocolJSON, JSON, false},
		{SubprotocolCBOR, CBOR, false},
		{"JIBO.CBOR.V1", CBOR, false}, // the library matches case-insensitively
		{"jibo.msgpack.v1", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.sub, func(t *testing.T) {
			got, err := Negotiated(tt.sub)
			if tt.wantErr {
				require.ErrorContains(t, err, `websocket subprotocol "jibo.msgpack.v1"`)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	assert.Equal(t, []string{SubprotocolCBOR, SubprotocolJSON}, Offer(CBOR))
	assert.Equal(t, []string{SubprotocolJSON}, Offer(JSON))
	assert.Equal(t, SubprotocolCBOR, AcceptSubprotocols()[0], "a hub prefers CBOR")
}

// Every example hub message of jibo.md §1.3/§1.4 survives a trip through
// each encoding's frame without losing a member.
func TestRoundTripExamples(t *testing.T) {
	for _, enc := range []Encoding{JSON, CBOR} {
		for name, js := range protocolExamples(t, "robot-to-hub") {
			t.Run(enc.String()+"/request/"+name, func(t *testing.T) {
				r, err := protocol.DecodeHubRequest(js)
				require.NoError(t, err)
				typ, b, err := EncodeRequest(enc, r)
				require.NoError(t, err)
				assert.Equal(t, map[Encoding]websocket.MessageType{JSON: websocket.MessageText, CBOR: websocket.MessageBinary}[enc], typ)
				back, err := DecodeRequest(enc, typ, b)
				require.NoError(t, err)
				lossless(t, r, back, js)
			})
		}
		for name, js := range protocolExamples(t, "hub-to-robot") {
			t.Run(enc.String()+"/response/"+name, func(t *testing.T) {
				r, err := protocol.DecodeHubResponse(js)
				require.NoError(t, err)
				typ, b, err := EncodeResponse(enc, r)
				require.NoError(t, err)
				back, err := DecodeResponse(enc, typ, b)
				require.NoError(t, err)
				lossless(t, r, back, js)
			})
		}
	}
}

func TestCBORIsSmaller(t *testing.T) {
	js := protocolExamples(t, "hub-to-robot")["skill_action"]
	r, err := protocol.DecodeHubResponse(js)
	require.NoError(t, err)
	_, j, err := EncodeResponse(JSON, r)
	require.NoError(t, err)
	_, c, err := EncodeResponse(CBOR, r)
	require.NoError(t, err)
	assert.Less(t, len(c), len(j))
}

func TestDecodeBadFrames(t *testing.T) {
	rawCBOR := func(s string) []byte {
		b, err := protocol.EncodeCBOR(json.RawMessage(s))
		require.NoError(t, err)
		return b
	}
	big := bytes.Repeat([]byte(" "), MaxFrameSize+1)
	tests := []struct {
		name        string
		enc         Encoding
		typ         websocket.MessageType
		frame       []byte
		problem     FrameProblem
		transID     string
		msgType     string
		errContains string
	}{
		{"oversized json", JSON, websocket.MessageText, big, FrameOversized, "", "", "1048577 bytes, limit 1048576"},
		{"oversized cbor", CBOR, websocket.MessageBinary, big, FrameOversized, "", "", "limit 1048576"},
		{"text on cbor link", CBOR, websocket.MessageText, []byte(`{"type":"LISTEN"}`), FrameWrongKind, "", "", "text frame on a CBOR link, want binary"},
		{"malformed json", JSON, websocket.MessageText, []byte(`{"type":"LISTEN",`), FrameMalformed, "", "", "decode robot-to-hub json frame (17 bytes): malformed:"},
		{"json not an object", JSON, websocket.MessageText, []byte(`[1,2]`), FrameMalformed, "", "", "malformed"},
		{"malformed cbor", CBOR, websocket.MessageBinary, []byte{0xff, 0x00}, FrameMalformed, "", "", "decode cbor"},
		{"cbor byte string", CBOR, websocket.MessageBinary, []byte{0x42, 0xde, 0xad}, FrameMalformed, "", "", "byte string"},
		{"unknown type", JSON, websocket.MessageText,
			[]byte(`{"type":"HELLO","msgID":"mid-1","transID":"tid-1","data":{}}`), FrameMalformed, "tid-1", "HELLO",
			`unknown robot-to-hub message type "HELLO"`},
		{"unknown type cbor", CBOR, websocket.MessageBinary,
			rawCBOR(`{"type":"HELLO","msgID":"mid-1","transID":"tid-2","data":{}}`), FrameMalformed, "tid-2", "HELLO",
			`unknown robot-to-hub message type "HELLO"`},
		{"listen without lang", JSON, websocket.MessageText,
			[]byte(`{"type":"LISTEN","msgID":"mid-1","transID":"tid-3","data":{"hotphrase":true,"rules":[]}}`), FrameMalformed, "tid-3", "LISTEN",
			"data.lang: required"},
		{"context without release", JSON, websocket.MessageText,
			[]byte(`{"type":"CONTEXT","msgID":"mid-1","transID":"tid-4","data":{"general":{},"runtime":{},"skill":{"id":null}}}`),
			FrameMalformed, "tid-4", "CONTEXT", "data.general.release: required"},
		{"hub-only type from robot", JSON, websocket.MessageText,
			[]byte(`{"type":"SOS","msgID":"mid-1","transID":"tid-5"}`), FrameMalformed, "tid-5", "SOS", `unknown robot-to-hub message type "SOS"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := DecodeRequest(tt.enc, tt.typ, tt.frame)
			require.Nil(t, r)
			var fe *FrameError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, tt.problem, fe.Problem)
			assert.Equal(t, tt.transID, fe.TransID)
			assert.Equal(t, tt.msgType, fe.Type)
			assert.Equal(t, protocol.HubErrorGeneral, fe.Code())
			assert.Equal(t, tt.problem == FrameOversized, fe.Fatal())
			assert.ErrorContains(t, err, tt.errContains)
		})
	}
}

func TestDecodeResponseBadFrames(t *testing.T) {
	tests := []struct {
		name        string
		enc         Encoding
		typ         websocket.MessageType
		frame       string
		problem     FrameProblem
		errContains string
	}{
		{"binary on json link", JSON, websocket.MessageBinary, "\x01\x02", FrameWrongKind, "binary frame on a JSON link, want text"},
		{"robot type from hub", JSON, websocket.MessageText, `{"type":"CONTEXT","msgID":"m","data":{}}`, FrameMalformed, `unknown hub-to-robot message type "CONTEXT"`},
		{"error with unknown code", JSON, websocket.MessageText, `{"type":"ERROR","msgID":"m","transID":"tid-9","data":{"message":"x","code":"NOPE"}}`,
			FrameMalformed, `data.code: "NOPE" is not one of`},
		{"redirect without match", JSON, websocket.MessageText, `{"type":"SKILL_REDIRECT","msgID":"m","data":{"memo":{}}}`,
			FrameMalformed, "data.match: required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := DecodeResponse(tt.enc, tt.typ, []byte(tt.frame))
			require.Nil(t, r)
			var fe *FrameError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, tt.problem, fe.Problem)
			assert.Equal(t, "hub-to-robot", fe.Direction)
			assert.ErrorContains(t, err, tt.errContains)
		})
	}
}

// A binary frame on a JSON link is audio after a LISTEN (jibo.md §1.1),
// not a bad frame.
func TestAudioOnJSONLink(t *testing.T) {
	r, err := DecodeRequest(JSON, websocket.MessageBinary, []byte("OggS\x00\x02"))
	require.Nil(t, r)
	require.ErrorIs(t, err, ErrAudio)
	var fe *FrameError
	assert.False(t, errors.As(err, &fe), "audio is not a FrameError")
	assert.ErrorContains(t, err, "(6 bytes)")
}

func TestEncodeRefusesInvalid(t *testing.T) {
	bad := protocol.NewListen(protocol.ListenData{Rules: []string{"launch"}}, protocol.WithTransID("tid-1"))
	_, _, err := EncodeRequest(CBOR, bad)
	require.ErrorContains(t, err, "encode robot-to-hub LISTEN message: data.lang: required")

	badResp := protocol.NewHubError("NOPE", "x")
	_, _, err = EncodeResponse(JSON, badResp)
	require.ErrorContains(t, err, `data.code: "NOPE"`)

	_, _, err = EncodeRequest(JSON, nil)
	require.ErrorContains(t, err, "nil message")
	_, _, err = EncodeResponse(Encoding(9), protocol.NewSpeechMark(protocol.TypeSOS))
	require.ErrorContains(t, err, "unknown encoding(9)")

	long := protocol.NewClientASR(strings.Repeat("a", protocol.MaxStringLen+1))
	_, _, err = EncodeRequest(JSON, long)
	require.ErrorContains(t, err, "data.text: 16385 bytes, limit 16384")
}
