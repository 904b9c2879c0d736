package wasm

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"

	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/invoke"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/core/skill/wasm/skillpkg"
	"github.com/openjibo/jibod/sdk/wasmskill"
)

// pageBytes is the size of a WebAssembly memory page.
const pageBytes = 64 << 10

// maxSleepSlice bounds one WASI sleep: a module sleeping past its deadline
// wakes at least this often, so it is stopped there.
const maxSleepSlice = 10 * time.Millisecond

// Skill is a WebAssembly skill: a skill.Skill whose Handle runs the
// module. It is safe for concurrent use; calls run one at a time.
type Skill struct {
	e   *Engine
	m   *registry.Manifest
	log *slog.Logger

	// sem admits one call (or close) at a time; mod and pkg
	// belong to its holder.
	sem chan struct{}
	mod *module
	pkg *skillpkg.Package
	// dialogs are the package's .dialog files, expanded at load.
	dialogs *skill.LocaleDialogs
	// current is mod, for Close to stop a call it cannot wait for.
	current atomic.Pointer[module]

	mu       sync.Mutex
	failures int
	disabled error
	closed   bool

	// warming counts the goroutines starting a fresh instance after a
	// failure; Close waits for them.
	warming sync.WaitGroup
}

// module is a compiled module in its own runtime, and its instance once
// started.
type module struct {
	rt wazero.Runtime
	// cache is the compile cache of this module alone, when it has one
	// (see recompile); closed with it.
	cache    wazero.CompilationCache
	compiled wazero.CompiledModule
	limit    uint32 // memory limit, bytes
	inst     api.Module
	handle   api.Function
	out      *output
}

func (md *module) close(ctx context.Context) error {
	err := md.rt.Close(ctx) // closes the instance too
	if md.cache != nil {
		err = errors.Join(err, md.cache.Close(ctx))
	}
	return err
}

// memoryMiB is the memory limit of m.
func memoryMiB(m *registry.Manifest) int {
	if m.Limits.MemoryMiB > 0 {
		return m.Limits.MemoryMiB
	}
	return DefaultMemoryMiB
}

// MemoryMiB is the memory limit a WebAssembly skill with manifest m runs
// under: limits.memory_mib, or DefaultMemoryMiB.
func MemoryMiB(m *registry.Manifest) int { return memoryMiB(m) }

func newSkill(ctx context.Context, e *Engine, p *skillpkg.Package) (*Skill, error) {
	m := p.Manifest.Normalized()
	s := &Skill{e: e, m: m, pkg: p, sem: make(chan struct{}, 1),
		log: e.log.With("skill", m.ID)}
	loc, err := intent.LoadLocaleTolerant(intent.LocaleLayer{FS: p.Locale, Root: ".", Name: skillpkg.LocaleDir})
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", skillpkg.ErrInvalid, skillpkg.LocaleDir, err)
	}
	// Expanded now, so a dialog that cannot render fails the install,
	// not the conversation.
	if s.dialogs, err = skill.NewLocaleDialogs(loc, nil); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", skillpkg.ErrInvalid, skillpkg.LocaleDir, err)
	}
	mod, err := s.compile(ctx, p.Module)
	if err != nil {
		return nil, err
	}
	s.mod = mod
	s.current.Store(mod)
	if err := s.start(ctx); err != nil {
		_ = mod.close(context.WithoutCancel(ctx))
		return nil, err
	}
	s.log.Info("wasm skill loaded", "dir", p.Dir, "memory_mib", memoryMiB(m), "bytes", len(p.Module))
	return s, nil
}

// compile builds the module's runtime (memory cap, WASI, host API) and
// compiles and checks the module in it, through the engine's compile
// cache. The cache is derived data: a module that does not compile through
// it is compiled again beside it (see recompile).
func (s *Skill) compile(ctx context.Context, code []byte) (*module, error) {
	md, compileErr, err := s.compileWith(ctx, code, s.e.cache)
	if err == nil || !compileErr || s.e.cfg.CacheDir == "" {
		return md, err
	}
	return s.recompile(ctx, code, err)
}

