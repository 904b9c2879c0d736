package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/sdk/wasmskill"
)

// host is the robot's host API in memory: the handler is plain Go, so it
// is tested without WebAssembly.
type host struct {
	wasmskill.Host // not called by this skill: Fetch, Keys, State
	kv             map[string][]byte
	now            time.Time
	logs           []string
}

func (h *host) Get(key string) ([]byte, error) {
	if v, ok := h.kv[key]; ok {
		return v, nil
	}
	return nil, &wasmskill.Error{Op: "kv_get", Code: wasmskill.CodeNotFound, Message: "no such key"}
}

func (h *host) Set(key string, value []byte) error {
	if len(value) > 500 {
		return &wasmskill.Error{Op: "kv_set", Code: wasmskill.CodeQuota, Message: "quota"}
	}
	h.kv[key] = value
	return nil
}

var unfilled = regexp.MustCompile(`\{[a-z_]+\}`)

// Dialog renders the first line of the skill's own .dialog file: the
// robot picks a line at random, the test the first, so it can say what
// the answer is.
func (h *host) Dialog(name string, slots map[string]string) (string, error) {
	f, err := os.Open(filepath.Join("locale", "en-us", name+".dialog"))
	if err != nil {
		return "", &wasmskill.Error{Op: "dialog_render", Code: wasmskill.CodeNotFound, Message: err.Error()}
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		for k, v := range slots {
			line = strings.ReplaceAll(line, "{"+k+"}", v)
		}
		if slot := unfilled.FindString(line); slot != "" {
			return "", &wasmskill.Error{Op: "dialog_render", Code: wasmskill.CodeInvalid, Message: "no value for " + slot}
		}
		return line, nil
	}
	return "", &wasmskill.Error{Op: "dialog_render", Code: wasmskill.CodeNotFound, Message: "empty dialog " + name}
}

func (h *host) Delete(key string) error           { delete(h.kv, key); return nil }
func (h *host) Log(_ wasmskill.Level, msg string) { h.logs = append(h.logs, msg) }
func (h *host) Now() time.Time                    { return h.now }

// spoken runs the handler and returns what the answer speaks.
func spoken(t *testing.T, h *host, intent string, entities map[string]string) string {
	t.Helper()
	ents := map[string]json.RawMessage{}
	for k, v := range entities {
		b, _ := json.Marshal(v)
		ents[k] = b
	}
	req := map[string]any{"type": wasmskill.ListenLaunch, "msgID": "mid-1", "data": map[string]any{
		"skill": map[string]any{"id": "community.memo"}, "result": map[string]any{"nlu": map[string]any{"intent": intent, "entities": ents}}}}
	raw, err := json.Marshal(req)
	require.NoError(t, err)
	out := wasmskill.Answer(h, raw, respond)
	var resp struct {
		Type string `json:"type"`
		Data struct {
			Message string `json:"message"`
			Action  struct {
				Config struct {
					JCP struct {
						Config struct {
							Play struct {
								ESML string `json:"esml"`
							} `json:"play"`
						} `json:"config"`
					} `json:"jcp"`
				} `json:"config"`
			} `json:"action"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(out, &resp), "%s", out)
	if resp.Type == "ERROR" {
		return "ERROR: " + resp.Data.Message
	}
	return resp.Data.Action.Config.JCP.Config.Play.ESML
}

func TestMemo(t *testing.T) {
	at := time.Date(2026, 11, 22, 15, 5, 0, 0, time.UTC)
	h := &host{kv: map[string][]byte{}, now: at}
	steps := []struct {
		intent   string
		entities map[string]string
		want     string
	}{
		{"recall", nil, "You haven't asked me to remember anything."},
		{"remember", map[string]string{"memo": "the keys are under the mat"}, "OK, I'll remember that the keys are under the mat."},
		{"recall", nil, "At 3:05 PM today you asked me to remember: the keys are under the mat."},
		{"remember", map[string]string{"memo": "  "}, "What should I remember?"},
		{"remember", map[string]string{"memo": string(make([]byte, 401))}, "That's too long for me to remember."},
		{"forget", nil, "OK, I've forgotten it."},
		{"recall", nil, "You haven't asked me to remember anything."},
		{"dance", nil, `ERROR: no intent "dance" in this skill`},
	}
	for _, s := range steps {
		assert.Equal(t, s.want, spoken(t, h, s.intent, s.entities), "%s %v", s.intent, s.entities)
	}
	assert.Equal(t, []string{"remembered 26 bytes"}, h.logs)
}

func TestWhen(t *testing.T) {
	now := time.Date(2026, 11, 22, 9, 0, 0, 0, time.FixedZone("CET", 3600))
	for _, tt := range []struct {
		at     time.Time
		dialog string
		slots  map[string]string
	}{
		{now.Add(-time.Hour), "recalled_today", map[string]string{"time": "8:00 AM"}},
		{now.Add(-20 * time.Hour), "recalled_yesterday", map[string]string{"time": "1:00 PM"}},
		{now.Add(-72 * time.Hour), "recalled_on", map[string]string{"date": "November 19"}},
		// stored in UTC, said in the robot's zone
		{time.Date(2026, 11, 22, 7, 30, 0, 0, time.UTC), "recalled_today", map[string]string{"time": "8:30 AM"}},
	} {
		dialog, slots := when(now, tt.at)
		assert.Equal(t, tt.dialog, dialog)
		assert.Equal(t, tt.slots, slots)
	}
}
