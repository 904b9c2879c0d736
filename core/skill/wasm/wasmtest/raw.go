package wasmtest

// Value types and instructions of the WebAssembly binary format, as far as
// the hand-written modules need them.
const (
	I32 byte = 0x7f
	I64 byte = 0x7e

	OpUnreachable byte = 0x00
	OpLoop        byte = 0x03
	OpBr          byte = 0x0c
	OpEnd         byte = 0x0b
	OpI32Const    byte = 0x41
	BlockEmpty    byte = 0x40
)

// Import is an imported function.
type Import struct {
	Module, Name    string
	Params, Results []byte
}

// Func is a defined function; Body is its code without the locals
// declaration and the final end.
type Func struct {
	Export          string // "" for none
	Params, Results []byte
	Body            []byte
}

// Raw is a hand-written module: imported functions, defined functions,
// and one memory of MemoryPages pages (none when 0), exported as "memory"
// unless HideMemory.
type Raw struct {
	Imports     []Import
	Funcs       []Func
	MemoryPages uint32
	HideMemory  bool
}

// I32Const is the instruction pushing v.
func I32Const(v int32) []byte { return append([]byte{OpI32Const}, sleb(int64(v))...) }

// Bytes encodes the module.
func (r Raw) Bytes() []byte {
	out := []byte("\x00asm\x01\x00\x00\x00")
	var types [][]byte
	for _, im := range r.Imports {
		types = append(types, funcType(im.Params, im.Results))
	}
	for _, f := range r.Funcs {
		types = append(types, funcType(f.Params, f.Results))
	}
	out = section(out, 1, vec(types))
	var imports [][]byte
	for i, im := range r.Imports {
		e := append(name(im.Module), name(im.Name)...)
		e = append(e, 0x00)
		e = append(e, uleb(uint64(i))...)
		imports = append(imports, e)
	}
	if len(imports) > 0 {
		out = section(out, 2, vec(imports))
	}
	var funcs [][]byte
	for i := range r.Funcs {
		funcs = append(funcs, uleb(uint64(len(r.Imports)+i)))
	}
	out = section(out, 3, vec(funcs))
	if r.MemoryPages > 0 {
		out = section(out, 5, vec([][]byte{append([]byte{0x00}, uleb(uint64(r.MemoryPages))...)}))
	}
	var exports [][]byte
	if r.MemoryPages > 0 && !r.HideMemory {
		exports = append(exports, append(name("memory"), 0x02, 0x00))
	}
	for i, f := range r.Funcs {
		if f.Export != "" {
			e := append(name(f.Export), 0x00)
			exports = append(exports, append(e, uleb(uint64(len(r.Imports)+i))...))
		}
	}
	out = section(out, 7, vec(exports))
	var codes [][]byte
	for _, f := range r.Funcs {
		body := append([]byte{0x00}, f.Body...) // no locals
		body = append(body, OpEnd)
		codes = append(codes, append(uleb(uint64(len(body))), body...))
	}
	return section(out, 10, vec(codes))
}

func funcType(params, results []byte) []byte {
	t := []byte{0x60}
	t = append(t, uleb(uint64(len(params)))...)
	t = append(t, params...)
	t = append(t, uleb(uint64(len(results)))...)
	return append(t, results...)
}

func section(out []byte, id byte, content []byte) []byte {
	out = append(out, id)
	out = append(out, uleb(uint64(len(content)))...)
	return append(out, content...)
}

func vec(items [][]byte) []byte {
	out := uleb(uint64(len(items)))
	for _, it := range items {
		out = append(out, it...)
	}
	return out
}

func name(s string) []byte { return append(uleb(uint64(len(s))), s...) }

func uleb(v uint64) []byte {
	var out []byte
	for {
		b := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			out = append(out, b|0x80)
			continue
		}
		return append(out, b)
	}
}

func sleb(v int64) []byte {
	var out []byte
	for {
		b := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && b&0x40 == 0) || (v == -1 && b&0x40 != 0) {
			return append(out, b)
		}
		out = append(out, b|0x80)
	}
}
