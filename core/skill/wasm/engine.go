package wasm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/tetratelabs/wazero"

	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/core/skill/wasm/skillpkg"
)

// Defaults and bounds of Config.
const (
	// DefaultMemoryMiB caps a module's memory when its manifest gives no
	// limits.memory_mib. A Go module with the SDK starts at about 2.5 MiB
	// and grows its heap in steps of 4 MiB.
	DefaultMemoryMiB = 32
	// DefaultMaxFailures is how many calls in a row may fail before a
	// skill is disabled.
	DefaultMaxFailures = 3
	// MaxMaxFailures bounds Config.MaxFailures.
	MaxMaxFailures = 100
	// CompileTimeout bounds compiling and checking one module at load
	// (compiling a 3 MB Go module takes about a second here, more on a
	// board). None of the module's code runs then.
	CompileTimeout = 2 * time.Minute
	// MaxConcurrentLoads bounds the packages LoadAll loads at once.
	MaxConcurrentLoads = 4
)

// MinStartTimeout is the least StartTimeout gives a start. Starting is
// mostly a language runtime setting itself up, whose time the board (the
// interpreter on 32-bit ARM is about ten times slower) and its load at
// boot decide more than the skill; a start that fails leaves the skill out
// until jibod restarts, so a per-call timeout of 100 ms must not be its
// whole budget.
const MinStartTimeout = 5 * time.Second

// StartTimeout bounds starting an instance of a skill with manifest m (its
// _initialize, then jibo_abi_version) outside a call: the manifest's
// timeout (registry.DefaultTimeout, 10 s, when it gives none), or
// MinStartTimeout when that is longer. A module still running then is
// stopped and the start fails. A start for a call (after a failed one)
// has this limit too, in full once the call's turn comes, not the call's
// timeout, which counts from when the instance is ready (invoke.Prepare).
func StartTimeout(m *registry.Manifest) time.Duration {
	return max(m.EffectiveTimeout(), MinStartTimeout)
}

// Storage is the skills' key-value storage (core/skill/wasm/kv), scoped by
// manifest id.
type Storage interface {
	Get(skill, key string) ([]byte, error)
	Set(skill, key string, value []byte) error
	Delete(skill, key string) error
	Keys(skill, prefix string) ([]string, error)
}

// Config configures an Engine.
type Config struct {
	// CacheDir keeps compiled modules across restarts (created 0700); ""
	// keeps them in memory for the engine's life. An entry that cannot be
	// read (torn, empty, garbled) is replaced by compiling its module
	// again, with a WARN.
	CacheDir string
	// Storage backs the storage host functions; nil means none (they
	// fail with CodeInternal).
	Storage Storage
	// Offline reports whether the robot is offline, when fetches fail
	// with CodeOffline; nil means always online.
	Offline func() bool
	// Transport makes the fetches; nil means a clone of
	// http.DefaultTransport that connects to public addresses only (see
	// PublicDialer) and ignores proxy settings.
	Transport http.RoundTripper
	// AllowPrivateNetworks lets the default transport reach loopback,
	// private, link-local and other non-public addresses (a development
	// machine's own services); off on a robot.
	AllowPrivateNetworks bool
	// State gives the robot's emotion and present person for robot_state;
	// nil means the ones of the request being answered.
	State func() protocol.RuntimeContext
	// Now is the clock of clock_now; nil means time.Now.
	Now func() time.Time
	// Logger receives the host's reports and the modules' log lines; nil
	// means slog.Default().
	Logger *slog.Logger
	// MaxFailures is how many calls in a row may fail before a skill is
	// disabled: 1..MaxMaxFailures, 0 means DefaultMaxFailures.
	MaxFailures int
}

// Engine loads and runs WebAssembly skills. Close it when done.
type Engine struct {
	cfg   Config
	log   *slog.Logger
	cache wazero.CompilationCache
	http  *http.Client

	mu     sync.Mutex
	skills map[*Skill]struct{}
	closed bool
}

