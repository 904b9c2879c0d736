package intent

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/session"
)

// stackRig is the intent stack on a bus, as the robot builds it.
type stackRig struct {
	bus   *bus.Bus
	stack *Stack
}

func newStackRig(t *testing.T, explain bool) *stackRig {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	b := bus.New(bus.Options{Logger: log})
	t.Cleanup(func() { _ = b.Close(context.Background()) })
	st, err := NewStack(StackConfig{Bus: b, Logger: log, Explain: explain})
	require.NoError(t, err)
	require.NoError(t, st.Start())
	t.Cleanup(st.Close)
	return &stackRig{bus: b, stack: st}
}

// register publishes registrations and waits until the service has read
// them: it answers ovos.intent.list in order.
func (r *stackRig) register(t *testing.T, msgs ...bus.Message) {
	t.Helper()
	answered := make(chan struct{}, 1)
	sub, err := r.bus.Subscribe(TopicList+".response", func(context.Context, bus.Message) { answered <- struct{}{} })
	require.NoError(t, err)
	defer sub.Close()
	for _, m := range msgs {
		require.NoError(t, r.bus.Publish(context.Background(), m))
	}
	require.NoError(t, r.bus.Publish(context.Background(), bus.NewMessage(TopicList, nil)))
	select {
	case <-answered:
	case <-time.After(10 * time.Second):
		t.Fatal("the registration service did not answer")
	}
}

func templateReg(skill, intent string, extra map[string]any, samples ...any) bus.Message {
	d := map[string]any{"skill_id": skill, "intent_name": intent, "lang": "en-US", "samples": samples}
	for k, v := range extra {
		d[k] = v
	}
	m := bus.NewMessage(TopicRegisterTemplate, d)
	m.Context[bus.KeySkillID] = skill
	return m
}

func keywordReg(skill, intent string, required ...string) bus.Message {
	var descs []any
	for _, name := range required {
		descs = append(descs, map[string]any{"name": name, "samples": []any{name}})
	}
	m := bus.NewMessage(TopicRegisterKeyword, map[string]any{"skill_id": skill, "intent_name": intent, "lang": "en-US", "required": descs})
	m.Context[bus.KeySkillID] = skill
	return m
}

func sess(t *testing.T, fields map[string]any) session.Session {
	t.Helper()
	s, _, err := session.Parse(fields)
	require.NoError(t, err)
	return s
}

// TestStackBands: the stack's bands claim the round's best candidate by
// its calibrated score; templates and keywords compete in one ranking, and
// the pipeline order interleaves each band with the fallback stage of the
// same confidence, the cloud hub's stage and fallback-unknown last.
func TestStackBands(t *testing.T) {
	r := newStackRig(t, false)
	r.register(t,
		templateReg("clock", "time", nil, "what time is it"),
		templateReg("notes", "say", nil, "say {words}"),
		templateReg("lights", "on", map[string]any{}, "{name} in {area}"),
		keywordReg("weather", "now", "weather"))
	st := r.stack
	assert.Equal(t, []string{"stop", "converse", "intents-high", "fallback-high", "intents-medium", "fallback-medium",
		"intents-low", "fallback-low", "fallback-unknown"}, st.Pipeline())
	assert.Equal(t, []string{"stop", "converse", "intents-high", "fallback-high", "intents-medium", "fallback-medium",
		"intents-low", "fallback-low", "hub-fallback", "fallback-unknown"}, st.Pipeline("hub-fallback"))
	var ids []string
	for _, p := range st.Plugins() {
		ids = append(ids, p.ID())
		require.NoError(t, pipeline.ValidatePluginID(p.ID()), "PIPE-04")
	}
	assert.Equal(t, []string{BandHigh, BandMedium, BandLow}, ids)

	claim := func(u string) (string, *pipeline.Match) {
		for _, p := range st.Plugins() {
			m, err := p.Match(context.Background(), []string{"zzz nothing", u}, "en-US", session.Empty())
			require.NoError(t, err)
			if m != nil {
				assert.Equal(t, u, m.Utterance, "PIPE-06: the winning candidate, verbatim")
				assert.Equal(t, "en-us", m.Lang)
				assert.NotNil(t, m.Slots, "DEF-11")
				return p.ID(), m
			}
		}
		return "", nil
	}
	tests := []struct {
		utterance, band, intent string
	}{
		{"What time is it?", BandHigh, "clock:time"},
		{"weather", BandHigh, "weather:now"},
		{"say hello there", BandMedium, "notes:say"},
		{"how is the weather looking", BandLow, "weather:now"},
		// Free text around a function word is a guess: abstain.
		{"is the door open in the kitchen", "", ""},
		{"flibbertigibbet", "", ""},
	}
	for _, tc := range tests {
		band, m := claim(tc.utterance)
		assert.Equal(t, tc.band, band, tc.utterance)
		if m != nil {
			assert.Equal(t, tc.intent, m.SkillID+":"+m.IntentName, tc.utterance)
			lo, hi := st.Band(band).Bounds()
			assert.GreaterOrEqual(t, m.Confidence, lo)
			assert.Less(t, m.Confidence, hi)
			assert.NotEmpty(t, m.Why, "how the claim was made, for ovos.intent.matched's context")
			assert.NotContains(t, m.Why, "beat", "why it beat the runner-up is for tools")
		}
	}
}

