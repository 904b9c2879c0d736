package wasm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"github.com/tetratelabs/wazero/api"

	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/core/skill/wasm/kv"
	"github.com/openjibo/jibod/sdk/wasmskill"
)

// The host functions. Each reads its arguments from stack and leaves its
// result there; see docs/wasm-abi.md for the contract.

func (s *Skill) requestRead(_ context.Context, cs *callState, m api.Module, stack []uint64) {
	const fn = "request_read"
	cs.duringRequest(fn)
	ptr, n := api.DecodeU32(stack[0]), api.DecodeU32(stack[1])
	if int(n) != len(cs.request) {
		cs.violate(fn, "length %d, but the request is %d bytes", n, len(cs.request))
	}
	cs.write(fn, m, ptr, cs.request)
	codeResult(stack, 0)
}

func (s *Skill) responseWrite(_ context.Context, cs *callState, m api.Module, stack []uint64) {
	const fn = "response_write"
	cs.duringRequest(fn)
	if cs.response != nil {
		cs.violate(fn, "the response was already written")
	}
	cs.response = cs.read(fn, m, api.DecodeU32(stack[0]), api.DecodeU32(stack[1]), protocol.MaxMessageSize)
	codeResult(stack, 0)
}

func (s *Skill) resultRead(_ context.Context, cs *callState, m api.Module, stack []uint64) {
	const fn = "result_read"
	if !cs.hasResult {
		codeResult(stack, wasmskill.CodeInvalid)
		return
	}
	ptr, n := api.DecodeU32(stack[0]), api.DecodeU32(stack[1])
	data := cs.result
	if int(n) < len(data) {
		data = data[:n]
	}
	cs.write(fn, m, ptr, data)
	cs.result, cs.hasResult = nil, false
	codeResult(stack, int32(len(data)))
}

func (s *Skill) hostLog(_ context.Context, cs *callState, m api.Module, stack []uint64) {
	const fn = "log"
	level := api.DecodeI32(stack[0])
	l, known := slog.LevelDebug, true
	switch level {
	case 0:
	case 1:
		l = slog.LevelInfo
	case 2:
		l = slog.LevelWarn
	case 3:
		l = slog.LevelError
	default:
		known = false
	}
	n := api.DecodeU32(stack[2])
	msg := cs.read(fn, m, api.DecodeU32(stack[1]), min(n, MaxLogLineBytes), MaxLogLineBytes)
	if !known {
		codeResult(stack, cs.fail(fn, wasmskill.CodeInvalid, "log level must be 0 (debug) to 3 (error)"))
		return
	}
	if !cs.logLine(l, "module", string(msg)) {
		codeResult(stack, cs.fail(fn, wasmskill.CodeLimit, "over the log lines allowed per request"))
		return
	}
	codeResult(stack, 0)
}

func (s *Skill) clockNow(_ context.Context, _ *callState, _ api.Module, stack []uint64) {
	stack[0] = api.EncodeI64(s.e.cfg.Now().UnixNano())
}

func (s *Skill) clockUTCOffset(_ context.Context, _ *callState, _ api.Module, stack []uint64) {
	_, off := s.e.cfg.Now().Zone()
	codeResult(stack, int32(off))
}

// robotStateJSON is robot_state's answer.
type robotStateJSON struct {
	Emotion struct {
		Name       string  `json:"name"`
		Valence    float64 `json:"valence"`
		Confidence float64 `json:"confidence"`
	} `json:"emotion"`
	Speaker *string `json:"speaker"`
}

func (s *Skill) robotState(_ context.Context, cs *callState, _ api.Module, stack []uint64) {
	const fn = "robot_state"
	cs.duringRequest(fn)
	rc := cs.runtime
	if s.e.cfg.State != nil {
		rc = s.e.cfg.State()
	}
	var st robotStateJSON
	st.Emotion.Name = rc.Character.Emotion.Name
	st.Emotion.Valence = rc.Character.Emotion.Valence
	st.Emotion.Confidence = rc.Character.Emotion.Confidence
	st.Speaker = rc.Perception.Speaker
	b, err := json.Marshal(st)
	if err != nil {
		codeResult(stack, cs.fail(fn, wasmskill.CodeInternal, "encoding the robot's state: "+err.Error()))
		return
	}
	s.log.Debug("host call", "fn", fn)
	codeResult(stack, cs.ok(b))
}

// storage checks a storage call is permitted and possible.
func (s *Skill) storage(cs *callState, fn string) bool {
	cs.duringRequest(fn)
	if !s.m.Allows(registry.PermStorage) {
		cs.deny(fn, registry.PermStorage, "the key-value storage needs it")
	}
	return s.e.cfg.Storage != nil
}

// storageCode maps a storage error to the code the module sees.
func (s *Skill) storageCode(fn string, err error) int32 {
	switch {
	case errors.Is(err, kv.ErrNotFound):
		return wasmskill.CodeNotFound
	case errors.Is(err, kv.ErrQuota):
		return wasmskill.CodeQuota
	case errors.Is(err, kv.ErrInvalid):
		return wasmskill.CodeInvalid
	}
	s.log.Error("skill storage failed", "fn", fn, "err", err)
	return wasmskill.CodeInternal
}

const noStorage = "this robot keeps no skill storage"

func (s *Skill) kvGet(_ context.Context, cs *callState, m api.Module, stack []uint64) {
	const fn = "kv_get"
	if !s.storage(cs, fn) {
		codeResult(stack, cs.fail(fn, wasmskill.CodeInternal, noStorage))
		return
	}
	key := cs.read(fn, m, api.DecodeU32(stack[0]), api.DecodeU32(stack[1]), kv.MaxKeyBytes)
	v, err := s.e.cfg.Storage.Get(s.m.ID, string(key))
	if err != nil {
		codeResult(stack, cs.fail(fn, s.storageCode(fn, err), err.Error()))
		return
	}
	s.log.Debug("host call", "fn", fn, "key", string(key), "bytes", len(v))
	codeResult(stack, cs.ok(v))
}

