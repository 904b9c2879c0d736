package intent

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
)

type svcRig struct {
	bus     *bus.Bus
	engine  *TemplateEngine
	answers chan bus.Message
	logs    *lockedBuffer // the service's log
}

// lockedBuffer is a log sink the service's goroutine writes while a test
// reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func newSvcRig(t *testing.T, opts ...ServiceOption) *svcRig {
	logs := &lockedBuffer{}
	log := slog.New(slog.NewTextHandler(logs, nil))
	b := bus.New(bus.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	t.Cleanup(func() { _ = b.Close(context.Background()) })
	e := NewTemplateEngine(EngineOptions{Logger: log})
	s := NewService(b, e, log, opts...)
	require.NoError(t, s.Start())
	t.Cleanup(s.Close)
	r := &svcRig{bus: b, engine: e, answers: make(chan bus.Message, 16), logs: logs}
	_, err := b.SubscribeAll([]string{TopicList + ".response", TopicDescribe + ".response"},
		func(_ context.Context, m bus.Message) { r.answers <- m })
	require.NoError(t, err)
	return r
}

func (r *svcRig) send(t *testing.T, topic string, data map[string]any, sessionID string) {
	t.Helper()
	m := bus.NewMessage(topic, data)
	if sessionID != "" {
		m.Context["session"] = map[string]any{"session_id": sessionID}
	}
	require.NoError(t, r.bus.Publish(context.Background(), m))
}

// ask sends a query and returns its answer; the service answers in order,
// so the answer also means every earlier registration was processed.
func (r *svcRig) ask(t *testing.T, topic string, data map[string]any) map[string]any {
	t.Helper()
	q := bus.NewMessage(topic, data)
	q.Context["source"] = "test"
	require.NoError(t, r.bus.Publish(context.Background(), q))
	select {
	case m := <-r.answers:
		assert.Equal(t, "test", m.Context["destination"], "MSG-14: reply-derived")
		return m.Data
	case <-time.After(5 * time.Second):
		t.Fatal("no answer")
		return nil
	}
}

func names(d map[string]any) []string {
	var out []string
	l, _ := d["intents"].([]any)
	for _, e := range l {
		o := e.(map[string]any)
		out = append(out, o["skill_id"].(string)+":"+o["intent_name"].(string))
	}
	return out
}

func tmpl(skill, name string, samples ...any) map[string]any {
	return map[string]any{"skill_id": skill, "intent_name": name, "lang": "en-US", "samples": samples}
}

func TestRegistrationRejections_REG05_REG06_REG08(t *testing.T) {
	r := newSvcRig(t)
	r.send(t, TopicRegisterTemplate, tmpl("s", "good", "turn on the light"), "")
	bad := []map[string]any{
		tmpl("s", "stop", "stop"), // reserved name (PIPE-21)
		tmpl("s", "empty"),        // samples empty
		{"skill_id": "s", "intent_name": "nolang", "samples": []any{"x"}}, // lang missing
		{"skill_id": "s", "intent_name": "wrongtype", "lang": "en-US", "samples": "x"},
		tmpl("s", "broken", "(unbalanced"), // no sample expands
		{"skill_id": "s", "intent_name": "req", "lang": "en-US", "samples": []any{"play {song}"}, "required_slots": []any{"artist"}},
		{"intent_name": "noskill", "lang": "en-US", "samples": []any{"x"}},
	}
	for _, d := range bad {
		r.send(t, TopicRegisterTemplate, d, "")
	}
	// No keyword engine in this rig: DEF-10 rejects the method.
	r.send(t, TopicRegisterKeyword, map[string]any{"skill_id": "s", "intent_name": "kw", "lang": "en-US",
		"required": []any{map[string]any{"name": "light", "samples": []any{"light"}}}}, "")
	assert.Equal(t, []string{"s:good"}, names(r.ask(t, TopicList, nil)), "nothing malformed is indexed, nothing half-registered")
	assert.Contains(t, r.logs.String(), `reason="no loaded engine accepts keyword intents (DEF-10)"`)
}

func TestListDescribeDeregister_REG09_REG12_REG13(t *testing.T) {
	r := newSvcRig(t)
	r.send(t, TopicRegisterTemplate, tmpl("lights", "on", "turn on the light"), "")
	r.send(t, TopicRegisterTemplate, tmpl("lights", "off", "turn off the light"), "")
	r.send(t, TopicRegisterTemplate, tmpl("music", "play", "play {song}"), "")
	assert.Equal(t, []string{"lights:off", "lights:on", "music:play"}, names(r.ask(t, TopicList, nil)))
	assert.Equal(t, []string{"music:play"}, names(r.ask(t, TopicList, map[string]any{"skill_id": "music"})))

	d := r.ask(t, TopicDescribe, map[string]any{"skill_id": "music"})
	require.Equal(t, true, d["ok"])
	def := d["definitions"].([]any)[0].(map[string]any)
	assert.Equal(t, "template", def["method"])
	assert.Equal(t, []any{"play {song}"}, def["definition"].(map[string]any)["samples"], "REG-13: payload as broadcast")
	assert.Equal(t, false, r.ask(t, TopicDescribe, map[string]any{})["ok"], "skill_id required")
	assert.Equal(t, false, r.ask(t, TopicDescribe, map[string]any{"skill_id": "nobody"})["ok"])

	r.send(t, TopicDeregister, map[string]any{"skill_id": "lights", "intent_name": "off"}, "")
	assert.Equal(t, []string{"lights:on", "music:play"}, names(r.ask(t, TopicList, nil)))
	r.send(t, TopicSkillDeregister, map[string]any{"skill_id": "lights"}, "")
	assert.Equal(t, []string{"music:play"}, names(r.ask(t, TopicList, nil)))
}