// recompile compiles a module that failed to compile through the engine's
// compile cache with a cache of its own in a new folder beside it. When it
// compiles there, the module is sound and the cache's entry for it was not
// (a torn, empty or garbled file): the entry just written replaces it, with
// a WARN, and the module runs from this compilation. When it does not, the
// module itself is bad and first, its error, is returned.
func (s *Skill) recompile(ctx context.Context, code []byte, first error) (*module, error) {
	dir := s.e.cfg.CacheDir
	tmp, err := os.MkdirTemp(dir, healPrefix)
	if err != nil {
		return nil, first
	}
	defer os.RemoveAll(tmp)
	c, err := wazero.NewCompilationCacheWithDir(tmp)
	if err != nil {
		return nil, first
	}
	md, _, err := s.compileWith(ctx, code, c)
	if err != nil {
		_ = c.Close(context.WithoutCancel(ctx))
		return nil, first
	}
	md.cache = c
	s.log.Warn("wasm compile cache entry unreadable: discarded, and the module compiled again", "cache", dir, "err", first)
	if err := replaceEntries(tmp, dir); err != nil {
		s.log.Warn("wasm compile cache entry not replaced; the module is compiled again at the next start", "cache", dir, "err", err)
	}
	return md, nil
}

// healPrefix starts the names of the folders recompile works in.
const healPrefix = ".recompile-"

// replaceEntries moves the cache entries under from to the same places
// under to, each replacing what was there in one rename.
func replaceEntries(from, to string) error {
	return filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || strings.HasSuffix(p, ".tmp") {
			return err
		}
		rel, err := filepath.Rel(from, p)
		if err != nil {
			return err
		}
		dst := filepath.Join(to, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
			return err
		}
		return os.Rename(p, dst)
	})
}

// compileWith is compile through cache; compileErr says the module itself
// did not compile (rather than the runtime around it not start, or the
// compiled module not pass the checks).
func (s *Skill) compileWith(ctx context.Context, code []byte, cache wazero.CompilationCache) (_ *module, compileErr bool, _ error) {
	limit := uint32(memoryMiB(s.m)) * (1 << 20 / pageBytes)
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().
		WithCloseOnContextDone(true).
		WithMemoryLimitPages(limit).
		WithCompilationCache(cache))
	md := &module{rt: rt, limit: limit * pageBytes}
	fail := func(err error) (*module, bool, error) {
		_ = rt.Close(context.WithoutCancel(ctx))
		return nil, false, err
	}
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		return fail(fmt.Errorf("starting WASI: %w", err))
	}
	b := rt.NewHostModuleBuilder(wasmskill.ImportModule)
	for name, f := range abiFuncs() {
		b.NewFunctionBuilder().WithGoModuleFunction(s.hostFunc(f.fn), f.params, f.results).Export(name)
	}
	if _, err := b.Instantiate(ctx); err != nil {
		return fail(fmt.Errorf("starting the host API: %w", err))
	}
	compiled, err := rt.CompileModule(ctx, code)
	if err != nil {
		_ = rt.Close(context.WithoutCancel(ctx))
		if strings.Contains(err.Error(), "memory") && strings.Contains(err.Error(), "limit") {
			return nil, true, fmt.Errorf("%w: its initial memory is over limits.memory_mib (%d MiB): %v", ErrMemoryLimit, memoryMiB(s.m), err)
		}
		return nil, true, fmt.Errorf("%w: %v", ErrBadModule, err)
	}
	md.compiled = compiled
	if err := checkModule(compiled); err != nil {
		return fail(err)
	}
	return md, false, nil
}

