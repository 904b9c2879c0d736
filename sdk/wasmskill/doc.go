// Package wasmskill is the Go SDK for jibod's WebAssembly skills: skills a
// robot owner installs from people they do not know, run in a sandbox
// with only the host API their manifest permits (docs/wasm-abi.md).
//
// A skill is a Go main package built as a WASI reactor:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o skill.wasm .
//
// with one exported function that hands each request to Serve:
//
//	//go:wasmexport jibo_handle
//	func handle(requestLen int32) int32 { return wasmskill.Serve(requestLen, respond) }
//
//	func respond(h wasmskill.Host, req *wasmskill.Request) (*wasmskill.Response, error) {
//		return wasmskill.Say("Hello!"), nil
//	}
//
//	func main() {} // a reactor's main never runs
//
// The handler gets the request (intent, entities, utterance, the robot's
// emotion and present person) and the Host: key-value storage (permission
// "storage"), HTTP fetch from the manifest's network_hosts (permission
// "network"), the clock, logging and the robot's state. It answers with Say,
// Ask (a question whose answer comes back as a LISTEN_UPDATE), End or
// Action; an error or a panic becomes an ERROR answer naming it.
//
// Everything but Serve and the Host it passes is plain Go, so a skill's
// handler is tested on the developer's machine with a fake Host.
package wasmskill
