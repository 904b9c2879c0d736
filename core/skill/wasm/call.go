package wasm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/tetratelabs/wazero/api"

	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
)

// Per-request limits on host calls.
const (
	// MaxLogLines bounds the log lines (host log calls and standard
	// output and error lines) of one request; the rest are dropped.
	MaxLogLines = 64
	// MaxLogLineBytes bounds one log line; longer ones are cut.
	MaxLogLineBytes = 1024
	// MaxStorageWrites bounds kv_set and kv_delete calls per request.
	MaxStorageWrites = 64
	// MaxFetches bounds http_fetch calls per request.
	MaxFetches = 4
	// MaxErrorMessage bounds the message a failed host call leaves.
	MaxErrorMessage = 1024
	// MaxDialogRenders bounds dialog_render calls per request.
	MaxDialogRenders = 64
	// MaxDialogNameBytes bounds a dialog's name.
	MaxDialogNameBytes = 128
	// MaxDialogSlotsBytes bounds the JSON of a render's slot values.
	MaxDialogSlotsBytes = 16 << 10
	// MaxDialogSlots bounds the slot values of one render.
	MaxDialogSlots = 32
)

// callState is one request's (or one instance start-up's) dealings with
// the host functions. It rides in the context of the call into the
// module; only that call's goroutine touches it.
type callState struct {
	s *Skill
	// starting is true while the instance starts (_initialize): no
	// request is being answered, so only log and clock calls are allowed.
	starting bool
	// request is the request's JSON, runtime its runtime context and
	// lang its language.
	request []byte
	runtime protocol.RuntimeContext
	lang    string
	// response is what response_write was given.
	response []byte
	// result is the pending result of the last host call.
	result    []byte
	hasResult bool
	// abort is why the call was stopped by the host.
	abort error
	// counts of calls limited per request.
	logLines, writes, fetches, dialogs int
	droppedLogs                        int
}

type callKey struct{}

func withCall(ctx context.Context, cs *callState) context.Context {
	return context.WithValue(ctx, callKey{}, cs)
}

func callOf(ctx context.Context) *callState {
	cs, _ := ctx.Value(callKey{}).(*callState)
	return cs
}

// errAbort is what a host function panics with to stop the module at
// once; the reason is in callState.abort.
var errAbort = errors.New("request stopped by the host")

// stop ends the call into the module: the host function does not return
// to it.
func (cs *callState) stop(err error) {
	cs.abort = err
	panic(errAbort)
}

// deny stops the call for a host function the manifest does not permit,
// reported as a *registry.DeniedError.
func (cs *callState) deny(fn string, p registry.Permission, reason string) {
	m := cs.s.m
	cs.s.log.Warn("host call refused", "fn", fn, "permission", p, "why", reason)
	cs.stop(&registry.DeniedError{Skill: m.ID, Permission: p, Reason: "host call " + fn + ": " + reason,
		Missing: []registry.Permission{p}})
}

// violate stops the call for breaking the ABI.
func (cs *callState) violate(fn, format string, args ...any) {
	cs.stop(fmt.Errorf("host call %s: %w: %s", fn, ErrABI, fmt.Sprintf(format, args...)))
}

// ok leaves data as the pending result and returns its length.
func (cs *callState) ok(data []byte) int32 {
	cs.result, cs.hasResult = data, true
	return int32(len(data))
}

// fail leaves msg as the pending result and returns code.
func (cs *callState) fail(fn string, code int32, msg string) int32 {
	if len(msg) > MaxErrorMessage {
		msg = msg[:MaxErrorMessage]
	}
	cs.s.log.Debug("host call failed", "fn", fn, "code", code, "err", msg)
	cs.result, cs.hasResult = []byte(msg), true
	return code
}

