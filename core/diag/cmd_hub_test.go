package diag

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
)

// fakeHub is a hub link in a chosen state.
type fakeHub struct {
	mu     sync.Mutex
	link   HubLink
	skills []HubSkill
}

func (h *fakeHub) Link() HubLink {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.link
}

func (h *fakeHub) Skills() []HubSkill {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]HubSkill(nil), h.skills...)
}

var _ Hub = (*fakeHub)(nil)

// hubUpAt is a link that came up at t, as core/hub's LinkState.String
// words it.
func hubUpAt(t time.Time) HubLink {
	return HubLink{Status: "up", URL: "wss://hub.example/", Mode: "persistent", Encoding: "cbor", Since: t,
		Summary: "up to wss://hub.example/ (cbor) since " + t.Format(time.RFC3339)}
}

// hubDownAt is a link that went down at t with the next attempt 4s later.
func hubDownAt(t time.Time) HubLink {
	return HubLink{Status: "down", URL: "wss://hub.example/", Mode: "per-turn", Encoding: "json", Since: t,
		Error: "dial tcp: connection refused", Retry: t.Add(4 * time.Second),
		Summary: "down: wss://hub.example/ (since " + t.Format(time.RFC3339) + "; retry in 4s): dial tcp: connection refused"}
}

func TestHubStatus(t *testing.T) {
	r := newRig(t)
	t0 := r.clock.Now()
	tests := []struct {
		name string
		hub  *fakeHub
		want string
	}{
		{name: "up, with the catalog",
			hub: &fakeHub{link: hubUpAt(t0), skills: []HubSkill{{ID: "@be/trivia", Name: "Trivia"}, {ID: "@be/weather", Name: "Weather"}}},
			want: "link:           up to wss://hub.example/ (cbor) since 2026-05-01T12:00:00Z\n" +
				"mode:           persistent\n" +
				"encoding:       cbor\n" +
				"remote skills:  2\n" +
				"  @be/trivia    Trivia\n" +
				"  @be/weather   Weather\n"},
		{name: "down: the error and the time left to the next attempt",
			hub: &fakeHub{link: hubDownAt(t0.Add(-time.Second))},
			want: "link:           down: wss://hub.example/ (since 2026-05-01T11:59:59Z; retry in 4s): dial tcp: connection refused\n" +
				"next attempt:   in 3s\n" +
				"mode:           per-turn\n" +
				"encoding:       json\n" +
				"remote skills:  none (the hub's catalog was not fetched yet, or offers none)\n"},
		{name: "connecting",
			hub: &fakeHub{link: HubLink{Status: "connecting", Summary: "connecting to wss://hub.example/ (cbor)", Mode: "persistent", Encoding: "cbor"}},
			want: "link:           connecting to wss://hub.example/ (cbor)\n" +
				"mode:           persistent\n" +
				"encoding:       cbor\n" +
				"remote skills:  none (the hub's catalog was not fetched yet, or offers none)\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := r.server(t, func(c *Config) { c.Env.Hub = tc.hub })
			assert.Equal(t, tc.want, script(t, s, "hub"))
			assert.Equal(t, tc.want, script(t, s, "hub status"), "hub status is hub")
			assert.Contains(t, script(t, s, "status"), "hub link:      "+tc.hub.link.Summary+"\n", "status shows the same line")
		})
	}

	s := r.server(t, func(c *Config) { c.Env.Hub = tests[1].hub })
	o := jsonLines(t, script(t, s, "hub --json"))[0]
	link := o["link"].(map[string]any)
	assert.Equal(t, "down", link["status"])
	assert.Equal(t, "per-turn", link["mode"])
	assert.Equal(t, "dial tcp: connection refused", link["error"])
	assert.Equal(t, "2026-05-01T12:00:03Z", link["retry"])
	assert.Equal(t, []any{}, o["skills"], "no skills is an empty list, not null")

	assert.Equal(t, "error: status takes no arguments; usage: hub [status] | trigger NEW_ARRIVAL|SURPRISE\n", script(t, s, "hub status now"))
	assert.Equal(t, "error: no hub command \"restart\"; usage: hub [status] | trigger NEW_ARRIVAL|SURPRISE\n", script(t, s, "hub restart"))
}

func TestHubWithoutOne(t *testing.T) {
	s := newRig(t).server(t, nil)
	const noHub = "error: this robot has no hub configured: every skill is local (`jibod run --hub URL` links one, unless --offline)\n"
	assert.Equal(t, noHub, script(t, s, "hub"))
	assert.Equal(t, noHub, lastLine(script(t, s, "unlock\n"+testPIN+"\nhub trigger NEW_ARRIVAL"))+"\n", "unlocked, the same")
	assert.Contains(t, script(t, s, "status"), "hub link:      none configured (offline)\n")
}

