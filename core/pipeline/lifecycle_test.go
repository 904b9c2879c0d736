package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/session"
)

// tf is a scripted transformer for every chain.
type tf struct {
	id   string
	prio int
	fn   func(c map[string]any)
	utt  func([]string) []string
	m    func(*Match)
	err  error
	hit  atomic.Int32
}

func (t *tf) ID() string    { return t.id }
func (t *tf) Priority() int { return t.prio }
func (t *tf) apply(c map[string]any) error {
	t.hit.Add(1)
	if t.fn != nil {
		t.fn(c)
	}
	return t.err
}
func (t *tf) TransformUtterances(_ context.Context, in Utterances) (Utterances, error) {
	err := t.apply(in.Context)
	if t.utt != nil {
		in.Utterances = t.utt(in.Utterances)
	}
	return in, err
}
func (t *tf) TransformMetadata(_ context.Context, c map[string]any) (map[string]any, error) {
	return c, t.apply(c)
}
func (t *tf) TransformIntent(_ context.Context, in Intent) (Intent, error) {
	err := t.apply(in.Context)
	if t.m != nil {
		t.m(&in.Match)
	}
	return in, err
}
func (t *tf) TransformDialog(_ context.Context, in Dialog) (Dialog, error) {
	err := t.apply(in.Context)
	in.Utterance += "!"
	in.Lang = ""
	return in, err
}
func (t *tf) TransformTTS(_ context.Context, in Audio) (Audio, error) {
	err := t.apply(in.Context)
	in.Audio = append(in.Audio, 0xff)
	return in, err
}

func cancelWith(reason string) func(map[string]any) {
	return func(c map[string]any) {
		c[KeyCanceled] = true
		c[KeyCancelReason] = reason
		c[KeyCancelBy] = "forged" // TRF-12: the orchestrator ignores this
	}
}

func hi() *scripted {
	return &scripted{id: "a", match: &Match{SkillID: "s", IntentName: "i", Slots: map[string]string{}}}
}

func mustTransformers(t *testing.T, cfg TransformersConfig) *Transformers {
	t.Helper()
	tr, err := NewTransformers(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, tr.Close(context.Background())) })
	return tr
}

func TestCancellation_SequenceE_TRF12(t *testing.T) {
	tests := []struct {
		name  string
		cfg   TransformersConfig
		calls int // match calls expected
	}{
		{"utterance chain", TransformersConfig{Utterance: []UtteranceTransformer{&tf{id: "stopword", fn: cancelWith("stop_word")}}}, 0},
		{"metadata chain", TransformersConfig{Metadata: []MetadataTransformer{&tf{id: "stopword", fn: cancelWith("stop_word")}}}, 0},
		{"intent chain", TransformersConfig{Intent: []IntentTransformer{&tf{id: "stopword", fn: cancelWith("stop_word")}}}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := hi()
			r := newRig(t, Config{Plugins: []Plugin{p}, Transformers: mustTransformers(t, tt.cfg)})
			r.utter(t, hello(), nil)
			msgs := r.rec.waitHandled(t, 1)
			assert.Equal(t, []string{TopicHandle, TopicCancelled, TopicHandled}, topics(msgs), "§13.E: no unmatched, matched or dispatch")
			for _, m := range msgs[1:] {
				assert.Equal(t, true, m.Context[KeyCanceled], m.Type)
				assert.Equal(t, "stop_word", m.Context[KeyCancelReason], m.Type)
				assert.Equal(t, "stopword", m.Context[KeyCancelBy], "%s: cancel_by from the orchestrator's knowledge", m.Type)
			}
			assert.Equal(t, tt.calls, p.calls)
		})
	}
}

func TestEntryCannotCancel_TRF12(t *testing.T) {
	r := newRig(t, Config{Plugins: []Plugin{hi()}})
	r.utter(t, hello(), map[string]any{KeyCanceled: true, KeyCancelReason: "other"})
	msgs := r.rec.waitHandled(t, 1)
	assert.Contains(t, topics(msgs), "s:i", "no topic lets a third party cancel")
	assert.NotContains(t, msgs[1].Context, KeyCanceled)
}

