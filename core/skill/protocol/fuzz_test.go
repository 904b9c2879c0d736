package protocol

import (
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

func addJSONSeeds(f *testing.F) {
	for _, ex := range examples(f) {
		f.Add(ex.data)
	}
	f.Add([]byte(`{"type":"LISTEN_UPDATE","msgID":"m","data":{"skill":{"id":"s","session":{"id":"x","nodeID":0,"data":null,"trace":[{"nodeID":0,"transition":null}]}},"result":{"nlu":{"intent":null,"entities":null,"rules":[]},"asr":{"text":"","confidence":0}}}}`))
	f.Add([]byte(`{"type":"SKILL_ACTION","msgID":"m","data":{"skill":{"id":"s"},"action":null,"analytics":{"s":[{"event":"Skill Entry"}]}}}`))
	f.Add([]byte(`{"type":"ERROR","msgID":"m","ts":1e3,"data":{"message":"x","skill":{"id":null}},"final":true}`))
}

// reencodes checks that a decoded message encodes, decodes again and
// encodes to the same bytes, and that its CBOR form comes back equal.
func reencodes[T json.Marshaler](t *testing.T, msg T, decode func([]byte) (T, error)) {
	out, err := EncodeJSON(msg)
	if errors.Is(err, ErrLimit) {
		return // filled-in required members pushed it over a limit
	}
	require.NoError(t, err, "a decoded message always encodes")
	again, err := decode(out)
	if errors.Is(err, ErrLimit) {
		return // filled-in required members pushed it over a limit
	}
	require.NoError(t, err, "re-decode %s", out)
	out2, err := EncodeJSON(again)
	require.NoError(t, err)
	require.Equal(t, string(out), string(out2), "encoding is stable")

	c, err := EncodeCBOR(msg)
	if err != nil {
		return // e.g. an entity number beyond float64
	}
	js, err := DecodeCBOR(c)
	require.NoError(t, err, "EncodeCBOR output decodes")
	require.Equal(t, canon(t, out), canon(t, js), "JSON → CBOR → JSON is lossless")
}

func FuzzDecodeRequest(f *testing.F) {
	addJSONSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := DecodeRequest(data)
		if err != nil {
			require.Nil(t, r)
			return
		}
		require.NoError(t, r.Validate())
		reencodes(t, r, DecodeRequest)
	})
}

func FuzzDecodeResponse(f *testing.F) {
	addJSONSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := DecodeResponse(data)
		if err != nil {
			require.Nil(t, r)
			return
		}
		require.NoError(t, r.Validate())
		reencodes(t, r, DecodeResponse)
	})
}

func FuzzDecodeCBOR(f *testing.F) {
	for _, ex := range examples(f) {
		c, err := EncodeCBOR(json.RawMessage(ex.data))
		require.NoError(f, err)
		f.Add(c)
	}
	for _, seed := range []string{"00", "f93c00", "c249010000000000000000", "3bffffffffffffffff", "9f01ff", "bf616101ff", "a1616142dead", "d9d9f7a0"} {
		f.Add(mustHex(f, seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		js, err := DecodeCBOR(data)
		if err != nil {
			return
		}
		require.True(t, json.Valid(js), "output is JSON: %s", js)
		c, err := EncodeCBOR(json.RawMessage(js))
		require.NoError(t, err, "JSON from DecodeCBOR encodes: %s", js)
		js2, err := DecodeCBOR(c)
		require.NoError(t, err)
		require.Equal(t, string(js), string(js2), "CBOR → JSON → CBOR → JSON is stable")
	})
}

func addSharedSeeds(f *testing.F, dirs ...string) {
	for _, dir := range dirs {
		for _, file := range sharedFiles(f, dir) {
			b, err := os.ReadFile(file)
			require.NoError(f, err)
			f.Add(b)
		}
	}
}

func FuzzDecodeHubRequest(f *testing.F) {
	addSharedSeeds(f, "robot-to-hub")
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := DecodeHubRequest(data)
		if err != nil {
			require.Nil(t, r)
			return
		}
		require.NoError(t, r.Validate())
		reencodes(t, r, DecodeHubRequest)
	})
}

func FuzzDecodeHubResponse(f *testing.F) {
	addSharedSeeds(f, "hub-to-robot")
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := DecodeHubResponse(data)
		if err != nil {
			require.Nil(t, r)
			return
		}
		require.NoError(t, r.Validate())
		reencodes(t, r, DecodeHubResponse)
	})
}

func FuzzDecodeManifest(f *testing.F) {
	addSharedSeeds(f, "manifest")
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := DecodeManifest(data)
		if err != nil {
			require.Nil(t, m)
			return
		}
		require.NoError(t, m.Validate())
		reencodes(t, m, DecodeManifest)
	})
}
