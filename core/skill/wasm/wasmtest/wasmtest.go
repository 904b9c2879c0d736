// Package wasmtest helps tests of WebAssembly skills: it builds Go skill
// modules with the host's Go toolchain, lays out skill packages, and
// assembles tiny hand-written modules for the cases Go cannot produce (a
// bare trap, a missing export, a foreign import).
package wasmtest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/tetratelabs/wazero"
)

// BuildTimeout bounds one module build: the first compiles the standard
// library for wasip1 (about a minute on a slow machine), later ones only
// link.
const BuildTimeout = 5 * time.Minute

// GoBuild builds the Go main package in dir as a WASI reactor module
// (GOOS=wasip1 GOARCH=wasm -buildmode=c-shared) at out.
func GoBuild(ctx context.Context, dir, out string) error {
	gobin, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("building %s for wasip1: the go command: %w", dir, err)
	}
	ctx, cancel := context.WithTimeout(ctx, BuildTimeout)
	defer cancel()
	abs, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, gobin, "build", "-buildmode=c-shared", "-trimpath", "-ldflags=-s -w", "-o", abs, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("building %s for wasip1: %w: %s", dir, err, stderr.String())
	}
	return nil
}

// WritePackage lays out a skill package in dir: manifest.json, skill.wasm
// and the locale files (paths under locale/, e.g. "en-us/ok.intent").
func WritePackage(dir, manifest string, module []byte, locale map[string]string) error {
	if err := os.MkdirAll(filepath.Join(dir, "locale"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(manifest), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "skill.wasm"), module, 0o644); err != nil {
		return err
	}
	for name, text := range locale {
		p := filepath.Join(dir, "locale", filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// CopyDir copies the regular files and folders of src into dst.
func CopyDir(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(out, data, 0o644)
	})
}

// Precompile leaves the compiled modules of the packages in dirs in the
// compile cache folder cache, with a helper built without -race (where
// wazero compiles about twenty times faster).
//
// wazero files its cache under its own version, which it reads from the
// binary's build information: a test binary has none and says "dev". The
// helper is told the version this process files under, found by opening
// the cache here.
func Precompile(ctx context.Context, cache string, dirs ...string) error {
	gobin, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("precompiling: the go command: %w", err)
	}
	version, err := cacheVersion(ctx, cache)
	if err != nil {
		return fmt.Errorf("precompiling: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, BuildTimeout)
	defer cancel()
	args := append([]string{"run", "-ldflags=-X github.com/tetratelabs/wazero/internal/version.version=" + version,
		"github.com/openjibo/jibod/core/skill/wasm/wasmtest/precompile", "-cache", cache}, dirs...)
	cmd := exec.CommandContext(ctx, gobin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("precompiling %v: %w: %s", dirs, err, stderr.String())
	}
	return nil
}

// cacheVersion is the wazero version this process files its compile cache
// under: the folder wazero-<version>-<arch>-<os> it creates in cache.
func cacheVersion(ctx context.Context, cache string) (string, error) {
	c, err := wazero.NewCompilationCacheWithDir(cache)
	if err != nil {
		return "", err
	}
	_ = c.Close(ctx)
	suffix := "-" + runtime.GOARCH + "-" + runtime.GOOS
	des, err := os.ReadDir(cache)
	if err != nil {
		return "", err
	}
	for _, de := range des {
		if v, ok := strings.CutPrefix(de.Name(), "wazero-"); ok && strings.HasSuffix(v, suffix) {
			return strings.TrimSuffix(v, suffix), nil
		}
	}
	return "", fmt.Errorf("no wazero cache folder in %s", cache)
}
