package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/session"
)

// Stop topics (STOP-1, §12).
const (
	TopicStop     = "ovos.stop"
	TopicStopPing = "ovos.stop.ping"
	TopicStopPong = "ovos.stop.pong"
)

// MaxStopPhrases bounds a stop vocabulary per language.
const MaxStopPhrases = 256

// StopConfig configures the stop plugin.
type StopConfig struct {
	Bus *bus.Bus
	// ID is the pipeline id (default "stop"); global_stop is dispatched as
	// "<ID>:global_stop".
	ID string
	// Window bounds the ping (default DefaultPollWindow).
	Window time.Duration
	// Vocab maps a language tag (or a bare primary tag, "en") to the phrases
	// that mean "stop"; Global to those that mean "stop everything" and go
	// straight to global_stop (STOP-02). Nil Vocab means DefaultStopVocab.
	Vocab, Global map[string][]string
	// Cancel maps a language to the stop phrases that may also mean
	// cancelling something running in the background, such as a timer
	// counting down ("cancel", "stop it"); nil means DefaultCancelPhrases
	// with the default Vocab, none with another. Each must be a Vocab
	// phrase too.
	Cancel map[string][]string
	// Unstopped, if set, is asked about a Cancel phrase that finds nothing
	// to stop: no question is open, and no skill is active or none of the
	// active ones answers the ping. The stop goes ahead exactly as without
	// it (global_stop, STOP-03.1, or the most recent active skill's stop,
	// STOP-03.6); a function it returns runs after that stop, inside its
	// handler (Match.After), to say what a stop word leaves running. It
	// must not block; nil adds nothing.
	Unstopped func(ctx context.Context, r Round) func(context.Context, Dispatch) error
	Logger    *slog.Logger
}

// DefaultStopVocab returns the built-in English stop and global-stop
// phrases, in the normalised form utterances are compared in (lowercase
// words, apostrophes dropped).
func DefaultStopVocab() (vocab, global map[string][]string) {
	vocab = map[string][]string{"en": {"stop", "stop it", "stop that", "please stop", "stop please", "cancel", "cancel that",
		"cancel please", "please cancel", "nevermind", "never mind", "be quiet", "quiet", "shut up", "silence", "halt", "enough", "thats enough"}}
	global = map[string][]string{"en": {"stop everything", "stop all", "stop all of that", "cancel everything", "stop all activity"}}
	return vocab, global
}

// DefaultCancelPhrases returns the built-in English stop phrases that may
// also mean cancelling something running in the background: the stop and
// cancel words. "Never mind" takes a request back and the quiet words ask
// for silence; neither is about what runs.
func DefaultCancelPhrases() map[string][]string {
	return map[string][]string{"en": {"stop", "stop it", "stop that", "please stop", "stop please", "cancel",
		"cancel that", "cancel please", "please cancel"}}
}

// Stop is the STOP-1 pipeline plugin: on a stop phrase it stops the most
// recent stoppable active skill (<skill>:stop), or everything
// (<ID>:global_stop, whose handler emits ovos.stop).
type Stop struct {
	cfg    StopConfig
	log    *slog.Logger
	vocab  map[string]map[string]bool // lowercased tag → phrases
	global map[string]map[string]bool
	cancel map[string]map[string]bool
}

var (
	_ RoundPlugin   = (*Stop)(nil)
	_ IntentHandler = (*Stop)(nil)
	_ IntentLister  = (*Stop)(nil)
)

