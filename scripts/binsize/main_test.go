package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPackageOf(t *testing.T) {
	tests := []struct{ sym, want string }{
		{"runtime.mallocgc", "runtime"},
		{"github.com/tetratelabs/wazero/internal/engine/interpreter.(*callEngine).callNativeFunc", "github.com/tetratelabs/wazero/internal/engine/interpreter"},
		{"vendor/golang.org/x/text/unicode/norm.decomps", "vendor/golang.org/x/text/unicode/norm"},
		{"slices.SortFunc[go.shape.struct { a.b string }]", "slices"},
		{"type:*github.com/openjibo/jibod/core/bus.Message", "github.com/openjibo/jibod/core/bus"},
		{"type:map[string]int", "(type descriptors)"},
		{"go:itab.*os.File,io.Reader", "os"},
		{"go:func.*", "go:func.*"},
		{"go:buildinfo", "(linker)"},
		{"go:struct { io.Reader; io.WriterTo }.Read", "(linker)"},
		{"aeshashbody", "(assembly)"},
		{"main.main", "main"},
		{"periph.io/x/host/v3/rpi.(*features).registerHeaders", "periph.io/x/host/v3/rpi"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, packageOf(tt.sym), tt.sym)
	}
}

func TestModuleOf(t *testing.T) {
	mods := []string{"github.com/openjibo/jibod", "periph.io/x/host/v3", "periph.io/x/conn/v3"}
	assert.Equal(t, "periph.io/x/host/v3", moduleOf("periph.io/x/host/v3/rpi", mods))
	assert.Equal(t, "github.com/openjibo/jibod", moduleOf("github.com/openjibo/jibod/core/bus", mods))
	assert.Equal(t, "std", moduleOf("net/http", mods))
	assert.Equal(t, "github.com/openjibo/jibod", moduleOf("main", mods), "symbols name the command's package main")
	assert.Equal(t, "(assembly)", moduleOf("(assembly)", mods))
}
