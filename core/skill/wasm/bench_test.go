package wasm

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/builtin/basics"
	"github.com/openjibo/jibod/core/skill/invoke"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/core/skill/wasm/kv"
)

// BenchmarkCall is one skill call, request in and response out: a Wasm
// skill on its reused instance, on a fresh instance each time, and a
// native skill (the built-in greeting) for comparison; then both through
// the invoker, as the robot makes every call (timeout, validation, action
// parse and gate, record).
func BenchmarkCall(b *testing.B) {
	ctx := context.Background()
	r := newRig(b, Config{})
	s := r.load(b, hostileManifest(`"timeout": "10s"`), hostileWasm)
	req := launch(s, "ok", nil)
	greet, err := basics.New(basics.Options{Rand: func(int) int { return 0 }})
	require.NoError(b, err)
	nreq := protocol.NewListenLaunch(protocol.Context{General: req.Data.General, Skill: protocol.Skill(basics.ID)},
		protocol.NLUFromSlots(basics.IntentGreet, nil, nil), protocol.ASRResult{Text: "hello", Confidence: 1}, nil)

	b.Run("wasm-reuse", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.Handle(ctx, req); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("wasm-instantiate", func(b *testing.B) {
		for b.Loop() {
			s.sem <- struct{}{}
			s.drop(ctx) // the next call starts a fresh instance
			<-s.sem
			if _, err := s.Handle(ctx, req); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("native", func(b *testing.B) {
		for b.Loop() {
			if _, err := greet.Handle(ctx, nreq); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The invoker refuses calls over calls_per_minute (at most 600):
	// a fresh invoker every 500 calls, made off the clock.
	viaInvoker := func(b *testing.B, m *registry.Manifest, h invoke.Handler, req *protocol.Request) {
		var iv *invoke.Invoker
		n := 0
		for b.Loop() {
			if n%500 == 0 {
				b.StopTimer()
				if iv != nil {
					require.NoError(b, iv.Close(ctx))
				}
				var err error
				iv, err = invoke.New(invoke.Config{Recorder: invoke.NewLog(0), Logger: r.logs.logger()})
				require.NoError(b, err)
				b.StartTimer()
			}
			n++
			if _, err := iv.Call(ctx, m, h, req); err != nil {
				b.Fatal(err)
			}
		}
		require.NoError(b, iv.Close(ctx))
	}
	nm := greet.Manifest().Clone()
	nm.Limits.CallsPerMinute = registry.MaxCallsPerMinute
	b.Run("invoker-wasm-reuse", func(b *testing.B) { viaInvoker(b, s.Manifest(), s.Handle, req) })
	b.Run("invoker-native", func(b *testing.B) { viaInvoker(b, nm, greet.Handle, nreq) })
}

// BenchmarkExampleRecall is the example skill reading its memo from the
// storage file (a kv_get host call) and answering.
func BenchmarkExampleRecall(b *testing.B) {
	store, err := kv.Open(filepath.Join(b.TempDir(), "kv.db"), kv.Options{})
	require.NoError(b, err)
	defer store.Close()
	require.NoError(b, store.Set("community/memo", "memo", []byte(`{"text":"the keys are under the mat","at":"2026-11-22T09:00:00Z"}`)))
	r := newRig(b, Config{Storage: store})
	s := r.loadMemo(b)
	req := launch(s, "recall", nil)
	for b.Loop() {
		if _, err := s.Handle(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}
