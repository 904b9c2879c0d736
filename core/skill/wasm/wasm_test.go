package wasm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/invoke"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/core/skill/wasm/kv"
	"github.com/openjibo/jibod/core/skill/wasm/skillpkg"
	"github.com/openjibo/jibod/core/skill/wasm/wasmtest"
	"github.com/openjibo/jibod/jcp"
)

// hostileManifest is the manifest of the hostile test skill; extra adds
// members (`"permissions": [...]` replaces the default). Its timeout is
// long so that calls which should answer do so on a loaded CI machine;
// tests of the deadline give their own.
func hostileManifest(extra string) string {
	m := map[string]json.RawMessage{
		"id": json.RawMessage(`"test/hostile"`), "version": json.RawMessage(`"1.0.0"`),
		"name": json.RawMessage(`"Hostile"`), "description": json.RawMessage(`"Misbehaves on purpose."`),
		"permissions": json.RawMessage(`["speech", "listen"]`), "safety_level": json.RawMessage(`"low"`),
		"timeout": json.RawMessage(`"10s"`), "limits": json.RawMessage(`{"memory_mib": 16, "calls_per_minute": 600}`),
	}
	if extra != "" {
		var o map[string]json.RawMessage
		if err := json.Unmarshal([]byte("{"+extra+"}"), &o); err != nil {
			panic(err)
		}
		for k, v := range o {
			m[k] = v
		}
	}
	b, _ := json.Marshal(m)
	return string(b)
}

var testLocale = map[string]string{"en-us/ok.intent": "are you ok\n", "en-us/greet.dialog": "Hello, {name}.\n"}

// writePkg lays out a package and reads it back.
func writePkg(t testing.TB, manifest string, module []byte) *skillpkg.Package {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "pkg")
	require.NoError(t, wasmtest.WritePackage(dir, manifest, module, testLocale))
	p, err := skillpkg.Read(dir)
	require.NoError(t, err)
	return p
}

// rig is an engine with its storage and logs, and an invoker recording
// calls as the robot's does.
type rig struct {
	e    *Engine
	logs *logBuffer
	runs *invoke.Log
	iv   *invoke.Invoker
}

func newRig(t testing.TB, cfg Config) *rig {
	t.Helper()
	r := &rig{logs: &logBuffer{}, runs: invoke.NewLog(100)}
	if cfg.CacheDir == "" {
		cfg.CacheDir = cacheDir
	}
	if cfg.Storage == nil {
		cfg.Storage = kv.NewMemory()
	}
	cfg.Logger = r.logs.logger()
	var err error
	r.e, err = New(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.e.Close(context.Background()) })
	r.iv, err = invoke.New(invoke.Config{Recorder: r.runs, Logger: cfg.Logger})
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.iv.Close(context.Background()) })
	return r
}

// loadMemo loads the example skill as its package lays it out: its own
// manifest and locale (with its dialogs), and its module.
func (r *rig) loadMemo(t testing.TB) *Skill {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "memo")
	require.NoError(t, wasmtest.CopyDir(memoDir, dir))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "skill.wasm"), memoWasm, 0o644))
	p, err := skillpkg.Read(dir)
	require.NoError(t, err)
	s, err := r.e.Load(context.Background(), p)
	require.NoError(t, err)
	return s
}

func (r *rig) load(t testing.TB, manifest string, module []byte) *Skill {
	t.Helper()
	s, err := r.e.Load(context.Background(), writePkg(t, manifest, module))
	require.NoError(t, err)
	return s
}

// launch is a LISTEN_LAUNCH of intent with string entities.
func launch(s *Skill, intent string, entities map[string]string) *protocol.Request {
	rc := protocol.RuntimeContext{Character: protocol.Character{Emotion: protocol.Emotion{Name: "PLEASED", Valence: 0.4, Confidence: 0.6}}}
	return protocol.NewListenLaunch(protocol.Context{General: protocol.GeneralData{AccountID: "local", RobotID: "Test", Lang: "en-US", Release: "1.9.2"},
		Runtime: rc, Skill: protocol.Skill(s.Manifest().BusID())},
		protocol.NLUFromSlots(intent, entities, nil), protocol.ASRResult{Text: "x", Confidence: 1}, nil)
}

