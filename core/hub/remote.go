package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/openjibo/jibod/core/hub/wire"
	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/internal/memfs"
)

// SlotTransaction is the reserved slot (and memo member) naming an open
// hub transaction that a proxy skill is to continue instead of starting
// one: the fallback stage, a PROACTIVE and a redirect hand a transaction
// over this way, because the hub has already understood the turn and
// called its skill, so the skill's SKILL_ACTION follows on that same
// transaction.
const SlotTransaction = "hub_transaction"

// CloudPermissions are what the robot lets a cloud skill make its body do:
// speak and play sounds, move, light the ring, use the screen, ask
// questions, show emotion, and be launched proactively by the hub. Not
// timers, storage or the network, which are the robot's to give local
// skills, nor who the robot is talking to.
var CloudPermissions = []registry.Permission{registry.PermSpeech, registry.PermSound, registry.PermMotion,
	registry.PermLED, registry.PermDisplay, registry.PermListen, registry.PermEmotion, registry.PermProactive}

// RemoteSkill is the robot's proxy for one skill of the hub's catalog: a
// skill.Skill whose manifest id is the catalog id, whose locale is the
// catalog's, and whose Handle forwards each request to the hub as a
// transaction (jibo.md §1.3) and answers with what the hub's skill did.
type RemoteSkill struct {
	r        *Remote
	cs       wire.CatalogSkill
	manifest *registry.Manifest
	locale   fs.FS
	rules    fs.FS
}

var (
	_ skill.Skill     = (*RemoteSkill)(nil)
	_ skill.RuleSkill = (*RemoteSkill)(nil)
)

func newRemoteSkill(r *Remote, cs wire.CatalogSkill) (*RemoteSkill, error) {
	name, desc, version := cs.Name, cs.Description, cs.Version
	if name == "" {
		name = cs.ID
	}
	if desc == "" {
		desc = "A skill of the hub."
	}
	if version == "" {
		version = "0.0.0"
	}
	m := &registry.Manifest{ID: cs.ID, Version: version, Name: name, Description: desc,
		Permissions: append([]registry.Permission(nil), CloudPermissions...),
		Timeout:     min(registry.MaxTimeout, r.client.cfg.ConnectTimeout+r.client.cfg.TransactionTimeout+2*time.Second)}
	m.SafetyLevel = m.ImpliedSafetyLevel()
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("catalog skill %q: %w", cs.ID, err)
	}
	loc := memfs.New()
	for lang, files := range cs.Locale {
		for name, content := range files {
			if err := loc.File(lang+"/"+name, []byte(content)); err != nil {
				return nil, fmt.Errorf("catalog skill %q: locale: %w", cs.ID, err)
			}
		}
	}
	var locale fs.FS
	if loc.Files() > 0 {
		locale = loc
	}
	rf := memfs.New()
	for rule, langs := range cs.Rules {
		for lang, files := range langs {
			for name, content := range files {
				if err := rf.File(rule+"/"+lang+"/"+name, []byte(content)); err != nil {
					return nil, fmt.Errorf("catalog skill %q: rules: %w", cs.ID, err)
				}
			}
		}
	}
	var rules fs.FS // an untyped nil when there are none: the host asks Rules() != nil
	if rf.Files() > 0 {
		rules = rf
	}
	return &RemoteSkill{r: r, cs: cs, manifest: m, locale: locale, rules: rules}, nil
}

// Manifest is the proxy's manifest: the catalog's id, name and version
// with CloudPermissions.
func (s *RemoteSkill) Manifest() *registry.Manifest { return s.manifest }

// Locale is the catalog's locale files of the skill.
func (s *RemoteSkill) Locale() fs.FS { return s.locale }

// Rules are the catalog's answer rules of the skill, one folder per
// rule; nil when it has none. The host adds them with the proxy, owned by
// its bus id ("openjibo.trivia/answer"), which is how the hub's skill
// names them in its questions' listen contexts: an answer is understood
// on the robot and sent as CLIENT_NLU, and the speech recogniser's answer
// grammar lists it.
func (s *RemoteSkill) Rules() fs.FS { return s.rules }

// Handle forwards req to the hub: a LISTEN_LAUNCH as CLIENT_NLU with the
// launch rule, a LISTEN_UPDATE (the answer to the skill's question) as
// CLIENT_NLU when the robot understood it with the question's rules or
// CLIENT_ASR with the text otherwise, with CONTEXT carrying the skill's
// stored session; a request naming a handed-over transaction continues
// it (an answer only one the hub routed to this skill's conversation,
// see Fallback). The hub's SKILL_ACTION comes back as the proxy's, a
// remote redirect as a redirect the host follows, an ERROR as an ERROR.
// When the hub cannot be reached the answer is an action speaking the
// offline MIM.
func (s *RemoteSkill) Handle(ctx context.Context, req *protocol.Request) (*protocol.Response, error) {
	if req == nil || req.Data == nil {
		return nil, errors.New("remote skill: request without data")
	}
	tx, err := s.resume(req)
	if err != nil {
		return s.errorResponse(req, "", err.Error()), nil
	}
	if tx == nil {
		msgs, err := s.opening(req)
		if err != nil {
			return s.errorResponse(req, "", err.Error()), nil
		}
		if tx, err = s.r.client.Transact(ctx, msgs...); err != nil {
			return s.unreachable(ctx, req, nil, err)
		}
	}
	resp, keep, err := s.follow(ctx, req, tx)
	if !keep {
		tx.Close()
	}
	return resp, err
}

