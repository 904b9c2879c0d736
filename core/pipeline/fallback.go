package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/session"
)

// Fallback topics (FALLBACK-1 §9).
const (
	TopicFallbackRegister   = "ovos.fallback.register"
	TopicFallbackDeregister = "ovos.fallback.deregister"
	TopicFallbackPing       = "ovos.fallback.ping"
	TopicFallbackPong       = "ovos.fallback.pong"
)

// MaxFallbackSkills bounds the fallback registry across all sessions.
const MaxFallbackSkills = 1024

// FallbackConfig configures the fallback registry and its stages.
type FallbackConfig struct {
	Bus *bus.Bus
	// Window bounds a stage's poll (default DefaultPollWindow). The
	// orchestrator's match timeout must be at least this (FALLBACK-1 §6.1).
	Window time.Duration
	Logger *slog.Logger
}

// Fallbacks is the registry of fallback skills (FALLBACK-1 §3), keyed by
// session scope. It is a Listener: give it to the orchestrator so
// registrations are applied in order with utterances. Its stages are the
// pipeline plugins.
type Fallbacks struct {
	cfg FallbackConfig
	log *slog.Logger

	mu  sync.RWMutex
	reg map[string]map[string]int // session scope → skill_id → priority
	n   int
}

var _ Listener = (*Fallbacks)(nil)

