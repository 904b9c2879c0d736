// Command hostile is a WebAssembly skill built to misbehave, one way per
// intent, for the sandbox's tests. Built with GOOS=wasip1 GOARCH=wasm
// -buildmode=c-shared by the tests.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"time"
	"unsafe"

	"github.com/openjibo/jibod/sdk/wasmskill"
)

//go:wasmimport jibo_v1 request_read
func requestRead(ptr unsafe.Pointer, n int32) int32

//go:wasmimport jibo_v1 response_write
func responseWrite(ptr unsafe.Pointer, n int32) int32

// keep holds the memory bomb's allocations so the collector cannot free
// them.
var keep [][]byte

//go:wasmexport jibo_handle
func handle(n int32) int32 {
	// The raw misbehaviours go around the SDK; the request may be read
	// more than once.
	buf := make([]byte, n)
	requestRead(unsafe.Pointer(&buf[0]), n)
	req, err := wasmskill.ParseRequest(buf)
	if err != nil {
		return 9
	}
	switch req.Intent {
	case "garbage": // an answer that is not a skill response
		out := []byte(`{"type": "SKILL_ACTION", "data": `)
		responseWrite(unsafe.Pointer(&out[0]), int32(len(out)))
		return 0
	case "no_answer":
		return 0
	case "bad_pointer": // the request written outside memory
		requestRead(unsafe.Pointer(uintptr(0xFFFFFF00)), n)
		return 0
	case "status":
		return 7
	case "exit":
		os.Exit(3)
	}
	return wasmskill.Serve(n, respond)
}

func respond(h wasmskill.Host, req *wasmskill.Request) (*wasmskill.Response, error) {
	switch req.Intent {
	case "ok":
		return wasmskill.Say("All is well."), nil
	case "loop":
		for {
		}
	case "sleep":
		time.Sleep(time.Hour)
	case "bomb":
		for {
			keep = append(keep, make([]byte, 1<<20))
		}
	case "panic":
		panic("hostile panic")
	case "store": // storage: denied without the permission
		if err := h.Set("k", []byte(req.Entity("value"))); err != nil {
			return nil, err
		}
		return wasmskill.Say("stored"), nil
	case "load":
		v, err := h.Get("k")
		if err != nil {
			return nil, err
		}
		return wasmskill.Say("loaded " + string(v)), nil
	case "keys":
		if err := h.Delete("gone"); err != nil {
			return nil, err
		}
		keys, err := h.Keys("")
		if err != nil {
			return nil, err
		}
		return wasmskill.Say(fmt.Sprintf("keys %q", keys)), nil
	case "fetch":
		resp, err := h.Fetch(wasmskill.FetchRequest{URL: req.Entity("url")})
		if err != nil {
			return wasmskill.Say("fetch failed: " + err.Error()), nil
		}
		return wasmskill.Say(fmt.Sprintf("fetched %d: %s", resp.Status, resp.Body)), nil
	case "state":
		st, err := h.State()
		if err != nil {
			return nil, err
		}
		b, _ := json.Marshal(map[string]any{"state": st, "now": h.Now().Format(time.RFC3339)})
		return wasmskill.Say(string(b)), nil
	case "log_flood":
		for i := range 1000 {
			h.Log(wasmskill.LevelInfo, fmt.Sprint("line ", i))
			fmt.Println("stdout line", i)
		}
		return wasmskill.Say("logged"), nil
	case "move": // an action the body gate refuses without "motion"
		return wasmskill.Action(json.RawMessage(`{"type":"JCP","config":{"version":"2.0","jcp":{"type":"LOOKAT","id":"l","target":{"position":{"x":1.5,"y":0.8,"z":0.3}}}}}`), true), nil
	case "ask":
		r, err := wasmskill.Ask("Which one?", "globals/yes_no").Keep(map[string]int{"asked": 1})
		return r, err
	case "dialog": // the dialog named by entity "dialog", with slot {name} from entity "name"
		var slots map[string]string
		if v := req.Entity("name"); v != "" {
			slots = map[string]string{"name": v}
		}
		text, err := h.Dialog(req.Entity("dialog"), slots)
		if err != nil {
			return wasmskill.Say("dialog failed: " + err.Error()), nil
		}
		return wasmskill.Say("said: " + text), nil
	case "dialog_flood":
		var err error
		for range 100 {
			if _, err = h.Dialog("greet", map[string]string{"name": "x"}); err != nil {
				break
			}
		}
		return wasmskill.Say(fmt.Sprintf("flood: %v", err)), nil
	}
	return nil, fmt.Errorf("no intent %q", req.Intent)
}

func main() {}
