module github.com/openjibo/jibod

go 1.25.0

require (
	github.com/coder/websocket v1.8.15
	github.com/fxamacker/cbor/v2 v2.9.6
	github.com/golang-jwt/jwt/v5 v5.3.1
	github.com/gordonklaus/portaudio v0.0.0-20250206071425-98a94950218b
	github.com/openjibo/jibod/sdk/wasmskill v0.1.0
	github.com/stretchr/testify v1.12.1
	github.com/tetratelabs/wazero v1.12.0
	go.etcd.io/bbolt v1.5.0
	golang.org/x/sys v0.45.0
	periph.io/x/conn/v3 v3.7.2
	periph.io/x/devices/v3 v3.7.4
	periph.io/x/host/v3 v3.8.5
)

require (
	github.com/jonboulle/clockwork v0.5.0 // indirect
	github.com/x448/float16 v0.8.4 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)

// The WebAssembly skill SDK is a module of its own (it requires nothing,
// so skills built outside this repository depend on it alone); inside the
// repository the runtime and the examples use the copy beside them.
replace github.com/openjibo/jibod/sdk/wasmskill => ./sdk/wasmskill
