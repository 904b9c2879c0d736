package hubserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/core/skill/invoke"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/skillhttp"
)

// hubError is a transaction failure with the hub error code the robot
// gets in ERROR.
type hubError struct {
	code string
	err  error
}

func (e *hubError) Error() string { return e.err.Error() }
func (e *hubError) Unwrap() error { return e.err }

func fail(code, format string, args ...any) *hubError {
	return &hubError{code: code, err: fmt.Errorf(format, args...)}
}

// mode is how a listen transaction gets its input.
type mode int

const (
	modeAudio mode = iota // LISTEN without mode: audio (or FAKE asr + CLIENT_ASR)
	modeASR
	modeNLU
	modeTrigger
)

func (m mode) String() string {
	return [...]string{"AUDIO", protocol.ModeClientASR, protocol.ModeClientNLU, "TRIGGER"}[m]
}

// txn is one transaction: its messages arrive on inbox from the
// connection's reader; only its goroutine writes its replies.
type txn struct {
	c     *conn
	id    string
	start time.Time
	mode  mode
	open  *protocol.HubRequest // the LISTEN or TRIGGER
	inbox chan *protocol.HubRequest

	ctx    context.Context
	cancel context.CancelCauseFunc

	// what the transaction learnt, for its reply and its log line
	context *protocol.ContextData
	nlu     *protocol.NLUResult
	asr     *protocol.ASRResult
	intent  string
	skill   string
	timings map[string]float64
}

func newTxn(c *conn, open *protocol.HubRequest) *txn {
	t := &txn{c: c, id: open.TransID, start: c.s.cfg.Now(), open: open,
		inbox: make(chan *protocol.HubRequest, c.s.cfg.Limits.MessagesPerTransaction), timings: map[string]float64{}}
	switch {
	case open.Type == protocol.TypeTrigger:
		t.mode = modeTrigger
	case open.Listen.Mode != nil && *open.Listen.Mode == protocol.ModeClientNLU:
		t.mode = modeNLU
	case open.Listen.Mode != nil && *open.Listen.Mode == protocol.ModeClientASR:
		t.mode = modeASR
	default:
		t.mode = modeAudio
	}
	t.ctx, t.cancel = context.WithCancelCause(c.ctx)
	return t
}

// deliver queues a message; a transaction flooded beyond its queue is
// aborted.
func (t *txn) deliver(m *protocol.HubRequest) {
	select {
	case t.inbox <- m:
	default:
		t.abort(fail(protocol.HubErrorGeneral, "too many messages in transaction %q (limit %d queued)",
			t.id, cap(t.inbox)))
	}
}

// abort ends the transaction with err (a *hubError gives the code).
func (t *txn) abort(err error) { t.cancel(err) }

// errorOf turns whatever ended a transaction into its hub error.
func errorOf(err error) *hubError {
	var he *hubError
	switch {
	case errors.As(err, &he):
		return he
	case errors.Is(err, errShutdown):
		return &hubError{code: protocol.HubErrorGeneral, err: errShutdown}
	}
	return &hubError{code: protocol.HubErrorGeneral, err: err}
}

// run is the transaction: it ends with exactly one final message, unless
// the link is gone.
func (t *txn) run() {
	s := t.c.s
	ctx, cancel := context.WithTimeoutCause(t.ctx, s.cfg.Timeouts.Transaction,
		fail(protocol.HubErrorTimeoutTransaction, "transaction %q took over %s", t.id, s.cfg.Timeouts.Transaction))
	defer cancel()
	var err error
	if t.mode == modeTrigger {
		err = t.proactive(ctx)
	} else {
		err = t.listen(ctx)
	}
	if err == nil && ctx.Err() != nil {
		err = context.Cause(ctx)
	}
	outcome := "ok"
	if err != nil {
		he := errorOf(err)
		outcome = he.code
		t.reply(protocol.NewHubError(he.code, he.Error()), true)
		t.log(outcome, he)
		return
	}
	t.log(outcome, nil)
}

