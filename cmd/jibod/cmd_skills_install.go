package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/openjibo/jibod/core/diag"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/core/skill/wasm"
	"github.com/openjibo/jibod/core/skill/wasm/installed"
	"github.com/openjibo/jibod/core/skill/wasm/kv"
	"github.com/openjibo/jibod/core/skill/wasm/skillpkg"
)

// cmdSkillsInstall checks a WebAssembly skill package (a folder, or a zip
// file of one) and copies it into the state folder's skills/. Nothing is
// installed unless everything checks: the manifest, the locale (registered
// with the intent engines as the robot would), and the module (compiled,
// its imports and exports checked, started once under its memory limit).
// The compiled module stays in the state folder's cache, so the robot
// loads it without compiling again. A jibod running with that state folder
// is told through its shell (`skills sync`) and loads it at once;
// otherwise it loads at the next start.
func cmdSkillsInstall(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("skills install", flag.ContinueOnError)
	fs.SetOutput(stderr)
	stateDir := fs.String("state", defaultStateDir(), "the robot's state folder (as given to 'jibod run --state')")
	socket := fs.String("socket", "", "the running jibod's shell socket (default: where 'jibod shell' looks for the state folder's jibod)")
	if err := parseFlags(fs, reorderFlags(args, "state", "socket")); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageError{"want exactly one DIR or FILE.zip: a skill package (manifest.json, skill.wasm, locale/)"}
	}
	if *stateDir == "" || *stateDir == noState {
		return usageError{"--state: installed skills live in a state folder"}
	}
	src := fs.Arg(0)
	st, err := os.Stat(src)
	if err != nil {
		return fmt.Errorf("installing: %w", err)
	}
	if err := prepareStateDir(*stateDir); err != nil {
		return err
	}
	dir := src
	if !st.IsDir() {
		tmp, err := os.MkdirTemp(*stateDir, ".unpack-")
		if err != nil {
			return fmt.Errorf("installing: %w", err)
		}
		defer os.RemoveAll(tmp)
		dir = filepath.Join(tmp, "pkg")
		if err := skillpkg.Unzip(src, dir); err != nil {
			return err
		}
	}
	p, err := skillpkg.Read(dir)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if err := checkRegistration(ctx, p, log); err != nil {
		return err
	}
	e, err := wasm.New(wasm.Config{CacheDir: filepath.Join(*stateDir, wasmCacheDirName), Logger: log})
	if err != nil {
		return err
	}
	checkErr := e.Check(ctx, p)
	if err := e.Close(ctx); checkErr == nil && err != nil {
		checkErr = err
	}
	if checkErr != nil {
		return fmt.Errorf("not installed: %w", checkErr)
	}
	skills := filepath.Join(*stateDir, skillsDirName)
	dst, err := skillpkg.Install(p, skills)
	if err != nil {
		return err
	}
	m := p.Manifest
	fmt.Fprintf(stdout, "installed %s %s in %s\n  permissions: %s\n  limits: %s\n", m.ID, m.Version, dst,
		permissionText(m), limitsText(m, true))
	// Installed again: it keeps the data an uninstall had marked for deletion.
	if err := skillpkg.ClearPurge(skills, m.ID); err != nil {
		fmt.Fprintf(stderr, "jibod skills install: %v\n", err)
	}
	_, err = tellRobot(ctx, *socket, *stateDir, m.ID, stdout)
	return err
}

