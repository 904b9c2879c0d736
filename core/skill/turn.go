package skill

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/jcp"
)

// turn is what a skill's turn is about: who, in which bus session and
// language, and the message speech is derived from.
type turn struct {
	skillID    string
	busSession string
	lang       string
	// sess is the dispatch's session, zero outside a lifecycle (a
	// proactive launch).
	sess session.Session
	// origin is the message speech and errors are derived from.
	origin bus.Message
	// writes collects the context the skill sets in a turn that has a
	// session to carry it; nil otherwise.
	writes *contextWrites
}

func dispatchTurn(d pipeline.Dispatch) turn {
	t := turn{skillID: d.SkillID, busSession: d.Session.ID(), lang: d.Lang, sess: d.Session, origin: d.Message}
	if !d.Session.IsZero() {
		t.writes = &contextWrites{}
	}
	return t
}

// Invoke runs the dispatched intent's skill: LISTEN_LAUNCH in, then the
// response's action on the body. Speech goes on the bus as
// ovos.utterance.speak derived from the dispatch (PIPE-28). The skill's
// own turns are "stop" (end what it does and its conversation) and
// "response" (the answer to its question, as LISTEN_UPDATE); a dispatch
// that continues the skill's conversation (Dispatch.Continues) is a
// LISTEN_UPDATE too.
func (h *Host) Invoke(ctx context.Context, d pipeline.Dispatch) (session.Session, error) {
	t := dispatchTurn(d)
	s, err := h.invoke(ctx, t, d)
	if err != nil && d.IntentName != IntentStop {
		h.apologize(ctx, t, err)
	}
	return s, err
}

// InvokeQuietly is Invoke without the apology for a failure: for a turn
// the robot adds after another answer (a stop word's "your timer still
// runs"), whose failure is the caller's to log, as a failure said aloud
// would follow that answer.
func (h *Host) InvokeQuietly(ctx context.Context, d pipeline.Dispatch) (session.Session, error) {
	return h.invoke(ctx, dispatchTurn(d), d)
}

// invoke is Invoke without the apology for a failure.
func (h *Host) invoke(ctx context.Context, t turn, d pipeline.Dispatch) (session.Session, error) {
	h.list(t.skillID)
	switch d.IntentName {
	case IntentStop: // STOP-07: stop that skill's activity in this session only
		h.stopRunning(t.busSession, t.skillID, "")
		if h.declines(ctx, t, d) {
			return session.Session{}, nil
		}
		h.forgetAll(t.busSession, t.skillID)
		return session.Session{}, nil
	case IntentResponse:
		return h.answer(ctx, t, d)
	case IntentConverse:
		// Jibo skills take follow-ups through questions, never converse
		// polls, so no local skill claims one (CONV-07).
		return session.Session{}, fmt.Errorf("skill %s: takes answers through questions, not converse", t.skillID)
	}
	s, ok := h.skill(t.skillID)
	if !ok {
		return session.Session{}, fmt.Errorf("no skill %q on this robot", t.skillID)
	}
	if d.Continues {
		return h.carryOn(ctx, t, s, d)
	}
	// A launch starts the skill afresh (GraphManager.start refuses a
	// session): whatever it was in the middle of is over.
	if err := h.forget(t.busSession, t.skillID); err != nil {
		return session.Session{}, err
	}
	nlu := protocol.NLUFromSlots(d.IntentName, d.Slots, nil)
	asr := protocol.ASRResult{Text: d.Utterance, Confidence: 1}
	req := protocol.NewListenLaunch(h.requestContext(t.lang, protocol.Skill(t.skillID)), nlu, asr, nil)
	return h.exchange(ctx, t, s, req, d.IntentName)
}