// log writes the transaction's one log line.
func (t *txn) log(outcome string, err error) {
	total := t.c.s.cfg.Now().Sub(t.start)
	args := []any{"trans_id", t.id, "robot", t.robotID(), "account", t.accountID(), "mode", t.mode.String(), "intent", t.intent, "skill", t.skill,
		"outcome", outcome, "duration_ms", ms(total), "nlu_ms", t.timings["nlu"], "skill_ms", t.timings["skill"]}
	if err != nil {
		args = append(args, "err", err.Error())
		t.c.log.Info("transaction failed", args...)
		return
	}
	t.c.log.Info("transaction", args...)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// reply sends one message of the transaction; the final one carries the
// timings.
func (t *txn) reply(m *protocol.HubResponse, final bool) {
	m.TransID = t.id
	if final {
		t.timings["total"] = ms(t.c.s.cfg.Now().Sub(t.start))
		m.Timings = t.timings
	}
	if err := t.c.send(m, final); err != nil {
		t.abort(fmt.Errorf("link lost: %w", err))
	}
}

// next waits for the transaction's next message within d; on timeout
// the error has code.
func (t *txn) next(ctx context.Context, d time.Duration, code, what string) (*protocol.HubRequest, error) {
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case m := <-t.inbox:
		return m, nil
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	case <-tm.C:
		return nil, fail(code, "no %s within %s", what, d)
	}
}

// listen runs a listen transaction: CONTEXT and the input in either
// order, NLU, routing.
func (t *txn) listen(ctx context.Context) error {
	s := t.c.s
	ld := t.open.Listen
	var clientNLU *protocol.NLUResult
	var clientASR *protocol.ClientASRData
	contextBy := time.Now().Add(s.cfg.Timeouts.Context)
	inputTimeout, inputCode, inputWhat := s.cfg.Timeouts.ASR, protocol.HubErrorTimeoutASR, "CLIENT_ASR"
	switch t.mode {
	case modeNLU:
		inputTimeout, inputCode, inputWhat = s.cfg.Timeouts.Parser, protocol.HubErrorTimeoutParser, "CLIENT_NLU"
	case modeAudio:
		inputWhat = "audio or CLIENT_ASR"
	}
	inputBy := time.Now().Add(inputTimeout)
	for t.context == nil || (clientNLU == nil && clientASR == nil) {
		d, code, what := time.Until(inputBy), inputCode, inputWhat
		if t.context == nil && time.Until(contextBy) < d {
			d, code, what = time.Until(contextBy), protocol.HubErrorTimeoutContext, "CONTEXT"
		}
		m, err := t.next(ctx, max(d, 0), code, what)
		if err != nil {
			return err
		}
		switch m.Type {
		case protocol.TypeContext:
			if t.context != nil {
				return fail(protocol.HubErrorGeneral, "second CONTEXT in transaction %q", t.id)
			}
			t.context = m.Context
		case protocol.TypeClientNLU:
			if t.mode != modeNLU {
				return fail(protocol.HubErrorGeneral, "CLIENT_NLU in transaction %q whose LISTEN has mode %s", t.id, t.mode)
			}
			if clientNLU != nil {
				return fail(protocol.HubErrorGeneral, "second CLIENT_NLU in transaction %q", t.id)
			}
			clientNLU = m.ClientNLU
		case protocol.TypeClientASR:
			if t.mode == modeNLU {
				return fail(protocol.HubErrorGeneral, "CLIENT_ASR in transaction %q whose LISTEN has mode %s", t.id, t.mode)
			}
			if clientASR != nil {
				return fail(protocol.HubErrorGeneral, "second CLIENT_ASR in transaction %q", t.id)
			}
			clientASR = m.ClientASR
		case protocol.TypeListen:
			return fail(protocol.HubErrorGeneral, "second LISTEN in transaction %q", t.id)
		default:
			return fail(protocol.HubErrorGeneral, "%s is not expected in listen transaction %q", m.Type, t.id)
		}
	}

	// NLU (skipped for CLIENT_NLU, §1.5).
	nluStart := time.Now()
	running := t.runningSkill()
	if clientNLU != nil {
		t.nlu = clientNLU
		t.asr = &protocol.ASRResult{Text: "", Confidence: 1}
	} else {
		t.asr = &protocol.ASRResult{Text: clientASR.Text, Confidence: 1}
		nlu, err := t.understand(ctx, clientASR.Text, ld)
		if err != nil {
			return err
		}
		t.nlu = nlu
	}
	t.timings["nlu"] = ms(time.Since(nluStart))
	t.intent = t.nlu.IntentName()

	// Fake SOS and EOS: the robot had the speech (§1.4).
	t.reply(protocol.NewSpeechMark(protocol.TypeSOS), false)
	t.reply(protocol.NewSpeechMark(protocol.TypeEOS), false)

	// ROUTE (§1.5): a launch intent, else the running skill unless a hot
	// phrase started the turn, else no match.
	if sk, in := t.launchMatch(ld, running); sk != nil {
		t.skill = sk.id
		launch := true
		t.reply(protocol.NewListenResult(t.nlu, t.asr, &protocol.MatchData{SkillID: sk.id, Launch: &launch}, false), false)
		req := protocol.NewListenLaunch(t.requestContext(ld.Lang, protocol.Skill(sk.busID)), *t.nlu, *t.asr, in.Memo,
			protocol.WithTransID(t.id))
		return t.call(ctx, sk, req)
	}
	if running != nil && !ld.Hotphrase {
		t.skill = running.id
		launch := false
		t.reply(protocol.NewListenResult(t.nlu, t.asr, &protocol.MatchData{SkillID: running.id, Launch: &launch}, false), false)
		sd := t.context.Skill
		sd.ID = &running.busID
		req := protocol.NewListenUpdate(t.requestContext(ld.Lang, sd), *t.nlu, *t.asr, protocol.WithTransID(t.id))
		return t.call(ctx, running, req)
	}
	if name := t.context.Skill.Name(); name != "" && running == nil {
		t.c.log.Debug("CONTEXT names a skill this hub does not have", "trans_id", t.id, "skill", name)
	}
	res := protocol.NewListenResult(t.nlu, t.asr, nil, true)
	res.Listen.Extra = map[string]json.RawMessage{"match": json.RawMessage("null")}
	t.reply(res, true)
	return nil
}