// hostFunc adapts a host function: it finds the call's state and logs
// nothing itself (each function logs what it did).
func (s *Skill) hostFunc(fn func(*Skill, context.Context, *callState, api.Module, []uint64)) api.GoModuleFunc {
	return func(ctx context.Context, m api.Module, stack []uint64) {
		cs := callOf(ctx)
		if cs == nil || cs.s != s {
			panic(fmt.Errorf("%w: a host function was called outside a call of its own skill", ErrABI))
		}
		fn(s, ctx, cs, m, stack)
	}
}

// start instantiates the module (running its _initialize) and checks its
// ABI version, within StartTimeout. The holder of sem calls it.
func (s *Skill) start(ctx context.Context) error {
	limit := StartTimeout(s.m)
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	md := s.mod
	md.out = &output{s: s}
	cs := &callState{s: s, starting: true}
	ctx = withCall(ctx, cs)
	md.out.begin(cs)
	defer md.out.end()
	cfg := wazero.NewModuleConfig().
		WithName(""). // anonymous: a new instance never clashes with one being closed
		WithStartFunctions("_initialize").
		WithArgs(s.m.ID).
		WithStdout(md.out.stdout()).WithStderr(md.out.stderr()).
		WithSysWalltime().WithSysNanotime().
		WithNanosleep(func(ns int64) { time.Sleep(min(time.Duration(ns), maxSleepSlice)) }).
		WithRandSource(rand.Reader)
	// explainStart says what a start that failed in fn did.
	explainStart := func(fn string, err error) error {
		err = s.explain(ctx, cs, md, err)
		if errors.Is(err, context.DeadlineExceeded) && parent.Err() == nil {
			return fmt.Errorf("%s did not return within %v, its start-up limit: %w", fn, limit, err)
		}
		return err
	}
	inst, err := md.rt.InstantiateModule(ctx, md.compiled, cfg)
	if err != nil {
		return fmt.Errorf("starting the module: %w", explainStart("_initialize", err))
	}
	res, err := inst.ExportedFunction(wasmskill.ExportABIVersion).Call(ctx)
	if err != nil {
		_ = inst.Close(context.WithoutCancel(ctx))
		return fmt.Errorf("asking the module's ABI version: %w", explainStart(wasmskill.ExportABIVersion, err))
	}
	if v := api.DecodeI32(res[0]); v != wasmskill.ABIVersion {
		_ = inst.Close(context.WithoutCancel(ctx))
		return fmt.Errorf("%w: the module speaks ABI version %d; this jibod speaks %d", ErrABIVersion, v, wasmskill.ABIVersion)
	}
	md.inst, md.handle = inst, inst.ExportedFunction(wasmskill.ExportHandle)
	return nil
}

// drop throws away the current instance after a failure; the next call
// starts a fresh one.
func (s *Skill) drop(ctx context.Context) {
	if s.mod.inst != nil {
		_ = s.mod.inst.Close(context.WithoutCancel(ctx))
		s.mod.inst, s.mod.handle = nil, nil
	}
}

// Manifest is the skill's manifest.
func (s *Skill) Manifest() *registry.Manifest { return s.m }

// Locale is the package's locale tree.
func (s *Skill) Locale() fs.FS { return s.pkg.Locale }

// Rules is the package's answer rules tree, or nil.
func (s *Skill) Rules() fs.FS { return s.pkg.Rules }

// Status is how a skill is doing.
type Status struct {
	// Failures is how many calls in a row failed.
	Failures int
	// Disabled says why the skill is off; nil when it is on.
	Disabled error
}

// Status reports the skill's failures and whether it is disabled.
func (s *Skill) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Status{Failures: s.failures, Disabled: s.disabled}
}

// Handle answers one request by calling the module: the request goes in as
// JSON, the module's response comes out, decoded and validated. A module
// that traps, exits, breaks the ABI, makes a host call it is not
// permitted, answers with something that is not a valid skill response,
// or is still running at ctx's deadline fails the call (its instance is
// thrown away); the error says which, and counts towards disabling the
// skill.
func (s *Skill) Handle(ctx context.Context, req *protocol.Request) (*protocol.Response, error) {
	c, err := s.HandleChecked(ctx, req)
	return c.Response(), err
}

