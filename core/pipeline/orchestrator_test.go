package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/session"
)

func TestMain(m *testing.M) {
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	os.Exit(m.Run())
}

// scripted is a plugin with a fixed answer.
type scripted struct {
	id    string
	match *Match
	err   error
	panic bool
	delay time.Duration
	// ignoreCtx makes the delay sleep through a cancelled context.
	ignoreCtx bool
	calls     int
	mu        sync.Mutex
}

func (p *scripted) ID() string { return p.id }
func (p *scripted) Match(ctx context.Context, u []string, lang string, _ session.Session) (*Match, error) {
	p.mu.Lock()
	p.calls++
	perr := p.err
	p.mu.Unlock()
	if p.panic {
		panic("plugin bug")
	}
	if p.delay > 0 && p.ignoreCtx {
		time.Sleep(p.delay)
	} else if p.delay > 0 {
		select {
		case <-time.After(p.delay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if p.match == nil {
		return nil, perr
	}
	m := *p.match
	if m.Utterance == "" {
		m.Utterance = u[0]
	}
	if m.Lang == "" {
		m.Lang = lang
	}
	return &m, perr
}

// handlerFunc adapts a function to Invoker.
type handlerFunc func(ctx context.Context, d Dispatch) (session.Session, error)

func (f handlerFunc) Invoke(ctx context.Context, d Dispatch) (session.Session, error) {
	return f(ctx, d)
}

// recorder keeps every bus message in order.
type recorder struct {
	mu      sync.Mutex
	msgs    []bus.Message
	handled chan struct{}
}

func (r *recorder) handle(_ context.Context, m bus.Message) {
	r.mu.Lock()
	r.msgs = append(r.msgs, m)
	r.mu.Unlock()
	if m.Type == TopicHandled {
		r.handled <- struct{}{}
	}
}

func (r *recorder) waitHandled(t *testing.T, n int) []bus.Message {
	t.Helper()
	for i := 0; i < n; i++ {
		select {
		case <-r.handled:
		case <-time.After(10 * time.Second):
			t.Fatalf("waited for %d handled, got %d", n, i)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]bus.Message(nil), r.msgs...)
}

// matching returns the recorded messages pred accepts.
func (r *recorder) matching(pred func(bus.Message) bool) []bus.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []bus.Message
	for _, m := range r.msgs {
		if pred(m) {
			out = append(out, m)
		}
	}
	return out
}

// waitFor waits until n recorded messages match pred and returns them.
func (r *recorder) waitFor(t *testing.T, pred func(bus.Message) bool, n int) []bus.Message {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := r.matching(pred)
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited for %d matching messages, got %d", n, len(got))
		}
		time.Sleep(time.Millisecond)
	}
}

func topics(msgs []bus.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Type)
	}
	return out
}

type rig struct {
	bus *bus.Bus
	o   *Orchestrator
	rec *recorder
}

func newRig(t *testing.T, cfg Config) *rig {
	t.Helper()
	b := bus.New(bus.Options{})
	rec := &recorder{handled: make(chan struct{}, 4096)}
	_, err := b.Subscribe("*", rec.handle, bus.WithQueue(8192, bus.Block))
	require.NoError(t, err)
	cfg.Bus = b
	if cfg.Defaults.Lang == "" {
		cfg.Defaults = session.Defaults{Lang: "en-US", Pipeline: []string{"a", "b"}}
	}
	if cfg.Invoker == nil {
		cfg.Invoker = handlerFunc(func(context.Context, Dispatch) (session.Session, error) { return session.Session{}, nil })
	}
	o, err := New(cfg)
	require.NoError(t, err)
	require.NoError(t, o.Start())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		assert.NoError(t, o.Close(ctx))
		assert.NoError(t, b.Close(ctx))
	})
	return &rig{bus: b, o: o, rec: rec}
}