func TestTransformerChain_TRF02_TRF03_TRF08_TRF11(t *testing.T) {
	var order []string
	var mu sync.Mutex
	rec := func(id string) func(map[string]any) {
		return func(map[string]any) { mu.Lock(); order = append(order, id); mu.Unlock() }
	}
	late := &tf{id: "late", prio: 90, fn: rec("late"), utt: func(u []string) []string { return append(u, "late") }}
	early := &tf{id: "early", prio: 1, fn: rec("early"), utt: func(u []string) []string { return []string{"rewritten"} }}
	broken := &tf{id: "broken", prio: 50, fn: func(c map[string]any) { rec("broken")(c); c["junk"] = true }, err: errors.New("boom")}
	half := &tf{id: "half", prio: 60, fn: func(c map[string]any) { rec("half")(c); c[KeyCanceled] = true }}
	quiet := &tf{id: "quiet", prio: 70, fn: rec("quiet")}
	p := &scripted{id: "a", match: &Match{SkillID: "s", IntentName: "i", Slots: map[string]string{}}}
	var got []string
	var gotMu sync.Mutex
	r := newRig(t, Config{Plugins: []Plugin{p}, Transformers: mustTransformers(t, TransformersConfig{
		Utterance: []UtteranceTransformer{late, broken, early, half, quiet}}),
		Invoker: handlerFunc(func(_ context.Context, d Dispatch) (session.Session, error) {
			gotMu.Lock()
			got = append(got, d.Utterance)
			gotMu.Unlock()
			return session.Session{}, nil
		})})
	r.utter(t, hello(), nil)
	msgs := r.rec.waitHandled(t, 1)
	assert.Equal(t, []string{"early", "broken", "half", "quiet", "late"}, order, "TRF-08: ascending priority; TRF-02: every one runs")
	assert.Equal(t, []string{"rewritten"}, got, "TRF-02: each output feeds the next")
	d := msgs[2]
	assert.Equal(t, []any{"early", "late"}, d.Context["utterance_transformer_ids"],
		"TRF-03: ids of the transformers that changed something, in order; unchanged ones append nothing")
	assert.NotContains(t, d.Context, "junk", "TRF-11: a raising transformer's output is discarded")
	assert.NotContains(t, d.Context, KeyCanceled, "TRF-12: one cancel key alone is a shape violation, ignored")
	assert.Equal(t, "rewritten", d.Data["utterance"])
}

func TestTransformerComposition_TRF09(t *testing.T) {
	var order []string
	var mu sync.Mutex
	mk := func(id string, prio int) *tf {
		return &tf{id: id, prio: prio, fn: func(map[string]any) { mu.Lock(); order = append(order, id); mu.Unlock() }}
	}
	tr := mustTransformers(t, TransformersConfig{Metadata: []MetadataTransformer{mk("a", 1), mk("b", 2), mk("c", 3)},
		Order: map[ChainType][]string{ChainMetadata: {"c", "a"}}})
	tests := []struct {
		name string
		sess map[string]any
		want []string
	}{
		{"deployer order overrides priority and omits b", nil, []string{"c", "a"}},
		{"session preference; unknown ids skipped", map[string]any{"session_id": "x", "metadata_transformers": []any{"b", "nope", "a", "b"}}, []string{"b", "a"}},
		{"session policy", map[string]any{"session_id": "x", "blacklisted_metadata_transformers": []any{"c"}}, []string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			order = nil
			r := newRig(t, Config{Plugins: []Plugin{hi()}, Transformers: tr})
			c := map[string]any{}
			if tt.sess != nil {
				c["session"] = tt.sess
			}
			r.utter(t, hello(), c)
			r.rec.waitHandled(t, 1)
			mu.Lock()
			defer mu.Unlock()
			assert.Equal(t, tt.want, order)
		})
	}
	_, err := NewTransformers(TransformersConfig{Metadata: []MetadataTransformer{mk("a", 1)}, Order: map[ChainType][]string{ChainMetadata: {"zz"}}})
	assert.ErrorContains(t, err, `"zz", which is not loaded`)
	_, err = NewTransformers(TransformersConfig{Metadata: []MetadataTransformer{mk("a", 1), mk("a", 2)}})
	assert.ErrorContains(t, err, "TRF-01")
	_, err = NewTransformers(TransformersConfig{Metadata: []MetadataTransformer{mk("a:b", 1)}})
	assert.ErrorContains(t, err, "TRF-01")
}