// countingSource counts the hypotheses it is asked about.
type countingSource struct {
	mu    sync.Mutex
	asked int
}

func (c *countingSource) Name() string { return "counting" }

func (c *countingSource) Candidates(context.Context, Request) ([]Candidate, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asked++
	return nil, nil
}

// TestStackRecognizesOncePerRound: every band of one round reads one
// recognition, remembered by the entry's utterance_id, so the engines run
// once per utterance however many bands the pipeline has.
func TestStackRecognizesOncePerRound(t *testing.T) {
	r := newStackRig(t, false)
	src := &countingSource{}
	require.NoError(t, r.stack.AddSource(src))
	require.Error(t, r.stack.AddSource(src), "one source, one name")
	round := func(id string) pipeline.Round {
		entry := bus.NewMessage(pipeline.TopicHandle, map[string]any{"utterances": []any{"a", "b"}})
		entry.Context[bus.KeyUtteranceID] = id
		return pipeline.Round{Utterances: []string{"a", "b"}, Lang: "en-US", Session: session.Empty(), Entry: entry}
	}
	for _, b := range r.stack.Bands() {
		_, err := b.MatchRound(context.Background(), round("u1"))
		require.NoError(t, err)
	}
	assert.Equal(t, 2, src.asked, "one question per hypothesis for the whole round")
	_, err := r.stack.Band(BandHigh).MatchRound(context.Background(), round("u2"))
	require.NoError(t, err)
	assert.Equal(t, 4, src.asked, "a new round is recognised anew")
}

// TestStackNBest: every hypothesis of the n-best is recognised; a
// candidate's score is its intent confidence times its hypothesis's
// acoustic confidence (ContextASR), and the best score wins; scores that
// are not the round's list are unknown.
func TestStackNBest(t *testing.T) {
	r := newStackRig(t, false)
	r.register(t, templateReg("clock", "time", nil, "what time is it"), templateReg("music", "play", nil, "play {song}"))
	entry := bus.NewMessage(pipeline.TopicHandle, nil)
	entry.Context[bus.KeyUtteranceID] = "n1"
	entry.Context[ContextASR] = map[string]any{"scores": []any{0.6, 0.8}, "pass": "open"}
	round := pipeline.Round{Utterances: []string{"play time is it", "what time is it"}, Lang: "en-US", Session: session.Empty(), Entry: entry}
	rec, err := r.stack.Recognize(context.Background(), Query{Hypotheses: Hypotheses(round), Lang: "en-US", Session: session.Empty()})
	require.NoError(t, err)
	require.Len(t, rec.Candidates, 2)
	best := rec.Candidates[0]
	assert.Equal(t, "clock:time", best.SkillID+":"+best.IntentName, "a sure intent on a likely hypothesis beats free text on the likeliest")
	assert.Equal(t, 1, best.Hypothesis)
	assert.InDelta(t, best.Confidence*0.8, best.Score, 1e-9)
	assert.Equal(t, 0.8, best.Acoustic)
	second := rec.Candidates[1]
	assert.Equal(t, "music:play", second.SkillID+":"+second.IntentName)
	assert.InDelta(t, second.Confidence*0.6, second.Score, 1e-9)

	m, err := r.stack.Band(BandMedium).MatchRound(context.Background(), round)
	require.NoError(t, err)
	require.NotNil(t, m, "0.97 × 0.8 is a medium score")
	assert.Equal(t, "what time is it", m.Utterance)

	entry.Context[ContextASR] = map[string]any{"scores": []any{0.6}, "pass": "open"}
	assert.Equal(t, Texts("play time is it", "what time is it"), Hypotheses(round),
		"scores for another list than the round's are unknown")

	hyps := make([]Hypothesis, MaxHypotheses+3)
	for i := range hyps {
		hyps[i].Text = "what time is it"
	}
	rec, err = r.stack.Recognize(context.Background(), Query{Hypotheses: hyps, Lang: "en-US", Session: session.Empty()})
	require.NoError(t, err)
	assert.Len(t, rec.Hypotheses, MaxHypotheses, "a longer n-best is cut")
}

