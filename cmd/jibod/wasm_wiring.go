package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/openjibo/jibod/core/diag"
	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/wasm"
	"github.com/openjibo/jibod/core/skill/wasm/kv"
	"github.com/openjibo/jibod/core/skill/wasm/skillpkg"
)

// Where installed WebAssembly skills live in the state folder.
const (
	// skillsDirName holds one folder per installed skill package.
	skillsDirName = "skills"
	// wasmCacheDirName keeps compiled modules across restarts.
	wasmCacheDirName = "wasm-cache"
	// skillDataFileName is the Wasm skills' key-value storage.
	skillDataFileName = "skilldata.db"
)

// wasmSkills are the installed WebAssembly skills the robot runs: their
// engine, storage and the offline switch their fetches obey.
type wasmSkills struct {
	engine  *wasm.Engine
	storage *kv.Store // nil while nothing is installed
	// offline is the switch the robot sets: while it is on, fetches fail.
	// `jibod run --offline` sets it; the hub link will drive it.
	offline atomic.Bool
	// notLoaded are the installed packages left out at start, for the
	// shell's `skills`.
	notLoaded []diag.SkillProblem
}

// startWasmSkills loads every skill package installed in the state
// folder's skills/ into host, several at once, each start bounded by its
// manifest's timeout. A package that cannot be loaded is logged, kept for
// the shell's `skills`, and left out: the robot carries on with the
// others. Without a state folder there is nothing installed and nothing is
// started.
func startWasmSkills(ctx context.Context, host *skill.Host, stateDir string, offline bool,
	state func() protocol.RuntimeContext, now func() time.Time, log *slog.Logger) (*wasmSkills, error) {
	if stateDir == "" || stateDir == noState {
		return nil, nil
	}
	entries, err := skillpkg.List(filepath.Join(stateDir, skillsDirName))
	if err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		return nil, nil
	}
	w := &wasmSkills{}
	w.offline.Store(offline)
	if w.storage, err = kv.Open(filepath.Join(stateDir, skillDataFileName), kv.Options{Logger: log}); err != nil {
		return nil, err
	}
	if w.engine, err = wasm.New(wasm.Config{CacheDir: filepath.Join(stateDir, wasmCacheDirName), Storage: w.storage,
		Offline: w.offline.Load, State: state, Now: now, Logger: log}); err != nil {
		_ = w.storage.Close()
		return nil, err
	}
	var dirs []string
	for _, e := range entries {
		if e.Err != nil {
			w.notLoadedBecause(log, wasm.Loaded{Dir: e.Dir, Err: e.Err})
			continue
		}
		dirs = append(dirs, e.Dir)
	}
	// Registered on a bus of its own first: an intent the engines refuse
	// leaves this skill out, not the robot down.
	check := func(ctx context.Context, p *skillpkg.Package) error {
		return checkRegistration(ctx, p, slog.New(slog.DiscardHandler))
	}
	for _, l := range w.engine.LoadAll(ctx, dirs, check) {
		if l.Err == nil {
			if err := host.Add(l.Skill); err != nil {
				l.Err = errors.Join(err, l.Skill.Close(ctx))
			}
		}
		if l.Err != nil {
			w.notLoadedBecause(log, l)
		}
	}
	return w, nil
}

func (w *wasmSkills) notLoadedBecause(log *slog.Logger, l wasm.Loaded) {
	log.Error("installed skill not loaded", "skill_id", l.ID, "dir", l.Dir, "err", l.Err)
	w.notLoaded = append(w.notLoaded, diag.SkillProblem{ID: l.ID, Dir: l.Dir, Error: l.Err.Error()})
}

// NotLoaded lists the installed packages left out at start.
func (w *wasmSkills) NotLoaded() []diag.SkillProblem {
	if w == nil {
		return nil
	}
	return w.notLoaded
}

// Close unloads the skills (after the invoker has stopped calling them)
// and closes their storage.
func (w *wasmSkills) Close(ctx context.Context) error {
	if w == nil {
		return nil
	}
	err := w.engine.Close(ctx)
	if cerr := w.storage.Close(); cerr != nil {
		err = errors.Join(err, fmt.Errorf("closing Wasm skill storage: %w", cerr))
	}
	return err
}