func TestMetadataReroutes_PIPE13(t *testing.T) {
	reroute := &tf{id: "kids", fn: func(c map[string]any) {
		s, _ := c["session"].(map[string]any)
		s["pipeline"] = []any{"b"}
	}}
	r := newRig(t, Config{
		Plugins:      []Plugin{hi(), &scripted{id: "b", match: &Match{SkillID: "kids", IntentName: "story", Slots: map[string]string{}}}},
		Transformers: mustTransformers(t, TransformersConfig{Metadata: []MetadataTransformer{reroute}})})
	r.utter(t, hello(), nil)
	msgs := r.rec.waitHandled(t, 1)
	assert.Equal(t, "kids:story", msgs[2].Type, "the pipeline is composed after the metadata chain")
}

func TestIntentChain_TRF07(t *testing.T) {
	add := &tf{id: "add", prio: 1, m: func(m *Match) { m.Slots["extra"] = "yes" }}
	hijack := &tf{id: "hijack", prio: 2, m: func(m *Match) { m.SkillID = "ads"; m.Slots["bad"] = "x" }}
	r := newRig(t, Config{Plugins: []Plugin{hi()},
		Transformers: mustTransformers(t, TransformersConfig{Intent: []IntentTransformer{add, hijack}})})
	r.utter(t, hello(), nil)
	msgs := r.rec.waitHandled(t, 1)
	assert.Equal(t, "s:i", msgs[2].Type, "a changed skill_id discards that transformer's output")
	assert.Equal(t, map[string]any{"extra": "yes"}, msgs[1].Data["slots"], "matched shows the Match as dispatched")
	assert.Equal(t, []any{"add"}, msgs[2].Context["intent_transformer_ids"])
}

func TestTransformerList_TRF10(t *testing.T) {
	r := newRig(t, Config{Plugins: []Plugin{hi()},
		Transformers: mustTransformers(t, TransformersConfig{Utterance: []UtteranceTransformer{&tf{id: "x", prio: 7}, &tf{id: "y", prio: 3}}})})
	for _, typ := range []string{"utterance", "dialog"} {
		require.NoError(t, r.bus.Publish(context.Background(), bus.NewMessage("ovos.transformer."+typ+".list", nil)))
	}
	want := map[string]map[string]any{
		"ovos.transformer.utterance.list.response": {"loaded": []any{"y", "x"}, "priorities": map[string]any{"x": int64(7), "y": int64(3)}},
		"ovos.transformer.dialog.list.response":    {"loaded": []any{}, "priorities": map[string]any{}},
	}
	got := r.rec.waitFor(t, func(m bus.Message) bool { _, ok := want[m.Type]; return ok }, 2)
	for _, m := range got {
		assert.Equal(t, want[m.Type], m.Data, m.Type)
	}
}

func TestOutputChains_TRF04(t *testing.T) {
	tr := mustTransformers(t, TransformersConfig{Dialog: []DialogTransformer{&tf{id: "excite"}}, TTS: []TTSTransformer{&tf{id: "louder"}}})
	speak := bus.Message{Type: TopicSpeak, Data: map[string]any{"utterance": "hi", "lang": "en-US"},
		Context: map[string]any{"session": map[string]any{"session_id": "k"}}}
	out, c, err := tr.RunDialog(context.Background(), speak)
	require.NoError(t, err)
	assert.Nil(t, c)
	assert.Equal(t, "hi!", out.Data["utterance"])
	assert.NotContains(t, out.Data, "lang", "TRF-04: a lang that ends None after being present is removed")
	assert.Equal(t, []any{"excite"}, out.Context["dialog_transformer_ids"])

	blocked := bus.Message{Type: TopicSpeak, Data: map[string]any{"utterance": "hi"},
		Context: map[string]any{"session": map[string]any{"blacklisted_dialog_transformers": []any{"excite"}}}}
	out, _, err = tr.RunDialog(context.Background(), blocked)
	require.NoError(t, err)
	assert.Equal(t, "hi", out.Data["utterance"], "TRF-09: session policy applies to the dialog chain too")

	a, c, err := tr.RunTTS(context.Background(), []byte{1}, "en-US", speak)
	require.NoError(t, err)
	assert.Nil(t, c)
	assert.Equal(t, []byte{1, 0xff}, a.Audio)

	_, _, err = tr.RunDialog(context.Background(), bus.NewMessage(TopicSpeak, nil))
	assert.ErrorContains(t, err, "data.utterance")
}

