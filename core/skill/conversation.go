package skill

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/store"
)

// Multi-turn skills (spec/jibo.md §2.5, as real robots did it): a skill's
// SKILL_ACTION carries its updated session, which the host keeps per bus
// session and skill and sends back with the next turn. When the action's
// last SLIM asks a question, the host puts the skill in response mode
// (CONV-05) for the listen window, so the pipeline's converse stage hands
// the user's next utterance to the skill as "<skill>:response"; the host
// understands it with the question's rules and sends LISTEN_UPDATE with
// result {nlu, asr}. The kept sessions live in a Conversations store; the
// on-disk one (core/skill/store) survives a restart of jibod, after which
// Restore puts response mode back.

// TopicNoInput is published when a question's answer window closes
// unanswered, before the skill's no-input turn; speech of the turn is
// derived from it.
const TopicNoInput = "jibo.skill.no_input"

// DefaultListenWindow is how long a question waits for its answer.
const DefaultListenWindow = 30 * time.Second

// Intent names the pipeline dispatches to a skill for its own turns.
const (
	IntentStop     = "stop"
	IntentResponse = "response"
	IntentConverse = "converse"
)

// answer handles "<skill>:response": the user's answer to the skill's
// question goes to it as LISTEN_UPDATE with the session it left.
func (h *Host) answer(ctx context.Context, t turn, d pipeline.Dispatch) (session.Session, error) {
	h.stopWaiting(t.busSession, t.skillID) // answered: no no-input turn
	conv, ok, err := h.cfg.Conversations.Conversation(t.busSession, t.skillID)
	if err != nil {
		return session.Session{}, fmt.Errorf("skill %s: reading its conversation: %w", t.skillID, err)
	}
	if !ok || conv.Listen == nil {
		return session.Session{}, fmt.Errorf("skill %s: got an answer but asked no question", t.skillID)
	}
	s, ok := h.skill(t.skillID)
	if !ok {
		return session.Session{}, fmt.Errorf("no skill %q on this robot", t.skillID)
	}
	nlu := h.rules.understand(d.Utterance, t.lang, conv.Listen)
	asr := protocol.ASRResult{Text: d.Utterance, Confidence: 1}
	c := h.requestContext(t.lang, conv.Skill)
	req := protocol.NewListenUpdate(c, nlu, asr)
	h.log.Info("answer to skill", "skill_id", t.skillID, "intent", nlu.IntentName(), "rules", conv.Listen)
	return h.exchange(ctx, t, s, req, IntentResponse)
}

// IntentCancelAnswer is the answer rules' intent for taking a request
// back ("cancel", "never mind", "forget it" in answer to "For how
// long?").
const IntentCancelAnswer = "cancel"

// declines handles a stop said to a skill's open question when the
// question's own rules read the words as taking the request back
// (IntentCancelAnswer): the skill gets them as its answer and
// acknowledges in its words ("OK, no timer then.") rather than going
// silent. Either way the conversation ends, as a stop's must (STOP-07):
// a question the answer asks is not kept. It reports false, doing
// nothing, for a stop that is no such answer, or said after the question
// expired (nobody waits for its answer any more).
func (h *Host) declines(ctx context.Context, t turn, d pipeline.Dispatch) bool {
	conv, ok, err := h.cfg.Conversations.Conversation(t.busSession, t.skillID)
	if err != nil || !ok || conv.Listen == nil || !conv.ExpiresAt.After(h.now()) {
		return false
	}
	nlu := h.rules.understand(d.Utterance, t.lang, conv.Listen)
	if nlu.IntentName() != IntentCancelAnswer {
		return false
	}
	s, ok := h.skill(t.skillID)
	if !ok {
		return false
	}
	h.stopWaiting(t.busSession, t.skillID)
	req := protocol.NewListenUpdate(h.requestContext(t.lang, conv.Skill), nlu, protocol.ASRResult{Text: d.Utterance, Confidence: 1})
	h.log.Info("stop taken as the answer to a question", "skill_id", t.skillID, "rules", conv.Listen)
	if _, err := h.exchange(ctx, t, s, req, IntentResponse); err != nil {
		h.log.Warn("a stopped question's answer", "skill_id", t.skillID, "err", err)
	}
	h.stopWaiting(t.busSession, t.skillID)
	h.forgetAll(t.busSession, t.skillID)
	return true
}

