package intent

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
)

// Registration-contract requirements (INTENT-4) not covered by
// service_test.go, checked through the intent service on a bus.

func (r *regRig) publish(t *testing.T, topic string, data map[string]any, ctxKV ...any) {
	t.Helper()
	m := bus.NewMessage(topic, data)
	for i := 0; i+1 < len(ctxKV); i += 2 {
		m.Context[ctxKV[i].(string)] = ctxKV[i+1]
	}
	require.NoError(t, r.bus.Publish(context.Background(), m))
}

// ask publishes a query and returns its answer; the service answers in
// order, so it also means every earlier message was handled.
func (r *regRig) ask(t *testing.T, topic string, data map[string]any) map[string]any {
	t.Helper()
	answers := make(chan bus.Message, 1)
	sub, err := r.bus.Subscribe(topic+".response", func(_ context.Context, m bus.Message) {
		if m.IsFor("coverage-test") {
			answers <- m
		}
	})
	require.NoError(t, err)
	defer sub.Close()
	q := bus.NewMessage(topic, data)
	q.Context[bus.KeySource] = "coverage-test"
	require.NoError(t, r.bus.Publish(context.Background(), q))
	select {
	case m := <-answers:
		return m.Data
	case <-time.After(10 * time.Second):
		t.Fatal("no answer to " + topic)
		return nil
	}
}

func (r *regRig) messages() []bus.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]bus.Message(nil), r.seen...)
}

// waitSeen blocks until the recorder has seen a message of the topic: it
// is another subscriber, so it may lag behind the one that got an answer.
func (r *regRig) waitSeen(t *testing.T, topic string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		for _, m := range r.messages() {
			if m.Type == topic {
				return
			}
		}
		select {
		case <-r.notify:
		case <-deadline:
			t.Fatal("recorder never saw " + topic)
		}
	}
}

func regListed(d map[string]any) []string {
	var out []string
	l, _ := d["intents"].([]any)
	for _, e := range l {
		o := e.(map[string]any)
		out = append(out, o["skill_id"].(string)+":"+o["intent_name"].(string))
	}
	return out
}

func regTemplate(skill, name string, samples ...any) map[string]any {
	return map[string]any{"skill_id": skill, "intent_name": name, "lang": "en-us", "samples": samples}
}

// TestREG01RegistrationIsFireAndForget: no registration topic is answered
// or acknowledged; only the introspection query gets a .response.
func TestREG01RegistrationIsFireAndForget(t *testing.T) {
	r := newRegRig(t)
	key := map[string]any{"skill_id": "s", "intent_name": "hi"}
	r.publish(t, TopicRegisterTemplate, regTemplate("s", "hi", "hello"))
	r.publish(t, TopicRegisterEntity, map[string]any{"skill_id": "s", "entity_name": "x", "lang": "en-us", "samples": []any{"a"}})
	r.publish(t, TopicDisable, key)
	r.publish(t, TopicEnable, key)
	r.publish(t, TopicDeregister, key)
	r.publish(t, TopicDeregisterEntity, map[string]any{"skill_id": "s", "entity_name": "x"})
	r.publish(t, TopicSkillDeregister, map[string]any{"skill_id": "s"})
	r.publish(t, TopicRegisterTemplate, regTemplate("s", "bad")) // rejected: still no answer
	r.ask(t, TopicList, nil)
	r.waitSeen(t, TopicList+".response")
	var types []string
	for _, m := range r.messages() {
		types = append(types, m.Type)
	}
	assert.Equal(t, []string{
		TopicRegisterTemplate, TopicRegisterEntity, TopicDisable, TopicEnable, TopicDeregister,
		TopicDeregisterEntity, TopicSkillDeregister, TopicRegisterTemplate, TopicList, TopicList + ".response",
	}, types, "REG-01: nothing but the list query is answered")
}

// TestREG02ManifestKeepsPayloadsVerbatim: the manifest keeps each accepted
// registration as broadcast, unknown fields included, drops reserved
// intent names, and keeps a disabled intent (presence is not
// matchability).
func TestREG02ManifestKeepsPayloadsVerbatim(t *testing.T) {
	r := newRegRig(t)
	payload := regTemplate("s", "hi", "hello [there]")
	payload["x_vendor"] = map[string]any{"colour": "teal"}
	payload["requires_context"] = []any{"topic"}
	r.publish(t, TopicRegisterTemplate, payload)
	r.publish(t, TopicRegisterTemplate, regTemplate("s", "stop", "stop"))
	r.publish(t, TopicDisable, map[string]any{"skill_id": "s", "intent_name": "hi"})
	d := r.ask(t, TopicDescribe, map[string]any{"skill_id": "s"})
	require.Equal(t, true, d["ok"], d)
	defs := d["definitions"].([]any)
	require.Len(t, defs, 1, "REG-02: the reserved name is dropped")
	def := defs[0].(map[string]any)
	assert.Equal(t, "hi", def["intent_name"])
	assert.Equal(t, map[string]any{
		"skill_id": "s", "intent_name": "hi", "lang": "en-us", "samples": []any{"hello [there]"},
		"x_vendor": map[string]any{"colour": "teal"}, "requires_context": []any{"topic"},
	}, def["definition"], "REG-02: verbatim, unknown fields kept")
	assert.Nil(t, r.engine.Match("hello there", "en-us", ""), "REG-02: in the manifest, yet disabled, so not matchable")
}