// call runs one request through the invoker, as the skill host does.
func (r *rig) call(s *Skill, intent string, entities map[string]string) (invoke.Reply, error) {
	return r.iv.Call(context.Background(), s.Manifest(), s.Handle, launch(s, intent, entities))
}

// spoken returns what a SKILL_ACTION of one SLIM says.
func spoken(t testing.TB, reply invoke.Reply) string {
	t.Helper()
	require.NotNil(t, reply.Action, "an action")
	slim, ok := reply.Action.Behavior.(*jcp.SLIM)
	require.True(t, ok, "one SLIM")
	return slim.Play.ESML
}

// native is a skill built into the robot, answering at once.
func native(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
	return protocol.NewSkillAction(req, protocol.Skill("jibo.native"),
		json.RawMessage(`{"type":"JCP","config":{"version":"2.0","jcp":{"type":"SLIM","id":"s","config":{"play":{"esml":"Native."}}}}}`), true), nil
}

var nativeManifest = &registry.Manifest{ID: "jibo/native", Version: "1.0.0", Name: "Native", Description: "Answers.",
	Permissions: []registry.Permission{registry.PermSpeech}, SafetyLevel: registry.SafetyLow}

func TestExampleSkillRemembersAcrossRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "skilldata.db")
	session := func(steps func(r *rig, s *Skill)) {
		store, err := kv.Open(path, kv.Options{})
		require.NoError(t, err)
		defer store.Close()
		r := newRig(t, Config{Storage: store})
		s := r.loadMemo(t)
		steps(r, s)
		require.NoError(t, r.e.Close(context.Background()))
	}
	session(func(r *rig, s *Skill) {
		reply, err := r.call(s, "recall", nil)
		require.NoError(t, err)
		assert.Equal(t, "You haven't asked me to remember anything.", spoken(t, reply))
		reply, err = r.call(s, "remember", map[string]string{"memo": "the keys are under the mat"})
		require.NoError(t, err)
		assert.Regexp(t, `^(OK,|Got it\.) I'll remember that the keys are under the mat\.$`, spoken(t, reply), "a line of remembered.dialog")
		assert.Equal(t, invoke.OutcomeOK, reply.Record.Outcome)
		assert.Equal(t, "community/memo", reply.Record.Skill, "Wasm calls are recorded like native ones")
		assert.Contains(t, r.logs.String(), "remembered 26 bytes", "the module's log line, tagged with the skill")
	})
	// A new process: a new engine and the storage file opened again.
	session(func(r *rig, s *Skill) {
		reply, err := r.call(s, "recall", nil)
		require.NoError(t, err)
		assert.Regexp(t, `^At \d+:\d\d [AP]M today you asked me to remember: the keys are under the mat\.$`, spoken(t, reply))
		reply, err = r.call(s, "forget", nil)
		require.NoError(t, err)
		assert.Regexp(t, `^(OK, I've forgotten it|Done, it's forgotten)\.$`, spoken(t, reply), "a line of forgotten.dialog")
		reply, err = r.call(s, "recall", nil)
		require.NoError(t, err)
		assert.Equal(t, "You haven't asked me to remember anything.", spoken(t, reply))
	})
}

