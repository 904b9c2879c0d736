package scenario

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/session"
)

// scriptedPlugin answers every match call with its script.
type scriptedPlugin struct {
	id   string
	spec PluginSpec
}

var _ pipeline.Plugin = (*scriptedPlugin)(nil)

// ID is the plugin id from the file.
func (p *scriptedPlugin) ID() string { return p.id }

// Match plays the script: the in-place session change, then panic, delay,
// fail, or the scripted match.
func (p *scriptedPlugin) Match(ctx context.Context, utterances []string, lang string, s session.Session) (*pipeline.Match, error) {
	if p.spec.MutateSession != nil {
		// Deliberately against the contract (PIPE-08): the carrier as handed,
		// changed where it lies.
		mergeFields(s.View(), p.spec.MutateSession)
	}
	if p.spec.Panic {
		panic(fmt.Sprintf("scripted plugin %s panics", p.id))
	}
	if d := time.Duration(p.spec.DelayMS) * time.Millisecond; d > 0 {
		if p.spec.IgnoreCancel {
			time.Sleep(d)
		} else {
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return nil, ctx.Err()
			}
		}
	}
	if p.spec.Fail {
		return nil, fmt.Errorf("scripted plugin %s fails", p.id)
	}
	if p.spec.Match == nil {
		return nil, nil
	}
	return buildMatch(p.spec.Match, utterances, lang), nil
}

// buildMatch turns a scripted match into a Match without repairing it: a
// wrong-typed field becomes the zero value, which PIPE-07 refuses. Omitted
// fields take convenient defaults: lang the round's, utterance the first
// candidate, slots {}. An explicit "slots": null stays missing.
func buildMatch(m map[string]any, utterances []string, lang string) *pipeline.Match {
	out := &pipeline.Match{Lang: lang, Slots: map[string]string{}}
	if len(utterances) > 0 {
		out.Utterance = utterances[0]
	}
	applyMatch(out, m)
	return out
}

// applyMatch overlays the fields present in m; slots merge key by key (null
// deletes a slot) unless "slots" itself is null or not an object.
func applyMatch(out *pipeline.Match, m map[string]any) {
	str := func(k string, dst *string) {
		if v, ok := m[k]; ok {
			s, _ := v.(string)
			*dst = s
		}
	}
	str("skill_id", &out.SkillID)
	str("intent_name", &out.IntentName)
	str("lang", &out.Lang)
	str("utterance", &out.Utterance)
	if v, ok := m["slots"]; ok {
		obj, isObj := v.(map[string]any)
		if !isObj {
			out.Slots = nil
		} else {
			slots := map[string]string{}
			for k, s := range out.Slots {
				slots[k] = s
			}
			for k, sv := range obj {
				switch t := sv.(type) {
				case nil:
					delete(slots, k)
				case string:
					slots[k] = t
				default:
					slots = nil // not string→string: malformed
				}
				if slots == nil {
					break
				}
			}
			out.Slots = slots
		}
	}
	if us, ok := m["updated_session"].(map[string]any); ok {
		out.UpdatedSession = bus.CopyMap(us)
	}
}

// mergeFields writes the fields of over into m (null deletes), copying each
// value so the script itself is never shared.
func mergeFields(m, over map[string]any) {
	for k, v := range over {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = bus.CopyMap(map[string]any{k: v})[k]
		}
	}
}

// scriptedTransformer is one scripted stage of any of the three chains.
type scriptedTransformer struct{ spec TransformerSpec }

var (
	_ pipeline.UtteranceTransformer = (*scriptedTransformer)(nil)
	_ pipeline.MetadataTransformer  = (*scriptedTransformer)(nil)
	_ pipeline.IntentTransformer    = (*scriptedTransformer)(nil)
)

// ID is the transformer id from the file.
func (t *scriptedTransformer) ID() string { return t.spec.ID }

// Priority is the scripted priority, DefaultPriority when absent.
func (t *scriptedTransformer) Priority() int {
	if t.spec.Priority == nil {
		return pipeline.DefaultPriority
	}
	return *t.spec.Priority
}

func (t *scriptedTransformer) fail() error {
	if t.spec.Panic {
		panic(fmt.Sprintf("scripted transformer %s panics", t.spec.ID))
	}
	if t.spec.Fail {
		return fmt.Errorf("scripted transformer %s fails", t.spec.ID)
	}
	return nil
}