// carryOn handles a dispatch that continues the skill's conversation
// without having been asked as its answer (pipeline.Match.Continues: the
// hub routed the turn to the running cloud skill, jibo.md §1.5). It goes
// as the hub sent it, a LISTEN_UPDATE with the session kept, so it is no
// launch: the conversation is not dropped first, the run record says
// LISTEN_UPDATE, and last_skill and a Skill Entry's initial_intent are
// left to launches. No kept session (stopped meanwhile) still goes: the
// hub has already called the skill, and its answer is on its way.
func (h *Host) carryOn(ctx context.Context, t turn, s Skill, d pipeline.Dispatch) (session.Session, error) {
	h.stopWaiting(t.busSession, t.skillID) // answered: no no-input turn
	sd := protocol.Skill(t.skillID)
	conv, ok, err := h.cfg.Conversations.Conversation(t.busSession, t.skillID)
	if err != nil {
		return session.Session{}, fmt.Errorf("skill %s: reading its conversation: %w", t.skillID, err)
	}
	if ok {
		sd = conv.Skill
	}
	nlu := protocol.NLUFromSlots(d.IntentName, d.Slots, nil)
	asr := protocol.ASRResult{Text: d.Utterance, Confidence: 1}
	req := protocol.NewListenUpdate(h.requestContext(t.lang, sd), nlu, asr)
	h.log.Info("skill conversation continued", "skill_id", t.skillID, "intent", d.IntentName, "kept", ok)
	return h.exchange(ctx, t, s, req, IntentResponse)
}

// requestContext is the context of a request to skill sd.
func (h *Host) requestContext(lang string, sd protocol.SkillData) protocol.Context {
	c := protocol.Context{
		General: protocol.GeneralData{AccountID: h.cfg.Robot.AccountID, RobotID: h.cfg.Robot.RobotID,
			Lang: lang, Release: h.cfg.Robot.Release},
		Skill: sd,
	}
	if h.cfg.Runtime != nil {
		c.Runtime = h.cfg.Runtime()
	}
	return c
}

// remember keeps what a skill's action left: its session, and when the
// action ended on a question, the question's rules and answer window. It
// returns the bus session to commit: in response mode for a question.
func (h *Host) remember(t turn, sd protocol.SkillData, final bool, listen []string) (session.Session, error) {
	if final && listen == nil {
		return session.Session{}, h.forget(t.busSession, t.skillID)
	}
	now := h.now()
	conv := store.Conversation{BusSession: t.busSession, SkillID: t.skillID, Skill: sd, Lang: t.lang, UpdatedAt: now}
	if got := conv.Skill.Name(); got != t.skillID {
		if conv.Skill.ID != nil {
			h.log.Warn("skill named another skill in its session; kept under its own id", "skill_id", t.skillID, "named", got)
		}
		id := t.skillID
		conv.Skill.ID = &id
	}
	if listen != nil {
		conv.Listen = append([]string{}, listen...)
		conv.ExpiresAt = now.Add(h.ListenWindow())
	}
	if err := h.cfg.Conversations.PutConversation(conv); err != nil {
		return session.Session{}, fmt.Errorf("skill %s: keeping its session: %w", t.skillID, err)
	}
	if listen != nil {
		h.awaitAnswer(t.busSession, t.skillID, conv.ExpiresAt)
	} else {
		h.stopWaiting(t.busSession, t.skillID)
	}
	if listen == nil || t.sess.IsZero() {
		return session.Session{}, nil
	}
	return t.sess.WithResponseMode(session.ResponseMode{SkillID: t.skillID, ExpiresAt: unixSeconds(conv.ExpiresAt)})
}