func TestSlowOrPanickingTransformer_TRF11(t *testing.T) {
	slow := &tf{id: "slow", prio: 1}
	slowT := slowTransformer{tf: slow, d: time.Hour}
	panicky := panicTransformer{id: "panicky"}
	tr, err := NewTransformers(TransformersConfig{Metadata: []MetadataTransformer{slowT, panicky}, Timeout: 20 * time.Millisecond})
	require.NoError(t, err)
	r := newRig(t, Config{Plugins: []Plugin{hi()}, Transformers: tr})
	r.utter(t, hello(), nil)
	msgs := r.rec.waitHandled(t, 1)
	assert.Contains(t, topics(msgs), "s:i", "a hung or panicking transformer passes its input on")
	require.NoError(t, tr.Close(context.Background()), "a transformer honouring its context is waited for")
}

type slowTransformer struct {
	*tf
	d time.Duration
}

func (s slowTransformer) TransformMetadata(ctx context.Context, c map[string]any) (map[string]any, error) {
	select {
	case <-time.After(s.d):
	case <-ctx.Done():
	}
	return c, ctx.Err()
}

type panicTransformer struct{ id string }

func (p panicTransformer) ID() string    { return p.id }
func (p panicTransformer) Priority() int { return 2 }
func (p panicTransformer) TransformMetadata(context.Context, map[string]any) (map[string]any, error) {
	panic("transformer bug")
}

func TestContextDecayAndGating_CTX06_CTX11_CTX13_PIPE15(t *testing.T) {
	// add_topping needs the private key pizza:ordering and declares {topping}
	// and a required {size}; the plugin matches without slots.
	add := &scripted{id: "a", match: &Match{SkillID: "pizza", IntentName: "add_topping", Slots: map[string]string{}}}
	help := &scripted{id: "b", match: &Match{SkillID: "help", IntentName: "explain", Slots: map[string]string{}}}
	r := newRig(t, Config{Plugins: []Plugin{add, help}})
	reg := bus.NewMessage(topicRegisterTemplate, map[string]any{"skill_id": "pizza", "intent_name": "add_topping", "lang": "en-US",
		"samples": []any{"add {topping} [in {size:size}]"}, "requires_context": []any{"ordering"}, "required_slots": []any{"size"}})
	require.NoError(t, r.bus.Publish(context.Background(), reg))

	named := func(ctx map[string]any) map[string]any {
		return map[string]any{"session": map[string]any{"session_id": "k", "intent_context": ctx}}
	}
	tests := []struct {
		name      string
		ctx       map[string]any
		wantTopic string
		wantSlots map[string]any
		wantCtx   map[string]any
	}{
		{"required key missing: gated out (CTX-11)", map[string]any{"size": map[string]any{"value": "large"}},
			"help:explain", map[string]any{}, map[string]any{"size": map[string]any{"value": "large"}}},
		{"key present; slots from context, private beats shared (CTX-13)", map[string]any{
			"pizza:ordering": map[string]any{"value": nil, "turns_remaining": int64(2)},
			"topping":        map[string]any{"value": "cheese"}, "pizza:topping": map[string]any{"value": "ham"},
			"size": map[string]any{"value": "large"}},
			"pizza:add_topping", map[string]any{"topping": "ham", "size": "large"},
			map[string]any{"pizza:ordering": map[string]any{"value": nil, "turns_remaining": int64(1)},
				"topping": map[string]any{"value": "cheese"}, "pizza:topping": map[string]any{"value": "ham"}, "size": map[string]any{"value": "large"}}},
		{"required slot unbound: declined (PIPE-15)", map[string]any{"pizza:ordering": map[string]any{"value": nil}},
			"help:explain", map[string]any{}, map[string]any{"pizza:ordering": map[string]any{"value": nil}}},
		{"dead on arrival is pruned before the round (CTX-06)", map[string]any{
			"pizza:ordering": map[string]any{"value": nil, "turns_remaining": int64(0)}, "size": map[string]any{"value": "s"}},
			"help:explain", map[string]any{}, map[string]any{"size": map[string]any{"value": "s"}}},
		{"one turn left: lives for this round, leaves it at 0 (CTX-06)", map[string]any{
			"pizza:ordering": map[string]any{"value": nil, "turns_remaining": int64(1)}, "size": map[string]any{"value": "s"}},
			"pizza:add_topping", map[string]any{"size": "s"}, map[string]any{
				"pizza:ordering": map[string]any{"value": nil, "turns_remaining": int64(0)}, "size": map[string]any{"value": "s"}}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r.utter(t, hello(), named(tt.ctx))
			msgs := r.rec.waitHandled(t, 1)
			var lifecycle []bus.Message
			for _, m := range msgs {
				if m.ContextString(bus.KeyUtteranceID) != "" {
					lifecycle = append(lifecycle, m)
				}
			}
			lifecycle = lastLifecycle(lifecycle)
			require.Equal(t, tt.wantTopic, lifecycle[1].Type, "case %d", i)
			assert.Equal(t, tt.wantSlots, lifecycle[1].Data["slots"])
			sess := lifecycle[len(lifecycle)-1].Context["session"].(map[string]any)
			assert.Equal(t, tt.wantCtx, sess["intent_context"], "CTX-06: after the round every non-null turns_remaining lost one")
		})
	}
}

