package intent

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
)

// regRig is a bus with the intent service on it, and every message
// published on it recorded.
type regRig struct {
	bus    *bus.Bus
	engine *TemplateEngine
	logs   *syncBuffer

	mu     sync.Mutex
	seen   []bus.Message
	notify chan struct{} // gets a token after each recorded message
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newRegRig(t *testing.T) *regRig {
	t.Helper()
	logs := &syncBuffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	b := bus.New(bus.Options{Logger: slog.New(slog.DiscardHandler)})
	t.Cleanup(func() { _ = b.Close(context.Background()) })
	r := &regRig{bus: b, engine: NewTemplateEngine(EngineOptions{Logger: log}), logs: logs, notify: make(chan struct{}, 1)}
	_, err := b.Subscribe("*", func(_ context.Context, m bus.Message) {
		r.mu.Lock()
		r.seen = append(r.seen, m)
		r.mu.Unlock()
		select {
		case r.notify <- struct{}{}:
		default:
		}
	}, bus.WithQueue(1024, bus.Block))
	require.NoError(t, err)
	s := NewService(b, r.engine, log)
	require.NoError(t, s.Start())
	t.Cleanup(s.Close)
	return r
}

// TestRegistrationMessages: the payloads a skill's locale turns into
// (REG-01, REG-03, REG-06), with vocabularies inlined (GRM-06).
func TestRegistrationMessages(t *testing.T) {
	loc, err := LoadLocale(os.DirFS("testdata/ovos-skill-lights"), "locale")
	require.NoError(t, err)
	msgs, err := RegistrationMessages(loc, "lights.openjibo")
	require.NoError(t, err)
	var got []string
	for _, m := range msgs {
		got = append(got, m.Type+" "+m.DataString("lang")+" "+m.DataString("entity_name")+m.DataString("intent_name"))
		assert.Equal(t, "lights.openjibo", m.Context[bus.KeySkillID], "REG-03: skills set context.skill_id")
		assert.Equal(t, "lights.openjibo", m.Context[bus.KeySource])
		assert.NotContains(t, m.Context, bus.KeySession, "REG-04: the default scope")
		require.NoError(t, m.Validate())
	}
	assert.Equal(t, []string{
		"ovos.entity.register de-de device",
		"ovos.intent.register.template de-de turn_off",
		"ovos.intent.register.template de-de turn_on",
		"ovos.entity.register en-us device",
		"ovos.intent.register.template en-us set_brightness",
		"ovos.intent.register.template en-us turn_off",
		"ovos.intent.register.template en-us turn_on",
	}, got)
	assert.Equal(t, []string{"kitchen light", "lamp", "(tv|television)"}, msgs[3].Data["samples"])
	assert.Equal(t, map[string]any{
		"skill_id": "lights.openjibo", "intent_name": "turn_on", "lang": "en-us",
		"samples":        []string{"(switch|turn) on [the] {device}", "power up [the] {device}", "light[s] on"},
		"blacklist":      []string{"alarm"},
		"slot_blacklist": map[string]any{"device": []string{"everything"}},
	}, msgs[6].Data, "GRM-06: <turn> inlined as a group; RES-06 blacklists carried")
	assert.Equal(t, map[string]any{
		"skill_id": "lights.openjibo", "intent_name": "set_brightness", "lang": "en-us",
		"samples": []string{
			"set [the] brightness [of] [the] {device} to {number:level} [percent]",
			"dim [the] {device} to {number:level} [percent]",
		},
		"required_slots": []string{"level"},
		"slot_types":     map[string]any{"level": "number"},
		"slot_blacklist": map[string]any{"device": []string{"everything"}},
	}, msgs[4].Data, "RES-08 .required, GRM-05 typed slots, RES-06 for every intent with the slot")
	assert.Equal(t, []string{"schalte [das] {device} ein"}, msgs[2].Data["samples"], "a one-sample vocabulary inlines bare")

	_, err = RegistrationMessages(loc, "bad:id")
	assert.ErrorContains(t, err, `skill_id "bad:id" contains ':' (DEF-02)`)
}

// TestRegisterLocale registers a locale through the intent service, as the
// skill host does, and matches what it registered.
func TestRegisterLocale(t *testing.T) {
	r := newRegRig(t)
	loc, err := LoadLocale(os.DirFS("testdata/ovos-skill-lights"), "locale")
	require.NoError(t, err)
	n, err := RegisterLocale(context.Background(), r.bus, loc, "lights.openjibo", 0)
	require.NoError(t, err)
	assert.Equal(t, 5, n)
	res := r.engine.Match("switch on the television", "en-us", "")
	require.NotNil(t, res)
	assert.Equal(t, "turn_on", res.IntentName)
	assert.Equal(t, map[string]string{"device": "television"}, res.Slots)
	assert.Contains(t, res.Why, "(entity value)", "the .entity reached the engine")
	assert.Nil(t, r.engine.Match("turn on the alarm", "en-us", ""), "RES-06: the .blacklist reached the engine")
}

// TestRegisterLocaleRefused: an intent the service refuses is an error
// naming it and its file; the service's log says why (REG-08).
func TestRegisterLocaleRefused(t *testing.T) {
	r := newRegRig(t)
	loc, err := LoadLocale(fstest.MapFS{
		"locale/en-us/stop.intent":  {Data: []byte("stop\n")},
		"locale/en-us/hello.intent": {Data: []byte("hello\n")},
	}, "locale")
	require.NoError(t, err)
	n, err := RegisterLocale(context.Background(), r.bus, loc, "greeter", 0)
	require.Error(t, err)
	assert.Equal(t, 1, n)
	assert.Equal(t, "skill greeter: intents refused by the intent service (see its log): stop/en-us (locale/en-us/stop.intent)", err.Error())
	assert.Contains(t, r.logs.String(), `intent_name \"stop\" is reserved`)
}

func TestRegisterLocaleCancelled(t *testing.T) {
	b := bus.New(bus.Options{Logger: slog.New(slog.DiscardHandler)})
	t.Cleanup(func() { _ = b.Close(context.Background()) })
	loc, err := LoadLocale(fstest.MapFS{"locale/en-us/hello.intent": {Data: []byte("hello\n")}}, "locale")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = RegisterLocale(ctx, b, loc, "greeter", 0)
	assert.ErrorIs(t, err, context.Canceled, "nobody answers and the caller gave up")
}