// TestStackAdmissibility_PIPE14_CTX11: the stack offers only what the
// orchestrator would dispatch: a denylisted intent (PIPE-14) or one whose
// context rules fail (CTX-11, CTX-12) gives way to the next candidate.
func TestStackAdmissibility_PIPE14_CTX11(t *testing.T) {
	r := newStackRig(t, false)
	r.register(t,
		templateReg("pizza", "add_topping", map[string]any{"requires_context": []any{"ordering"}}, "add {topping}"),
		templateReg("shopping", "add", nil, "add {item}", "add {item} to my list"))
	claim := func(s session.Session) string {
		m, _, _, err := r.stack.Claim(context.Background(), Query{Hypotheses: Texts("add cheese"), Lang: "en-US", Session: s})
		require.NoError(t, err)
		if m == nil {
			return ""
		}
		return m.SkillID + ":" + m.IntentName
	}
	assert.Equal(t, "shopping:add", claim(session.Empty()), "CTX-11: pizza needs its context")
	ordering := sess(t, map[string]any{"session_id": "k", "intent_context": map[string]any{"pizza:ordering": map[string]any{"value": nil}}})
	assert.Equal(t, "pizza:add_topping", claim(ordering), "with it, the tie goes to pizza by name")
	denied := sess(t, map[string]any{"session_id": "k", "blacklisted_intents": []any{"pizza:add_topping"},
		"intent_context": map[string]any{"pizza:ordering": map[string]any{"value": nil}}})
	assert.Equal(t, "shopping:add", claim(denied), "PIPE-14")
	noSkills := sess(t, map[string]any{"session_id": "k", "blacklisted_skills": []any{"shopping"}})
	assert.Equal(t, "", claim(noSkills))
}