// exchange sends req to s through the invoker, follows a redirect, runs
// the action on the body and keeps the skill's session. It returns the bus
// session to commit.
func (h *Host) exchange(ctx context.Context, t turn, s Skill, req *protocol.Request, intentName string) (out session.Session, err error) {
	defer func() {
		if err == nil {
			out = h.writeContext(t, out)
		}
	}()
	for redirects := 0; ; redirects++ {
		// The lease holds the skill in the registry from the call until
		// its action has run: it cannot be removed or replaced meanwhile.
		lease, err := h.cfg.Registry.Acquire(t.skillID)
		if err != nil {
			return session.Session{}, fmt.Errorf("skill %s: %w", t.skillID, err)
		}
		reply, err := h.cfg.Invoker.CallChecked(withTurn(ctx, t, h.now), lease.Manifest(), Handler(s), req)
		if err != nil {
			lease.Release()
			h.refused(ctx, t, intentName, err)
			return session.Session{}, err
		}
		resp := reply.Response
		switch resp.Type {
		case protocol.TypeSkillAction:
			if len(resp.Action.Analytics) > 0 {
				h.forwardAnalytics(ctx, t, intentName, resp.Action.Analytics)
			}
			if req.Type != protocol.TypeListenUpdate {
				h.launched(t.busSession, t.skillID)
			}
			final := resp.Action.Final != nil && *resp.Action.Final || reply.Action == nil
			// Kept before the body speaks: a robot killed while asking
			// still knows its question when it starts again.
			planned := plannedListen(reply.Action)
			committed, err := h.remember(t, resp.Action.Skill, final, planned)
			if err != nil {
				lease.Release()
				return session.Session{}, err
			}
			asked := h.waitingTimer(t.busSession, t.skillID)
			if planned != nil && t.sess.IsZero() {
				// Outside a lifecycle (a proactive launch) nothing commits
				// response mode for the question, and an answer can come
				// as soon as it is spoken, before act returns: say it now.
				if err := h.syncPlanned(ctx, t); err != nil {
					lease.Release()
					return session.Session{}, err
				}
			}
			listen, err := h.act(ctx, t, reply.Action)
			lease.Release()
			if err != nil {
				_ = h.forget(t.busSession, t.skillID)
				return session.Session{}, err
			}
			if planned != nil && h.waitingTimer(t.busSession, t.skillID) != asked {
				// Answered (or timed out) while still asking: that turn
				// keeps the conversation now; writing this one back would
				// undo it.
				return committed, nil
			}
			if listen != nil || planned != nil {
				// The answer window opens once the question has been
				// asked; a stopped question is withdrawn.
				return h.remember(t, resp.Action.Skill, final, listen)
			}
			return committed, nil
		case protocol.TypeError:
			lease.Release()
			_ = h.forget(t.busSession, t.skillID)
			return session.Session{}, fmt.Errorf("skill %s: %s", reply.Record.Skill, resp.Error.Message)
		case protocol.TypeSkillRedirect:
			lease.Release()
			to := resp.Redirect.SkillID
			if redirects >= MaxRedirects {
				return session.Session{}, fmt.Errorf("skill %s: redirected to %q after a redirect; only %d allowed",
					t.skillID, to, MaxRedirects)
			}
			target, ok := h.skill(to)
			if !ok {
				if m, err := h.cfg.Registry.Get(to); err == nil {
					to = m.BusID() // a redirect may name the skill by its manifest id
					target, ok = h.skill(to)
				}
			}
			if !ok {
				return session.Session{}, fmt.Errorf("skill %s: redirect to unknown skill %q", t.skillID, resp.Redirect.SkillID)
			}
			h.log.Info("skill redirect", "from", t.skillID, "to", to)
			t.writes.take() // what the redirecting skill set is not the target's
			_ = h.forget(t.busSession, t.skillID)
			nlu, asr := protocol.NLUResult{}, protocol.ASRResult{}
			if rn := req.Data.Result.NLU; rn != nil {
				nlu = *rn
			}
			if ra := req.Data.Result.ASR; ra != nil {
				asr = *ra
			}
			if resp.Redirect.NLU != nil {
				nlu = *resp.Redirect.NLU
			}
			if resp.Redirect.ASR != nil {
				asr = *resp.Redirect.ASR
			}
			req = protocol.NewListenLaunch(h.requestContext(t.lang, protocol.Skill(to)), nlu, asr, resp.Redirect.Memo)
			t.skillID, s = to, target
		default:
			lease.Release()
			return session.Session{}, fmt.Errorf("skill %s: unexpected response type %q", t.skillID, resp.Type)
		}
	}
}

// act runs a SKILL_ACTION's JCP (already parsed and permitted by the
// invoker) on the body. It returns the contexts of the question the action
// ended on, nil when it asked none (or was stopped). A nil action does
// nothing.
func (h *Host) act(ctx context.Context, t turn, action *jcp.Checked) ([]string, error) {
	if action == nil {
		return nil, nil
	}
	listens := questionPlays(action.Behavior)
	utterance, _ := t.origin.Context[bus.KeyUtteranceID].(string)
	ctx, done := h.track(ctx, t.busSession, t.skillID, utterance)
	defer done()
	res, err := h.cfg.Body.RunChecked(ctx, action, func(ev jcp.Event) {
		if ev.Kind != jcp.EventSpeaking {
			return
		}
		speak := t.origin.Forward(pipeline.TopicSpeak, map[string]any{
			"utterance": ev.Text, "lang": t.lang, "listen": listens[ev.BehaviorID]})
		// The observer must return quickly: publishing never blocks on
		// ordinary subscribers, and ctx bounds the ones that may.
		if perr := h.cfg.Bus.Publish(ctx, speak); perr != nil {
			h.log.Warn("publishing speak", "skill_id", t.skillID, "err", perr)
		}
	})
	if errors.Is(context.Cause(ctx), errStopped) {
		return nil, nil // speech and motion stopped because the user asked
	}
	if err != nil {
		return nil, fmt.Errorf("skill %s: action %s: %w", t.skillID, statusOf(res), err)
	}
	if res != nil && res.Listen != nil {
		return append([]string{}, res.Listen.Contexts...), nil
	}
	return nil, nil
}

func statusOf(r *jcp.Result) string {
	if r == nil {
		return "refused"
	}
	return string(r.Status)
}

// plannedListen returns the contexts of the question an action will end
// on, nil when it asks none: its last SLIM in running order, when that
// SLIM listens (a question anywhere else ends the run, jibo.md §3.2).
func plannedListen(a *jcp.Checked) []string {
	if a == nil {
		return nil
	}
	var last *jcp.SLIM
	jcp.EachSLIM(a.Behavior, func(s *jcp.SLIM) { last = s })
	if last == nil || last.Listen == nil {
		return nil
	}
	return append([]string{}, last.Listen.Contexts...)
}

// questionPlays maps the id of each PLAY that belongs to a listening SLIM to
// true, so its speak message says listen: true (CONV-08).
func questionPlays(b jcp.Behavior) map[string]bool {
	out := map[string]bool{}
	jcp.EachSLIM(b, func(s *jcp.SLIM) {
		if s.Play != nil && s.Listen != nil {
			out[s.Play.ID] = true
		}
	})
	return out
}

// ActionJSON encodes a JCP action for a SKILL_ACTION response.
func ActionJSON(a *jcp.Action) (json.RawMessage, error) {
	b, err := json.Marshal(a)
	if err != nil {
		return nil, fmt.Errorf("encoding JCP action: %w", err)
	}
	return b, nil
}