// forget drops a skill's conversation.
func (h *Host) forget(busSession, skillID string) error {
	h.stopWaiting(busSession, skillID)
	if err := h.cfg.Conversations.DeleteConversation(busSession, skillID); err != nil {
		return fmt.Errorf("skill %s: dropping its session: %w", skillID, err)
	}
	return nil
}

// forgetAll drops the conversations of every skill in a bus session, or of
// skillID only when it is set.
func (h *Host) forgetAll(busSession, skillID string) {
	all, err := h.cfg.Conversations.Conversations()
	if err != nil {
		h.log.Warn("listing conversations", "err", err)
		return
	}
	for _, c := range all {
		if c.BusSession == busSession && (skillID == "" || c.SkillID == skillID) {
			if err := h.forget(c.BusSession, c.SkillID); err != nil {
				h.log.Warn("stopping a conversation", "err", err)
			}
		}
	}
}

// MaxConverseListWait bounds waiting for the pipeline's converse list
// when a skill is removed.
const MaxConverseListWait = 2 * time.Second

// endConversations ends the conversations of a skill that is going away:
// its kept sessions and their answer windows in every bus session, and its
// entry in the default session's converse handlers. A handler no longer
// hosted here would otherwise count as a skill hosted elsewhere and be
// polled for every utterance until the entry aged out (CONV-04); with it
// gone, a response mode it held is ignored too (CONV-06.2).
func (h *Host) endConversations(ctx context.Context, skillID string) error {
	all, err := h.cfg.Conversations.Conversations()
	if err != nil {
		return fmt.Errorf("listing conversations: %w", err)
	}
	var errs []error
	for _, c := range all {
		if c.SkillID == skillID {
			errs = append(errs, h.forget(c.BusSession, c.SkillID))
		}
	}
	if h.unlist(skillID) {
		errs = append(errs, h.dropConverse(ctx, skillID))
	}
	return errors.Join(errs...)
}

// list notes that the pipeline may list skillID as a converse handler.
func (h *Host) list(skillID string) {
	h.lastMu.Lock()
	defer h.lastMu.Unlock()
	if len(h.listed) >= maxSessionsTracked && !h.listed[skillID] {
		return // bounded: a skill left unnoted is pruned by the pipeline's TTL (CONV-04)
	}
	h.listed[skillID] = true
}

// unlist forgets skillID and reports whether it may have been listed.
func (h *Host) unlist(skillID string) bool {
	h.lastMu.Lock()
	defer h.lastMu.Unlock()
	was := h.listed[skillID]
	delete(h.listed, skillID)
	return was
}

// dropConverse asks the pipeline for the default session's converse
// handlers (CONV-09) and, when skillID is among them, syncs the list
// without it.
func (h *Host) dropConverse(ctx context.Context, skillID string) error {
	ctx, cancel := context.WithTimeout(ctx, MaxConverseListWait)
	defer cancel()
	query := bus.NewMessage(pipeline.TopicConverseActiveList, nil)
	query.Context[bus.KeySession] = map[string]any{"session_id": session.DefaultID}
	query.Context[bus.KeySource] = skillID
	query.Context["query_id"] = newQueryID()
	answers := make(chan bus.Message, 1)
	sub, err := h.cfg.Bus.Subscribe(pipeline.TopicConverseActiveList+".response", func(_ context.Context, m bus.Message) {
		if m.ContextString("query_id") == query.ContextString("query_id") {
			select {
			case answers <- m:
			default:
			}
		}
	}, bus.WithName("skills-converse-list"), bus.WithQueue(4, bus.DropNewest))
	if err != nil {
		return err
	}
	defer sub.Close()
	if err := h.cfg.Bus.Publish(ctx, query); err != nil {
		return err
	}
	var answer bus.Message
	select {
	case answer = <-answers:
	case <-ctx.Done():
		return fmt.Errorf("asking the converse handlers: %w", context.Cause(ctx))
	}
	list, _ := answer.Data[session.FieldConverseHandlers].([]any)
	kept := make([]any, 0, len(list))
	for _, e := range list {
		if m, ok := e.(map[string]any); ok && m["skill_id"] == skillID {
			continue
		}
		kept = append(kept, e)
	}
	if len(kept) == len(list) {
		return nil
	}
	s := map[string]any{"session_id": session.DefaultID, session.FieldConverseHandlers: kept}
	m := bus.NewMessage(pipeline.TopicSessionSync, map[string]any{"session": s})
	m.Context[bus.KeySource] = skillID
	return h.cfg.Bus.Publish(ctx, m)
}