// Each hostile behaviour is contained: the call fails (or is refused) with
// a precise error and a record, and afterwards the same skill (on a fresh
// instance) and a native skill both answer.
func TestHostileModulesAreContained(t *testing.T) {
	type tc struct {
		name     string
		extra    string // manifest members
		intent   string
		entities map[string]string
		outcome  invoke.Outcome
		is       error
		errText  string
	}
	tests := []tc{
		// The next call waits for a fresh instance, whose start (slow on a
		// loaded machine under the race detector) is not charged to its
		// timeout (invoke.Prepare).
		{"infinite loop", `"timeout": "1s"`, "loop", nil, invoke.OutcomeTimeout, invoke.ErrTimeout, "no answer within 1s"},
		{"sleeps past its deadline", `"timeout": "1s"`, "sleep", nil, invoke.OutcomeTimeout, invoke.ErrTimeout, "no answer within 1s"},
		// A generous deadline: the bomb must reach its memory limit, not
		// the clock, however loaded the machine is.
		{"memory bomb", `"timeout": "30s"`, "bomb", nil, invoke.OutcomeFailed, ErrMemoryLimit,
			"memory limit reached (16 MiB): wasm error: unreachable: stderr: runtime: out of memory: cannot allocate"},
		{"storage without permission", "", "store", map[string]string{"value": "v"}, invoke.OutcomeDenied, registry.ErrDenied,
			`skill test/hostile: no "storage" permission: host call kv_set: the key-value storage needs it`},
		{"fetch of an unlisted host", `"permissions": ["speech", "network"], "network_hosts": ["api.example.com"], "safety_level": "high"`,
			"fetch", map[string]string{"url": "https://evil.example/steal"}, invoke.OutcomeDenied, registry.ErrDenied,
			`skill test/hostile: no "network" permission: host call http_fetch: fetch of https://evil.example: the host is not in network_hosts (api.example.com)`},
		{"fetch without the network permission", "", "fetch", map[string]string{"url": "https://api.example.com/"},
			invoke.OutcomeDenied, registry.ErrDenied, `skill test/hostile: no "network" permission: host call http_fetch: fetching over HTTP needs it`},
		{"answer that is not JSON", "", "garbage", nil, invoke.OutcomeInvalid, invoke.ErrInvalidResponse,
			"invalid response: the module's answer: decode skill response"},
		{"no answer", "", "no_answer", nil, invoke.OutcomeInvalid, ErrNoAnswer, "returned without calling response_write"},
		{"pointer outside memory", "", "bad_pointer", nil, invoke.OutcomeFailed, ErrABI, "host call request_read: ABI violation: bytes [4294967040"},
		{"failure status", "", "status", nil, invoke.OutcomeFailed, ErrNoAnswer, "jibo_handle returned status 7"},
		{"exit", "", "exit", nil, invoke.OutcomeFailed, ErrExit, "exited with code 3"},
		{"Go panic becomes an ERROR answer", "", "panic", nil, invoke.OutcomeErrorResponse, nil, "panic: hostile panic"},
		{"action the body may not run", "", "move", nil, invoke.OutcomeDenied, registry.ErrDenied,
			`no "motion" permission: config.jcp: LOOKAT turns the body`},
	}
	r := newRig(t, Config{MaxFailures: 100})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := r.load(t, hostileManifest(tt.extra), hostileWasm)
			defer s.Close(context.Background())
			reply, err := r.call(s, tt.intent, tt.entities)
			assert.Equal(t, tt.outcome, reply.Record.Outcome, "record: %+v", reply.Record)
			if tt.is != nil {
				require.Error(t, err)
				assert.ErrorIs(t, err, tt.is)
				assert.Contains(t, err.Error(), tt.errText)
				assert.Contains(t, reply.Record.Error, tt.errText, "the record says what happened")
			} else {
				require.NoError(t, err)
				assert.Contains(t, reply.Response.Error.Message, tt.errText)
			}

			reply, err = r.call(s, "ok", nil)
			require.NoError(t, err, "the skill answers again")
			assert.Equal(t, "All is well.", spoken(t, reply))
			reply, err = r.iv.Call(context.Background(), nativeManifest, native, launch(s, "x", nil))
			require.NoError(t, err, "other skills keep working")
			assert.Equal(t, "Native.", spoken(t, reply))
		})
	}
}

func TestTrapIsContained(t *testing.T) {
	trap := wasmtest.Raw{MemoryPages: 1, Funcs: []wasmtest.Func{
		{Export: "jibo_abi_version", Results: []byte{wasmtest.I32}, Body: wasmtest.I32Const(1)},
		{Export: "jibo_handle", Params: []byte{wasmtest.I32}, Results: []byte{wasmtest.I32}, Body: []byte{wasmtest.OpUnreachable}},
	}}.Bytes()
	r := newRig(t, Config{MaxFailures: 2})
	s := r.load(t, hostileManifest(""), trap)
	reply, err := r.call(s, "ok", nil)
	assert.ErrorIs(t, err, ErrTrap)
	assert.ErrorContains(t, err, "trapped: wasm error: unreachable")
	assert.Equal(t, invoke.OutcomeFailed, reply.Record.Outcome)
	assert.Equal(t, 1, s.Status().Failures)

	_, err = r.call(s, "ok", nil)
	assert.ErrorIs(t, err, ErrTrap, "a fresh instance traps again")
	_, err = r.call(s, "ok", nil)
	assert.ErrorIs(t, err, ErrDisabled, "two failures in a row disable it")
	assert.Contains(t, r.logs.String(), "wasm skill disabled")
}