func (r *rig) utter(t *testing.T, data, ctx map[string]any) {
	t.Helper()
	if ctx == nil {
		ctx = map[string]any{}
	}
	require.NoError(t, r.bus.Publish(context.Background(), bus.Message{Type: TopicHandle, Data: data, Context: ctx}))
}

func hello() map[string]any { return map[string]any{"utterances": []any{"hello"}} }

func TestMatchedCompletes_SequenceA(t *testing.T) {
	var got Dispatch
	r := newRig(t, Config{
		Plugins: []Plugin{&scripted{id: "a"}, &scripted{id: "b", match: &Match{SkillID: "greeter", IntentName: "hello", Slots: map[string]string{}}}},
		Invoker: handlerFunc(func(ctx context.Context, d Dispatch) (session.Session, error) {
			got = d
			return session.Session{}, nil
		}),
	})
	r.utter(t, hello(), map[string]any{"source": "console"})
	msgs := r.rec.waitHandled(t, 1)
	assert.Equal(t, []string{TopicHandle, TopicMatched, "greeter:hello", TopicHandlerStart, TopicHandlerDone, TopicHandled}, topics(msgs))

	uid := msgs[1].ContextString(bus.KeyUtteranceID)
	assert.NotEmpty(t, uid, "PIPE-02: utterance_id stamped")
	for _, m := range msgs[1:] {
		assert.Equal(t, uid, m.ContextString(bus.KeyUtteranceID), "PIPE-02: %s carries the utterance_id", m.Type)
	}
	matched := msgs[1]
	assert.Equal(t, map[string]any{"skill_id": "greeter", "intent_name": "hello", "lang": "en-US",
		"utterance": "hello", "slots": map[string]any{}, "pipeline_id": "b"}, matched.Data, "PIPE-25")
	assert.Nil(t, matched.Context[bus.KeyDestination], "PIPE-25: matched is a broadcast")

	d := msgs[2]
	assert.Equal(t, map[string]any{"lang": "en-US", "utterance": "hello", "slots": map[string]any{}}, d.Data, "PIPE-18")
	assert.Equal(t, "greeter", d.ContextString(bus.KeySkillID), "PIPE-18/REG-03: skill_id stamped")
	assert.Equal(t, "b", d.ContextString(bus.KeyPipelineID))
	assert.Equal(t, "console", d.Context[bus.KeyDestination], "PIPE-18: reply-derived, destination is the emitter")
	assert.Equal(t, map[string]any{"skill_id": "greeter", "intent_name": "hello"}, msgs[3].Data, "PIPE-23")
	assert.Equal(t, "greeter", got.SkillID)
	assert.Equal(t, "b", got.PipelineID)

	sess := msgs[5].Context[bus.KeySession].(map[string]any)
	ah := sess["active_handlers"].([]any)
	assert.Equal(t, "greeter", ah[0].(map[string]any)["skill_id"], "PIPE-19: matched skill pushed to the head")
}

// A match that continues its skill's conversation reaches the invoker
// marked so; the bus messages of the lifecycle are the same either way
// (PIPE-18, PIPE-25 know no such field).
func TestDispatchCarriesContinues(t *testing.T) {
	for _, continues := range []bool{false, true} {
		t.Run(fmt.Sprint("continues=", continues), func(t *testing.T) {
			got := make(chan Dispatch, 1)
			r := newRig(t, Config{
				Plugins: []Plugin{&scripted{id: "a", match: &Match{SkillID: "quiz", IntentName: "hub_match",
					Slots: map[string]string{}, Continues: continues}}},
				Invoker: handlerFunc(func(_ context.Context, d Dispatch) (session.Session, error) {
					got <- d
					return session.Session{}, nil
				}),
			})
			r.utter(t, hello(), nil)
			msgs := r.rec.waitHandled(t, 1)
			d := <-got
			assert.Equal(t, continues, d.Continues)
			assert.Equal(t, "hub_match", d.IntentName)
			assert.Equal(t, map[string]any{"skill_id": "quiz", "intent_name": "hub_match", "lang": "en-US",
				"utterance": "hello", "slots": map[string]any{}, "pipeline_id": "a"}, msgs[1].Data, "PIPE-25")
			assert.Equal(t, map[string]any{"lang": "en-US", "utterance": "hello", "slots": map[string]any{}}, msgs[2].Data, "PIPE-18")
		})
	}
}

