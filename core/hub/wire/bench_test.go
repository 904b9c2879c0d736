package wire

import (
	"testing"

	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/stretchr/testify/require"
)

// The hot path of a hub turn: encoding the SKILL_ACTION it forwards and
// the robot decoding it, in each encoding.
func BenchmarkSkillAction(b *testing.B) {
	r, err := protocol.DecodeHubResponse(protocolExamples(b, "hub-to-robot")["skill_action"])
	require.NoError(b, err)
	for _, enc := range []Encoding{JSON, CBOR} {
		typ, frame, err := EncodeResponse(enc, r)
		require.NoError(b, err)
		b.Run("encode/"+enc.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := EncodeResponse(enc, r); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("decode/"+enc.String(), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(frame)))
			for b.Loop() {
				if _, err := DecodeResponse(enc, typ, frame); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The robot's CLIENT_NLU as the hub decodes it.
func BenchmarkDecodeClientNLU(b *testing.B) {
	r, err := protocol.DecodeHubRequest(protocolExamples(b, "robot-to-hub")["client_nlu"])
	require.NoError(b, err)
	for _, enc := range []Encoding{JSON, CBOR} {
		typ, frame, err := EncodeRequest(enc, r)
		require.NoError(b, err)
		b.Run(enc.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := DecodeRequest(enc, typ, frame); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
