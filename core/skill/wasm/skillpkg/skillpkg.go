// Package skillpkg reads, checks and installs WebAssembly skill packages:
// a folder (or a zip file of one) holding
//
//	manifest.json   the skill's manifest (core/skill/registry)
//	skill.wasm      its module (ABI in docs/wasm-abi.md)
//	locale/         its intents: <lang>/*.intent, .voc, .entity, …
//	rules/          optional answer rules: <rule>/<lang>/…
//
// Everything is read into memory and checked before it is used: the
// manifest strictly, the locale with the intent loader, sizes and counts
// against this package's limits; symbolic links and anything but regular
// files and folders are refused. Installing copies exactly what was checked
// into <skills dir>/<namespace>.<name>/, replacing an older version in one
// rename, so a robot starting meanwhile sees the old package or the new
// one, never half of either.
package skillpkg

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/internal/memfs"
)

// Names of a package's parts.
const (
	ManifestFile = "manifest.json"
	ModuleFile   = "skill.wasm"
	LocaleDir    = "locale"
	RulesDir     = "rules"
)

// Limits on a package.
const (
	// MaxModuleBytes bounds skill.wasm (a Go module with the SDK is about
	// 3 MB).
	MaxModuleBytes = 32 << 20
	// MaxFiles bounds the files of locale/ and rules/ together.
	MaxFiles = 512
	// MaxFileBytes bounds one locale or rules file.
	MaxFileBytes = 256 << 10
	// MaxTreeBytes bounds locale/ and rules/ together.
	MaxTreeBytes = 4 << 20
	// MaxDepth bounds folder nesting under locale/ and rules/.
	MaxDepth = 6
)

// ReservedNamespace is the namespace of the skills built into jibod; no
// package may use it.
const ReservedNamespace = "jibo"

// ErrInvalid marks a package that breaks a rule; errors name the file.
var ErrInvalid = errors.New("invalid skill package")

// Package is a skill package read into memory.
type Package struct {
	// Dir is the folder it was read from.
	Dir string
	// Manifest is the parsed, validated manifest.
	Manifest *registry.Manifest
	// ManifestJSON is manifest.json as written, which Install copies.
	ManifestJSON []byte
	// Locale is the locale tree (lang folders at its root).
	Locale fs.FS
	// Rules is the answer rules tree, nil when the package has none.
	Rules fs.FS
	// Module is skill.wasm.
	Module []byte
	// Stamp identifies this copy of the package on disk.
	Stamp Stamp
}

// Stamp tells one installed copy of a package from another: a
// reinstall writes new files, so their modification times change even when
// the content does not.
type Stamp struct {
	Manifest, Module fileStamp
}

type fileStamp struct {
	Size    int64
	ModTime time.Time
}

// StampOf returns the stamp of the package in dir.
func StampOf(dir string) (Stamp, error) {
	var st Stamp
	for _, f := range []struct {
		name string
		dst  *fileStamp
	}{{ManifestFile, &st.Manifest}, {ModuleFile, &st.Module}} {
		fi, err := os.Stat(filepath.Join(dir, f.name))
		if err != nil {
			return Stamp{}, fmt.Errorf("skill package %s: %w", dir, err)
		}
		*f.dst = fileStamp{Size: fi.Size(), ModTime: fi.ModTime()}
	}
	return st, nil
}

func invalid(dir, format string, args ...any) error {
	return fmt.Errorf("%w %s: %s", ErrInvalid, dir, fmt.Sprintf(format, args...))
}

// ReadManifest reads and validates dir's manifest only: enough to list a
// package without loading its module.
func ReadManifest(dir string) (*registry.Manifest, error) {
	_, m, err := readManifest(dir)
	return m, err
}

func readManifest(dir string) ([]byte, *registry.Manifest, error) {
	data, err := readFile(dir, ManifestFile, registry.MaxManifestBytes)
	if err != nil {
		return nil, nil, err
	}
	m, err := registry.ParseManifest(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%w %s: %s: %w", ErrInvalid, dir, ManifestFile, err)
	}
	if ns, _, _ := strings.Cut(m.ID, "/"); ns == ReservedNamespace {
		return nil, nil, invalid(dir, "%s: id %q: the namespace %q is reserved for the skills built into jibod",
			ManifestFile, m.ID, ReservedNamespace)
	}
	return data, m, nil
}

