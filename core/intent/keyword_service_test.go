package intent

import (
	"context"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
)

// kwRig is a service rig with both engines loaded.
func kwRig(t *testing.T) (*svcRig, *KeywordEngine) {
	k := NewKeywordEngine(KeywordOptions{Logger: slog.New(slog.DiscardHandler)})
	return newSvcRig(t, WithKeywordEngine(k)), k
}

func kwPayload(skill, name string, required ...string) map[string]any {
	var req []any
	for _, r := range required {
		req = append(req, map[string]any{"name": r, "samples": []any{r}})
	}
	return map[string]any{"skill_id": skill, "intent_name": name, "lang": "en-US", "required": req}
}

// entries returns the list answer as skill:intent/method.
func entries(d map[string]any) []string {
	var out []string
	l, _ := d["intents"].([]any)
	for _, e := range l {
		o := e.(map[string]any)
		out = append(out, o["skill_id"].(string)+":"+o["intent_name"].(string)+"/"+o["method"].(string))
	}
	return out
}

// TestKeywordRegistrationListDescribe_REG05_REG12_REG13: keyword payloads
// are indexed and kept verbatim; list shows both methods; describe puts
// keyword before template.
func TestKeywordRegistrationListDescribe_REG05_REG12_REG13(t *testing.T) {
	r, k := kwRig(t)
	p := kwPayload("weather", "current", "weather")
	p["requires_context"] = []any{"location"}
	p["optional"] = []any{map[string]any{"name": "when", "samples": []any{"today", "tomorrow"}}}
	r.send(t, TopicRegisterKeyword, p, "")
	r.send(t, TopicRegisterTemplate, tmpl("weather", "current", "how is the weather"), "")
	r.send(t, TopicRegisterTemplate, tmpl("weather", "alerts", "any weather alerts"), "")

	assert.Equal(t, []string{"weather:alerts/template", "weather:current/keyword", "weather:current/template"},
		entries(r.ask(t, TopicList, nil)))
	m := k.Match("weather tomorrow", "en-us", "")
	require.NotNil(t, m)
	assert.Equal(t, map[string]string{"weather": "weather", "when": "tomorrow"}, m.Slots)

	d := r.ask(t, TopicDescribe, map[string]any{"skill_id": "weather", "intent_name": "current"})
	require.Equal(t, true, d["ok"])
	defs := d["definitions"].([]any)
	require.Len(t, defs, 2)
	first, second := defs[0].(map[string]any), defs[1].(map[string]any)
	assert.Equal(t, "keyword", first["method"], "REG-13: keyword before template")
	assert.Equal(t, "template", second["method"])
	assert.Equal(t, []any{"location"}, first["definition"].(map[string]any)["requires_context"], "REG-05: unknown fields preserved")
	assert.Equal(t, "default", first["session_id"])

	d = r.ask(t, TopicDescribe, map[string]any{"skill_id": "weather", "method": "keyword"})
	assert.Len(t, d["definitions"], 1)
}

