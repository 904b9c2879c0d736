package wasm

import (
	"fmt"
	"slices"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/openjibo/jibod/sdk/wasmskill"
)

// checkModule checks a compiled module's imports and exports against ABI
// version 1 before any of its code runs.
func checkModule(cm wazero.CompiledModule) error {
	funcs := abiFuncs()
	for _, f := range cm.ImportedFunctions() {
		mod, name, _ := f.Import()
		switch mod {
		case wasi_snapshot_preview1.ModuleName:
			// wazero refuses an unknown WASI function when the module starts.
		case wasmskill.ImportModule:
			want, ok := funcs[name]
			if !ok {
				return fmt.Errorf("%w: %s.%s: ABI version %d has no such host function (see docs/wasm-abi.md)",
					ErrUnknownImport, mod, name, wasmskill.ABIVersion)
			}
			if !slices.Equal(f.ParamTypes(), want.params) || !slices.Equal(f.ResultTypes(), want.results) {
				return fmt.Errorf("%w: %s.%s is imported as %s; ABI version %d has %s",
					ErrUnknownImport, mod, name, sig(f.ParamTypes(), f.ResultTypes()), wasmskill.ABIVersion, sig(want.params, want.results))
			}
		default:
			return fmt.Errorf("%w: %s.%s: a skill may import only %s (WASI, without files or sockets) and %s",
				ErrUnknownImport, mod, name, wasi_snapshot_preview1.ModuleName, wasmskill.ImportModule)
		}
	}
	for _, m := range cm.ImportedMemories() {
		mod, name, _ := m.Import()
		return fmt.Errorf("%w: memory %s.%s: a skill must define its own memory", ErrUnknownImport, mod, name)
	}
	if len(cm.ExportedMemories()) == 0 {
		return fmt.Errorf("%w: no exported memory (the host passes requests and answers through it)", ErrMissingExport)
	}
	exports := cm.ExportedFunctions()
	for _, want := range []struct {
		name            string
		params, results []api.ValueType
	}{
		{wasmskill.ExportABIVersion, nil, []api.ValueType{i32}},
		{wasmskill.ExportHandle, []api.ValueType{i32}, []api.ValueType{i32}},
	} {
		f, ok := exports[want.name]
		if !ok {
			return fmt.Errorf("%w: no function %s %s (the Go SDK exports %s; a skill exports %s; see docs/wasm-abi.md)",
				ErrMissingExport, want.name, sig(want.params, want.results), wasmskill.ExportABIVersion, wasmskill.ExportHandle)
		}
		if !slices.Equal(f.ParamTypes(), want.params) || !slices.Equal(f.ResultTypes(), want.results) {
			return fmt.Errorf("%w: %s is %s; want %s", ErrMissingExport, want.name,
				sig(f.ParamTypes(), f.ResultTypes()), sig(want.params, want.results))
		}
	}
	return nil
}