// HandleChecked is Handle returning the module's answer as decoding
// checked it: the robot's invoker takes it without validating again.
func (s *Skill) HandleChecked(ctx context.Context, req *protocol.Request) (*protocol.CheckedResponse, error) {
	in, err := protocol.EncodeJSON(req)
	if err != nil {
		return nil, fmt.Errorf("encoding the request for the module: %w", err)
	}
	// Waiting for the previous call and starting a fresh instance are the
	// host's: the wait is bounded by the start-up limit (no call or start
	// holds sem longer), and the start has that limit again of its own.
	// The skill's timeout counts from when the instance is ready.
	ctx, err = invoke.Prepare(ctx, 2*StartTimeout(s.m), s.ready)
	if err != nil {
		return nil, err
	}
	defer func() { <-s.sem }()
	if ctx.Err() != nil { // given up while getting ready
		return nil, fmt.Errorf("the call was given up while the module got ready: %w", context.Cause(ctx))
	}
	var rc protocol.RuntimeContext
	lang := ""
	if req.Data != nil {
		rc, lang = req.Data.Runtime, req.Data.General.Lang
	}
	resp, err := s.call(ctx, in, rc, lang)
	s.settle(ctx, err)
	return resp, err
}

// settle counts a call's outcome and, when the call left the module
// without an instance, starts a fresh one in the background. The holder
// of sem calls it.
func (s *Skill) settle(ctx context.Context, err error) {
	s.account(ctx, err)
	s.refill()
}

// refill starts a fresh instance in the background when the module has
// none and the skill is on. The holder of sem calls it.
func (s *Skill) refill() {
	s.mu.Lock()
	on := !s.closed && s.disabled == nil
	s.mu.Unlock()
	if s.mod.inst == nil && on {
		s.warm()
	}
}

// warm starts a fresh instance in the background after a failed call threw
// the last one away, so the next call does not pay for the start (tens of
// milliseconds for a Go module; more in the interpreter on 32-bit boards).
func (s *Skill) warm() {
	s.warming.Add(1)
	go func() { // owned by the skill: Close waits for it
		defer s.warming.Done()
		s.sem <- struct{}{}
		defer func() { <-s.sem }()
		s.mu.Lock()
		off := s.closed || s.disabled != nil
		s.mu.Unlock()
		if off || s.mod.inst != nil {
			return
		}
		if err := s.start(context.Background()); err != nil {
			s.log.Warn("starting a fresh instance", "err", err) // the next call tries again
		}
	}()
}

// ready takes sem for a call and makes sure the module has an instance,
// starting a fresh one after a failed call threw the last away. It gives
// sem back unless it succeeds (a panic too). A start that fails within its
// own limit is settled as a failed call; one cut short by ctx (the call
// given up, or its wait for sem took the time) is not the module's fault.
func (s *Skill) ready(ctx context.Context) error {
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("waiting for the module's previous call: %w", context.Cause(ctx))
	}
	ok := false
	defer func() {
		if !ok {
			<-s.sem
		}
	}()
	if err := s.usable(); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return fmt.Errorf("waiting for the module's previous call: %w", context.Cause(ctx))
	}
	if s.mod.inst == nil {
		if err := s.start(ctx); err != nil {
			if ctx.Err() != nil {
				s.refill()
			} else {
				s.settle(ctx, err)
			}
			return err
		}
	}
	ok = true
	return nil
}