// newQueryID names one bus query, to tell its answer from others'.
func newQueryID() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b[:])
}

// Restore is called once at start-up: for each kept conversation still
// waiting for an answer, it puts the skill back in response mode in its
// bus session (ovos.session.sync), so a conversation interrupted by a
// restart of jibod goes on. Conversations whose window has closed are
// dropped.
func (h *Host) Restore(ctx context.Context) (int, error) {
	all, err := h.cfg.Conversations.Conversations()
	if err != nil {
		return 0, fmt.Errorf("restoring conversations: %w", err)
	}
	now := h.now()
	n := 0
	var errs []error
	for _, c := range all {
		if _, ok := h.skill(c.SkillID); !ok || c.Listen == nil || !c.ExpiresAt.After(now) {
			if c.Listen != nil {
				errs = append(errs, h.forget(c.BusSession, c.SkillID))
			}
			continue
		}
		if c.BusSession != session.DefaultID {
			continue // named sessions belong to their clients, which resend them
		}
		if err := h.syncResponseMode(ctx, c.BusSession, c.SkillID, c.ExpiresAt); err != nil {
			errs = append(errs, err)
			continue
		}
		h.awaitAnswer(c.BusSession, c.SkillID, c.ExpiresAt)
		h.log.Info("conversation restored", "skill_id", c.SkillID, "session_id", c.BusSession,
			"answer_by", c.ExpiresAt.Format(time.RFC3339))
		n++
	}
	return n, errors.Join(errs...)
}

// syncResponseMode puts skillID in response mode in the default session
// from outside a lifecycle (a restart, a proactive question), listing it
// first among the converse handlers as a dispatch would (CONV-02).
// Named sessions belong to their clients and are left alone.
func (h *Host) syncResponseMode(ctx context.Context, busSession, skillID string, until time.Time) error {
	if busSession != session.DefaultID {
		return nil
	}
	s := map[string]any{
		"session_id":              session.DefaultID,
		session.FieldResponseMode: map[string]any{"skill_id": skillID, "expires_at": unixSeconds(until)},
		session.FieldConverseHandlers: []any{map[string]any{"skill_id": skillID,
			"activated_at": unixSeconds(h.now())}},
	}
	m := bus.NewMessage(pipeline.TopicSessionSync, map[string]any{"session": s})
	m.Context[bus.KeySource] = skillID
	h.list(skillID)
	if err := h.cfg.Bus.Publish(ctx, m); err != nil {
		return fmt.Errorf("skill %s: putting it back in response mode: %w", skillID, err)
	}
	return nil
}