func TestLoadErrors(t *testing.T) {
	fn := func(export string, results []byte, body []byte) wasmtest.Func {
		return wasmtest.Func{Export: export, Results: results, Body: body}
	}
	version := fn("jibo_abi_version", []byte{wasmtest.I32}, wasmtest.I32Const(1))
	handle := wasmtest.Func{Export: "jibo_handle", Params: []byte{wasmtest.I32}, Results: []byte{wasmtest.I32}, Body: wasmtest.I32Const(0)}
	tests := []struct {
		name   string
		module []byte
		is     error
		text   string
	}{
		{"not a module", []byte("\x00asm\x01\x00\x00\x00garbage"), ErrBadModule, "not a usable WebAssembly module"},
		{"no handle export", wasmtest.Raw{MemoryPages: 1, Funcs: []wasmtest.Func{version}}.Bytes(), ErrMissingExport,
			"missing export: no function jibo_handle (i32) -> (i32)"},
		{"no version export", wasmtest.Raw{MemoryPages: 1, Funcs: []wasmtest.Func{handle}}.Bytes(), ErrMissingExport,
			"no function jibo_abi_version () -> (i32)"},
		{"handle of the wrong type", wasmtest.Raw{MemoryPages: 1, Funcs: []wasmtest.Func{version,
			fn("jibo_handle", []byte{wasmtest.I32}, wasmtest.I32Const(0))}}.Bytes(), ErrMissingExport, "jibo_handle is () -> (i32); want (i32) -> (i32)"},
		{"no memory", wasmtest.Raw{Funcs: []wasmtest.Func{version, handle}}.Bytes(), ErrMissingExport, "no exported memory"},
		{"foreign import", wasmtest.Raw{MemoryPages: 1, Imports: []wasmtest.Import{{Module: "env", Name: "open_socket",
			Results: []byte{wasmtest.I32}}}, Funcs: []wasmtest.Func{version, handle}}.Bytes(), ErrUnknownImport,
			"env.open_socket: a skill may import only wasi_snapshot_preview1 (WASI, without files or sockets) and jibo_v1"},
		{"unknown host function", wasmtest.Raw{MemoryPages: 1, Imports: []wasmtest.Import{{Module: "jibo_v1", Name: "camera_snap",
			Results: []byte{wasmtest.I32}}}, Funcs: []wasmtest.Func{version, handle}}.Bytes(), ErrUnknownImport,
			"jibo_v1.camera_snap: ABI version 1 has no such host function"},
		{"host function of the wrong type", wasmtest.Raw{MemoryPages: 1, Imports: []wasmtest.Import{{Module: "jibo_v1", Name: "kv_get",
			Results: []byte{wasmtest.I32}}}, Funcs: []wasmtest.Func{version, handle}}.Bytes(), ErrUnknownImport,
			"jibo_v1.kv_get is imported as () -> (i32); ABI version 1 has (i32, i32) -> (i32)"},
		{"another ABI version", wasmtest.Raw{MemoryPages: 1, Funcs: []wasmtest.Func{fn("jibo_abi_version", []byte{wasmtest.I32},
			wasmtest.I32Const(2)), handle}}.Bytes(), ErrABIVersion, "the module speaks ABI version 2; this jibod speaks 1"},
		{"memory over the limit", wasmtest.Raw{MemoryPages: 16*16 + 1, Funcs: []wasmtest.Func{version, handle}}.Bytes(), ErrMemoryLimit,
			"over limits.memory_mib (16 MiB)"},
		{"start-up trap", wasmtest.Raw{MemoryPages: 1, Funcs: []wasmtest.Func{version, handle,
			fn("_initialize", nil, []byte{wasmtest.OpUnreachable})}}.Bytes(), ErrTrap, "starting the module: trapped"},
	}
	r := newRig(t, Config{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writePkg(t, hostileManifest(""), tt.module)
			s, err := r.e.Load(context.Background(), p)
			assert.Nil(t, s)
			require.Error(t, err)
			assert.ErrorIs(t, err, tt.is)
			assert.ErrorContains(t, err, tt.text)
			assert.ErrorContains(t, err, "loading skill test/hostile from "+p.Dir)
		})
	}
}