// triggers collects the hub trigger requests on b.
func triggers(t *testing.T, b *bus.Bus) func() []bus.Message {
	t.Helper()
	var mu sync.Mutex
	var got []bus.Message
	sub, err := b.Subscribe(TopicHubTrigger, func(_ context.Context, m bus.Message) {
		mu.Lock()
		got = append(got, m)
		mu.Unlock()
	})
	require.NoError(t, err)
	t.Cleanup(sub.Close)
	return func() []bus.Message {
		mu.Lock()
		defer mu.Unlock()
		return append([]bus.Message(nil), got...)
	}
}

func TestHubTrigger(t *testing.T) {
	r := newRig(t)
	got := triggers(t, r.bus)
	hub := &fakeHub{link: hubUpAt(r.clock.Now())}
	s := r.server(t, func(c *Config) { c.Env.Hub = hub })
	unlocked := "unlock\n" + testPIN + "\n"

	tests := []struct {
		name  string
		input string
		want  string // the last line the technician sees
	}{
		{name: "refused outside technician mode", input: "hub trigger NEW_ARRIVAL",
			want: "error: `hub trigger` needs technician mode: type `unlock` and the robot's PIN"},
		{name: "an unknown kind names the accepted ones", input: unlocked + "hub trigger HELLO",
			want: "error: no trigger kind \"HELLO\": want NEW_ARRIVAL or SURPRISE; usage: hub [status] | trigger NEW_ARRIVAL|SURPRISE"},
		{name: "no kind", input: unlocked + "hub trigger",
			want: "error: trigger needs one kind: NEW_ARRIVAL or SURPRISE; usage: hub [status] | trigger NEW_ARRIVAL|SURPRISE"},
		{name: "two kinds", input: unlocked + "hub trigger SURPRISE NEW_ARRIVAL",
			want: "error: trigger needs one kind: NEW_ARRIVAL or SURPRISE; usage: hub [status] | trigger NEW_ARRIVAL|SURPRISE"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, lastLine(script(t, s, tc.input)))
		})
	}

	// The link down: the hub would drop it at once, so the shell says why.
	hub.mu.Lock()
	hub.link = hubDownAt(r.clock.Now())
	hub.mu.Unlock()
	assert.Equal(t, "error: nothing triggered: the hub link is not up: "+hub.Link().Summary,
		lastLine(script(t, s, unlocked+"hub trigger SURPRISE")))
	time.Sleep(50 * time.Millisecond) // anything wrongly published would have arrived
	assert.Empty(t, got(), "nothing refused reaches the bus")

	hub.mu.Lock()
	hub.link = hubUpAt(r.clock.Now())
	hub.mu.Unlock()
	assert.Equal(t, "asked the hub for a NEW_ARRIVAL proactive skill; `log follow` shows what it chose",
		lastLine(script(t, s, unlocked+"hub trigger NEW_ARRIVAL")))
	o := jsonLines(t, lastLine(script(t, s, unlocked+"hub trigger surprise --json")))[0]
	assert.Equal(t, map[string]any{"trigger": "SURPRISE", "topic": "jibo.hub.trigger"}, o)

	require.Eventually(t, func() bool { return len(got()) == 2 }, 5*time.Second, 5*time.Millisecond)
	for i, kind := range []string{"NEW_ARRIVAL", "SURPRISE"} {
		m := got()[i]
		assert.Equal(t, "jibo.hub.trigger", m.Type)
		assert.Equal(t, map[string]any{"source": kind}, m.Data, "the shape core/hub takes: {source}")
		assert.Regexp(t, `^shell-\d+$`, m.Context[bus.KeySource])
	}
	assert.Contains(t, logText(r.logs), "shell: privileged command")
}

func TestHubCompletion(t *testing.T) {
	s := newRig(t).server(t, func(c *Config) { c.Env.Hub = &fakeHub{} })
	assert.Contains(t, s.complete(nil, "h"), "hub")
	assert.Equal(t, []string{"status", "trigger"}, s.complete([]string{"hub"}, ""))
	assert.Equal(t, []string{"NEW_ARRIVAL", "SURPRISE"}, s.complete([]string{"hub", "trigger"}, ""))
	assert.Empty(t, s.complete([]string{"hub", "status"}, ""))
	assert.Empty(t, s.complete([]string{"hub", "trigger", "SURPRISE"}, ""))
}

// lastLine is the last line of out, without its newline.
func lastLine(out string) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	return lines[len(lines)-1]
}