// A match's After runs once its handler has returned without error,
// inside the trio (between handler.start and handler.complete, PIPE-23),
// with the handler's dispatch; speech it derives from the dispatch is
// part of the lifecycle. A failing handler runs no After, and a failing
// After leaves the handler's outcome as it was.
func TestMatchAfterRunsInsideTheTrio(t *testing.T) {
	tests := []struct {
		name       string
		handlerErr error
		afterErr   error
		want       []string
	}{
		{"after the handler", nil, nil, []string{TopicHandle, TopicMatched, "s:stop", TopicHandlerStart, TopicSpeak, TopicHandlerDone, TopicHandled}},
		{"its error is the handler's outcome no more", nil, errors.New("no voice"),
			[]string{TopicHandle, TopicMatched, "s:stop", TopicHandlerStart, TopicHandlerDone, TopicHandled}},
		{"not after a failed handler", errors.New("broken"), nil,
			[]string{TopicHandle, TopicMatched, "s:stop", TopicHandlerStart, TopicHandlerError, TopicHandled}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b *bus.Bus
			got := make(chan Dispatch, 1)
			r := newRig(t, Config{
				Plugins: []Plugin{&scripted{id: "a", match: &Match{SkillID: "s", IntentName: "stop", Slots: map[string]string{},
					After: func(ctx context.Context, d Dispatch) error {
						got <- d
						if tt.afterErr != nil {
							return tt.afterErr
						}
						return b.Publish(ctx, d.Message.Forward(TopicSpeak, map[string]any{"utterance": "still running"}))
					}}}},
				Invoker: handlerFunc(func(context.Context, Dispatch) (session.Session, error) { return session.Session{}, tt.handlerErr }),
			})
			b = r.bus
			r.utter(t, hello(), nil)
			msgs := r.rec.waitHandled(t, 1)
			assert.Equal(t, tt.want, topics(msgs))
			if tt.handlerErr == nil {
				d := <-got
				assert.Equal(t, "s", d.SkillID)
				assert.Equal(t, "hello", d.Utterance)
			} else {
				assert.Empty(t, got, "no After after a failed handler")
			}
		})
	}
}