func (s *Skill) kvSet(_ context.Context, cs *callState, m api.Module, stack []uint64) {
	const fn = "kv_set"
	if !s.storage(cs, fn) {
		codeResult(stack, cs.fail(fn, wasmskill.CodeInternal, noStorage))
		return
	}
	key := cs.read(fn, m, api.DecodeU32(stack[0]), api.DecodeU32(stack[1]), kv.MaxKeyBytes)
	if n := api.DecodeU32(stack[3]); n > kv.MaxValueBytes {
		codeResult(stack, cs.fail(fn, wasmskill.CodeInvalid, fmt.Sprintf("value of %d bytes, limit %d", n, kv.MaxValueBytes)))
		return
	}
	val := cs.read(fn, m, api.DecodeU32(stack[2]), api.DecodeU32(stack[3]), kv.MaxValueBytes)
	if cs.writes++; cs.writes > MaxStorageWrites {
		codeResult(stack, cs.fail(fn, wasmskill.CodeLimit, "over the storage writes allowed per request"))
		return
	}
	if err := s.e.cfg.Storage.Set(s.m.ID, string(key), val); err != nil {
		codeResult(stack, cs.fail(fn, s.storageCode(fn, err), err.Error()))
		return
	}
	s.log.Info("host call", "fn", fn, "key", string(key), "bytes", len(val))
	codeResult(stack, 0)
}

func (s *Skill) kvDelete(_ context.Context, cs *callState, m api.Module, stack []uint64) {
	const fn = "kv_delete"
	if !s.storage(cs, fn) {
		codeResult(stack, cs.fail(fn, wasmskill.CodeInternal, noStorage))
		return
	}
	key := cs.read(fn, m, api.DecodeU32(stack[0]), api.DecodeU32(stack[1]), kv.MaxKeyBytes)
	if cs.writes++; cs.writes > MaxStorageWrites {
		codeResult(stack, cs.fail(fn, wasmskill.CodeLimit, "over the storage writes allowed per request"))
		return
	}
	if err := s.e.cfg.Storage.Delete(s.m.ID, string(key)); err != nil {
		codeResult(stack, cs.fail(fn, s.storageCode(fn, err), err.Error()))
		return
	}
	s.log.Info("host call", "fn", fn, "key", string(key))
	codeResult(stack, 0)
}

func (s *Skill) kvKeys(_ context.Context, cs *callState, m api.Module, stack []uint64) {
	const fn = "kv_keys"
	if !s.storage(cs, fn) {
		codeResult(stack, cs.fail(fn, wasmskill.CodeInternal, noStorage))
		return
	}
	prefix := cs.read(fn, m, api.DecodeU32(stack[0]), api.DecodeU32(stack[1]), kv.MaxKeyBytes)
	keys, err := s.e.cfg.Storage.Keys(s.m.ID, string(prefix))
	if err != nil {
		codeResult(stack, cs.fail(fn, s.storageCode(fn, err), err.Error()))
		return
	}
	if keys == nil {
		keys = []string{}
	}
	b, err := json.Marshal(keys)
	if err != nil {
		codeResult(stack, cs.fail(fn, wasmskill.CodeInternal, err.Error()))
		return
	}
	s.log.Debug("host call", "fn", fn, "prefix", string(prefix), "keys", len(keys))
	codeResult(stack, cs.ok(b))
}

func (s *Skill) httpFetch(ctx context.Context, cs *callState, m api.Module, stack []uint64) {
	const fn = "http_fetch"
	cs.duringRequest(fn)
	if !s.m.Allows(registry.PermNetwork) {
		cs.deny(fn, registry.PermNetwork, "fetching over HTTP needs it")
	}
	raw := cs.read(fn, m, api.DecodeU32(stack[0]), api.DecodeU32(stack[1]), MaxFetchRequestBytes)
	codeResult(stack, s.fetch(ctx, cs, raw))
}

func (s *Skill) dialogRender(_ context.Context, cs *callState, m api.Module, stack []uint64) {
	const fn = "dialog_render"
	cs.duringRequest(fn)
	name := string(cs.read(fn, m, api.DecodeU32(stack[0]), api.DecodeU32(stack[1]), MaxDialogNameBytes))
	raw := cs.read(fn, m, api.DecodeU32(stack[2]), api.DecodeU32(stack[3]), MaxDialogSlotsBytes)
	if cs.dialogs++; cs.dialogs > MaxDialogRenders {
		codeResult(stack, cs.fail(fn, wasmskill.CodeLimit, "over the dialog renders allowed per request"))
		return
	}
	var slots map[string]string
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &slots); err != nil {
			codeResult(stack, cs.fail(fn, wasmskill.CodeInvalid, "slots: want a JSON object of strings: "+err.Error()))
			return
		}
		if len(slots) > MaxDialogSlots {
			codeResult(stack, cs.fail(fn, wasmskill.CodeInvalid, fmt.Sprintf("%d slots, limit %d", len(slots), MaxDialogSlots)))
			return
		}
	}
	text, err := s.dialogs.Render(cs.lang, name, slots)
	switch {
	case errors.Is(err, skill.ErrNoDialog):
		codeResult(stack, cs.fail(fn, wasmskill.CodeNotFound, err.Error()))
		return
	case err != nil:
		codeResult(stack, cs.fail(fn, wasmskill.CodeInvalid, err.Error()))
		return
	}
	s.log.Debug("host call", "fn", fn, "dialog", name)
	codeResult(stack, cs.ok([]byte(text)))
}
