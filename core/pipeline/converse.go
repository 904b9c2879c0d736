package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/session"
)

// Converse poll topics as read in CONVERSE-1 (CONV-06). CONV-11 notes older
// drafts' addressed <skill_id>.converse.ping with a boolean result; the
// topics are configurable for that reason.
const (
	TopicConversePing = "ovos.converse.ping"
	TopicConversePong = "ovos.converse.pong"
)

// DefaultConverseTTL is how long a skill stays in converse_handlers after its
// last dispatch (CONV-04), as in OVOS' own default.
const DefaultConverseTTL = 5 * time.Minute

// ConverseConfig configures the converse plugin.
type ConverseConfig struct {
	Bus *bus.Bus
	// ID is the pipeline id (default "converse").
	ID string
	// Window bounds the poll (default DefaultPollWindow).
	Window time.Duration
	// TTL prunes converse_handlers (CONV-04); 0 means DefaultConverseTTL,
	// negative means none.
	TTL time.Duration
	// PingTopic and PongTopic override the poll topics (CONV-11).
	PingTopic, PongTopic string
	// Eligible, when set, says which skills take part in converse polls.
	// Others count as silent (can_handle: false) without being waited for,
	// and when no candidate is eligible no poll goes out. Nil: every skill.
	Eligible func(skillID string) bool
	// Now is the clock of activated_at and expires_at; nil means time.Now.
	Now    func() time.Time
	Logger *slog.Logger
}

// Converse is the CONVERSE-1 pipeline plugin: it gives the utterance to the
// response-mode holder, or polls the recently active skills and returns the
// first claimer in recency order. It keeps no state between utterances.
type Converse struct {
	cfg ConverseConfig
	log *slog.Logger
}

var (
	_ RoundPlugin  = (*Converse)(nil)
	_ IntentLister = (*Converse)(nil)
)

