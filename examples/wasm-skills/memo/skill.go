// Command memo is the example WebAssembly skill of jibod: it remembers
// one thing for you in the skill storage the robot keeps for it, so the
// memo survives a restart. Build it with `make wasm-skills` (a WASI
// reactor, GOOS=wasip1 GOARCH=wasm -buildmode=c-shared) and install it
// with `jibod skills install bin/wasm-skills/memo`.
//
// What it says is in its .dialog files (locale/en-us/), which the robot
// renders for it: a line at random, the slots filled.
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
		return say(h, "forgotten", nil)
	}
	return nil, fmt.Errorf("no intent %q in this skill", req.Intent)
}

// say answers with one of the skill's dialogs.
func say(h wasmskill.Host, dialog string, slots map[string]string) (*wasmskill.Response, error) {
	text, err := h.Dialog(dialog, slots)
	if err != nil {
		return nil, err
	}
	return wasmskill.Say(text), nil
}

func remember(h wasmskill.Host, req *wasmskill.Request) (*wasmskill.Response, error) {
	text := strings.TrimSpace(req.Entity("memo"))
	if text == "" {
		return say(h, "what", nil)
	}
	if len(text) > maxMemo {
		return say(h, "too_long", nil)
	}
	b, err := json.Marshal(memo{Text: text, At: h.Now()})
	if err != nil {
		return nil, err
	}
	switch err := h.Set(memoKey, b); {
	case errors.Is(err, wasmskill.ErrQuota):
		return say(h, "full", nil)
	case err != nil:
		return nil, err
	}
	h.Log(wasmskill.LevelInfo, fmt.Sprintf("remembered %d bytes", len(text)))
	return say(h, "remembered", map[string]string{"memo": text})
}

func recall(h wasmskill.Host) (*wasmskill.Response, error) {
	b, err := h.Get(memoKey)
	if errors.Is(err, wasmskill.ErrNotFound) {
		return say(h, "nothing", nil)
	}
	if err != nil {
		return nil, err
	}
	var m memo
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("reading the stored memo: %w", err)
	}
	dialog, slots := when(h.Now(), m.At)
	slots["memo"] = m.Text
	return say(h, dialog, slots)
}

// when picks the dialog saying when the memo was made, relative to now,
// and its time or date slot.
func when(now, at time.Time) (string, map[string]string) {
	at = at.In(now.Location())
	y1, m1, d1 := now.Date()
	y2, m2, d2 := at.Date()
	clock := at.Format("3:04 PM")
	switch {
	case y1 == y2 && m1 == m2 && d1 == d2:
		return "recalled_today", map[string]string{"time": clock}
	case now.Sub(at) < 48*time.Hour:
		return "recalled_yesterday", map[string]string{"time": clock}
	}
	return "recalled_on", map[string]string{"date": at.Format("January 2")}
}

// main never runs: a reactor module only initialises its packages, and
// the robot calls jibo_handle.
func main() {}
