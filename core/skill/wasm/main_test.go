package wasm

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/openjibo/jibod/core/skill/wasm/wasmtest"
)

// Modules built once for all tests: the hostile test module and the
// example skill, and a compile cache folder shared by every engine, so
// each module is compiled once per test run.
var (
	hostileWasm []byte
	memoWasm    []byte
	memoDir     string
	cacheDir    string
)

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	tmp, err := os.MkdirTemp("", "jibod-wasm-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	cacheDir = filepath.Join(tmp, "cache")
	_, file, _, _ := runtime.Caller(0)
	here := filepath.Dir(file)
	memoDir = filepath.Join(here, "..", "..", "..", "examples", "wasm-skills", "memo")
	ctx := context.Background()
	for _, b := range []struct {
		dir string
		dst *[]byte
	}{
		{filepath.Join(here, "testdata", "hostile"), &hostileWasm},
		{memoDir, &memoWasm},
	} {
		out := filepath.Join(tmp, filepath.Base(b.dir)+".wasm")
		if err := wasmtest.GoBuild(ctx, b.dir, out); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if *b.dst, err = os.ReadFile(out); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	// Compile both into the shared cache without the race detector's cost.
	hostileDir, memoPkg := filepath.Join(tmp, "hostile-pkg"), filepath.Join(tmp, "memo-pkg")
	if err := wasmtest.WritePackage(hostileDir, hostileManifest(""), hostileWasm, testLocale); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := wasmtest.CopyDir(memoDir, memoPkg); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := os.WriteFile(filepath.Join(memoPkg, "skill.wasm"), memoWasm, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := wasmtest.Precompile(ctx, cacheDir, hostileDir, memoPkg); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// logBuffer collects log lines for assertions.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