// Read reads and checks the package in dir.
func Read(dir string) (*Package, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("reading skill package: %w", err)
	}
	if !fi.IsDir() {
		return nil, invalid(dir, "not a folder")
	}
	raw, m, err := readManifest(dir)
	if err != nil {
		return nil, err
	}
	module, err := readFile(dir, ModuleFile, MaxModuleBytes)
	if err != nil {
		return nil, err
	}
	stamp, err := StampOf(dir)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %w", ErrInvalid, dir, err)
	}
	if !bytes.HasPrefix(module, []byte("\x00asm")) {
		return nil, invalid(dir, "%s is not a WebAssembly module (no \\0asm header)", ModuleFile)
	}
	p := &Package{Dir: dir, Manifest: m, ManifestJSON: raw, Module: module, Stamp: stamp}
	budget := &treeBudget{}
	if p.Locale, err = readTree(dir, LocaleDir, budget, true); err != nil {
		return nil, err
	}
	if p.Rules, err = readTree(dir, RulesDir, budget, false); err != nil {
		return nil, err
	}
	if _, err := intent.LoadLocale(p.Locale, "."); err != nil {
		return nil, invalid(dir, "%s: %v", LocaleDir, err)
	}
	return p, nil
}

// readFile reads a regular file of the package, at most max bytes.
func readFile(dir, name string, max int64) ([]byte, error) {
	p := filepath.Join(dir, name)
	fi, err := os.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, invalid(dir, "%s is missing", name)
	case err != nil:
		return nil, fmt.Errorf("reading skill package %s: %w", dir, err)
	case !fi.Mode().IsRegular():
		return nil, invalid(dir, "%s is not a regular file", name)
	case fi.Size() > max:
		return nil, invalid(dir, "%s is %d bytes, limit %d", name, fi.Size(), max)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("reading skill package %s: %w", dir, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("reading skill package %s: %s: %w", dir, name, err)
	}
	if int64(len(data)) > max {
		return nil, invalid(dir, "%s grew past %d bytes while being read", name, max)
	}
	return data, nil
}

type treeBudget struct {
	files int
	bytes int64
}

// readTree reads the folder name of dir into memory. A missing optional
// folder gives nil.
func readTree(dir, name string, b *treeBudget, required bool) (fs.FS, error) {
	root := filepath.Join(dir, name)
	fi, err := os.Lstat(root)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !required:
		return nil, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, invalid(dir, "%s/ is missing: a skill needs intents to be asked for anything", name)
	case err != nil:
		return nil, fmt.Errorf("reading skill package %s: %w", dir, err)
	case !fi.IsDir():
		return nil, invalid(dir, "%s is not a folder", name)
	}
	tree := memfs.New()
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		shown := path.Join(name, rel)
		if strings.Count(rel, "/") >= MaxDepth {
			return invalid(dir, "%s is nested deeper than %d folders", shown, MaxDepth)
		}
		switch {
		case d.IsDir():
			return tree.Dir(rel)
		case !d.Type().IsRegular():
			return invalid(dir, "%s is not a regular file or folder (links are refused)", shown)
		}
		b.files++
		if b.files > MaxFiles {
			return invalid(dir, "more than %d files in %s/ and %s/", MaxFiles, LocaleDir, RulesDir)
		}
		data, err := readFile(dir, filepath.Join(name, filepath.FromSlash(rel)), MaxFileBytes)
		if err != nil {
			return err
		}
		b.bytes += int64(len(data))
		if b.bytes > MaxTreeBytes {
			return invalid(dir, "%s/ and %s/ hold more than %d bytes", LocaleDir, RulesDir, MaxTreeBytes)
		}
		return tree.File(rel, data)
	})
	if err != nil {
		return nil, err
	}
	return tree, nil
}

// Same reports whether two stamps are of the same copy of a package.
func (a Stamp) Same(b Stamp) bool {
	return a.Manifest.Size == b.Manifest.Size && a.Manifest.ModTime.Equal(b.Manifest.ModTime) &&
		a.Module.Size == b.Module.Size && a.Module.ModTime.Equal(b.Module.ModTime)
}