// cmdSkillsUninstall removes an installed WebAssembly skill package from
// the state folder; with --purge what it stored goes too (kept otherwise,
// so reinstalling a skill finds its data again). A jibod running with that
// state folder is told and unloads it at once (and deletes the data, whose
// storage it holds open); otherwise the data is deleted here.
func cmdSkillsUninstall(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("skills uninstall", flag.ContinueOnError)
	fs.SetOutput(stderr)
	stateDir := fs.String("state", defaultStateDir(), "the robot's state folder (as given to 'jibod run --state')")
	socket := fs.String("socket", "", "the running jibod's shell socket (default: where 'jibod shell' looks for the state folder's jibod)")
	purge := fs.Bool("purge", false, "also delete what the skill stored")
	if err := parseFlags(fs, reorderFlags(args, "state", "socket")); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageError{"want exactly one skill ID (namespace/name), as 'jibod skills list' shows it"}
	}
	if *stateDir == "" || *stateDir == noState {
		return usageError{"--state: installed skills live in a state folder"}
	}
	id := fs.Arg(0)
	skills := filepath.Join(*stateDir, skillsDirName)
	dir, err := skillpkg.Uninstall(skills, id)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "uninstalled %s from %s\n", id, dir)
	if *purge {
		// The note outlives a robot that stops before it acts on it.
		if err := skillpkg.MarkPurge(skills, id); err != nil {
			return fmt.Errorf("uninstalled %s, but its stored data is left: %w", id, err)
		}
	}
	running, err := tellRobot(ctx, *socket, *stateDir, id, stdout)
	if !*purge || running || err != nil {
		return err
	}
	// No robot holds the storage: delete the data here.
	st, err := kv.Open(filepath.Join(*stateDir, skillDataFileName), kv.Options{})
	if err != nil {
		return fmt.Errorf("uninstalled %s, but its stored data is left (it goes when jibod next starts): %w", id, err)
	}
	dropErr := st.Drop(id)
	if err := st.Close(); dropErr == nil {
		dropErr = err
	}
	if dropErr != nil {
		return fmt.Errorf("uninstalled %s, but its stored data is left (it goes when jibod next starts): %w", id, dropErr)
	}
	if err := skillpkg.ClearPurge(skills, id); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "deleted the data %s stored\n", id)
	return nil
}

// tellRobot asks the jibod running with stateDir to sync skill id and
// says what it did; running says whether one was. No jibod running there
// is not an error: the skill follows at its next start. A skill the
// running jibod could not load is an error.
func tellRobot(ctx context.Context, socket, stateDir, id string, stdout io.Writer) (running bool, _ error) {
	candidates := diag.SocketCandidates(stateDir)
	if socket != "" {
		candidates = []string{socket}
	}
	ctx, cancel := context.WithTimeout(ctx, tellRobotTimeout)
	defer cancel()
	res, path, err := diag.SyncSkillsOf(ctx, candidates, stateDir, []string{id})
	switch {
	case errors.Is(err, diag.ErrNoShell):
		fmt.Fprintf(stdout, "No jibod is running with %s: it takes the change when it starts.\n", stateDir)
		return false, nil
	case err != nil:
		return true, fmt.Errorf("the change is in %s, but telling the running jibod: %w", stateDir, err)
	}
	var failed []string
	for _, c := range res.Changes {
		if c.Change == installed.NotLoaded {
			failed = append(failed, c.ID+": "+c.Error)
			continue
		}
		fmt.Fprintf(stdout, "The running jibod (%s): %s.\n", path, c)
	}
	if len(failed) > 0 {
		return true, fmt.Errorf("the running jibod could not load it: %s", strings.Join(failed, "; "))
	}
	return true, nil
}

// tellRobotTimeout bounds telling the running jibod: loading a module it
// must compile again (its cache entry damaged) can take a while on a board.
const tellRobotTimeout = 3 * time.Minute

// checkRegistration registers the package's intents with the robot's
// engines, so a template the engines refuse is found now rather than when
// the robot starts.
func checkRegistration(ctx context.Context, p *skillpkg.Package, log *slog.Logger) error {
	loc, err := intent.LoadLocale(p.Locale, ".")
	if err != nil {
		return fmt.Errorf("not installed: %s: locale: %w", p.Dir, err)
	}
	st, err := newIntentStack(ctx, []skillFolder{{id: p.Manifest.BusID(), loc: loc}}, log)
	if err != nil {
		return fmt.Errorf("not installed: %s: %w", p.Dir, err)
	}
	st.close()
	return nil
}

func permissionText(m *registry.Manifest) string {
	if len(m.Permissions) == 0 {
		return "none"
	}
	names := make([]string, len(m.Permissions))
	for i, p := range m.Permissions {
		names[i] = string(p)
	}
	return strings.Join(names, ", ")
}

// limitsText says what a skill may spend: its time per call and calls per
// minute, and for a Wasm skill its memory (and the hosts it may fetch
// from).
func limitsText(m *registry.Manifest, isWasm bool) string {
	lim := m.EffectiveLimits()
	parts := []string{fmt.Sprintf("%s per call", m.EffectiveTimeout()), fmt.Sprintf("%d calls/min", lim.CallsPerMinute)}
	if isWasm {
		parts = append(parts, fmt.Sprintf("%d MiB memory", wasm.MemoryMiB(m)))
	}
	if len(m.NetworkHosts) > 0 {
		parts = append(parts, "hosts "+strings.Join(m.NetworkHosts, " "))
	}
	return strings.Join(parts, ", ")
}