// NewStop builds the stop plugin, normalising its vocabulary.
func NewStop(cfg StopConfig) (*Stop, error) {
	if cfg.Bus == nil {
		return nil, errors.New("stop plugin: no bus")
	}
	if cfg.ID == "" {
		cfg.ID = "stop"
	}
	if err := ValidatePluginID(cfg.ID); err != nil {
		return nil, fmt.Errorf("stop plugin: %w", err)
	}
	if cfg.Window <= 0 {
		cfg.Window = DefaultPollWindow
	}
	if cfg.Vocab == nil {
		cfg.Vocab, cfg.Global = DefaultStopVocab()
		if cfg.Cancel == nil {
			cfg.Cancel = DefaultCancelPhrases()
		}
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	s := &Stop{cfg: cfg, log: log.With("component", "stop")}
	var err error
	if s.vocab, err = stopPhrases(cfg.Vocab); err != nil {
		return nil, fmt.Errorf("stop plugin: vocabulary: %w", err)
	}
	if s.global, err = stopPhrases(cfg.Global); err != nil {
		return nil, fmt.Errorf("stop plugin: global vocabulary: %w", err)
	}
	if s.cancel, err = stopPhrases(cfg.Cancel); err != nil {
		return nil, fmt.Errorf("stop plugin: cancel phrases: %w", err)
	}
	for tag, set := range s.cancel {
		for p := range set {
			if !s.vocab[tag][p] {
				return nil, fmt.Errorf("stop plugin: cancel phrase %q (%s) is no stop phrase", p, tag)
			}
		}
	}
	return s, nil
}

func stopPhrases(in map[string][]string) (map[string]map[string]bool, error) {
	out := map[string]map[string]bool{}
	for tag, list := range in {
		if !session.ValidLang(tag) {
			return nil, fmt.Errorf("language %q is not a BCP-47 tag", tag)
		}
		if len(list) > MaxStopPhrases {
			return nil, fmt.Errorf("%s: %d phrases, limit %d", tag, len(list), MaxStopPhrases)
		}
		set := map[string]bool{}
		for i, p := range list {
			n := normalizeStop(p)
			if n == "" {
				return nil, fmt.Errorf("%s: phrase %d is empty", tag, i)
			}
			set[n] = true
		}
		out[strings.ToLower(tag)] = set
	}
	return out, nil
}

// normalizeStop lowercases, drops apostrophes and turns everything that is
// not a letter or digit into single spaces.
func normalizeStop(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(s) {
		switch {
		case r == '\'' || r == '’':
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
		default:
			space = true
		}
	}
	return b.String()
}

// phrasesFor finds a language's set: the exact tag, else its primary tag.
func phrasesFor(sets map[string]map[string]bool, lang string) map[string]bool {
	l := strings.ToLower(lang)
	if s, ok := sets[l]; ok {
		return s
	}
	primary, _, _ := strings.Cut(l, "-")
	return sets[primary]
}

// ID is the plugin's pipeline id.
func (s *Stop) ID() string { return s.cfg.ID }

// Says reports whether utterance is one of lang's stop or global-stop
// phrases, as the plugin compares them: a text console uses it to let a
// stop jump the queue of lines waiting for their turn.
func (s *Stop) Says(utterance, lang string) bool {
	n := normalizeStop(utterance)
	return n != "" && (phrasesFor(s.vocab, lang)[n] || phrasesFor(s.global, lang)[n])
}

// Intents lists global_stop for each language with a vocabulary (PIPE-31).
func (s *Stop) Intents(string) []IntentRef {
	var out []IntentRef
	for tag := range s.vocab {
		out = append(out, IntentRef{SkillID: s.cfg.ID, IntentName: "global_stop", Lang: tag})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Lang < out[j].Lang })
	return out
}

// Match is MatchRound without a lifecycle entry.
func (s *Stop) Match(ctx context.Context, utterances []string, lang string, sess session.Session) (*Match, error) {
	return s.MatchRound(ctx, roundFor(utterances, lang, sess))
}