func unixSeconds(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

// awaitAnswer arms the no-input turn of a question: when its window closes
// unanswered, the skill gets LISTEN_UPDATE with empty asr (annotation
// SOS_TIMEOUT) and intent null, as a robot that heard nothing sends, so
// its no-input ladder can ask again or give up.
func (h *Host) awaitAnswer(busSession, skillID string, until time.Time) {
	k := runKey{busSession, skillID}
	h.waitMu.Lock()
	defer h.waitMu.Unlock()
	if old := h.waiting[k]; old != nil {
		old.Stop()
	}
	if h.closed {
		return
	}
	var tm *time.Timer
	tm = time.AfterFunc(until.Sub(h.now()), func() {
		h.waitMu.Lock()
		if h.closed || h.waiting[k] != tm {
			h.waitMu.Unlock()
			return // answered, stopped or replaced meanwhile
		}
		delete(h.waiting, k)
		h.turns.Add(1)
		h.waitMu.Unlock()
		defer h.turns.Done()
		if err := h.noInput(h.baseCtx, busSession, skillID, until); err != nil {
			h.log.Warn("no-input turn", "skill_id", skillID, "session_id", busSession, "err", err)
		}
	})
	h.waiting[k] = tm
}

// waitingTimer is the no-input timer armed for a question, nil when none
// is: a different one later means the question was answered (or timed
// out) meanwhile.
func (h *Host) waitingTimer(busSession, skillID string) *time.Timer {
	h.waitMu.Lock()
	defer h.waitMu.Unlock()
	return h.waiting[runKey{busSession, skillID}]
}

// syncPlanned puts the skill in response mode for the question it is
// about to ask, from the conversation remember just stored.
func (h *Host) syncPlanned(ctx context.Context, t turn) error {
	conv, ok, err := h.cfg.Conversations.Conversation(t.busSession, t.skillID)
	if err != nil {
		return fmt.Errorf("skill %s: reading its conversation: %w", t.skillID, err)
	}
	if !ok || conv.Listen == nil {
		return nil
	}
	return h.syncResponseMode(ctx, t.busSession, t.skillID, conv.ExpiresAt)
}

// stopWaiting disarms a question's no-input turn.
func (h *Host) stopWaiting(busSession, skillID string) {
	k := runKey{busSession, skillID}
	h.waitMu.Lock()
	defer h.waitMu.Unlock()
	if tm := h.waiting[k]; tm != nil {
		tm.Stop()
		delete(h.waiting, k)
	}
}

// noInput runs the no-input turn of a question still unanswered.
func (h *Host) noInput(ctx context.Context, busSession, skillID string, until time.Time) error {
	conv, ok, err := h.cfg.Conversations.Conversation(busSession, skillID)
	if err != nil || !ok || conv.Listen == nil || !conv.ExpiresAt.Equal(until) {
		return err // answered or ended meanwhile
	}
	s, ok := h.skill(skillID)
	if !ok {
		return h.forget(busSession, skillID)
	}
	origin := bus.NewMessage(TopicNoInput, map[string]any{"skill_id": skillID, "rules": conv.Listen})
	origin.Context[bus.KeySession] = map[string]any{"session_id": busSession}
	origin.Context[bus.KeySkillID] = skillID
	if err := h.cfg.Bus.Publish(ctx, origin); err != nil {
		return err
	}
	t := turn{skillID: skillID, busSession: busSession, lang: conv.Lang, origin: origin}
	if t.lang == "" {
		t.lang = "en-US"
	}
	nlu := h.rules.understand("", t.lang, conv.Listen)
	asr := protocol.ASRResult{Text: "", Confidence: 0, Annotation: protocol.AnnotationSOSTimeout}
	req := protocol.NewListenUpdate(h.requestContext(t.lang, conv.Skill), nlu, asr)
	if _, err := h.exchange(ctx, t, s, req, IntentResponse); err != nil {
		e := origin.Forward(TopicSkillError, map[string]any{"skill_id": skillID, "error": err.Error()})
		_ = h.cfg.Bus.Publish(ctx, e)
		return err
	}
	// A question asked again waits again; no lifecycle commits it.
	if c, ok, err := h.cfg.Conversations.Conversation(busSession, skillID); err == nil && ok && c.Listen != nil {
		return h.syncResponseMode(ctx, busSession, skillID, c.ExpiresAt)
	}
	return nil
}

// Close stops the host's no-input timers and waits for the no-input
// turns running; Invoke calls are the orchestrator's to wait for.
func (h *Host) Close(ctx context.Context) error {
	h.waitMu.Lock()
	h.closed = true
	for k, tm := range h.waiting {
		tm.Stop()
		delete(h.waiting, k)
	}
	h.waitMu.Unlock()
	h.cancelBase()
	done := make(chan struct{})
	go func() { h.turns.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("skill host: waiting for no-input turns: %w", ctx.Err())
	}
}
