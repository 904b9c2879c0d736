package protocol

import (
	"encoding/json"
	"testing"
)

// BenchmarkListenLaunchJSON is the hot path of every dispatched intent:
// decode (with limits and validation) and re-encode a typical request.
func BenchmarkListenLaunchJSON(b *testing.B) {
	data := readExample(b, "listen_launch")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := DecodeRequest(data)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := EncodeJSON(r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkListenLaunchCBOR is the same request over the hub's CBOR frames.
func BenchmarkListenLaunchCBOR(b *testing.B) {
	c, err := EncodeCBOR(json.RawMessage(readExample(b, "listen_launch")))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(c)))
	b.ReportAllocs()
	for b.Loop() {
		js, err := DecodeCBOR(c)
		if err != nil {
			b.Fatal(err)
		}
		r, err := DecodeRequest(js)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := EncodeCBOR(r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNewSkillAction(b *testing.B) {
	r, err := DecodeRequest(readExample(b, "listen_launch"))
	if err != nil {
		b.Fatal(err)
	}
	action := json.RawMessage(`{"type":"JCP","config":{"version":"2.0","jcp":{"type":"SLIM","id":"1","config":{"play":{"esml":"Hi."}}}}}`)
	b.ReportAllocs()
	for b.Loop() {
		resp := NewSkillAction(r, r.Data.Skill, action, false)
		if _, err := EncodeJSON(resp); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHubLink is the hub link's per-turn traffic: decode (with limits
// and validation) and re-encode each message of a turn.
func BenchmarkHubLink(b *testing.B) {
	for _, m := range []struct {
		file   string
		decode func([]byte) (any, error)
	}{
		{"robot-to-hub/listen.json", func(d []byte) (any, error) { return DecodeHubRequest(d) }},
		{"robot-to-hub/context.json", func(d []byte) (any, error) { return DecodeHubRequest(d) }},
		{"hub-to-robot/listen.json", func(d []byte) (any, error) { return DecodeHubResponse(d) }},
		{"hub-to-robot/skill_action.json", func(d []byte) (any, error) { return DecodeHubResponse(d) }},
	} {
		data := readShared(b, m.file)
		b.Run(m.file, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				msg, err := m.decode(data)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := EncodeJSON(msg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDecodeManifest(b *testing.B) {
	data := readShared(b, "manifest/timer.json")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeManifest(data); err != nil {
			b.Fatal(err)
		}
	}
}