// New returns an engine.
func New(cfg Config) (*Engine, error) {
	switch {
	case cfg.MaxFailures == 0:
		cfg.MaxFailures = DefaultMaxFailures
	case cfg.MaxFailures < 1 || cfg.MaxFailures > MaxMaxFailures:
		return nil, fmt.Errorf("wasm engine: max failures %d is outside 1..%d", cfg.MaxFailures, MaxMaxFailures)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Transport == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		// A proxy would be dialled instead of the listed host, and
		// checking the proxy's address says nothing of where it goes.
		tr.Proxy = nil
		if !cfg.AllowPrivateNetworks {
			tr.DialContext = PublicDialer().DialContext
		}
		cfg.Transport = tr
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	e := &Engine{cfg: cfg, log: log.With("component", "wasm-skills"), skills: map[*Skill]struct{}{}}
	if cfg.CacheDir == "" {
		e.cache = wazero.NewCompilationCache()
	} else {
		c, err := wazero.NewCompilationCacheWithDir(cfg.CacheDir)
		if err != nil {
			return nil, fmt.Errorf("wasm engine: compile cache %s: %w", cfg.CacheDir, err)
		}
		e.cache = c
		sweepRecompiles(cfg.CacheDir, time.Now())
	}
	e.http = newHTTPClient(cfg.Transport)
	return e, nil
}

// Load compiles and checks the package's module (within CompileTimeout)
// and starts its first instance (within StartTimeout): the manifest is
// already valid (skillpkg.Read checked it), and nothing of the module runs
// before its imports and exports are checked. Errors wrap ErrBadModule,
// ErrMissingExport, ErrUnknownImport, ErrABIVersion, ErrMemoryLimit,
// ErrTrap, ErrExit or, for a start stopped at its deadline,
// context.DeadlineExceeded.
func (e *Engine) Load(ctx context.Context, p *skillpkg.Package) (*Skill, error) {
	e.mu.Lock()
	closed := e.closed
	e.mu.Unlock()
	if closed {
		return nil, fmt.Errorf("loading skill %s: wasm engine %w", p.Manifest.ID, ErrClosed)
	}
	ctx, cancel := context.WithTimeout(ctx, CompileTimeout)
	defer cancel()
	s, err := newSkill(ctx, e, p)
	if err != nil {
		return nil, fmt.Errorf("loading skill %s from %s: %w", p.Manifest.ID, p.Dir, err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		_ = s.close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("loading skill %s: wasm engine %w", p.Manifest.ID, ErrClosed)
	}
	e.skills[s] = struct{}{}
	return s, nil
}

// Loaded is how the load of one package LoadAll was given went.
type Loaded struct {
	// Dir is the package's folder.
	Dir string
	// ID is its manifest's id; "" when the package could not be read.
	ID string
	// Stamp identifies the copy of the package that was read.
	Stamp skillpkg.Stamp
	// Skill is the loaded skill; nil when Err is set.
	Skill *Skill
	// Err says why it was not loaded.
	Err error
}

// LoadAll reads the packages in dirs and loads them as Load does, several
// at once (at most MaxConcurrentLoads), so a few modules that take their
// whole start-up limit delay the robot by about one limit rather than one
// each. check, when not nil, runs on each package read before its module
// is loaded; a package it refuses is not loaded. LoadAll returns when every
// load has ended, with how each went in the order of dirs.
func (e *Engine) LoadAll(ctx context.Context, dirs []string, check func(context.Context, *skillpkg.Package) error) []Loaded {
	out := make([]Loaded, len(dirs))
	sem := make(chan struct{}, MaxConcurrentLoads)
	var wg sync.WaitGroup
	for i, dir := range dirs {
		out[i].Dir = dir
		wg.Add(1)
		sem <- struct{}{}
		go func() { // owned here: waited for below
			defer wg.Done()
			defer func() { <-sem }()
			out[i].ID, out[i].Stamp, out[i].Skill, out[i].Err = e.loadDir(ctx, dir, check)
		}()
	}
	wg.Wait()
	return out
}

func (e *Engine) loadDir(ctx context.Context, dir string, check func(context.Context, *skillpkg.Package) error) (string, skillpkg.Stamp, *Skill, error) {
	p, err := skillpkg.Read(dir)
	if err != nil {
		return "", skillpkg.Stamp{}, nil, err
	}
	if check != nil {
		if err := check(ctx, p); err != nil {
			return p.Manifest.ID, p.Stamp, nil, err
		}
	}
	s, err := e.Load(ctx, p)
	return p.Manifest.ID, p.Stamp, s, err
}

// Check loads the package as Load does, then unloads it: what `jibod skills
// install` runs before it installs anything. With a CacheDir it leaves the
// compiled module in the cache for the robot's next start.
func (e *Engine) Check(ctx context.Context, p *skillpkg.Package) error {
	s, err := e.Load(ctx, p)
	if err != nil {
		return err
	}
	return s.Close(ctx)
}

// Close closes every skill it loaded, waiting (bounded by ctx) for calls in
// progress, and the compile cache.
func (e *Engine) Close(ctx context.Context) error {
	e.mu.Lock()
	e.closed = true
	skills := e.skills
	e.skills = map[*Skill]struct{}{}
	e.mu.Unlock()
	var errs []error
	for s := range skills {
		errs = append(errs, s.Close(ctx))
	}
	errs = append(errs, e.cache.Close(context.WithoutCancel(ctx)))
	e.http.CloseIdleConnections()
	return errors.Join(errs...)
}

// staleRecompile is the age past which a recompile folder is left over from
// a process that stopped in the middle of one, not in use.
const staleRecompile = time.Hour

// sweepRecompiles removes the recompile folders (see Skill.recompile) that
// processes stopped in the middle of one left in the cache folder.
func sweepRecompiles(dir string, now time.Time) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, de := range des {
		if !de.IsDir() || !strings.HasPrefix(de.Name(), healPrefix) {
			continue
		}
		if fi, err := de.Info(); err == nil && now.Sub(fi.ModTime()) > staleRecompile {
			_ = os.RemoveAll(filepath.Join(dir, de.Name()))
		}
	}
}

func (e *Engine) forget(s *Skill) {
	e.mu.Lock()
	delete(e.skills, s)
	e.mu.Unlock()
}