// resume claims the transaction a request names, if it names one.
func (s *RemoteSkill) resume(req *protocol.Request) (*Transaction, error) {
	id := ""
	if nlu := req.Data.Result.NLU; nlu != nil {
		if v, ok := nlu.Entities[SlotTransaction].(string); ok {
			id = v
		}
	}
	if id == "" && len(req.Data.Result.Memo) > 0 {
		var memo struct {
			HubTransaction string `json:"hub_transaction"`
		}
		if json.Unmarshal(req.Data.Result.Memo, &memo) == nil {
			id = memo.HubTransaction
		}
	}
	if id == "" {
		if req.Type == protocol.TypeProactiveLaunch {
			return nil, fmt.Errorf("cloud skill %s: a proactive launch must come from the hub's PROACTIVE", s.cs.ID)
		}
		return nil, nil
	}
	if req.Type == protocol.TypeListenUpdate {
		// Only the remote fallback hands an answer a transaction: the hub
		// routed the turn to this skill's running conversation. Any other
		// stays parked for the launch it was handed to.
		return s.r.client.claimIf(id, func(tx *Transaction) error {
			if tx.continues == nil || tx.continues.Name() != s.cs.ID {
				return fmt.Errorf("cloud skill %s: an answer can continue only a transaction the hub routed to this skill's conversation", s.cs.ID)
			}
			return nil
		})
	}
	return s.r.client.Claim(id)
}

// opening builds the messages that open a transaction for req.
func (s *RemoteSkill) opening(req *protocol.Request) ([]*protocol.HubRequest, error) {
	d := req.Data
	lang := d.General.Lang
	if lang == "" {
		lang = "en-US"
	}
	general := protocol.GeneralData{Release: d.General.Release, Lang: lang}
	if general.Release == "" {
		general.Release = s.r.cfg.Release
	}
	nlu := protocol.NLUResult{}
	if d.Result.NLU != nil {
		nlu = *d.Result.NLU
	}
	switch req.Type {
	case protocol.TypeListenLaunch:
		nlu.Rules = []string{"launch"}
		mode := protocol.ModeClientNLU
		return []*protocol.HubRequest{
			protocol.NewListen(protocol.ListenData{Lang: lang, Hotphrase: true, Rules: []string{"launch"}, Mode: &mode}),
			protocol.NewContext(protocol.Context{General: general, Runtime: d.Runtime, Skill: protocol.SkillData{}}),
			protocol.NewClientNLU(nlu),
		}, nil
	case protocol.TypeListenUpdate:
		id := s.cs.ID
		sk := protocol.SkillData{ID: &id, Session: d.Skill.Session}
		rules := append([]string{}, nlu.Rules...)
		ctxMsg := protocol.NewContext(protocol.Context{General: general, Runtime: d.Runtime, Skill: sk})
		if nlu.IntentName() != "" {
			mode := protocol.ModeClientNLU
			return []*protocol.HubRequest{
				protocol.NewListen(protocol.ListenData{Lang: lang, Rules: rules, Mode: &mode}),
				ctxMsg, protocol.NewClientNLU(nlu),
			}, nil
		}
		text := ""
		if d.Result.ASR != nil {
			text = d.Result.ASR.Text
		}
		mode := protocol.ModeClientASR
		return []*protocol.HubRequest{
			protocol.NewListen(protocol.ListenData{Lang: lang, Rules: rules, Mode: &mode}),
			ctxMsg, protocol.NewClientASR(text),
		}, nil
	}
	return nil, fmt.Errorf("cloud skill %s: cannot forward a %s request", s.cs.ID, req.Type)
}

// follow reads the transaction's replies up to the skill's answer. keep
// is true when the transaction was handed on (a remote redirect).
func (s *RemoteSkill) follow(ctx context.Context, req *protocol.Request, tx *Transaction) (*protocol.Response, bool, error) {
	for {
		r, err := tx.Next(ctx)
		switch {
		case Ended(err):
			s.r.log.Info("hub ended the transaction without an action", "skill_id", s.cs.ID, "trans_id", tx.ID)
			return s.end(req), false, nil
		case err != nil && ctx.Err() == nil && unreachable(err):
			resp, err := s.unreachable(ctx, req, tx, err)
			return resp, false, err
		case err != nil:
			return nil, false, fmt.Errorf("cloud skill %s: %w", s.cs.ID, err)
		}
		switch r.Type {
		case protocol.TypeListen:
			if r.Listen.Match == nil && isFinal(r) {
				s.r.log.Info("hub matched nothing for the turn", "skill_id", s.cs.ID, "trans_id", tx.ID)
				return s.end(req), false, nil
			}
		case protocol.TypeSkillAction:
			return s.action(req, r.Action), false, nil
		case protocol.TypeSkillRedirect:
			return s.redirect(req, tx, r.Redirect)
		case protocol.TypeError:
			return s.errorResponse(req, r.Error.Code, "hub: "+r.Error.Message), false, nil
		default: // SOS, EOS, interim ASR/NLU, PROACTIVE, COMMAND: nothing to do on the body
		}
	}
}

