//go:build wasip1

package main

import "github.com/openjibo/jibod/sdk/wasmskill"

// handle is the module's entry point: the robot calls it with the length
// of each request.
//
//go:wasmexport jibo_handle
func handle(requestLen int32) int32 { return wasmskill.Serve(requestLen, respond) }