// TestServiceRules_CTX13_PIPE15: the registration service is the one
// reader of the registration topics; the orchestrator asks it for each
// intent's context rules, slot names and required slots.
func TestServiceRules_CTX13_PIPE15(t *testing.T) {
	r := newStackRig(t, false)
	r.register(t,
		templateReg("pizza", "add_topping", map[string]any{"requires_context": []any{"ordering", map[string]any{"key": "menu", "scope": "shared"}},
			"excludes_context": []any{"paid"}, "required_slots": []any{"size"}}, "add {topping} [in {number:size}]", "broken (template"),
		templateReg("pizza", "bad", map[string]any{"requires_context": []any{"x"}, "excludes_context": []any{"x"}}, "bad {thing}"),
		keywordReg("weather", "now", "weather", "today"),
		// A sample that parses but does not compile (adjacent slots,
		// GRM-07) still declares its slots.
		templateReg("music", "play", nil, "play {song} by {artist}", "play {album} {song}", "play [the] album {album}"))
	rules := r.stack.Rules()
	require.NotNil(t, rules)
	play := rules.IntentRules("", "music", "play")
	require.Len(t, play, 1)
	assert.Equal(t, []string{"artist", "song", "album"}, play[0].Slots, "in the samples' order")
	got := rules.IntentRules("k", "pizza", "add_topping")
	require.Len(t, got, 1)
	assert.Equal(t, pipeline.IntentRule{Lang: "en-us", Method: MethodTemplate,
		Requires: []session.ContextRef{{Key: "ordering"}, {Key: "menu", Shared: true}}, Excludes: []session.ContextRef{{Key: "paid"}},
		Slots: []string{"size", "topping"}, Required: []string{"size"}}, got[0])
	bad := rules.IntentRules("", "pizza", "bad")
	require.Len(t, bad, 1)
	assert.ErrorContains(t, bad[0].Bad, "both required and excluded (CTX-12)")
	kw := rules.IntentRules("", "weather", "now")
	require.Len(t, kw, 1)
	assert.Equal(t, []string{"weather", "today"}, kw[0].Slots, "a keyword intent's vocabularies")
	assert.Empty(t, rules.IntentRules("", "nobody", "nothing"))

	var none *Stack
	none, err := NewStack(StackConfig{Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	assert.Nil(t, none.Rules(), "without a bus there is no service and no rules")
}

// TestStackIntentsList_PIPE31: every band lists the stack's enabled intents
// of both methods in the session's pool.
func TestStackIntentsList_PIPE31(t *testing.T) {
	r := newStackRig(t, false)
	kitchen := templateReg("k", "oven", nil, "preheat the oven")
	kitchen.Context[bus.KeySession] = map[string]any{"session_id": "kitchen"}
	r.register(t, templateReg("s", "on", nil, "turn on the light"), templateReg("s", "off", nil, "turn off the light"),
		kitchen, keywordReg("weather", "now", "weather"))
	require.Equal(t, 1, r.stack.Templates.SetEnabled("", "s", "off", "en-US", false))
	for _, b := range r.stack.Bands() {
		assert.Equal(t, []pipeline.IntentRef{{SkillID: "s", IntentName: "on", Lang: "en-us"}, {SkillID: "weather", IntentName: "now", Lang: "en-us"}},
			b.Intents("hall"), "%s: default pool, disabled intents left out", b.ID())
		assert.Len(t, b.Intents("kitchen"), 3, "%s: the session's own scope too", b.ID())
	}
}

// TestStackExplains: with Explain, a claim says how it was made and why it
// beat the runner-up.
func TestStackExplains(t *testing.T) {
	r := newStackRig(t, true)
	r.register(t, templateReg("radio", "tune", map[string]any{}, "play {station} radio"), templateReg("music", "play", nil, "play {song}"))
	m, band, rec, err := r.stack.Claim(context.Background(), Query{Hypotheses: Texts("play jazz radio"), Lang: "en-US",
		Session: session.Empty(), Limit: 3, Explain: true})
	require.NoError(t, err)
	require.NotNil(t, m)
	assert.Equal(t, BandHigh, band)
	assert.Len(t, rec.Candidates, 2)
	assert.Contains(t, m.Why, `template "play {station} radio"`)
	assert.Contains(t, m.Why, "beat music:play")
}

// TestStackHonoursRegistrationChanges_REG15: the bands stop and start
// claiming as deregister, disable and enable say.
func TestStackHonoursRegistrationChanges_REG15(t *testing.T) {
	r := newStackRig(t, false)
	claims := func(u string) bool {
		m, _, _, err := r.stack.Claim(context.Background(), Query{Hypotheses: Texts(u), Lang: "en-US", Session: session.Empty()})
		require.NoError(t, err)
		return m != nil
	}
	key := map[string]any{"skill_id": "s", "intent_name": "hi"}
	r.register(t, templateReg("s", "hi", nil, "hello there"))
	require.True(t, claims("hello there"))
	require.True(t, claims("please hello there"), "skip words too")
	r.register(t, bus.NewMessage(TopicDisable, key))
	assert.False(t, claims("hello there"))
	r.register(t, bus.NewMessage(TopicEnable, key))
	assert.True(t, claims("hello there"))
	r.register(t, bus.NewMessage(TopicDeregister, key))
	assert.False(t, claims("hello there"))
	assert.False(t, claims("please hello there"))
}

// TestStackGeneration: the generation moves on at a registration and at
// the learning that follows, and stands still while nothing changes, so
// that an answer remembered under it (the speech recogniser's meanings)
// is dropped once the skills' intents change.
func TestStackGeneration(t *testing.T) {
	r := newStackRig(t, false)
	ctx := context.Background()
	require.NoError(t, r.stack.Learn(ctx))
	before := r.stack.Generation()
	require.NoError(t, r.stack.Learn(ctx))
	assert.Equal(t, before, r.stack.Generation(), "nothing changed")

	r.register(t, templateReg("clock", "time", nil, "what time is it"))
	registered := r.stack.Generation()
	assert.Greater(t, registered, before, "a registration")
	require.NoError(t, r.stack.Learn(ctx))
	learnt := r.stack.Generation()
	assert.GreaterOrEqual(t, learnt, registered)
	require.NoError(t, r.stack.Learn(ctx))
	assert.Equal(t, learnt, r.stack.Generation(), "learnt already")
}