// action is the hub skill's SKILL_ACTION as the proxy's own: the skill
// is named as the host knows the proxy.
func (s *RemoteSkill) action(req *protocol.Request, a *protocol.SkillActionData) *protocol.Response {
	d := *a
	if got := d.Skill.Name(); got != "" && got != s.cs.ID && got != s.busID() {
		s.r.log.Warn("hub action names another skill; kept as this one's", "skill_id", s.cs.ID, "named", got)
	}
	d.Skill.ID = req.Data.Skill.ID
	return &protocol.Response{Header: protocol.NewHeader(protocol.TypeSkillAction, protocol.WithTransID(req.TransID)), Action: &d}
}

// end is the proxy's answer when the hub's skill did nothing: a final
// SKILL_ACTION without an action.
func (s *RemoteSkill) end(req *protocol.Request) *protocol.Response {
	return protocol.NewSkillEnd(req, req.Data.Skill)
}

// redirect turns the hub's SKILL_REDIRECT into one the host follows: to
// another cloud skill with the transaction handed over (its SKILL_ACTION
// follows on it), or to a skill on the robot with the memo.
func (s *RemoteSkill) redirect(req *protocol.Request, tx *Transaction, rd *protocol.HubRedirectData) (*protocol.Response, bool, error) {
	target := rd.Match.SkillID
	if target == "" {
		target = rd.Match.CloudSkill
	}
	onRobot := rd.Match.OnRobot != nil && *rd.Match.OnRobot
	d := &protocol.SkillRedirectData{SkillID: target, Memo: rd.Memo, ASR: rd.ASR, NLU: rd.NLU, Skill: req.Data.Skill}
	keep := false
	if !onRobot && s.r.proxy(target) != nil {
		memo, err := json.Marshal(map[string]string{SlotTransaction: tx.ID})
		if err != nil {
			return nil, false, fmt.Errorf("cloud skill %s: %w", s.cs.ID, err)
		}
		d.Memo = memo
		s.r.client.park(tx)
		keep = true
	}
	s.r.log.Info("hub redirect", "from", s.cs.ID, "to", target, "cloud", keep)
	return &protocol.Response{Header: protocol.NewHeader(protocol.TypeSkillRedirect, protocol.WithTransID(req.TransID)), Redirect: d}, keep, nil
}

// errorResponse is a skill ERROR with the hub's code, when it gave one.
func (s *RemoteSkill) errorResponse(req *protocol.Request, code, message string) *protocol.Response {
	resp := protocol.NewError(req, message)
	if code != "" {
		resp.Error.Message = fmt.Sprintf("%s (%s)", message, code)
		b, _ := json.Marshal(code)
		resp.Error.Extra = map[string]json.RawMessage{"code": b}
	}
	return resp
}

// unreachable answers a request the hub could not take with the offline
// MIM. An answer turn's session is kept as the host had it (final false),
// so nothing of the conversation is lost: its prompt asks the user to say
// the answer again, which the remote fallback then sends to the hub with
// that session in CONTEXT. A handed-over transaction that continued a
// running skill (tx.continues) is an answer turn too, and the session its
// CONTEXT carried is the one handed back: it is what the hub was given,
// and it survives even if the host's copy went meanwhile. A launch simply
// ends.
func (s *RemoteSkill) unreachable(ctx context.Context, req *protocol.Request, tx *Transaction, cause error) (*protocol.Response, error) {
	if errors.Is(cause, ErrClosed) || ctx.Err() != nil {
		return nil, fmt.Errorf("cloud skill %s: %w", s.cs.ID, cause)
	}
	s.r.log.Warn("cloud skill unreachable; saying so", "skill_id", s.cs.ID, "err", cause)
	answerTurn := req.Type == protocol.TypeListenUpdate
	sd := req.Data.Skill
	if tx != nil && tx.continues != nil {
		answerTurn = true
		sd.Session = tx.continues.Session
	}
	act, err := s.r.offline.action(answerTurn, req.Data.Runtime, s.r.cfg.Now())
	if err != nil {
		return nil, err
	}
	final, fireAndForget := !answerTurn, false
	return &protocol.Response{Header: protocol.NewHeader(protocol.TypeSkillAction, protocol.WithTransID(req.TransID)),
		Action: &protocol.SkillActionData{Skill: sd, Action: act, Final: &final, FireAndForget: &fireAndForget}}, nil
}

// busID is the proxy's id on the bus.
func (s *RemoteSkill) busID() string { return registry.BusID(s.cs.ID) }

// cleanIntent makes a hub intent name usable as a pipeline intent name.
func cleanIntent(name string) string {
	name = strings.ReplaceAll(name, ":", "_")
	if name == "" {
		return "hub_match"
	}
	return name
}