// TestKeywordRegistrationRejections_DEF05_REG05_REG08: malformed keyword
// payloads are refused with a WARN naming the producer and the reason, and
// index nothing.
func TestKeywordRegistrationRejections_DEF05_REG05_REG08(t *testing.T) {
	r, _ := kwRig(t)
	r.send(t, TopicRegisterKeyword, kwPayload("s", "good", "light"), "")
	twoRoles := kwPayload("s", "tworoles", "light")
	twoRoles["excluded"] = []any{map[string]any{"name": "light", "samples": []any{"lamp"}}}
	noSamples := kwPayload("s", "nosamples", "light")
	noSamples["optional"] = []any{map[string]any{"name": "when"}}
	badType := kwPayload("s", "badtype", "light")
	badType["one_of"] = []any{[]any{map[string]any{"name": "x", "samples": "x"}}}
	noLang := kwPayload("s", "nolang", "light")
	delete(noLang, "lang")
	bad := map[string]map[string]any{
		`intent_name \"stop\" is reserved (REG-05)`:                                      kwPayload("s", "stop", "light"),
		`no required and no one_of vocabulary`:                                           kwPayload("s", "empty"),
		`excluded[0]: vocabulary \"light\" is under both required and excluded (DEF-05)`: twoRoles,
		`optional[0] (\"when\"): samples missing or empty (REG-05)`:                      noSamples,
		`one_of[0][0].samples: want array of strings`:                                    badType,
		`lang missing`: noLang,
	}
	for _, d := range bad {
		r.send(t, TopicRegisterKeyword, d, "")
	}
	assert.Equal(t, []string{"s:good/keyword"}, entries(r.ask(t, TopicList, nil)), "nothing malformed is indexed")
	logs := r.logs.String()
	for reason := range bad {
		assert.Contains(t, logs, reason)
	}
	assert.Contains(t, logs, `topic=ovos.intent.register.keyword session_id=default skill_id=s intent_name=tworoles`)
	d := r.ask(t, TopicDescribe, map[string]any{"skill_id": "s", "intent_name": "tworoles"})
	require.Equal(t, true, d["ok"], "REG-02: the manifest keeps a rejected payload verbatim")
	assert.Equal(t, false, d["definitions"].([]any)[0].(map[string]any)["indexed"], "but marks it as not indexed")
}

// TestKeywordBothMethods_DEF09_REG09_REG10_REG15: deregister, enable,
// disable and skill deregistration act on both methods, as every engine
// must honour them for what it indexed (REG-15); re-registering one method
// leaves the other alone (DEF-09).
func TestKeywordBothMethods_DEF09_REG09_REG10_REG15(t *testing.T) {
	r, k := kwRig(t)
	r.send(t, TopicRegisterKeyword, kwPayload("lights", "on", "light"), "")
	r.send(t, TopicRegisterTemplate, tmpl("lights", "on", "turn on the light"), "")
	r.send(t, TopicRegisterKeyword, kwPayload("lights", "off", "dark"), "")
	r.send(t, TopicRegisterKeyword, kwPayload("music", "play", "music"), "")

	r.send(t, TopicDisable, map[string]any{"skill_id": "lights", "intent_name": "on"}, "")
	r.ask(t, TopicList, nil)
	assert.Nil(t, k.Match("light", "en-us", ""), "REG-10: keyword disabled")
	assert.Nil(t, r.engine.Match("turn on the light", "en-us", ""), "REG-10: template disabled")
	r.send(t, TopicRegisterKeyword, kwPayload("lights", "on", "lamp"), "")
	r.send(t, TopicEnable, map[string]any{"skill_id": "lights", "intent_name": "on", "lang": "EN-US"}, "")
	r.ask(t, TopicList, nil)
	assert.NotNil(t, k.Match("lamp", "en-us", ""), "REG-10: enabled again")
	assert.Nil(t, k.Match("light", "en-us", ""), "DEF-09: replaced")
	assert.NotNil(t, r.engine.Match("turn on the light", "en-us", ""), "DEF-09: the other method untouched")

	r.send(t, TopicDeregister, map[string]any{"skill_id": "lights", "intent_name": "on"}, "")
	assert.Equal(t, []string{"lights:off/keyword", "music:play/keyword"}, entries(r.ask(t, TopicList, nil)), "REG-09: both methods gone")
	r.send(t, TopicSkillDeregister, map[string]any{"skill_id": "lights"}, "other-session")
	assert.Len(t, entries(r.ask(t, TopicList, nil)), 2, "REG-09: another session's scope is untouched")
	r.send(t, TopicSkillDeregister, map[string]any{"skill_id": "lights"}, "")
	assert.Equal(t, []string{"music:play/keyword"}, entries(r.ask(t, TopicList, nil)), "skill unload removes its keyword intents")
	assert.Nil(t, k.Match("dark", "en-us", ""))
}