// runningSkill is the hub skill CONTEXT names (by manifest or bus id), nil
// when none or not one of ours.
func (t *txn) runningSkill() *hubSkill {
	if t.context == nil {
		return nil
	}
	name := t.context.Skill.Name()
	if name == "" {
		return nil
	}
	return t.c.s.skills[name]
}

// understand is NLU for a transcript: launch intents through the intent
// engine when the rules include "launch", else (or failing that) the
// answer rules the LISTEN names, as the robot's host does for a question.
func (t *txn) understand(ctx context.Context, text string, ld *protocol.ListenData) (*protocol.NLUResult, error) {
	s := t.c.s
	// Matching runs on this goroutine: the engines bound their own work (an
	// utterance's length, the candidates per word), so a match takes
	// microseconds; the parser timeout still ends a turn that waited too
	// long before it got here.
	start := time.Now()
	nlu := s.match(ctx, text, ld)
	if took := time.Since(start); took > s.cfg.Timeouts.Parser {
		return nil, fail(protocol.HubErrorTimeoutParser, "NLU took %s, over %s", took.Round(time.Millisecond), s.cfg.Timeouts.Parser)
	}
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	return &nlu, nil
}

// match understands text: launch intents through the intent engine when
// the rules include "launch" (or none are given), else (or failing that)
// the answer rules the LISTEN names.
func (s *Server) match(ctx context.Context, text string, ld *protocol.ListenData) protocol.NLUResult {
	if slices.Contains(ld.Rules, ruleLaunch) || len(ld.Rules) == 0 {
		r, _, _, err := s.stack.Claim(ctx, intent.Query{Hypotheses: intent.Texts(text), Lang: ld.Lang, Session: session.Empty()})
		if err == nil && r != nil {
			if s.skills[r.SkillID] != nil {
				entities := make(map[string]string, len(r.Slots))
				for k, v := range r.Slots {
					entities[k] = v
				}
				return protocol.NLUFromSlots(r.IntentName, entities, ld.Rules)
			}
		}
	}
	var answers []string
	for _, r := range ld.Rules {
		if r != ruleLaunch {
			answers = append(answers, r)
		}
	}
	return s.answers.Understand(text, ld.Lang, answers)
}