func TestEnableDisable_REG10(t *testing.T) {
	r := newSvcRig(t)
	r.send(t, TopicRegisterTemplate, tmpl("lights", "on", "turn on the light"), "")
	r.send(t, TopicDisable, map[string]any{"skill_id": "lights", "intent_name": "on"}, "")
	r.ask(t, TopicList, nil)
	assert.Nil(t, r.engine.Match("turn on the light", "en-US", "default"), "disabled intents do not match")
	r.send(t, TopicEnable, map[string]any{"skill_id": "lights", "intent_name": "on"}, "")
	l := r.ask(t, TopicList, nil)
	assert.Equal(t, true, l["intents"].([]any)[0].(map[string]any)["enabled"])
	assert.NotNil(t, r.engine.Match("turn on the light", "en-US", "default"))
}

func TestSessionScopes_REG04_REG14(t *testing.T) {
	r := newSvcRig(t)
	r.send(t, TopicRegisterTemplate, tmpl("kitchen", "timer", "start the oven timer"), "kitchen-satellite")
	r.ask(t, TopicList, nil)
	assert.Nil(t, r.engine.Match("start the oven timer", "en-US", "default"), "session-scoped intents route only to that session")
	assert.NotNil(t, r.engine.Match("start the oven timer", "en-US", "kitchen-satellite"))
	r.send(t, TopicSkillDeregister, map[string]any{"skill_id": "kitchen"}, "") // default scope only
	r.ask(t, TopicList, nil)
	assert.NotNil(t, r.engine.Match("start the oven timer", "en-US", "kitchen-satellite"), "REG-14: scopes are separate")
}

func TestEntityHintsReindex_REG07(t *testing.T) {
	r := newSvcRig(t)
	r.send(t, TopicRegisterTemplate, tmpl("music", "play", "play {song}"), "")
	r.ask(t, TopicList, nil)
	before := r.engine.Match("play yellow submarine", "en-US", "default")
	require.NotNil(t, before)
	r.send(t, TopicRegisterEntity, map[string]any{"skill_id": "music", "entity_name": "song", "lang": "en-US",
		"samples": []any{"yellow submarine", "(let it be|hey jude)"}}, "")
	r.send(t, TopicRegisterEntity, map[string]any{"skill_id": "music", "entity_name": "bad", "lang": "en-US", "samples": []any{}}, "")
	r.ask(t, TopicList, nil)
	after := r.engine.Match("play yellow submarine", "en-US", "default")
	require.NotNil(t, after)
	assert.Greater(t, after.Confidence, before.Confidence, "GRM-15: a listed value scores higher once the entity is registered")
	assert.NotNil(t, r.engine.Match("play something else", "en-US", "default"), "GRM-15: hints, not an allow list")
}

// A skill's entity (REG-01) pairs with the intents that have its slot; the
// skill's other intents register without a word about it.
func TestEntityOnlyForItsSlot_REG07(t *testing.T) {
	r := newSvcRig(t)
	r.send(t, TopicRegisterEntity, map[string]any{"skill_id": "music", "entity_name": "song", "lang": "en-US",
		"samples": []any{"yellow submarine"}}, "")
	r.send(t, TopicRegisterTemplate, tmpl("music", "play", "play {song}"), "")
	r.send(t, TopicRegisterTemplate, tmpl("music", "pause", "pause the music"), "")
	r.ask(t, TopicList, nil)
	require.NotNil(t, r.engine.Match("play yellow submarine", "en-US", "default"))
	require.NotNil(t, r.engine.Match("pause the music", "en-US", "default"))
	assert.NotContains(t, r.logs.String(), "song", "no warning about an entity the intent does not use")
}

// A typed slot ({number:level}) takes its skill's entity as an untyped
// one does, as a locale folder's intents take theirs: the speech grammar
// reads the values from the registration (issue 24: a volume level runs
// 0 to 10, not to a hundred).
func TestEntityForATypedSlot_REG07(t *testing.T) {
	r := newSvcRig(t)
	r.send(t, TopicRegisterEntity, map[string]any{"skill_id": "vol", "entity_name": "level", "lang": "en-US",
		"samples": []any{"(one|two|ten)"}}, "")
	r.send(t, TopicRegisterTemplate, tmpl("vol", "set", "set the volume to {number:level}"), "")
	r.ask(t, TopicList, nil)
	var got map[string][]string
	for _, reg := range r.engine.Registrations("") {
		if reg.SkillID == "vol" && reg.IntentName == "set" {
			got = reg.Definition.Entities
		}
	}
	assert.Equal(t, map[string][]string{"level": {"(one|two|ten)"}}, got)
}