func TestUnmatched_SequenceD(t *testing.T) {
	tests := []struct {
		name     string
		defaults session.Defaults
		plugins  []Plugin
		data     map[string]any
		sess     map[string]any
		wantLang bool
		wantErr  bool
	}{
		{"no plugin claims", session.Defaults{}, []Plugin{&scripted{id: "a"}, &scripted{id: "b"}}, hello(), nil, true, false},
		{"empty effective pipeline (PIPE-13)", session.Defaults{Lang: "en-US"}, []Plugin{&scripted{id: "a"}}, hello(), nil, true, false},
		{"every pipeline blacklisted (PIPE-13)", session.Defaults{}, []Plugin{&scripted{id: "a", match: &Match{SkillID: "s", IntentName: "i", Slots: map[string]string{}}}},
			hello(), map[string]any{"blacklisted_pipelines": []any{"a", "b"}}, true, false},
		{"every candidate filtered (PIPE-09)", session.Defaults{}, []Plugin{&scripted{id: "a", match: &Match{SkillID: "s", IntentName: "i", Slots: map[string]string{}}},
			&scripted{id: "b", match: &Match{SkillID: "t", IntentName: "j", Slots: map[string]string{}}}},
			hello(), map[string]any{"blacklisted_skills": []any{"s"}, "blacklisted_intents": []any{"t:j"}}, true, false},
		{"empty utterance list (PIPE-17)", session.Defaults{}, []Plugin{&scripted{id: "a"}}, map[string]any{"utterances": []any{}}, nil, false, false},
		{"utterances missing", session.Defaults{}, []Plugin{&scripted{id: "a"}}, map[string]any{}, nil, false, true},
		{"utterances wrong type", session.Defaults{}, []Plugin{&scripted{id: "a"}}, map[string]any{"utterances": "hello"}, nil, false, true},
		{"only an empty string", session.Defaults{}, []Plugin{&scripted{id: "a"}}, map[string]any{"utterances": []any{""}}, nil, false, true},
		// Issue 22 item 10: matched text reads as it looks.
		{"only control-character utterances", session.Defaults{}, []Plugin{&scripted{id: "a"}}, map[string]any{"utterances": []any{"stop\a", "play \u202egnos"}}, nil, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, Config{Defaults: tt.defaults, Plugins: tt.plugins})
			ctx := map[string]any{}
			if tt.sess != nil {
				ctx["session"] = tt.sess
			}
			r.utter(t, tt.data, ctx)
			msgs, denied := withoutTopic(r.rec.waitHandled(t, 1), TopicPolicyDenied)
			assert.Equal(t, []string{TopicHandle, TopicUnmatched, TopicHandled}, topics(msgs))
			if tt.name == "every candidate filtered (PIPE-09)" {
				// PIPE-32: each dropped candidate is reported, saying which list dropped it.
				require.Len(t, denied, 2)
				assert.Equal(t, map[string]any{"field": "blacklisted_skills", "value": "s", "pipeline_id": "a"}, denied[0].Data)
				assert.Equal(t, map[string]any{"field": "blacklisted_intents", "value": "t:j", "pipeline_id": "b"}, denied[1].Data)
			} else {
				assert.Empty(t, denied)
			}
			_, hasLang := msgs[1].Data["lang"]
			assert.Equal(t, tt.wantLang, hasLang, "PIPE-26: lang only when iteration ran")
			_, hasErr := msgs[2].Data["error"]
			assert.Equal(t, tt.wantErr, hasErr, "a bad entry says what was wrong")
		})
	}
}

func TestMalformedCarrier_SES08(t *testing.T) {
	p := &scripted{id: "a", match: &Match{SkillID: "s", IntentName: "i", Slots: map[string]string{}}}
	r := newRig(t, Config{Plugins: []Plugin{p}})
	r.utter(t, hello(), map[string]any{"session": "default"})
	msgs := r.rec.waitHandled(t, 1)
	assert.Equal(t, []string{TopicHandle, TopicSessionRejected, TopicHandled}, topics(msgs))
	assert.Equal(t, "malformed_carrier", msgs[1].Data["reason"])
	assert.NotContains(t, msgs[1].Context, "session", "SES-08: rejection carries no session")
	assert.NotContains(t, msgs[2].Context, "session")
	assert.Equal(t, 0, p.calls, "no plugin sees a dropped message")
}

func TestHandlerFailures_SequenceBC(t *testing.T) {
	tests := []struct {
		name    string
		handler handlerFunc
		want    string
	}{
		{"error", func(context.Context, Dispatch) (session.Session, error) {
			return session.Session{}, errors.New("skill broke")
		}, "skill broke"},
		{"panic", func(context.Context, Dispatch) (session.Session, error) { panic("kaboom") }, "handler panicked: kaboom"},
		{"timeout", func(ctx context.Context, _ Dispatch) (session.Session, error) {
			<-ctx.Done()
			return session.Session{}, ctx.Err()
		}, "timed out"},
		{"hang ignoring ctx", func(ctx context.Context, _ Dispatch) (session.Session, error) {
			time.Sleep(300 * time.Millisecond)
			return session.Session{}, nil
		}, "timed out"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, Config{
				Plugins:        []Plugin{&scripted{id: "a", match: &Match{SkillID: "s", IntentName: "i", Slots: map[string]string{}}}},
				Invoker:        tt.handler,
				HandlerTimeout: 50 * time.Millisecond,
			})
			r.utter(t, hello(), nil)
			msgs := r.rec.waitHandled(t, 1)
			assert.Equal(t, []string{TopicHandle, TopicMatched, "s:i", TopicHandlerStart, TopicHandlerError, TopicHandled}, topics(msgs))
			assert.Contains(t, msgs[4].Data["exception"], tt.want, "PIPE-23/24")
		})
	}
}