// ruleLaunch is the NLU rule of top-level (launch) intents.
const ruleLaunch = "launch"

// launchMatch is the skill and manifest intent a turn launches: its NLU
// intent is a hub intent whose entity conditions hold, and the turn may
// launch (the rules include "launch", or no skill is running, or a hot
// phrase started it).
func (t *txn) launchMatch(ld *protocol.ListenData, running *hubSkill) (*hubSkill, *protocol.ManifestIntent) {
	name := t.nlu.IntentName()
	sk := t.c.s.intents[name]
	if sk == nil {
		return nil, nil
	}
	if !(slices.Contains(ld.Rules, ruleLaunch) || slices.Contains(t.nlu.Rules, ruleLaunch) || running == nil || ld.Hotphrase) {
		return nil, nil
	}
	for i := range sk.config.Intents {
		in := &sk.config.Intents[i]
		if in.Name == name && entitiesHold(in.Entities, t.nlu.Entities) {
			return sk, in
		}
	}
	return nil, nil
}

// entitiesHold checks a manifest intent's entity conditions: EXACT wants
// the entity equal to the value, NOT wants it absent or different.
func entitiesHold(conds []protocol.EntityConfig, entities map[string]any) bool {
	for _, c := range conds {
		v, ok := entities[c.Name]
		equal := ok && fmt.Sprint(v) == fmt.Sprint(c.Value)
		if (c.MatchRule == protocol.EntityMatchNot) == equal {
			return false
		}
	}
	return true
}

func (t *txn) accountID() string {
	switch {
	case t.c.id.verified:
		return t.c.id.accountID
	case t.context != nil && t.context.General.AccountID != "":
		return t.context.General.AccountID
	}
	return PlaceholderAccountID
}

func (t *txn) robotID() string {
	switch {
	case t.c.id.verified:
		return t.c.id.robotID
	case t.context != nil && t.context.General.RobotID != "":
		return t.context.General.RobotID
	}
	return PlaceholderRobotID
}

// requestContext is a skill request's context: the robot's CONTEXT, with
// the ids from its token and the turn's language.
func (t *txn) requestContext(lang string, sd protocol.SkillData) protocol.Context {
	c := protocol.Context{Skill: sd}
	if t.context != nil {
		c.General, c.Runtime = t.context.General, t.context.Runtime
	}
	c.General.AccountID, c.General.RobotID = t.accountID(), t.robotID()
	if lang != "" {
		c.General.Lang = lang
	}
	if c.General.Lang == "" {
		c.General.Lang = "en-US"
	}
	return c
}

// call sends req to sk and relays the answer: a SKILL_ACTION ends the
// transaction; a SKILL_REDIRECT launches its target once (hub-form
// SKILL_REDIRECT to the robot, then the target's answer); a skill ERROR
// or a failed call is an ERROR.
func (t *txn) call(ctx context.Context, sk *hubSkill, req *protocol.Request) error {
	for redirects := 0; ; redirects++ {
		start := time.Now()
		reply, err := t.c.invoker.CallChecked(ctx, sk.manifest, sk.handle, req)
		t.timings["skill"] += ms(time.Since(start))
		if err != nil {
			if cause := context.Cause(ctx); cause != nil {
				return errorOf(cause) // shut down, aborted, out of time: say why
			}
			return callError(sk, err)
		}
		resp := reply.Response
		switch resp.Type {
		case protocol.TypeSkillAction:
			t.reply(protocol.NewHubSkillAction(resp.Action), true)
			return nil
		case protocol.TypeError:
			m := protocol.NewHubError(protocol.HubErrorGeneral, fmt.Sprintf("skill %s: %s", sk.id, resp.Error.Message))
			sd := resp.Error.Skill
			m.Error.Skill = &sd
			t.reply(m, true)
			return nil
		case protocol.TypeSkillRedirect:
			rd := resp.Redirect
			if redirects >= 1 {
				return fail(protocol.HubErrorGeneral, "skill %s redirected to %q after a redirect; one is allowed", sk.id, rd.SkillID)
			}
			target := t.c.s.skills[rd.SkillID]
			if target == nil {
				return fail(protocol.HubErrorSkillNotFound, "skill %s redirected to %q, which this hub does not have", sk.id, rd.SkillID)
			}
			nlu, asr := protocol.NLUResult{}, protocol.ASRResult{}
			if n := req.Data.Result.NLU; n != nil {
				nlu = *n
			}
			if a := req.Data.Result.ASR; a != nil {
				asr = *a
			}
			if rd.NLU != nil {
				nlu = *rd.NLU
			}
			if rd.ASR != nil {
				asr = *rd.ASR
			}
			launch := true
			t.reply(protocol.NewHubRedirect(protocol.HubRedirectData{
				Match: &protocol.MatchData{SkillID: target.id, Launch: &launch}, Memo: rd.Memo, ASR: &asr, NLU: &nlu}), false)
			t.c.log.Info("skill redirect", "trans_id", t.id, "from", sk.id, "to", target.id)
			sk = target
			t.skill = target.id
			lang := req.Data.General.Lang
			req = protocol.NewListenLaunch(t.requestContext(lang, protocol.Skill(target.busID)), nlu, asr, rd.Memo,
				protocol.WithTransID(t.id))
		default:
			return fail(protocol.HubErrorGeneral, "skill %s answered %s", sk.id, resp.Type)
		}
	}
}

