package skilltool

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/openjibo/jibod/core/skill/wasm"
	"github.com/openjibo/jibod/core/skill/wasm/installed"
	"github.com/openjibo/jibod/core/skill/wasm/kv"
	"github.com/openjibo/jibod/core/skill/wasm/skillpkg"
)

// Installer installs and uninstalls WebAssembly skill packages in a state
// folder.
type Installer struct {
	// StateDir is the robot's state folder; it exists.
	StateDir string
	// Check registers a package's intents with the robot's intent stack
	// before it is installed, so a template the engines refuse is found
	// now rather than when the robot starts.
	Check func(ctx context.Context, p *skillpkg.Package, log *slog.Logger) error
	// Tell asks the jibod running with StateDir, if any, to sync skill id
	// and says what it did on Stdout; running says whether one was.
	Tell func(ctx context.Context, id string) (running bool, err error)
	// Stdout hears what was done, Stderr the warnings.
	Stdout, Stderr io.Writer
}

// Install checks a WebAssembly skill package (a folder, or a zip file of
// one) and copies it into the state folder's skills/. Nothing is installed
// unless everything checks: the manifest, the locale (registered with the
// intent engines as the robot would), and the module (compiled, its
// imports and exports checked, started once under its memory limit). The
// compiled module stays in the state folder's cache, so the robot loads it
// without compiling again. A running jibod is told and loads it at once;
// otherwise it loads at the next start.
func (in Installer) Install(ctx context.Context, src string) error {
	st, err := os.Stat(src)
	if err != nil {
		return fmt.Errorf("installing: %w", err)
	}
	dir := src
	if !st.IsDir() {
		tmp, err := os.MkdirTemp(in.StateDir, ".unpack-")
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
	log := slog.New(slog.NewTextHandler(in.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if err := in.Check(ctx, p, log); err != nil {
		return err
	}
	e, err := wasm.New(wasm.Config{CacheDir: filepath.Join(in.StateDir, installed.CacheDirName), Logger: log})
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
	skills := filepath.Join(in.StateDir, installed.SkillsDirName)
	dst, err := skillpkg.Install(p, skills)
	if err != nil {
		return err
	}
	m := p.Manifest
	fmt.Fprintf(in.Stdout, "installed %s %s in %s\n  permissions: %s\n  limits: %s\n", m.ID, m.Version, dst,
		permissionText(m), limitsText(m, true))
	// Installed again: it keeps the data an uninstall had marked for deletion.
	if err := skillpkg.ClearPurge(skills, m.ID); err != nil {
		fmt.Fprintf(in.Stderr, "jibod skills install: %v\n", err)
	}
	_, err = in.Tell(ctx, m.ID)
	return err
}

// Uninstall removes an installed WebAssembly skill package from the state
// folder; with purge what it stored goes too (kept otherwise, so
// reinstalling a skill finds its data again). A running jibod is told and
// unloads it at once (and deletes the data, whose storage it holds open);
// otherwise the data is deleted here.
func (in Installer) Uninstall(ctx context.Context, id string, purge bool) error {
	skills := filepath.Join(in.StateDir, installed.SkillsDirName)
	dir, err := skillpkg.Uninstall(skills, id)
	if err != nil {
		return err
	}
	fmt.Fprintf(in.Stdout, "uninstalled %s from %s\n", id, dir)
	if purge {
		// The note outlives a robot that stops before it acts on it.
		if err := skillpkg.MarkPurge(skills, id); err != nil {
			return fmt.Errorf("uninstalled %s, but its stored data is left: %w", id, err)
		}
	}
	running, err := in.Tell(ctx, id)
	if !purge || running || err != nil {
		return err
	}
	// No robot holds the storage: delete the data here.
	st, err := kv.Open(filepath.Join(in.StateDir, installed.DataFileName), kv.Options{})
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
	fmt.Fprintf(in.Stdout, "deleted the data %s stored\n", id)
	return nil
}
