package wire

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/coder/websocket"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/stretchr/testify/require"
)

// addFrameSeeds seeds a fuzz target with the direction's examples as JSON
// text frames and CBOR binary frames.
func addFrameSeeds(f *testing.F, dir string) {
	for _, js := range protocolExamples(f, dir) {
		f.Add(false, js)
		c, err := protocol.EncodeCBOR(json.RawMessage(js))
		require.NoError(f, err)
		f.Add(true, c)
	}
	f.Add(false, []byte(`{"type":"HELLO","msgID":"m","transID":"t","data":{}}`))
	f.Add(true, []byte{0xff})
}

func fuzzFrame(isCBOR bool) (Encoding, websocket.MessageType) {
	if isCBOR {
		return CBOR, websocket.MessageBinary
	}
	return JSON, websocket.MessageText
}

// stable checks that a decoded message re-encodes in its encoding,
// decodes to the same message and encodes to the same JSON.
func stable[T any](t *testing.T, e Encoding, msg T, encode func(Encoding, T) (websocket.MessageType, []byte, error),
	decode func(Encoding, websocket.MessageType, []byte) (T, error)) {
	typ, b, err := encode(e, msg)
	if errors.Is(err, protocol.ErrLimit) {
		return // filled-in required members pushed it over a limit
	}
	require.NoError(t, err, "a decoded message encodes")
	again, err := decode(e, typ, b)
	if errors.Is(err, protocol.ErrLimit) {
		return
	}
	require.NoError(t, err, "its frame decodes")
	j1, err := protocol.EncodeJSON(msg)
	require.NoError(t, err)
	j2, err := protocol.EncodeJSON(again)
	require.NoError(t, err)
	require.Equal(t, string(j1), string(j2))
}

func FuzzDecodeRequest(f *testing.F) {
	addFrameSeeds(f, "robot-to-hub")
	f.Fuzz(func(t *testing.T, isCBOR bool, data []byte) {
		e, typ := fuzzFrame(isCBOR)
		r, err := DecodeRequest(e, typ, data)
		if err != nil {
			require.Nil(t, r)
			var fe *FrameError
			require.ErrorAs(t, err, &fe, "a bad frame is a FrameError")
			return
		}
		stable(t, e, r, EncodeRequest, DecodeRequest)
	})
}

func FuzzDecodeResponse(f *testing.F) {
	addFrameSeeds(f, "hub-to-robot")
	f.Fuzz(func(t *testing.T, isCBOR bool, data []byte) {
		e, typ := fuzzFrame(isCBOR)
		r, err := DecodeResponse(e, typ, data)
		if err != nil {
			require.Nil(t, r)
			var fe *FrameError
			require.ErrorAs(t, err, &fe, "a bad frame is a FrameError")
			return
		}
		stable(t, e, r, EncodeResponse, DecodeResponse)
	})
}

func FuzzDecodeCatalog(f *testing.F) {
	f.Add([]byte(catalogJSON))
	f.Add([]byte(`{"skills":[]}`))
	f.Add([]byte(`{"skills":[{"id":"a/b","config":{"id":"a/b","intents":[{"name":"x"}]},"locale":{"en":{"x.intent":"x"}}}]}`))
	f.Add([]byte(`{"skills":[{"id":"a/b","config":{"id":"a/b","intents":[]},"locale":{},"rules":{"yes_no":{"en":{"yes.intent":"yes","no.intent":"no"}}}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := DecodeCatalog(data)
		if err != nil {
			require.Nil(t, c)
			return
		}
		b, err := c.Encode()
		require.NoError(t, err, "a decoded catalog encodes")
		again, err := DecodeCatalog(b)
		require.NoError(t, err, "its encoding decodes: %s", b)
		b2, err := again.Encode()
		require.NoError(t, err)
		require.Equal(t, string(b), string(b2))
	})
}