// read copies n bytes at ptr out of the module's memory, stopping the call
// when they are not all inside it.
func (cs *callState) read(fn string, m api.Module, ptr, n uint32, max int) []byte {
	if int64(n) > int64(max) {
		cs.violate(fn, "%d bytes, limit %d", n, max)
	}
	if n == 0 {
		return []byte{}
	}
	b, ok := m.Memory().Read(ptr, n)
	if !ok {
		cs.violate(fn, "bytes [%d, %d) are outside the module's memory of %d bytes", ptr, uint64(ptr)+uint64(n), m.Memory().Size())
	}
	return append([]byte(nil), b...)
}

// write copies b into the module's memory at ptr.
func (cs *callState) write(fn string, m api.Module, ptr uint32, b []byte) {
	if len(b) > 0 && !m.Memory().Write(ptr, b) {
		cs.violate(fn, "bytes [%d, %d) are outside the module's memory of %d bytes", ptr, uint64(ptr)+uint64(len(b)), m.Memory().Size())
	}
}

// duringRequest stops a host call made while the instance starts up,
// when no request is being answered.
func (cs *callState) duringRequest(fn string) {
	if cs.starting {
		cs.violate(fn, "called while the module starts, outside a request")
	}
}

// logLine writes one of the module's lines to the robot's log, within the
// per-request bound.
func (cs *callState) logLine(level slog.Level, source, msg string) bool {
	if cs.logLines >= MaxLogLines {
		cs.droppedLogs++
		return false
	}
	cs.logLines++
	if len(msg) > MaxLogLineBytes {
		msg = msg[:MaxLogLineBytes] + "…"
	}
	cs.s.log.Log(context.Background(), level, msg, "source", source)
	return true
}

// abiFunc is a host function of the ABI: its signature, for checking a
// module's imports, and what it does.
type abiFunc struct {
	params, results []api.ValueType
	fn              func(s *Skill, ctx context.Context, cs *callState, m api.Module, stack []uint64)
}

var (
	i32 = api.ValueTypeI32
	i64 = api.ValueTypeI64
)

// sig renders a signature as the ABI document writes it.
func sig(params, results []api.ValueType) string {
	name := func(ts []api.ValueType) string {
		out := "("
		for i, t := range ts {
			if i > 0 {
				out += ", "
			}
			out += api.ValueTypeName(t)
		}
		return out + ")"
	}
	return name(params) + " -> " + name(results)
}

// abiFuncs are the host functions of ABI version 1 (docs/wasm-abi.md).
func abiFuncs() map[string]abiFunc {
	return map[string]abiFunc{
		"request_read":     {[]api.ValueType{i32, i32}, []api.ValueType{i32}, (*Skill).requestRead},
		"response_write":   {[]api.ValueType{i32, i32}, []api.ValueType{i32}, (*Skill).responseWrite},
		"result_read":      {[]api.ValueType{i32, i32}, []api.ValueType{i32}, (*Skill).resultRead},
		"log":              {[]api.ValueType{i32, i32, i32}, []api.ValueType{i32}, (*Skill).hostLog},
		"clock_now":        {nil, []api.ValueType{i64}, (*Skill).clockNow},
		"clock_utc_offset": {nil, []api.ValueType{i32}, (*Skill).clockUTCOffset},
		"robot_state":      {nil, []api.ValueType{i32}, (*Skill).robotState},
		"kv_get":           {[]api.ValueType{i32, i32}, []api.ValueType{i32}, (*Skill).kvGet},
		"kv_set":           {[]api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}, (*Skill).kvSet},
		"kv_delete":        {[]api.ValueType{i32, i32}, []api.ValueType{i32}, (*Skill).kvDelete},
		"kv_keys":          {[]api.ValueType{i32, i32}, []api.ValueType{i32}, (*Skill).kvKeys},
		"http_fetch":       {[]api.ValueType{i32, i32}, []api.ValueType{i32}, (*Skill).httpFetch},
		"dialog_render":    {[]api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}, (*Skill).dialogRender},
	}
}

// codeResult puts a host function's i32 result on the stack.
func codeResult(stack []uint64, v int32) { stack[0] = api.EncodeI32(v) }