// TestKeywordSessionScope_REG04_REG14: a keyword registration is keyed by
// the context session and routes only to that session's utterances.
func TestKeywordSessionScope_REG04_REG14(t *testing.T) {
	r, k := kwRig(t)
	r.send(t, TopicRegisterKeyword, kwPayload("kitchen", "oven", "oven"), "kitchen-satellite")
	l := r.ask(t, TopicList, map[string]any{"session_id": "kitchen-satellite"})
	require.Equal(t, []string{"kitchen:oven/keyword"}, entries(l))
	assert.Equal(t, "kitchen-satellite", l["intents"].([]any)[0].(map[string]any)["session_id"])
	assert.Empty(t, entries(r.ask(t, TopicList, map[string]any{"session_id": "hall"})))
	assert.Nil(t, k.Match("oven", "en-us", "default"))
	assert.NotNil(t, k.Match("oven", "en-us", "kitchen-satellite"))
}

// TestKeywordPayloadAuthority_REG11_DEF07: the payload's skill_id is
// authoritative over context.skill_id, and a .blacklist-style field on a
// keyword payload suppresses nothing (suppression is template-only; keyword
// intents veto with excluded), but is kept in the manifest.
func TestKeywordPayloadAuthority_REG11_DEF07(t *testing.T) {
	r, k := kwRig(t)
	p := kwPayload("lights", "on", "lamp")
	p["blacklist"] = []any{"lamp"}
	m := bus.NewMessage(TopicRegisterKeyword, p)
	m.Context[bus.KeySkillID] = "someone-else"
	require.NoError(t, r.bus.Publish(context.Background(), m))
	assert.Equal(t, []string{"lights:on/keyword"}, entries(r.ask(t, TopicList, nil)), "REG-11: indexed under the payload's skill_id")
	got := k.Match("lamp", "en-us", "")
	require.NotNil(t, got, "DEF-07: no blacklist suppression for keyword intents")
	assert.Equal(t, "lights", got.SkillID)
	d := r.ask(t, TopicDescribe, map[string]any{"skill_id": "lights"})
	def := d["definitions"].([]any)[0].(map[string]any)["definition"].(map[string]any)
	assert.Equal(t, []any{"lamp"}, def["blacklist"], "REG-05: unknown fields preserved")
}

// TestServiceKeywordOnly_DEF10: a service with only the keyword engine
// rejects template registrations, with a WARN naming the reason, and still
// serves keyword ones.
func TestServiceKeywordOnly_DEF10(t *testing.T) {
	logs := &lockedBuffer{}
	log := slog.New(slog.NewTextHandler(logs, nil))
	b := bus.New(bus.Options{Logger: slog.New(slog.DiscardHandler)})
	t.Cleanup(func() { _ = b.Close(context.Background()) })
	k := NewKeywordEngine(KeywordOptions{Logger: log})
	s := NewService(b, nil, log, WithKeywordEngine(k))
	require.NoError(t, s.Start())
	t.Cleanup(s.Close)
	r := &svcRig{bus: b, answers: make(chan bus.Message, 16), logs: logs}
	_, err := b.Subscribe(TopicList+".response", func(_ context.Context, m bus.Message) { r.answers <- m })
	require.NoError(t, err)

	r.send(t, TopicRegisterTemplate, tmpl("s", "t", "turn on the light"), "")
	r.send(t, TopicRegisterKeyword, kwPayload("s", "k", "light"), "")
	r.send(t, TopicDisable, map[string]any{"skill_id": "s", "intent_name": "k"}, "")
	l := r.ask(t, TopicList, nil)
	assert.Equal(t, []string{"s:k/keyword"}, entries(l))
	assert.Equal(t, false, l["intents"].([]any)[0].(map[string]any)["enabled"])
	assert.Contains(t, logs.String(), `reason="no loaded engine accepts template intents (DEF-10)"`)
}