func TestPluginFailuresDecline_PIPE07_PIPE10_PIPE11(t *testing.T) {
	good := &scripted{id: "good", match: &Match{SkillID: "s", IntentName: "i", Slots: map[string]string{}}}
	tests := []struct {
		name string
		bad  Plugin
	}{
		{"raises", &scripted{id: "bad", err: errors.New("engine down")}},
		{"panics", &scripted{id: "bad", panic: true}},
		{"hangs past the match timeout", &scripted{id: "bad", delay: time.Hour, match: &Match{SkillID: "late", IntentName: "x", Slots: map[string]string{}}}},
		{"empty skill_id", &scripted{id: "bad", match: &Match{IntentName: "i", Slots: map[string]string{}}}},
		{"intent with colon", &scripted{id: "bad", match: &Match{SkillID: "s", IntentName: "a:b", Slots: map[string]string{}}}},
		{"bad lang", &scripted{id: "bad", match: &Match{SkillID: "s", IntentName: "i", Lang: "??", Slots: map[string]string{}}}},
		{"nil slots", &scripted{id: "bad", match: &Match{SkillID: "s", IntentName: "i"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, Config{
				Defaults:     session.Defaults{Lang: "en-US", Pipeline: []string{"bad", "good"}},
				Plugins:      []Plugin{tt.bad, good},
				MatchTimeout: 30 * time.Millisecond,
			})
			r.utter(t, hello(), nil)
			msgs := r.rec.waitHandled(t, 1)
			require.Equal(t, []string{TopicHandle, TopicMatched, "s:i", TopicHandlerStart, TopicHandlerDone, TopicHandled}, topics(msgs))
			assert.Equal(t, "good", msgs[1].Data["pipeline_id"])
		})
	}
}

func TestUpdatedSession_PIPE08(t *testing.T) {
	r := newRig(t, Config{
		Plugins: []Plugin{&scripted{id: "a", match: &Match{SkillID: "s", IntentName: "i", Slots: map[string]string{},
			UpdatedSession: map[string]any{"session_id": "other", "lang": "pt-PT"}}},
			&scripted{id: "b"}},
	})
	r.utter(t, hello(), map[string]any{"session": map[string]any{"session_id": "kitchen"}})
	msgs := r.rec.waitHandled(t, 1)
	s := msgs[2].Context["session"].(map[string]any)
	assert.Equal(t, "kitchen", s["session_id"], "an updated_session for another session is ignored")
	assert.NotContains(t, s, "lang")

	r2 := newRig(t, Config{
		Plugins: []Plugin{&scripted{id: "a", match: &Match{SkillID: "s", IntentName: "i", Slots: map[string]string{},
			UpdatedSession: map[string]any{"session_id": "kitchen", "x": "y"}}}, &scripted{id: "b"}},
	})
	r2.utter(t, hello(), map[string]any{"session": map[string]any{"session_id": "kitchen", "gone": true}})
	msgs = r2.rec.waitHandled(t, 1)
	s = msgs[2].Context["session"].(map[string]any)
	assert.Equal(t, "y", s["x"], "the winning match's snapshot is committed")
	assert.NotContains(t, s, "gone", "SES2-02: the snapshot replaces wholesale")
}