// TestREG07EntityRegistration: an entity with no usable sample is
// rejected; bad samples are skipped with a warning and the rest used.
func TestREG07EntityRegistration(t *testing.T) {
	r := newRegRig(t)
	r.publish(t, TopicRegisterTemplate, regTemplate("music", "play", "play {song}"))
	for _, samples := range []any{nil, []any{}, []any{"(broken", "[]"}} {
		d := map[string]any{"skill_id": "music", "entity_name": "song", "lang": "en-us"}
		if samples != nil {
			d["samples"] = samples
		}
		r.publish(t, TopicRegisterEntity, d)
	}
	r.ask(t, TopicList, nil)
	assert.Equal(t, 3, strings.Count(r.logs.String(), "samples missing, empty, or none yields a value (REG-07)"))
	res := r.engine.Match("play yesterday", "en-us", "")
	require.NotNil(t, res)
	assert.Contains(t, res.Why, "(open text)", "no entity was registered")

	r.publish(t, TopicRegisterEntity, map[string]any{"skill_id": "music", "entity_name": "song", "lang": "en-us",
		"samples": []any{"(let it be", "yesterday"}})
	r.ask(t, TopicList, nil)
	assert.Contains(t, r.logs.String(), "entity sample skipped")
	res = r.engine.Match("play yesterday", "en-us", "")
	require.NotNil(t, res)
	assert.Contains(t, res.Why, "(entity value)", "REG-07: the good sample is used")
}

// TestREG08RejectionsAreLoggedAtWarn: the producer's only signal names
// skill, intent or entity, language, topic and a one-line reason.
func TestREG08RejectionsAreLoggedAtWarn(t *testing.T) {
	r := newRegRig(t)
	r.publish(t, TopicRegisterTemplate, regTemplate("lights", "on", "(turn"))
	r.publish(t, TopicRegisterEntity, map[string]any{"skill_id": "lights", "entity_name": "device", "lang": "en-us", "samples": []any{}})
	r.ask(t, TopicList, nil)
	var lines []string
	for _, l := range strings.Split(r.logs.String(), "\n") {
		if strings.Contains(l, `msg="registration rejected"`) {
			lines = append(lines, l)
		}
	}
	require.Len(t, lines, 2)
	for _, want := range []string{"level=WARN", "topic=ovos.intent.register.template", "skill_id=lights", "intent_name=on", "lang=en-us",
		`reason="registering template intent lights:on (en-us): no sample parses`} {
		assert.Contains(t, lines[0], want)
	}
	for _, want := range []string{"level=WARN", "topic=ovos.entity.register", "skill_id=lights", "entity_name=device", "lang=en-us", "reason="} {
		assert.Contains(t, lines[1], want)
	}
	assert.NotContains(t, lines[0], "\\n", "one line")
}

// TestREG11PayloadIsAuthoritative: decision on the OPEN point: the
// payload's skill_id is acted on; a differing context.skill_id is
// provenance, logged at DEBUG.
func TestREG11PayloadIsAuthoritative(t *testing.T) {
	r := newRegRig(t)
	r.publish(t, TopicRegisterTemplate, regTemplate("weather", "today", "what is the weather"), bus.KeySkillID, "impostor")
	assert.Equal(t, []string{"weather:today"}, regListed(r.ask(t, TopicList, nil)))
	assert.Contains(t, r.logs.String(), "level=DEBUG")
	assert.Contains(t, r.logs.String(), "context_skill_id=impostor")
	res := r.engine.Match("what is the weather", "en-us", "")
	require.NotNil(t, res)
	assert.Equal(t, "weather", res.SkillID)
}

// TestREG16ReemissionIsIdempotent: a skill re-sending its registrations
// (on the readiness announcement) changes nothing: one entry, same match,
// enabled state kept (REG-04).
func TestREG16ReemissionIsIdempotent(t *testing.T) {
	r := newRegRig(t)
	send := func() {
		r.publish(t, TopicRegisterEntity, map[string]any{"skill_id": "lights", "entity_name": "device", "lang": "en-us", "samples": []any{"lamp"}})
		r.publish(t, TopicRegisterTemplate, regTemplate("lights", "on", "turn on [the] {device}"))
		r.publish(t, TopicRegisterTemplate, regTemplate("lights", "off", "turn off [the] {device}"))
	}
	send()
	r.publish(t, TopicDisable, map[string]any{"skill_id": "lights", "intent_name": "off"})
	first := r.ask(t, TopicList, nil)
	before := r.engine.Match("turn on the lamp", "en-us", "")
	send()
	send()
	assert.Equal(t, first, r.ask(t, TopicList, nil), "REG-16: the same entries, the same enabled state")
	assert.Equal(t, before, r.engine.Match("turn on the lamp", "en-us", ""))
	assert.Nil(t, r.engine.Match("turn off the lamp", "en-us", ""), "REG-04: re-registering keeps the disabled state")
}