// context applies Context (null deletes) and Session (merged field by
// field) to c, which the transformer owns.
func (t *scriptedTransformer) context(c map[string]any) map[string]any {
	mergeFields(c, t.spec.Context)
	if t.spec.Session != nil {
		s, _ := c[bus.KeySession].(map[string]any)
		s = bus.CopyMap(s)
		mergeFields(s, t.spec.Session)
		c[bus.KeySession] = s
	}
	return c
}

// TransformUtterances replaces the list and language when scripted.
func (t *scriptedTransformer) TransformUtterances(_ context.Context, in pipeline.Utterances) (pipeline.Utterances, error) {
	if err := t.fail(); err != nil {
		return in, err
	}
	if t.spec.Utterances != nil {
		in.Utterances = append([]string{}, (*t.spec.Utterances)...)
	}
	if t.spec.Lang != nil {
		in.Lang = *t.spec.Lang
	}
	in.Context = t.context(in.Context)
	return in, nil
}

// TransformMetadata merges the scripted context and session.
func (t *scriptedTransformer) TransformMetadata(_ context.Context, c map[string]any) (map[string]any, error) {
	if err := t.fail(); err != nil {
		return c, err
	}
	return t.context(c), nil
}

// TransformIntent overlays the scripted match fields.
func (t *scriptedTransformer) TransformIntent(_ context.Context, in pipeline.Intent) (pipeline.Intent, error) {
	if err := t.fail(); err != nil {
		return in, err
	}
	if t.spec.Match != nil {
		applyMatch(&in.Match, t.spec.Match)
	}
	in.Context = t.context(in.Context)
	return in, nil
}

// run is one scripted handler invocation that a stop may end.
type run struct {
	session, skill, uid string
	stop                chan struct{}
	once                sync.Once
}

func (r *run) halt() { r.once.Do(func() { close(r.stop) }) }

// handlers is the scenario's Invoker: the scripted handlers, plus the
// default behaviour of an unscripted <skill>:stop (stop that skill's
// handlers in the session) and of any other unscripted dispatch (return).
type handlers struct {
	bus   *bus.Bus
	specs map[string]HandlerSpec
	obs   *observer
	now   func() time.Time

	mu   sync.Mutex
	runs map[*run]bool
}

var _ pipeline.Invoker = (*handlers)(nil)

func (h *handlers) start(d pipeline.Dispatch) *run {
	r := &run{session: d.Session.ID(), skill: d.SkillID, uid: d.Message.ContextString(bus.KeyUtteranceID), stop: make(chan struct{})}
	h.mu.Lock()
	h.runs[r] = true
	h.mu.Unlock()
	return r
}

func (h *handlers) end(r *run) {
	h.mu.Lock()
	delete(h.runs, r)
	h.mu.Unlock()
}

// stopRuns halts the matching runs and returns their utterance_ids.
func (h *handlers) stopRuns(sessionID, skill string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var uids []string
	for r := range h.runs {
		if r.session == sessionID && (skill == "" || r.skill == skill) {
			r.halt()
			uids = append(uids, r.uid)
		}
	}
	sort.Strings(uids)
	return uids
}