func TestStorageQuotasAndScope(t *testing.T) {
	store := kv.NewMemory()
	r := newRig(t, Config{Storage: store})
	s := r.load(t, hostileManifest(`"permissions": ["speech", "storage"]`), hostileWasm)
	reply, err := r.call(s, "store", map[string]string{"value": "kept"})
	require.NoError(t, err)
	assert.Equal(t, "stored", spoken(t, reply))
	reply, err = r.call(s, "load", nil)
	require.NoError(t, err)
	assert.Equal(t, "loaded kept", spoken(t, reply))
	v, err := store.Get("test/hostile", "k")
	require.NoError(t, err)
	assert.Equal(t, "kept", string(v), "stored under the skill's own id")

	require.NoError(t, store.Set("test/hostile", "gone", []byte("x")))
	require.NoError(t, store.Set("test/other", "theirs", []byte("x")))
	reply, err = r.call(s, "keys", nil)
	require.NoError(t, err)
	assert.Equal(t, `keys ["k"]`, spoken(t, reply), "its own keys only; the deleted one is gone")

	reply, err = r.call(s, "store", map[string]string{"value": strings.Repeat("x", kv.MaxValueBytes+1)})
	require.NoError(t, err, "a storage error is the module's to handle")
	assert.Equal(t, invoke.OutcomeErrorResponse, reply.Record.Outcome)
	assert.Contains(t, reply.Response.Error.Message, "kv_set: value of 32769 bytes, limit 32768 (code -1)")
}

func TestFetch(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		switch req.URL.Path {
		case "/hello":
			fmt.Fprint(w, "hello from the network")
		case "/away":
			http.Redirect(w, req, "http://evil.example/", http.StatusFound)
		case "/big":
			w.Write(make([]byte, MaxFetchBodyBytes+1))
		}
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	var offline atomic.Bool
	// The test server is on loopback, which a robot's skills may not reach.
	r := newRig(t, Config{Offline: offline.Load, AllowPrivateNetworks: true})
	s := r.load(t, hostileManifest(`"permissions": ["speech", "network"], "network_hosts": ["`+host+`"], "safety_level": "high"`), hostileWasm)
	say := func(url string) string {
		reply, err := r.call(s, "fetch", map[string]string{"url": url})
		require.NoError(t, err)
		return spoken(t, reply)
	}
	assert.Equal(t, "fetched 200: hello from the network", say(srv.URL+"/hello"))
	assert.Contains(t, say(srv.URL+"/away"), `fetch failed: http_fetch: Get "http://evil.example/": redirect to evil.example: host not in network_hosts`)
	assert.Contains(t, say(srv.URL+"/big"), "the body is over 262144 bytes (code -6)")
	offline.Store(true)
	assert.Equal(t, "fetch failed: http_fetch: the robot is offline (code -4)", say(srv.URL+"/hello"))
	assert.Contains(t, r.logs.String(), "host call refused: offline")

	// On a robot (the default), a listed host on its own network is refused
	// at the dial: the module gets an error, the server no request.
	robot := newRig(t, Config{})
	s = robot.load(t, hostileManifest(`"permissions": ["speech", "network"], "network_hosts": ["`+host+`"], "safety_level": "high"`), hostileWasm)
	reply, err := robot.call(s, "fetch", map[string]string{"url": srv.URL + "/hello"})
	require.NoError(t, err)
	assert.Contains(t, spoken(t, reply), "not a public address")
}

