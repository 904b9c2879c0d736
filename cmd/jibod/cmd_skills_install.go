package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/core/skill/wasm"
	"github.com/openjibo/jibod/core/skill/wasm/kv"
	"github.com/openjibo/jibod/core/skill/wasm/skillpkg"
)

// cmdSkillsInstall checks a WebAssembly skill package (a folder, or a zip
// file of one) and copies it into the state folder's skills/, where the
// robot loads it at start. Nothing is installed unless everything checks:
// the manifest, the locale (registered with the intent engines as the
// robot would), and the module (compiled, its imports and exports checked,
// started once under its memory limit). The compiled module stays in the
// state folder's cache, so the robot starts it without compiling again.
func cmdSkillsInstall(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("skills install", flag.ContinueOnError)
	fs.SetOutput(stderr)
	stateDir := fs.String("state", defaultStateDir(), "the robot's state folder (as given to 'jibod run --state')")
	if err := parseFlags(fs, reorderFlags(args, "state")); err != nil {
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
	dst, err := skillpkg.Install(p, filepath.Join(*stateDir, skillsDirName))
	if err != nil {
		return err
	}
	m := p.Manifest
	fmt.Fprintf(stdout, "installed %s %s in %s\n  permissions: %s\n  limits: %s\n", m.ID, m.Version, dst,
		permissionText(m), limitsText(m, true))
	fmt.Fprintln(stdout, "Restart jibod to load it (a running jibod reloads the module of a disabled skill at its next call).")
	return nil
}

// cmdSkillsUninstall removes an installed WebAssembly skill package from
// the state folder; with --purge its stored key-value data goes too (kept
// otherwise, so reinstalling a skill finds its data again). A running jibod
// keeps the skill until it restarts.
func cmdSkillsUninstall(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("skills uninstall", flag.ContinueOnError)
	fs.SetOutput(stderr)
	stateDir := fs.String("state", defaultStateDir(), "the robot's state folder (as given to 'jibod run --state')")
	purge := fs.Bool("purge", false, "also delete what the skill stored")
	if err := parseFlags(fs, reorderFlags(args, "state")); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageError{"want exactly one skill ID (namespace/name), as 'jibod skills list' shows it"}
	}
	if *stateDir == "" || *stateDir == noState {
		return usageError{"--state: installed skills live in a state folder"}
	}
	id := fs.Arg(0)
	dir, err := skillpkg.Uninstall(filepath.Join(*stateDir, skillsDirName), id)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "uninstalled %s from %s\n", id, dir)
	if *purge {
		st, err := kv.Open(filepath.Join(*stateDir, skillDataFileName), kv.Options{})
		if err != nil {
			return fmt.Errorf("uninstalled %s, but its stored data is left: %w", id, err)
		}
		dropErr := st.Drop(id)
		if err := st.Close(); dropErr == nil {
			dropErr = err
		}
		if dropErr != nil {
			return fmt.Errorf("uninstalled %s, but its stored data is left: %w", id, dropErr)
		}
		fmt.Fprintf(stdout, "deleted the data %s stored\n", id)
	}
	fmt.Fprintln(stdout, "Restart jibod to unload it.")
	return nil
}

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