// NewFallbacks builds an empty registry.
func NewFallbacks(cfg FallbackConfig) (*Fallbacks, error) {
	if cfg.Bus == nil {
		return nil, errors.New("fallback: no bus")
	}
	if cfg.Window <= 0 {
		cfg.Window = DefaultPollWindow
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Fallbacks{cfg: cfg, log: log.With("component", "fallback"), reg: map[string]map[string]int{}}, nil
}

// Topics are the registration topics.
func (f *Fallbacks) Topics() []string {
	return []string{TopicFallbackRegister, TopicFallbackDeregister}
}

// Receive applies a registration or deregistration (FALLBACK-1 §3): the
// payload skill_id must equal context.skill_id, the key is the context
// session's id, and a register needs an integer priority.
func (f *Fallbacks) Receive(_ context.Context, m bus.Message) {
	skill, _ := m.Data["skill_id"].(string)
	if skill == "" || strings.Contains(skill, ":") {
		f.log.Warn("fallback registration without a usable skill_id ignored", "topic", m.Type)
		return
	}
	if c := m.ContextString(bus.KeySkillID); c != skill {
		f.log.Warn("fallback registration ignored: payload skill_id differs from context.skill_id", "topic", m.Type,
			"skill_id", skill, "context_skill_id", c)
		return
	}
	sid := sessionIDOf(m)
	if sid == "" {
		f.log.Warn("fallback registration with a malformed session carrier ignored", "topic", m.Type, "skill_id", skill)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if m.Type == TopicFallbackDeregister {
		if _, ok := f.reg[sid][skill]; ok {
			delete(f.reg[sid], skill)
			f.n--
		}
		return
	}
	prio, ok := integer(m.Data["priority"])
	if !ok {
		f.log.Warn("fallback registration ignored: priority must be an integer", "skill_id", skill)
		return
	}
	if f.reg[sid] == nil {
		f.reg[sid] = map[string]int{}
	}
	if _, again := f.reg[sid][skill]; !again {
		if f.n >= MaxFallbackSkills {
			f.log.Warn("fallback registration ignored: registry full", "limit", MaxFallbackSkills, "skill_id", skill)
			return
		}
		f.n++
	}
	f.reg[sid][skill] = prio
}

func integer(v any) (int, bool) {
	switch t := v.(type) {
	case int64:
		if t < math.MinInt32 || t > math.MaxInt32 {
			return 0, false
		}
		return int(t), true
	case float64:
		if t != math.Trunc(t) || t < math.MinInt32 || t > math.MaxInt32 {
			return 0, false
		}
		return int(t), true
	case int:
		return t, true
	}
	return 0, false
}

// registered returns the skills available to a session ("default" plus its
// own scope, FALLBACK-1 §3.4) with their priorities.
func (f *Fallbacks) registered(sid string) map[string]int {
	f.mu.RLock()
	defer f.mu.RUnlock()
	out := map[string]int{}
	for _, scope := range scopes(sid) {
		for k, v := range f.reg[scope] {
			out[k] = v
		}
	}
	return out
}

// Stage returns a fallback pipeline plugin for priorities in [min, max],
// both inclusive; nil bounds are open (FALLBACK-1 §8.2).
func (f *Fallbacks) Stage(id string, min, max *int) (*FallbackStage, error) {
	if err := ValidatePluginID(id); err != nil {
		return nil, fmt.Errorf("fallback stage: %w", err)
	}
	if min != nil && max != nil && *min > *max {
		return nil, fmt.Errorf("fallback stage %s: range [%d, %d] is empty", id, *min, *max)
	}
	return &FallbackStage{f: f, id: id, min: min, max: max}, nil
}

// FallbackUnknown is the id of the last fallback stage: fallback skills
// of priority UnknownPriority and up, which say the robot did not
// understand, after everything else (the cloud hub's stage included) has
// had its chance.
const FallbackUnknown = "fallback-unknown"

// UnknownPriority is where FallbackUnknown's priorities start: OVOS's
// "unknown" fallback sits there too.
const UnknownPriority = 100

// FallbackStageID is the id of the fallback stage of a confidence band
// ("high", "medium", "low"): fallback-high and so on.
func FallbackStageID(level string) string { return "fallback-" + level }

// DefaultStages returns the recommended stages (FALLBACK-1 §3.3) and the
// last one: fallback-high (..49), fallback-medium [50, 74], fallback-low
// [75, UnknownPriority) and fallback-unknown [UnknownPriority..), open at
// both ends so every priority lands in exactly one.
func (f *Fallbacks) DefaultStages() []*FallbackStage {
	b := func(v int) *int { return &v }
	high, _ := f.Stage(FallbackStageID("high"), nil, b(49))
	medium, _ := f.Stage(FallbackStageID("medium"), b(50), b(74))
	low, _ := f.Stage(FallbackStageID("low"), b(75), b(UnknownPriority-1))
	unknown, _ := f.Stage(FallbackUnknown, b(UnknownPriority), nil)
	return []*FallbackStage{high, medium, low, unknown}
}

// FallbackStage is one fallback pipeline plugin over a priority range.
type FallbackStage struct {
	f        *Fallbacks
	id       string
	min, max *int
}

var (
	_ RoundPlugin  = (*FallbackStage)(nil)
	_ IntentLister = (*FallbackStage)(nil)
)

// ID is the stage's pipeline id.
func (s *FallbackStage) ID() string { return s.id }

func (s *FallbackStage) inRange(p int) bool {
	return (s.min == nil || p >= *s.min) && (s.max == nil || p <= *s.max)
}

// Intents lists the fallback skills in this stage's range (PIPE-31); they
// are language-independent, so no lang.
func (s *FallbackStage) Intents(sid string) []IntentRef {
	var out []IntentRef
	for _, id := range s.pool(session.Empty(), s.f.registered(sid)) {
		out = append(out, IntentRef{SkillID: id, IntentName: "fallback"})
	}
	return out
}

// pool builds the effective handler pool (FALLBACK-1 §5): the session's
// fallback_handlers first, then the rest by priority and skill_id; this
// stage's range; registered skills only; minus blacklisted skills (and
// blacklisted <skill>:fallback intents, PIPE-14).
func (s *FallbackStage) pool(sess session.Session, reg map[string]int) []string {
	var out []string
	seen := map[string]bool{}
	if pref, ok := sess.Strings(session.FieldFallbackHandlers); ok {
		for _, id := range pref {
			if _, ok := reg[id]; ok && !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	var rest []string
	for id := range reg {
		if !seen[id] {
			rest = append(rest, id)
		}
	}
	sort.Slice(rest, func(i, j int) bool {
		if reg[rest[i]] != reg[rest[j]] {
			return reg[rest[i]] < reg[rest[j]]
		}
		return rest[i] < rest[j]
	})
	out = append(out, rest...)
	kept := out[:0]
	for _, id := range out {
		if s.inRange(reg[id]) && !sess.SkillBlocked(id) && !sess.IntentBlocked(id, "fallback") {
			kept = append(kept, id)
		}
	}
	return kept
}

// Match is MatchRound without a lifecycle entry.
func (s *FallbackStage) Match(ctx context.Context, utterances []string, lang string, sess session.Session) (*Match, error) {
	return s.MatchRound(ctx, roundFor(utterances, lang, sess))
}

// MatchRound polls the pool once and returns the first willing skill in
// pool order (FALLBACK-1 §6).
func (s *FallbackStage) MatchRound(ctx context.Context, r Round) (*Match, error) {
	if len(r.Utterances) == 0 {
		return nil, nil
	}
	pool := s.pool(r.Session, s.f.registered(r.Session.ID()))
	if len(pool) == 0 {
		return nil, nil
	}
	p, err := openPoll(s.f.cfg.Bus, TopicFallbackPong, r)
	if err != nil {
		return nil, fmt.Errorf("fallback poll: %w", err)
	}
	defer p.close()
	ping := r.Entry.Reply(TopicFallbackPing, map[string]any{"utterances": r.Utterances, "lang": r.Lang})
	if err := s.f.cfg.Bus.Publish(ctx, ping); err != nil {
		return nil, fmt.Errorf("fallback poll: %w", err)
	}
	inPool := map[string]bool{}
	for _, id := range pool {
		inPool[id] = true
	}
	answers := map[string]pong{}
	p.collect(ctx, s.f.cfg.Window, func(m bus.Message) bool {
		a, ok := readPong(m)
		if !ok || !inPool[a.skillID] {
			return false
		}
		if _, first := answers[a.skillID]; first {
			return false
		}
		answers[a.skillID] = a
		return decided(pool, answers)
	})
	for _, id := range pool {
		if a, ok := answers[id]; ok && a.canHandle {
			return &Match{SkillID: id, IntentName: "fallback", Lang: r.Lang, Slots: map[string]string{}, Utterance: r.Utterances[0]}, nil
		}
	}
	return nil, nil
}