// contextSpy is a plugin that records the intent_context of every session
// it is asked about, and matches pizza:order when matched is set.
type contextSpy struct {
	matched bool
	mu      sync.Mutex
	seen    []map[string]any
}

func (p *contextSpy) ID() string { return "a" }
func (p *contextSpy) Match(_ context.Context, _ []string, _ string, s session.Session) (*Match, error) {
	ic, _ := s.Map()["intent_context"].(map[string]any)
	p.mu.Lock()
	p.seen = append(p.seen, ic)
	p.mu.Unlock()
	if !p.matched {
		return nil, nil
	}
	return &Match{SkillID: "pizza", IntentName: "order", Slots: map[string]string{}}, nil
}

func (p *contextSpy) contexts() []map[string]any {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]map[string]any(nil), p.seen...)
}

// TestContextAtZeroStaysForTheRoundThenIsPruned_CTX06_CTX04: an entry
// whose last turn was this round goes out at turns_remaining 0 with this
// round's ovos.utterance.handled (matched or not), and the next round
// prunes it before any plugin sees it.
func TestContextAtZeroStaysForTheRoundThenIsPruned_CTX06_CTX04(t *testing.T) {
	for _, matched := range []bool{true, false} {
		t.Run(fmt.Sprint("matched=", matched), func(t *testing.T) {
			p := &contextSpy{matched: matched}
			r := newRig(t, Config{Plugins: []Plugin{p}})
			sess := map[string]any{"session_id": "k", "intent_context": map[string]any{
				"pizza:ordering": map[string]any{"value": nil, "turns_remaining": int64(1)},
				"size":           map[string]any{"value": "large"},
			}}
			r.utter(t, hello(), map[string]any{"session": sess})
			msgs := r.rec.waitHandled(t, 1)
			handled := msgs[len(msgs)-1]
			require.Equal(t, TopicHandled, handled.Type)
			out := handled.Context["session"].(map[string]any)
			assert.Equal(t, map[string]any{
				"pizza:ordering": map[string]any{"value": nil, "turns_remaining": int64(0)},
				"size":           map[string]any{"value": "large"},
			}, out["intent_context"], "handled carries the entry at 0")

			r.utter(t, hello(), map[string]any{"session": out})
			msgs = r.rec.waitHandled(t, 1)
			seen := p.contexts()
			require.Len(t, seen, 2)
			assert.Equal(t, map[string]any{"size": map[string]any{"value": "large"}}, seen[1], "pruned before the next round")
			out = msgs[len(msgs)-1].Context["session"].(map[string]any)
			assert.Equal(t, map[string]any{"size": map[string]any{"value": "large"}}, out["intent_context"])
		})
	}
}

// lastLifecycle returns the messages of the last utterance_id seen.
func lastLifecycle(msgs []bus.Message) []bus.Message {
	uid := msgs[len(msgs)-1].ContextString(bus.KeyUtteranceID)
	var out []bus.Message
	for _, m := range msgs {
		if m.ContextString(bus.KeyUtteranceID) == uid {
			out = append(out, m)
		}
	}
	return out
}

func TestNoDecayWhenCancelledBeforeTheRound_Open14_6(t *testing.T) {
	r := newRig(t, Config{Plugins: []Plugin{hi()}, Transformers: mustTransformers(t, TransformersConfig{
		Utterance: []UtteranceTransformer{&tf{id: "x", fn: cancelWith("other")}}})})
	ctx := map[string]any{"k": map[string]any{"value": "v", "turns_remaining": int64(1)}}
	r.utter(t, hello(), map[string]any{"session": map[string]any{"session_id": "n", "intent_context": ctx}})
	msgs := r.rec.waitHandled(t, 1)
	assert.Equal(t, ctx, msgs[2].Context["session"].(map[string]any)["intent_context"])
}