// callError maps a failed skill call to its hub error code.
func callError(sk *hubSkill, err error) *hubError {
	switch {
	case errors.Is(err, errShutdown):
		return &hubError{code: protocol.HubErrorGeneral, err: errShutdown}
	case errors.Is(err, skillhttp.ErrNotFound):
		return &hubError{code: protocol.HubErrorSkillNotFound, err: err}
	}
	switch invoke.OutcomeOf(err) {
	case invoke.OutcomeTimeout:
		return &hubError{code: protocol.HubErrorTimeoutSkill, err: err}
	}
	return &hubError{code: protocol.HubErrorGeneral, err: fmt.Errorf("skill %s: %w", sk.id, err)}
}

// proactive runs a TRIGGER transaction: CONTEXT, then the first skill (by
// id) with a proactive registration for the trigger source, launched with
// PROACTIVE_LAUNCH, or PROACTIVE {} when none is eligible.
func (t *txn) proactive(ctx context.Context) error {
	s := t.c.s
	for t.context == nil {
		m, err := t.next(ctx, s.cfg.Timeouts.Context, protocol.HubErrorTimeoutContext, "CONTEXT")
		if err != nil {
			return err
		}
		switch m.Type {
		case protocol.TypeContext:
			t.context = m.Context
		case protocol.TypeTrigger:
			return fail(protocol.HubErrorGeneral, "second TRIGGER in transaction %q", t.id)
		default:
			return fail(protocol.HubErrorGeneral, "%s is not expected in proactive transaction %q", m.Type, t.id)
		}
	}
	source := t.open.Trigger.TriggerSource
	t.intent = source
	sk, reg := s.eligible(source)
	if sk == nil {
		t.reply(protocol.NewProactive(nil), true)
		return nil
	}
	t.skill = sk.id
	yes := true
	t.reply(protocol.NewProactive(&protocol.MatchData{SkillID: sk.id, Launch: &yes, IsProactive: &yes}), false)
	req := protocol.NewProactiveLaunch(t.requestContext("", protocol.Skill(sk.busID)), reg.Memo, protocol.WithTransID(t.id))
	return t.call(ctx, sk, req)
}

// eligible is the first skill (by id) with a proactive registration whose
// topics hold source. Decision: only topics are evaluated; a registration
// with contextRules, IHRules or settingsRules is never eligible, since
// this hub keeps no interaction history or settings to check them with.
func (s *Server) eligible(source string) (*hubSkill, *protocol.ProactiveRegistration) {
	for _, sk := range s.ordered {
		for i := range sk.config.Proactives {
			p := &sk.config.Proactives[i]
			if len(p.ContextRules) > 0 || len(p.IHRules) > 0 || len(p.SettingsRules) > 0 {
				continue
			}
			if slices.Contains(p.Topics, source) {
				return sk, p
			}
		}
	}
	return nil, nil
}