// Invoke runs the scripted handler of the dispatch, or the default one.
func (h *handlers) Invoke(ctx context.Context, d pipeline.Dispatch) (session.Session, error) {
	topic := d.SkillID + ":" + d.IntentName
	spec, scripted := h.specs[topic]
	if !scripted {
		if d.IntentName == "stop" {
			// STOP-07: stop what the skill does in this session, and return
			// once its lifecycles have ended, so the trace reads in order.
			for _, uid := range h.stopRuns(d.Session.ID(), d.SkillID) {
				if err := h.obs.waitHandled(ctx, uid); err != nil {
					return session.Session{}, err
				}
			}
		}
		return session.Session{}, nil
	}
	r := h.start(d)
	defer h.end(r)
	awaitFrom := h.obs.handledCount(spec.Await)

	sess := d.Session
	if spec.SetSession != nil || spec.ResponseModeS > 0 {
		sess = session.MergeFields(sess, mustParse(spec.SetSession))
		if spec.ResponseModeS > 0 {
			exp := float64(h.now().Add(time.Duration(spec.ResponseModeS*float64(time.Second))).UnixNano()) / 1e9
			var err error
			if sess, err = sess.WithResponseMode(session.ResponseMode{SkillID: d.SkillID, ExpiresAt: exp}); err != nil {
				return session.Session{}, err
			}
		}
		if sess.IsDefault() {
			// SES2-05: the default session lives in the orchestrator; tell it.
			sync := d.Message.Forward(pipeline.TopicSessionSync, map[string]any{"session": sess.Map()})
			sync.Context[bus.KeySession] = sess.Map()
			if err := h.bus.Publish(ctx, sync); err != nil {
				return session.Session{}, fmt.Errorf("syncing the session: %w", err)
			}
		}
	}
	for _, s := range spec.Speak {
		lang := s.Lang
		if lang == "" {
			lang = d.Lang
		}
		speak := d.Message.Forward(pipeline.TopicSpeak, map[string]any{"utterance": s.Utterance, "lang": lang, "listen": s.Listen})
		speak.Context[bus.KeySession] = sess.Map()
		if err := h.bus.Publish(ctx, speak); err != nil {
			return session.Session{}, fmt.Errorf("speaking: %w", err)
		}
	}
	if spec.Await != "" {
		if err := h.obs.waitCount(ctx, spec.Await, awaitFrom+1); err != nil {
			return sess, fmt.Errorf("waiting for %s: %w", spec.Await, err)
		}
	}
	if d := time.Duration(spec.DelayMS) * time.Millisecond; d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return sess, ctx.Err()
		case <-r.stop:
			t.Stop()
		}
	}
	switch spec.Outcome {
	case "error":
		msg := spec.Error
		if msg == "" {
			msg = "scripted handler error"
		}
		return sess, errors.New(msg)
	case "hang":
		select {
		case <-ctx.Done():
			return sess, ctx.Err()
		case <-r.stop:
			return sess, nil // stopped on request: done, not failed
		}
	case "panic":
		panic("scripted handler panics")
	case "garbage":
		other, _ := session.Empty().With(session.FieldSessionID, "garbage-"+d.Session.ID())
		return other, nil
	}
	return sess, nil
}

func mustParse(m map[string]any) session.Session {
	n, err := bus.NormalizeMap(m) // validated when the file was parsed
	if err != nil {
		return session.Empty()
	}
	s, _, _ := session.Parse(n)
	return s
}

// skills answers the stop, converse and fallback polls for the scripted
// skills, in skill_id order, so traces are reproducible.
type skills struct {
	bus   *bus.Bus
	specs map[string]SkillSpec
	ids   []string
}

func (s *skills) receive(ctx context.Context, m bus.Message) {
	for _, id := range s.ids {
		spec := s.specs[id]
		var topic string
		var data map[string]any
		var over map[string]any
		switch m.Type {
		case pipeline.TopicStopPing:
			if spec.Stop == nil && spec.StopPong == nil {
				continue
			}
			topic, data, over = pipeline.TopicStopPong, map[string]any{"skill_id": id}, spec.StopPong
			if spec.Stop != nil {
				data["can_handle"] = *spec.Stop
			}
		case pipeline.TopicConversePing:
			if spec.Converse == nil && spec.ConversePong == nil {
				continue
			}
			topic, data, over = pipeline.TopicConversePong, map[string]any{"skill_id": id}, spec.ConversePong
			if spec.Converse != nil {
				data["can_handle"] = *spec.Converse
			}
			if spec.ConverseErrorCode != "" {
				data["error_code"] = spec.ConverseErrorCode
			}
		case pipeline.TopicFallbackPing:
			if spec.FallbackPriority == nil {
				continue
			}
			can := spec.Fallback == nil || *spec.Fallback
			var first string
			if u, ok := m.Data["utterances"].([]any); ok && len(u) > 0 {
				first, _ = u[0].(string)
			}
			topic, data, over = pipeline.TopicFallbackPong, map[string]any{"skill_id": id, "can_handle": can, "utterance": first}, spec.FallbackPong
		default:
			return
		}
		mergeFields(data, over)
		pong := m.Reply(topic, data)
		pong.Context[bus.KeySkillID] = id // REG-03
		_ = s.bus.Publish(ctx, pong)
	}
}