func TestDenylistsSurviveUpdatedSession_PIPE08(t *testing.T) {
	p := &scripted{id: "a", match: &Match{SkillID: "s", IntentName: "i", Slots: map[string]string{},
		UpdatedSession: map[string]any{"session_id": "k", "blacklisted_skills": []any{}, "note": "kept"}}}
	r := newRig(t, Config{Plugins: []Plugin{p}})
	r.utter(t, hello(), map[string]any{"session": map[string]any{"session_id": "k", "blacklisted_skills": []any{"evil"}}})
	msgs := r.rec.waitHandled(t, 1)
	s := msgs[2].Context["session"].(map[string]any)
	assert.Equal(t, []any{"evil"}, s["blacklisted_skills"], "the denylists are re-applied to a committed updated_session")
	assert.Equal(t, "kept", s["note"])
}

func TestPushes_PIPE19_CONV02(t *testing.T) {
	now := time.Unix(1000, 0)
	tests := []struct {
		intent, pid, skill string
		active, converse   []string
	}{
		{"play", "a", "music", []string{"music", "old"}, []string{"music", "old"}},
		{"stop", "a", "music", []string{"old"}, []string{"music", "old"}},
		{"converse", "a", "music", []string{"old"}, []string{"music", "old"}},
		{"fallback", "a", "music", []string{"music", "old"}, []string{"music", "old"}},
		{"global_stop", "a", "a", []string{"a", "old"}, []string{"old"}},
	}
	for _, tt := range tests {
		t.Run(tt.intent, func(t *testing.T) {
			r := newRig(t, Config{Now: func() time.Time { return now },
				Plugins: []Plugin{&scripted{id: tt.pid, match: &Match{SkillID: tt.skill, IntentName: tt.intent, Slots: map[string]string{}}}}})
			old := []any{map[string]any{"skill_id": "old", "activated_at": 5.0}}
			r.utter(t, hello(), map[string]any{"session": map[string]any{"session_id": "k", "active_handlers": old, "converse_handlers": old}})
			msgs := r.rec.waitHandled(t, 1)
			s, _, err := session.Parse(msgs[2].Context["session"])
			require.NoError(t, err)
			ids := func(l []session.HandlerEntry) []string {
				var out []string
				for _, e := range l {
					out = append(out, e.SkillID)
				}
				return out
			}
			assert.Equal(t, tt.active, ids(s.Handlers(session.FieldActiveHandlers)), "active_handlers")
			assert.Equal(t, tt.converse, ids(s.Handlers(session.FieldConverseHandlers)), "converse_handlers")
			if tt.active[0] == tt.skill {
				assert.Equal(t, 1000.0, s.Handlers(session.FieldActiveHandlers)[0].ActivatedAt, "activated_at on the orchestrator's clock")
			}
		})
	}
}

func TestSessionSync_SES2_05(t *testing.T) {
	var r *rig
	r = newRig(t, Config{Plugins: []Plugin{hi()}, Invoker: handlerFunc(func(ctx context.Context, d Dispatch) (session.Session, error) {
		s, _ := d.Session.With("mid", "synced")
		sync := d.Message.Forward(TopicSessionSync, map[string]any{"session": s.Map()})
		if err := r.bus.Publish(ctx, sync); err != nil {
			return session.Session{}, err
		}
		// The handler then ends with a session that never saw its own sync
		// field cleared by someone else: the store keeps what others did.
		return s, nil
	})})
	r.utter(t, hello(), nil)
	r.rec.waitHandled(t, 1)
	v, _ := r.o.DefaultSession().String("mid")
	assert.Equal(t, "synced", v)

	// A named session's sync is not stored; a sync outside a handler may not
	// write intent_context (CTX-07).
	require.NoError(t, r.bus.Publish(context.Background(), bus.NewMessage(TopicSessionSync, map[string]any{
		"session": map[string]any{"session_id": "other", "x": "y"}})))
	require.NoError(t, r.bus.Publish(context.Background(), bus.NewMessage(TopicSessionSync, map[string]any{
		"session": map[string]any{"lang": "pt-PT", "intent_context": map[string]any{"k": map[string]any{"value": "v"}}}})))
	r.utter(t, hello(), nil)
	msgs := r.rec.waitHandled(t, 1)
	s := msgs[len(msgs)-1].Context["session"].(map[string]any)
	assert.Equal(t, "pt-PT", s["lang"])
	assert.NotContains(t, s, "x")
	assert.NotContains(t, s, "intent_context")
}