// NewConverse builds the converse plugin.
func NewConverse(cfg ConverseConfig) (*Converse, error) {
	if cfg.Bus == nil {
		return nil, errors.New("converse plugin: no bus")
	}
	if cfg.ID == "" {
		cfg.ID = "converse"
	}
	if err := ValidatePluginID(cfg.ID); err != nil {
		return nil, fmt.Errorf("converse plugin: %w", err)
	}
	if cfg.Window <= 0 {
		cfg.Window = DefaultPollWindow
	}
	if cfg.TTL == 0 {
		cfg.TTL = DefaultConverseTTL
	}
	if cfg.PingTopic == "" {
		cfg.PingTopic = TopicConversePing
	}
	if cfg.PongTopic == "" {
		cfg.PongTopic = TopicConversePong
	}
	for _, t := range []string{cfg.PingTopic, cfg.PongTopic} {
		if err := bus.ValidateTopic(t); err != nil {
			return nil, fmt.Errorf("converse plugin: %w", err)
		}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Converse{cfg: cfg, log: log.With("component", "converse")}, nil
}

// ID is the plugin's pipeline id.
func (c *Converse) ID() string { return c.cfg.ID }

// Intents is empty: converse matches only the reserved converse and
// response intents of whoever is active.
func (c *Converse) Intents(string) []IntentRef { return nil }

// Match is MatchRound without a lifecycle entry.
func (c *Converse) Match(ctx context.Context, utterances []string, lang string, s session.Session) (*Match, error) {
	return c.MatchRound(ctx, roundFor(utterances, lang, s))
}

// pruneConverse returns converse_handlers without entries older than ttl
// (CONV-04); the live response-mode holder is never pruned (CONV-03).
func pruneConverse(s session.Session, now float64, ttl time.Duration) []session.HandlerEntry {
	list := s.Handlers(session.FieldConverseHandlers)
	if ttl <= 0 {
		return list
	}
	holder := ""
	if rm, ok := s.ResponseMode(); ok && rm.ExpiresAt > now {
		holder = rm.SkillID
	}
	out := make([]session.HandlerEntry, 0, len(list))
	for _, e := range list {
		if e.SkillID == holder || now-e.ActivatedAt <= ttl.Seconds() {
			out = append(out, e)
		}
	}
	return out
}

// MatchRound implements CONV-06.
func (c *Converse) MatchRound(ctx context.Context, r Round) (*Match, error) {
	if len(r.Utterances) == 0 {
		return nil, nil
	}
	now := nowSeconds(c.cfg.Now())
	list := pruneConverse(r.Session, now, c.cfg.TTL)
	if len(list) == 0 {
		return nil, nil
	}

	// CONV-06.1: a live holder listed in converse_handlers takes it, no poll.
	if rm, ok := r.Session.ResponseMode(); ok && rm.ExpiresAt > now && listed(list, rm.SkillID) {
		up := r.Session.WithHandlers(session.FieldConverseHandlers, list).Without(session.FieldResponseMode) // single-shot (CONV-05)
		return &Match{SkillID: rm.SkillID, IntentName: "response", Lang: r.Lang, Slots: map[string]string{},
			Utterance: r.Utterances[0], UpdatedSession: up.Map()}, nil
	}

	var cands []string
	for _, e := range session.ByRecency(list, nil) {
		switch {
		case r.Session.SkillBlocked(e.SkillID), r.Session.IntentBlocked(e.SkillID, "converse"):
		case c.cfg.Eligible != nil && !c.cfg.Eligible(e.SkillID):
		default:
			cands = append(cands, e.SkillID)
		}
	}
	if len(cands) == 0 {
		return nil, nil
	}
	answers, err := c.poll(ctx, r, cands)
	if err != nil {
		return nil, err
	}
	claimer := ""
	for _, id := range cands {
		if a, ok := answers[id]; ok && a.canHandle {
			claimer = id
			break
		}
	}
	if claimer == "" {
		return nil, nil
	}
	// CONV-07: "done" asks for removal, carried by this claiming match.
	for id, a := range answers {
		if a.errorCode == "done" && id != claimer {
			list = session.RemoveHandler(list, id)
		}
	}
	up := r.Session.WithHandlers(session.FieldConverseHandlers, list)
	return &Match{SkillID: claimer, IntentName: "converse", Lang: r.Lang, Slots: map[string]string{},
		Utterance: r.Utterances[0], UpdatedSession: up.Map()}, nil
}

func listed(list []session.HandlerEntry, id string) bool {
	for _, e := range list {
		if e.SkillID == id {
			return true
		}
	}
	return false
}

// poll broadcasts one ping and collects the candidates' answers, closing
// early once the first claimer in recency order is known (CONV-06.5).
func (c *Converse) poll(ctx context.Context, r Round, cands []string) (map[string]pong, error) {
	p, err := openPoll(c.cfg.Bus, c.cfg.PongTopic, r)
	if err != nil {
		return nil, fmt.Errorf("converse poll: %w", err)
	}
	defer p.close()
	ping := r.Entry.Reply(c.cfg.PingTopic, map[string]any{"utterances": r.Utterances, "lang": r.Lang})
	if err := c.cfg.Bus.Publish(ctx, ping); err != nil {
		return nil, fmt.Errorf("converse poll: %w", err)
	}
	isCand := map[string]bool{}
	for _, id := range cands {
		isCand[id] = true
	}
	answers := map[string]pong{}
	p.collect(ctx, c.cfg.Window, func(m bus.Message) bool {
		a, ok := readPong(m)
		if !ok || !isCand[a.skillID] {
			return false
		}
		if _, first := answers[a.skillID]; first {
			return false // the first valid answer per skill stands
		}
		answers[a.skillID] = a
		return decided(cands, answers)
	})
	return answers, nil
}

// decided reports whether no pending answer can change the pick: walking
// the candidates in rank order, every one before the first claim answered.
func decided(ranked []string, answers map[string]pong) bool {
	for _, id := range ranked {
		a, ok := answers[id]
		if !ok {
			return false
		}
		if a.canHandle {
			return true
		}
	}
	return true
}