func TestHandlerSessionCommitted_SES2_05(t *testing.T) {
	r := newRig(t, Config{
		Plugins: []Plugin{&scripted{id: "a", match: &Match{SkillID: "s", IntentName: "i", Slots: map[string]string{}}}, &scripted{id: "b"}},
		Invoker: handlerFunc(func(_ context.Context, d Dispatch) (session.Session, error) {
			return d.Session.With("skill_note", "remembered")
		}),
	})
	r.utter(t, hello(), nil)
	msgs := r.rec.waitHandled(t, 1)
	assert.Equal(t, "remembered", msgs[4].Context["session"].(map[string]any)["skill_note"], "complete carries the handler's session")
	assert.Equal(t, "remembered", msgs[5].Context["session"].(map[string]any)["skill_note"], "SES2-04: handled carries the final session")
	v, _ := r.o.DefaultSession().String("skill_note")
	assert.Equal(t, "remembered", v, "SES2-01: the default session persists between utterances")
}

func TestNestedLifecycle_PIPE30(t *testing.T) {
	// The outer handler waits for a second utterance to be handled before it
	// returns: no deadlock, and each entry gets exactly one handled.
	var r *rig
	innerDone := make(chan struct{})
	r = newRig(t, Config{
		Plugins: []Plugin{&scripted{id: "a", match: &Match{SkillID: "s", IntentName: "i", Slots: map[string]string{}}}, &scripted{id: "b"}},
		Invoker: handlerFunc(func(ctx context.Context, d Dispatch) (session.Session, error) {
			if d.Utterance == "outer" {
				r.utter(t, map[string]any{"utterances": []any{"inner"}}, nil)
				select {
				case <-innerDone:
				case <-ctx.Done():
					return session.Session{}, ctx.Err()
				}
			} else {
				close(innerDone)
			}
			return session.Session{}, nil
		}),
	})
	r.utter(t, map[string]any{"utterances": []any{"outer"}}, nil)
	msgs := r.rec.waitHandled(t, 2)
	handled := 0
	for _, m := range msgs {
		if m.Type == TopicHandled {
			handled++
		}
	}
	assert.Equal(t, 2, handled)
}

func TestManyConcurrentLifecycles(t *testing.T) {
	r := newRig(t, Config{
		Plugins: []Plugin{&scripted{id: "a", match: &Match{SkillID: "s", IntentName: "i", Slots: map[string]string{}}}, &scripted{id: "b"}},
		Invoker: handlerFunc(func(ctx context.Context, d Dispatch) (session.Session, error) {
			time.Sleep(time.Millisecond)
			return d.Session.With("n", d.Utterance)
		}),
	})
	const n = 300
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Named sessions so lifecycles do not share the default store.
			_ = r.bus.Publish(context.Background(), bus.Message{Type: TopicHandle,
				Data:    map[string]any{"utterances": []any{fmt.Sprint("u", i)}},
				Context: map[string]any{"session": map[string]any{"session_id": fmt.Sprint("s", i)}}})
		}()
		if i%100 == 99 {
			wg.Wait() // stay under the entry queue's bound
		}
	}
	wg.Wait()
	msgs := r.rec.waitHandled(t, n)
	perUID := map[string][]string{}
	for _, m := range msgs {
		if uid := m.ContextString(bus.KeyUtteranceID); uid != "" {
			perUID[uid] = append(perUID[uid], m.Type)
		}
	}
	assert.Len(t, perUID, n)
	for uid, ts := range perUID {
		assert.Equal(t, []string{TopicMatched, "s:i", TopicHandlerStart, TopicHandlerDone, TopicHandled}, ts, uid)
	}
}

func TestNewRejectsBadPlugins_PIPE04(t *testing.T) {
	b := bus.New(bus.Options{})
	defer b.Close(context.Background())
	inv := handlerFunc(func(context.Context, Dispatch) (session.Session, error) { return session.Session{}, nil })
	d := session.Defaults{Lang: "en-US"}
	_, err := New(Config{Bus: b, Invoker: inv, Defaults: d, Plugins: []Plugin{&scripted{id: "a.b"}}})
	assert.ErrorContains(t, err, "PIPE-04")
	_, err = New(Config{Bus: b, Invoker: inv, Defaults: d, Plugins: []Plugin{&scripted{id: "a"}, &scripted{id: "a"}}})
	assert.ErrorContains(t, err, "twice")
	_, err = New(Config{Bus: b, Invoker: inv, Defaults: session.Defaults{Lang: "x"}})
	assert.Error(t, err)
}