func TestRobotStateAndClock(t *testing.T) {
	speaker := "looper-sam"
	at := time.Date(2026, 11, 22, 15, 5, 0, 0, time.FixedZone("CET", 3600))
	r := newRig(t, Config{Now: func() time.Time { return at }, State: func() protocol.RuntimeContext {
		return protocol.RuntimeContext{Character: protocol.Character{Emotion: protocol.Emotion{Name: "CONFIDENT", Confidence: 0.5}},
			Perception: protocol.Perception{Speaker: &speaker}}
	}})
	s := r.load(t, hostileManifest(""), hostileWasm)
	reply, err := r.call(s, "state", nil)
	require.NoError(t, err)
	var got struct {
		State struct {
			Emotion struct{ Name string } `json:"emotion"`
			Speaker string                `json:"speaker"`
		} `json:"state"`
		Now string `json:"now"`
	}
	text := spoken(t, reply)
	require.NoError(t, json.Unmarshal([]byte(text), &got), text)
	assert.Equal(t, "CONFIDENT", got.State.Emotion.Name)
	assert.Equal(t, "looper-sam", got.State.Speaker)
	assert.Equal(t, "2026-11-22T15:05:00+01:00", got.Now, "the robot's clock, in its time zone")

	// Without a state source, the request's runtime context is the state.
	r2 := newRig(t, Config{})
	s2 := r2.load(t, hostileManifest(""), hostileWasm)
	reply, err = r2.call(s2, "state", nil)
	require.NoError(t, err)
	assert.Contains(t, spoken(t, reply), "PLEASED")
}

func TestLogsAreBounded(t *testing.T) {
	r := newRig(t, Config{})
	s := r.load(t, hostileManifest(""), hostileWasm)
	reply, err := r.call(s, "log_flood", nil)
	require.NoError(t, err)
	assert.Equal(t, "logged", spoken(t, reply))
	logs := r.logs.String()
	assert.Equal(t, MaxLogLines, strings.Count(logs, "source=module")+strings.Count(logs, "source=stdout"))
	assert.Contains(t, logs, "module log lines dropped")
	assert.Contains(t, logs, "skill=test/hostile")
}

func TestAskKeepsSession(t *testing.T) {
	r := newRig(t, Config{})
	s := r.load(t, hostileManifest(""), hostileWasm)
	reply, err := r.call(s, "ask", nil)
	require.NoError(t, err)
	slim := reply.Action.Behavior.(*jcp.SLIM)
	require.NotNil(t, slim.Listen)
	assert.Equal(t, []string{"globals/yes_no"}, slim.Listen.Contexts)
	assert.False(t, *reply.Response.Action.Final)
	require.NotNil(t, reply.Response.Action.Skill.Session)
	assert.JSONEq(t, `{"asked":1}`, string(reply.Response.Action.Skill.Session.Data))

	s2 := r.load(t, hostileManifest(`"permissions": ["speech"]`), hostileWasm)
	reply, err = r.call(s2, "ask", nil)
	assert.ErrorIs(t, err, registry.ErrDenied, "a question needs the listen permission, as for every skill")
	assert.Equal(t, invoke.OutcomeDenied, reply.Record.Outcome)
}

func TestDisabledUntilReplaced(t *testing.T) {
	r := newRig(t, Config{MaxFailures: 2})
	p := writePkg(t, hostileManifest(`"timeout": "10s"`), hostileWasm)
	s, err := r.e.Load(context.Background(), p)
	require.NoError(t, err)
	_, err = r.call(s, "exit", nil)
	require.ErrorIs(t, err, ErrExit)
	_, err = r.call(s, "ok", nil)
	require.NoError(t, err, "one failure does not disable it")
	for range 2 {
		_, err = r.call(s, "exit", nil)
		require.ErrorIs(t, err, ErrExit)
	}
	reply, err := r.call(s, "ok", nil)
	require.ErrorIs(t, err, ErrDisabled)
	assert.ErrorContains(t, err, "skill test/hostile is disabled after 2 failed calls in a row (the last: exited with code 3")
	assert.Equal(t, invoke.OutcomeFailed, reply.Record.Outcome, "a disabled skill's calls are recorded")
	assert.Equal(t, 2, s.Status().Failures)

	// Installed again, the robot loads a new copy in its place (package
	// installed); the disabled one stays off.
	again, err := r.e.Load(context.Background(), p)
	require.NoError(t, err)
	reply, err = r.call(again, "ok", nil)
	require.NoError(t, err)
	assert.Equal(t, "All is well.", spoken(t, reply))
	_, err = r.call(s, "ok", nil)
	require.ErrorIs(t, err, ErrDisabled)
}

func TestCancelledCallsDoNotCount(t *testing.T) {
	r := newRig(t, Config{MaxFailures: 1})
	s := r.load(t, hostileManifest(""), hostileWasm)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.Handle(ctx, launch(s, "loop", nil))
		done <- err
	}()
	// The loop runs until its caller gives up on it.
	cancel()
	err := <-done
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 0, s.Status().Failures, "the caller stopped it, not the module failing")
	reply, err := r.call(s, "ok", nil)
	require.NoError(t, err)
	assert.Equal(t, "All is well.", spoken(t, reply))
}