func TestIntentsList_PIPE31(t *testing.T) {
	b := bus.New(bus.Options{})
	defer b.Close(context.Background())
	stop, err := NewStop(StopConfig{Bus: b})
	require.NoError(t, err)
	r := newRig(t, Config{Plugins: []Plugin{hi(), stop}})
	for _, q := range []bus.Message{
		bus.NewMessage("ovos.pipeline.a.intents.list", nil),
		bus.NewMessage("ovos.pipeline.stop.intents.list", map[string]any{"lang": "en", "unknown": 1}),
		bus.NewMessage("ovos.pipeline.stop.intents.list", map[string]any{"skill_id": "nobody"}),
		bus.NewMessage("ovos.pipeline.ghost.intents.list", nil),
		bus.NewMessage("ovos.pipeline.a.intents.list", nil), // answered after ghost would be
	} {
		q.Context[bus.KeySource] = "tester"
		require.NoError(t, r.bus.Publish(context.Background(), q))
	}
	got := r.rec.waitFor(t, func(m bus.Message) bool { return strings.HasSuffix(m.Type, ".response") }, 4)
	assert.Equal(t, map[string]any{"pipeline_id": "a", "intents": []any{}}, got[0].Data, "a plugin without a lister answers, even empty")
	assert.Equal(t, "tester", got[0].Context[bus.KeyDestination], "reply-derived")
	assert.Equal(t, map[string]any{"pipeline_id": "stop", "intents": []any{
		map[string]any{"skill_id": "stop", "intent_name": "global_stop", "lang": "en"}}}, got[1].Data)
	assert.Equal(t, []any{}, got[2].Data["intents"], "filters apply")
	assert.Equal(t, "ovos.pipeline.a.intents.list.response", got[3].Type,
		"silence = not loaded: the query after the unknown id is answered, the unknown one never")
}

func TestHundredsInFlight(t *testing.T) {
	// Every handler blocks until all of them are running at once: the test
	// only finishes if n lifecycles are truly in flight together, on n
	// sessions, without deadlock; each still ends with exactly one handled.
	const n = 400
	var running atomic.Int32
	all := make(chan struct{})
	r := newRig(t, Config{MaxInFlight: n,
		Plugins: []Plugin{hi()},
		Invoker: handlerFunc(func(ctx context.Context, d Dispatch) (session.Session, error) {
			if running.Add(1) == n {
				close(all)
			}
			select {
			case <-all:
			case <-ctx.Done():
				return session.Session{}, ctx.Err()
			}
			return d.Session.With("n", d.Utterance)
		})})
	for i := 0; i < n; i++ {
		r.utter(t, map[string]any{"utterances": []any{fmt.Sprint("u", i)}},
			map[string]any{"session": map[string]any{"session_id": fmt.Sprint("s", i)}})
	}
	msgs := r.rec.waitHandled(t, n)
	perUID := map[string][]string{}
	for _, m := range msgs {
		if uid := m.ContextString(bus.KeyUtteranceID); uid != "" {
			perUID[uid] = append(perUID[uid], m.Type)
		}
	}
	require.Len(t, perUID, n)
	for uid, ts := range perUID {
		assert.Equal(t, []string{TopicMatched, "s:i", TopicHandlerStart, TopicHandlerDone, TopicHandled}, ts, uid)
	}
}

func TestOverloadStillEndsEveryEntry_PIPE27(t *testing.T) {
	release := make(chan struct{})
	r := newRig(t, Config{MaxInFlight: 1, MaxQueued: 1, Plugins: []Plugin{hi()},
		Invoker: handlerFunc(func(ctx context.Context, d Dispatch) (session.Session, error) {
			<-release
			return session.Session{}, nil
		})})
	for i := 0; i < 3; i++ {
		r.utter(t, hello(), map[string]any{"n": int64(i)})
	}
	refused := r.rec.waitFor(t, func(m bus.Message) bool { return m.Type == TopicHandled }, 1)
	assert.Contains(t, refused[0].Data["error"], "overloaded")
	assert.NotEmpty(t, refused[0].ContextString(bus.KeyUtteranceID))
	close(release)
	msgs := r.rec.waitHandled(t, 3)
	n := 0
	for _, m := range msgs {
		if m.Type == TopicHandled {
			n++
		}
	}
	assert.Equal(t, 3, n, "one handled per entry, the queued one included")
}