// call makes one call into the module's instance; the holder of sem calls
// it.
func (s *Skill) call(ctx context.Context, in []byte, rc protocol.RuntimeContext, lang string) (*protocol.CheckedResponse, error) {
	md := s.mod
	cs := &callState{s: s, request: in, runtime: rc, lang: lang}
	cctx := withCall(ctx, cs)
	md.out.begin(cs)
	res, err := md.handle.Call(cctx, uint64(len(in)))
	md.out.end()
	if err != nil {
		err = s.explain(ctx, cs, md, err)
		s.drop(ctx)
		return nil, err
	}
	if status := api.DecodeI32(res[0]); status != 0 {
		return nil, fmt.Errorf("%w: %s returned status %d", ErrNoAnswer, wasmskill.ExportHandle, status)
	}
	if cs.response == nil {
		return nil, fmt.Errorf("%w: %w: %s returned without calling response_write", invoke.ErrInvalidResponse, ErrNoAnswer, wasmskill.ExportHandle)
	}
	resp, err := protocol.DecodeCheckedResponse(cs.response)
	if err != nil {
		return nil, fmt.Errorf("%w: the module's answer: %w", invoke.ErrInvalidResponse, err)
	}
	return resp, nil
}

// explain turns what wazero reports about a failed call into an error
// saying what the module did.
func (s *Skill) explain(ctx context.Context, cs *callState, md *module, err error) error {
	if cs.abort != nil {
		return cs.abort
	}
	tail := ""
	if md.out != nil {
		if t := md.out.stderrHead(); t != "" {
			tail = ": stderr: " + t
		}
	}
	memFull := strings.Contains(tail, "out of memory")
	if md.inst != nil && md.inst.Memory() != nil {
		memFull = memFull || uint64(md.inst.Memory().Size())+pageBytes > uint64(md.limit)
	}
	var exit *sys.ExitError
	if errors.As(err, &exit) {
		switch exit.ExitCode() {
		case sys.ExitCodeDeadlineExceeded:
			return fmt.Errorf("stopped at its deadline: %w", context.DeadlineExceeded)
		case sys.ExitCodeContextCanceled:
			return fmt.Errorf("stopped: %w", context.Cause(ctx))
		}
		if memFull {
			return fmt.Errorf("%w (%d MiB): the module exited with code %d%s", ErrMemoryLimit, memoryMiB(s.m), exit.ExitCode(), tail)
		}
		return fmt.Errorf("%w with code %d%s", ErrExit, exit.ExitCode(), tail)
	}
	if ctx.Err() != nil {
		return fmt.Errorf("stopped: %w", context.Cause(ctx))
	}
	first, _, _ := strings.Cut(err.Error(), "\n")
	if memFull {
		return fmt.Errorf("%w (%d MiB): %s%s", ErrMemoryLimit, memoryMiB(s.m), first, tail)
	}
	return fmt.Errorf("%w: %s%s", ErrTrap, first, tail)
}

// account counts a call's failure (or resets the count on success) and
// disables the skill at the limit. A call cancelled by its caller is not
// the module's fault.
func (s *Skill) account(ctx context.Context, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil {
		s.failures = 0
		return
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return
	}
	s.failures++
	if s.failures >= s.e.cfg.MaxFailures && s.disabled == nil {
		s.disabled = fmt.Errorf("skill %s is %w after %d failed calls in a row (the last: %v); install it again or restart jibod",
			s.m.ID, ErrDisabled, s.failures, err)
		s.log.Error("wasm skill disabled", "failures", s.failures, "last", err)
	}
}

// usable reports why the skill cannot be called. The holder of sem calls
// it. A disabled skill stays off until it is replaced: installed again (the
// install makes the running robot load the new copy, package installed)
// or loaded at a restart.
func (s *Skill) usable() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("skill %s: %w", s.m.ID, ErrClosed)
	}
	return s.disabled
}

// Close unloads the skill once the call in progress has ended, or, when
// ctx ends first, stops that call.
func (s *Skill) Close(ctx context.Context) error {
	defer s.e.forget(s)
	return s.close(ctx)
}

func (s *Skill) close(ctx context.Context) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	defer s.warming.Wait()
	select {
	case s.sem <- struct{}{}:
		defer func() { <-s.sem }()
	case <-ctx.Done():
		s.log.Warn("closing wasm skill with a call in progress; stopping it")
	}
	if err := s.current.Load().close(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("closing skill %s: %w", s.m.ID, err)
	}
	return nil
}