// withoutTopic splits msgs into those of other topics and those of topic.
func withoutTopic(msgs []bus.Message, topic string) (rest, of []bus.Message) {
	for _, m := range msgs {
		if m.Type == topic {
			of = append(of, m)
		} else {
			rest = append(rest, m)
		}
	}
	return rest, of
}

// meddler changes the session it is handed in place, against PIPE-08,
// then answers with match (nil: declines) or fails.
type meddler struct {
	id    string
	match *Match
	fail  bool
}

func (p *meddler) ID() string { return p.id }
func (p *meddler) Match(_ context.Context, _ []string, _ string, s session.Session) (*Match, error) {
	v := s.View()
	v["note"] = "meddled"
	v[session.FieldBlacklistedSkills] = []any{"s"}
	if ic, ok := v["intent_context"].(map[string]any); ok {
		ic["k"].(map[string]any)["value"] = "changed"
	}
	if p.fail {
		return nil, errors.New("meddler fails")
	}
	return p.match, nil
}

// roundMeddler also changes the entry's session and context.
type roundMeddler struct{ meddler }

func (p *roundMeddler) MatchRound(ctx context.Context, r Round) (*Match, error) {
	r.Entry.Context[bus.KeySession].(map[string]any)["entry_note"] = "meddled"
	r.Entry.Context["routing"] = "meddled"
	return p.Match(ctx, r.Utterances, r.Lang, r.Session)
}

// TestInPlaceSessionChangesDiscarded_PIPE08: whatever a plugin changes in
// the session (or entry) it was handed, declining, failing or claiming,
// reaches neither the next plugin nor the dispatch nor the session the
// round ends with: only updated_session is committed.
func TestInPlaceSessionChangesDiscarded_PIPE08(t *testing.T) {
	claim := &Match{SkillID: "s", IntentName: "i", Lang: "en-US", Utterance: "hello", Slots: map[string]string{}}
	tests := []struct {
		name    string
		plugins []Plugin
	}{
		{"declines", []Plugin{&meddler{id: "a"}, &scripted{id: "b", match: claim}}},
		{"fails", []Plugin{&meddler{id: "a", fail: true}, &scripted{id: "b", match: claim}}},
		{"round plugin declines", []Plugin{&roundMeddler{meddler{id: "a"}}, &scripted{id: "b", match: claim}}},
		{"claims", []Plugin{&meddler{id: "a", match: claim}, &scripted{id: "b"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Dispatch
			r := newRig(t, Config{Plugins: tt.plugins, Invoker: handlerFunc(func(_ context.Context, d Dispatch) (session.Session, error) {
				got = d
				return d.Session, nil
			})})
			ic := map[string]any{"k": map[string]any{"value": "v"}}
			r.utter(t, hello(), map[string]any{"routing": "mine", "session": map[string]any{"session_id": "kitchen", "intent_context": ic}})
			msgs := r.rec.waitHandled(t, 1)
			require.Equal(t, []string{TopicHandle, TopicMatched, "s:i", TopicHandlerStart, TopicHandlerDone, TopicHandled}, topics(msgs))
			assert.Equal(t, "mine", msgs[2].Context["routing"])
			sessions := []map[string]any{got.Session.Map()}
			for _, m := range msgs[1:] {
				sessions = append(sessions, m.Context["session"].(map[string]any))
			}
			for i, s := range sessions {
				assert.NotContains(t, s, "note", "message %d", i)
				assert.NotContains(t, s, "entry_note", "message %d", i)
				assert.NotContains(t, s, session.FieldBlacklistedSkills, "message %d", i)
				assert.Equal(t, map[string]any{"k": map[string]any{"value": "v"}}, s["intent_context"], "message %d", i)
			}
		})
	}
}