func TestConcurrentCallsTakeTurns(t *testing.T) {
	r := newRig(t, Config{})
	s := r.load(t, hostileManifest(""), hostileWasm)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			resp, err := s.Handle(context.Background(), launch(s, "ok", nil))
			if err == nil && resp.Type != protocol.TypeSkillAction {
				err = errors.New("not an action")
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		assert.NoError(t, err)
	}
}

func TestCloseStopsARunningCall(t *testing.T) {
	r := newRig(t, Config{})
	s := r.load(t, hostileManifest(""), hostileWasm)
	done := make(chan error, 1)
	started := make(chan struct{})
	go func() {
		close(started)
		_, err := s.Handle(context.Background(), launch(s, "loop", nil))
		done <- err
	}()
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	require.NoError(t, s.Close(ctx))
	err := <-done
	require.Error(t, err, "the looping call ends when its module is closed")
	_, err = s.Handle(context.Background(), launch(s, "ok", nil))
	assert.ErrorIs(t, err, ErrClosed)
}

// A skill renders its package's .dialog files through dialog_render, in
// the request's language (or one with the same primary language); what it
// cannot render fails the host call with a code and a message, never the
// request.
func TestDialogRender(t *testing.T) {
	r := newRig(t, Config{})
	s := r.load(t, hostileManifest(""), hostileWasm)
	say := func(lang string, entities map[string]string) string {
		t.Helper()
		req := launch(s, "dialog", entities)
		req.Data.General.Lang = lang
		reply, err := r.iv.Call(context.Background(), s.Manifest(), s.Handle, req)
		require.NoError(t, err)
		return spoken(t, reply)
	}
	for _, tt := range []struct {
		name, lang string
		entities   map[string]string
		want       string
	}{
		{"slot filled", "en-US", map[string]string{"dialog": "greet", "name": "Sam"}, "said: Hello, Sam."},
		{"a value is never read as a slot", "en-US", map[string]string{"dialog": "greet", "name": "{name}"}, "said: Hello, {name}."},
		{"same primary language", "en-GB", map[string]string{"dialog": "greet", "name": "Sam"}, "said: Hello, Sam."},
		{"slot missing", "en-US", map[string]string{"dialog": "greet"},
			`dialog failed: dialog_render: dialog "greet": slot {name}: dialog slot without a value (code -1)`},
		{"no such dialog", "en-US", map[string]string{"dialog": "nope"},
			`dialog failed: dialog_render: no such dialog: "nope" in en-us (code -2)`},
		{"no such language", "de-DE", map[string]string{"dialog": "greet", "name": "Sam"},
			`dialog failed: dialog_render: no such dialog: no dialogs in de-de (the skill has en-us) (code -2)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, say(tt.lang, tt.entities))
		})
	}
	reply, err := r.call(s, "dialog_flood", nil)
	require.NoError(t, err)
	assert.Equal(t, "flood: dialog_render: over the dialog renders allowed per request (code -7)", spoken(t, reply))
}

// A .dialog that does not expand is refused when the package is read and
// left out, reported, the rest of the package loading; one whose lines
// declare different slots loads (real OVOS skills write them).
func TestBadDialogIsRefused(t *testing.T) {
	for name, tc := range map[string]struct {
		text    string
		refused bool
	}{
		"different slots": {"Hello, {name}.\nHello, {who}.\n", false},
		"broken slot":     {"Hello {there.\n", true},
	} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "pkg")
			require.NoError(t, wasmtest.WritePackage(dir, hostileManifest(""), hostileWasm,
				map[string]string{"en-us/ok.intent": "are you ok\n", "en-us/greet.dialog": tc.text}))
			p, err := skillpkg.Read(dir)
			require.NoError(t, err)
			if !tc.refused {
				assert.Empty(t, p.Refused)
				return
			}
			require.Len(t, p.Refused, 1)
			assert.Equal(t, "locale/en-us/greet.dialog", p.Refused[0].Path)
			assert.Contains(t, p.Refused[0].Reasons[0], "'{' does not start a slot")
		})
	}
}
