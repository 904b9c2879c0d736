// Command precompile loads skill packages with the Wasm engine and leaves
// their compiled modules in a compile cache folder:
//
//	go run ./core/skill/wasm/wasmtest/precompile -cache DIR PACKAGE_DIR...
//
// Tests built with -race run wazero's compiler about twenty times slower;
// they run this (built without -race) first, so their own engines find the
// modules compiled.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/openjibo/jibod/core/skill/wasm"
	"github.com/openjibo/jibod/core/skill/wasm/skillpkg"
)

func main() {
	cache := flag.String("cache", "", "compile cache folder")
	flag.Parse()
	if err := run(*cache, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "precompile:", err)
		os.Exit(1)
	}
}

func run(cache string, dirs []string) error {
	if cache == "" {
		return fmt.Errorf("no -cache folder")
	}
	ctx := context.Background()
	e, err := wasm.New(wasm.Config{CacheDir: cache})
	if err != nil {
		return err
	}
	defer e.Close(ctx)
	for _, dir := range dirs {
		p, err := skillpkg.Read(dir)
		if err != nil {
			return err
		}
		if err := e.Check(ctx, p); err != nil {
			return err
		}
	}
	return nil
}