// MatchRound implements STOP-02 and STOP-03. A Cancel phrase that finds
// nothing to stop gets Unstopped's word after the stop (Match.After).
func (s *Stop) MatchRound(ctx context.Context, r Round) (*Match, error) {
	stop := phrasesFor(s.vocab, r.Lang)
	if stop == nil {
		return nil, nil // STOP-02: no vocabulary for this language
	}
	global := phrasesFor(s.global, r.Lang)
	said, cancel := "", false
	for _, u := range r.Utterances {
		n := normalizeStop(u)
		if global[n] {
			return s.globalStop(r, u), nil
		}
		if said == "" && stop[n] {
			said, cancel = u, phrasesFor(s.cancel, r.Lang)[n]
		}
	}
	if said == "" {
		return nil, nil
	}
	// then adds Unstopped's word to a stop that finds nothing to stop.
	then := func(m *Match) *Match {
		if m == nil || !cancel || s.cfg.Unstopped == nil {
			return m
		}
		if _, asking := r.Session.ResponseMode(); asking {
			return m // the stop ends the question
		}
		m.After = s.cfg.Unstopped(ctx, r)
		return m
	}
	own := s.cfg.ID
	active := session.RemoveHandler(r.Session.Handlers(session.FieldActiveHandlers), own)
	if len(active) == 0 {
		return then(s.globalStop(r, said)), nil // STOP-03.1
	}
	answers, err := s.ping(ctx, r, active)
	if err != nil {
		return nil, err
	}
	eligible := func(e session.HandlerEntry) bool {
		return !r.Session.SkillBlocked(e.SkillID) && !r.Session.IntentBlocked(e.SkillID, "stop") // STOP-03.4, STOP-09
	}
	target := -1
	stopsSomething := true
	if i := session.MostRecent(active, func(e session.HandlerEntry) bool { return eligible(e) && answers[e.SkillID] }); i >= 0 {
		target = i // STOP-03.5: only positive responders
	} else {
		target = session.MostRecent(active, eligible) // STOP-03.6: never escalate
		stopsSomething = false
	}
	if target < 0 {
		return nil, nil // STOP-03.7
	}
	id := active[target].SkillID
	up := r.Session.WithHandlers(session.FieldActiveHandlers, session.RemoveHandler(r.Session.Handlers(session.FieldActiveHandlers), id))
	if rm, ok := up.ResponseMode(); ok && rm.SkillID == id {
		up = up.Without(session.FieldResponseMode)
	}
	m := &Match{SkillID: id, IntentName: "stop", Lang: r.Lang, Slots: map[string]string{}, Utterance: said,
		UpdatedSession: up.Map()}
	if stopsSomething {
		return m, nil
	}
	return then(m), nil
}

// globalStop is STOP-05's Match; nil when the session blocks it (STOP-09).
func (s *Stop) globalStop(r Round, said string) *Match {
	if r.Session.IntentBlocked(s.cfg.ID, "global_stop") {
		return nil
	}
	up := r.Session.WithHandlers(session.FieldActiveHandlers, nil).
		WithHandlers(session.FieldConverseHandlers, nil).
		Without(session.FieldResponseMode)
	return &Match{SkillID: s.cfg.ID, IntentName: "global_stop", Lang: r.Lang, Slots: map[string]string{}, Utterance: said,
		UpdatedSession: up.Map()}
}

// ping asks the active skills whether they can stop (STOP-03.2, STOP-04) and
// returns the positive responders among them.
func (s *Stop) ping(ctx context.Context, r Round, active []session.HandlerEntry) (map[string]bool, error) {
	p, err := openPoll(s.cfg.Bus, TopicStopPong, r)
	if err != nil {
		return nil, fmt.Errorf("stop ping: %w", err)
	}
	defer p.close()
	if err := s.cfg.Bus.Publish(ctx, r.Entry.Reply(TopicStopPing, map[string]any{})); err != nil {
		return nil, fmt.Errorf("stop ping: %w", err)
	}
	pending := map[string]bool{}
	for _, e := range active {
		pending[e.SkillID] = true
	}
	yes := map[string]bool{}
	p.collect(ctx, s.cfg.Window, func(m bus.Message) bool {
		a, ok := readPong(m)
		if !ok || !pending[a.skillID] {
			return false // not active, not the emitter's, or already answered
		}
		delete(pending, a.skillID)
		if a.canHandle {
			yes[a.skillID] = true
		}
		return len(pending) == 0
	})
	return yes, nil
}

// HandleIntent runs <ID>:global_stop: one ovos.stop for the session
// (STOP-06, STOP-10), a broadcast forward of the dispatch.
func (s *Stop) HandleIntent(ctx context.Context, d Dispatch) (session.Session, error) {
	if d.IntentName != "global_stop" {
		return session.Session{}, fmt.Errorf("stop plugin: no intent %q", d.IntentName)
	}
	m := d.Message.Forward(TopicStop, map[string]any{})
	delete(m.Context, bus.KeyDestination)
	if err := s.cfg.Bus.Publish(ctx, m); err != nil {
		return session.Session{}, fmt.Errorf("stop plugin: publishing %s: %w", TopicStop, err)
	}
	return session.Session{}, nil
}
