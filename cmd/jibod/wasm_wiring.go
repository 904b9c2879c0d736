package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/openjibo/jibod/core/diag"
	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/local"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/wasm/installed"
	"github.com/openjibo/jibod/core/skill/wasm/skillpkg"
)

// Where installed WebAssembly skills live in the state folder.
const (
	skillsDirName     = installed.SkillsDirName
	wasmCacheDirName  = installed.CacheDirName
	skillDataFileName = installed.DataFileName
)

// startWasmSkills loads the skill packages installed in the state folder
// into host (package installed); later installs load through the shell's
// `skills sync`. Without a state folder nothing is installed: nil.
func startWasmSkills(ctx context.Context, host *skill.Host, stateDir string, offline bool,
	state func() protocol.RuntimeContext, now func() time.Time, log *slog.Logger) (*installed.Skills, error) {
	if stateDir == "" || stateDir == noState {
		return nil, nil
	}
	// Registered on a bus of its own first: an intent the engines refuse
	// leaves that skill out, not the robot down.
	check := func(ctx context.Context, p *skillpkg.Package) error {
		return checkRegistration(ctx, p, slog.New(slog.DiscardHandler))
	}
	return installed.Open(ctx, installed.Config{StateDir: stateDir, Host: host, Check: check, Offline: offline,
		State: state, Now: now, Logger: log})
}

// notLoaded lists the installed packages and local skill programs left
// out, for the shell.
func notLoaded(w *installed.Skills, ls *local.Processes) func() []diag.SkillProblem {
	return func() []diag.SkillProblem {
		var out []diag.SkillProblem
		for _, p := range w.NotLoaded() {
			out = append(out, diag.SkillProblem{ID: p.ID, Dir: p.Dir, Error: p.Error})
		}
		for _, f := range ls.Failed() {
			out = append(out, diag.SkillProblem{Dir: f.Program, Error: f.Err.Error()})
		}
		return out
	}
}

// skillSyncer is the shell's `skills sync` over the installed skills.
type skillSyncer struct{ w *installed.Skills }

func (s skillSyncer) SyncSkills(ctx context.Context, ids []string) (diag.SkillSync, error) {
	changes, err := s.w.Sync(ctx, ids...)
	out := diag.SkillSync{StateDir: s.w.StateDir()}
	for _, c := range changes {
		out.Changes = append(out.Changes, diag.SkillChange(c))
	}
	return out, err
}