func TestCloseReportsPluginIgnoringContext(t *testing.T) {
	b := bus.New(bus.Options{})
	defer b.Close(context.Background())
	stuck := make(chan struct{})
	p := &blocking{id: "a", release: stuck}
	o, err := New(Config{Bus: b, Defaults: session.Defaults{Lang: "en-US", Pipeline: []string{"a"}}, Plugins: []Plugin{p},
		MatchTimeout: 10 * time.Millisecond,
		Invoker:      handlerFunc(func(context.Context, Dispatch) (session.Session, error) { return session.Session{}, nil })})
	require.NoError(t, err)
	require.NoError(t, o.Start())
	handled := make(chan struct{}, 1)
	sub, err := b.Subscribe(TopicHandled, func(context.Context, bus.Message) { handled <- struct{}{} })
	require.NoError(t, err)
	defer sub.Close()
	require.NoError(t, b.Publish(context.Background(), bus.NewMessage(TopicHandle, hello())))
	<-handled // the pipeline was not stalled by the plugin
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	assert.ErrorContains(t, o.Close(ctx), "ignores its cancelled context")
	close(stuck)
}

// blocking is a plugin that ignores its context until released.
type blocking struct {
	id      string
	release chan struct{}
}

func (p *blocking) ID() string { return p.id }
func (p *blocking) Match(context.Context, []string, string, session.Session) (*Match, error) {
	<-p.release
	return nil, nil
}

func TestHandlerReturningGarbage_PIPE27(t *testing.T) {
	r := newRig(t, Config{Plugins: []Plugin{hi()}, Invoker: handlerFunc(func(context.Context, Dispatch) (session.Session, error) {
		other, _ := session.Empty().With(session.FieldSessionID, "someone-else")
		return other, nil
	})})
	r.utter(t, hello(), map[string]any{"session": map[string]any{"session_id": "mine"}})
	msgs := r.rec.waitHandled(t, 1)
	assert.Equal(t, []string{TopicHandle, TopicMatched, "s:i", TopicHandlerStart, TopicHandlerDone, TopicHandled}, topics(msgs))
	assert.Equal(t, "mine", msgs[5].Context["session"].(map[string]any)["session_id"], "a session for another session_id is ignored")
}

// gate is a listener that holds the orchestrator's subscription on its
// first message until released.
type gate struct {
	once    sync.Once
	held    chan struct{}
	release chan struct{}
}

func (g *gate) Topics() []string { return []string{TopicHandle} }
func (g *gate) Receive(ctx context.Context, _ bus.Message) {
	g.once.Do(func() {
		close(g.held)
		select {
		case <-g.release:
		case <-ctx.Done():
		}
	})
}

// An entry the orchestrator's full queue drops still ends with exactly one
// ovos.utterance.handled saying why (PIPE-27), so a burst is never silent.
func TestQueueOverflowStillEndsEveryEntry_PIPE27(t *testing.T) {
	g := &gate{held: make(chan struct{}), release: make(chan struct{})}
	r := newRig(t, Config{QueueLen: 1, Plugins: []Plugin{hi()}, Listeners: []Listener{g},
		Invoker: handlerFunc(func(ctx context.Context, d Dispatch) (session.Session, error) {
			return session.Session{}, nil
		})})
	r.utter(t, hello(), map[string]any{"n": int64(0)})
	<-g.held
	for i := 1; i < 4; i++ { // one fits the queue, two are dropped
		r.utter(t, hello(), map[string]any{"n": int64(i)})
	}
	refused := r.rec.waitFor(t, func(m bus.Message) bool {
		return m.Type == TopicHandled && m.Data["error"] != nil
	}, 2)
	for _, m := range refused {
		assert.Contains(t, m.Data["error"], "queue of 1 messages is full")
		assert.NotEmpty(t, m.ContextString(bus.KeyUtteranceID))
	}
	close(g.release)
	msgs := r.rec.waitFor(t, func(m bus.Message) bool { return m.Type == TopicHandled }, 4)
	perN := map[any]int{}
	for _, m := range msgs {
		perN[m.Context["n"]]++
	}
	assert.Equal(t, map[any]int{int64(0): 1, int64(1): 1, int64(2): 1, int64(3): 1}, perN, "one handled per entry")
}
