module github.com/openjibo/jibod/sdk/wasmskill

// The SDK requires nothing, so a skill's go.sum holds one module; 1.24
// brought //go:wasmexport.
go 1.24
