// Command memo is the example WebAssembly skill of jibod: it remembers
// one thing for you in the skill storage the robot keeps for it, so the
// memo survives a restart. Build it with `make wasm-skills` (a WASI
// reactor, GOOS=wasip1 GOARCH=wasm -buildmode=c-shared) and install it
// with `jibod skills install bin/wasm-skills/memo`.
//
// The handler is plain Go, tested on the developer's machine with a fake
// Host (skill_test.go); only the export in export_wasip1.go is specific to
// WebAssembly.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/openjibo/jibod/sdk/wasmskill"
)

// memoKey is where the memo is kept.
const memoKey = "memo"

// maxMemo bounds the memo, in bytes.
const maxMemo = 400

// memo is what is stored.
type memo struct {
	Text string    `json:"text"`
	At   time.Time `json:"at"`
}

// respond answers the skill's three intents.
func respond(h wasmskill.Host, req *wasmskill.Request) (*wasmskill.Response, error) {
	switch req.Intent {
	case "remember":
		return remember(h, req)
	case "recall":
		return recall(h)
	case "forget":
		if err := h.Delete(memoKey); err != nil {
			return nil, err
		}
		return wasmskill.Say("OK, I've forgotten it."), nil
	}
	return nil, fmt.Errorf("no intent %q in this skill", req.Intent)
}

func remember(h wasmskill.Host, req *wasmskill.Request) (*wasmskill.Response, error) {
	text := strings.TrimSpace(req.Entity("memo"))
	if text == "" {
		return wasmskill.Say("What should I remember?"), nil
	}
	if len(text) > maxMemo {
		return wasmskill.Say("That's too long for me to remember."), nil
	}
	b, err := json.Marshal(memo{Text: text, At: h.Now()})
	if err != nil {
		return nil, err
	}
	switch err := h.Set(memoKey, b); {
	case errors.Is(err, wasmskill.ErrQuota):
		return wasmskill.Say("My memory for notes is full."), nil
	case err != nil:
		return nil, err
	}
	h.Log(wasmskill.LevelInfo, fmt.Sprintf("remembered %d bytes", len(text)))
	return wasmskill.Say("OK, I'll remember that " + text + "."), nil
}

func recall(h wasmskill.Host) (*wasmskill.Response, error) {
	b, err := h.Get(memoKey)
	if errors.Is(err, wasmskill.ErrNotFound) {
		return wasmskill.Say("You haven't asked me to remember anything."), nil
	}
	if err != nil {
		return nil, err
	}
	var m memo
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("reading the stored memo: %w", err)
	}
	return wasmskill.Say(fmt.Sprintf("%s you asked me to remember: %s.", when(h.Now(), m.At), m.Text)), nil
}

// when says when the memo was made, relative to now.
func when(now, at time.Time) string {
	at = at.In(now.Location())
	y1, m1, d1 := now.Date()
	y2, m2, d2 := at.Date()
	clock := at.Format("3:04 PM")
	switch {
	case y1 == y2 && m1 == m2 && d1 == d2:
		return "At " + clock + " today"
	case now.Sub(at) < 48*time.Hour:
		return "Yesterday at " + clock
	}
	return "On " + at.Format("January 2")
}

// main never runs: a reactor module only initialises its packages, and
// the robot calls jibo_handle.
func main() {}
