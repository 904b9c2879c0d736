package intent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/internal/sortx"
)

// Pipeline ids of the stack's bands (PIPE-04): each claims the best
// candidate of one utterance round whose score falls in its band, so a
// deployment can put other stages (fallback skills) between a sure match
// and a less sure one.
const (
	BandHigh   = "intents-high"
	BandMedium = "intents-medium"
	BandLow    = "intents-low"
)

// Band thresholds on a candidate's score (its calibrated confidence times
// its hypothesis's acoustic confidence). Below ClaimFloor nothing is
// claimed: such a match is more often wrong than right, and a wrong action
// is worse than "I didn't understand" (see docs/intents.md).
const (
	HighFloor   = 0.85
	MediumFloor = 0.65
	ClaimFloor  = 0.5
)

// GuessFloor is the least score of a guess (Stack.Guess): a candidate its
// source found likely but would not act on is worth asking about ("Were
// you asking about the timer?") when at least this likely; anything less
// is not asked about.
const GuessFloor = 0.5

// LearnQuiet is how long registrations must have been quiet before the
// stack's learners learn from them: a skill registers its intents one
// message at a time, and learning once per burst is enough.
const LearnQuiet = 250 * time.Millisecond

// ContextASR is the entry context key (ovos.utterance.handle) under which
// a speech recogniser says what it made of a spoken command: {"scores":
// [its confidence in [0, 1] in each entry of data.utterances, in order],
// "pass": "grammar" | "open"} (docs/hearing.md). The stack reads the
// scores as the hypotheses' acoustic confidence. They follow
// data.utterances by position, so an utterance transformer that changes
// the list must give scores for the new one (it may rewrite the context)
// or drop them; a list of another length than the round's utterances is
// ignored.
const ContextASR = "jibo_asr"

// Source names of the built-in sources, and of a topic guess.
const (
	SourceTemplates = "templates"
	SourceKeywords  = "keywords"
	SourceTopic     = "topic"
)

// MaxHypotheses caps the hypotheses of one round the stack looks at; the
// rest of a longer n-best list is ignored.
const MaxHypotheses = 16

// Hypothesis is one candidate transcript of what was said, with the
// speech recogniser's confidence in it.
type Hypothesis struct {
	Text string
	// Acoustic is the recogniser's confidence in (0, 1]; 0 means unknown
	// and counts as 1.
	Acoustic float64
}

// Candidate is one intent a source found for one hypothesis.
type Candidate struct {
	Source     string
	SkillID    string
	IntentName string
	Lang       string
	Slots      map[string]string
	Utterance  string // the hypothesis, as given
	Hypothesis int    // its index in the round
	// Confidence is the source's calibrated estimate that this is the
	// intent meant, given the words (see docs/intents.md).
	Confidence float64
	// Acoustic is the hypothesis's acoustic confidence, 1 when unknown.
	Acoustic float64
	// Score is Confidence × Acoustic, what candidates are ranked by.
	Score float64
	// Why says how the source found it; see Explain.
	Why string
	// Rank is the template parse's rank; nil for other sources.
	Rank *Rank
	// Refused says why the source would not act on the candidate though it
	// found the intent likely (below its own calibrated threshold, or a
	// required slot not said); such a candidate is never claimed, only
	// asked about (Stack.Guess). Empty for a candidate that may be claimed.
	Refused string
	// Missing lists the required slots not said, when that is why it was
	// refused.
	Missing []string
	// Topic is set on a topic guess (Stack.Guess): the words a fragment
	// named one skill's topic with ("timer" of "about my timer"). Such a
	// guess names the skill, not an intent: IntentName is empty.
	Topic string
	// Determiner is the determiner said right before Topic ("my" of
	// "about my timer"); "" when none was.
	Determiner string
	// explain writes Why when a source left it to be written on demand.
	explain func() string
	// staged marks a Generaliser's candidate; group is its place in the
	// claim order (see claimGroup).
	staged bool
	group  int
	// untyped counts a template parse's words in number or duration
	// slots that its parser does not read as one.
	untyped int
}

// Explain returns Why, written now when the source deferred it. A
// recognition may be shared by concurrent rounds, so it is not stored.
func (c *Candidate) Explain() string {
	if c.Why == "" && c.explain != nil {
		return c.explain()
	}
	return c.Why
}

// Source is one ranked source of intent candidates: the template engine,
// the keyword engine, a paraphrase classifier. The stack asks every source
// about every hypothesis once per round and ranks their candidates
// together, so a source's Confidence must mean what the built-in ones'
// does: the estimated probability that the intent is the one meant.
type Source interface {
	// Name identifies the source in candidates and explanations.
	Name() string
	// Candidates returns the source's candidates for one hypothesis, best
	// first, at most one per intent, at most req.Limit, and only intents
	// req.Keep keeps.
	Candidates(ctx context.Context, req Request) ([]Candidate, error)
}

// Generaliser is a Source that knows which intent is meant without a parse
// of the words against a template (a paraphrase classifier). A structural
// parse outranks it when sure: its candidates are claimed by a pipeline
// stage of its own, id Stage(), which comes right after intents-high and
// claims only when no template or keyword candidate reaches that band;
// then it outranks the less sure bands.
type Generaliser interface {
	Source
	// Stage is the pipeline id of the source's stage (PIPE-04).
	Stage() string
}

// Learner is a Source that learns from the template intents registered
// with the stack's template engine. The stack has it learn off the
// utterance path: Start runs a goroutine that does so whenever
// registrations change and have been quiet for LearnQuiet, and Learn does
// so at once. Between learnings it answers from what it learnt last.
type Learner interface {
	Source
	// Learn learns the engine's current registrations; it may keep the
	// engine to align slots with (TemplateEngine.AlignSlots) and to check
	// that an intent it learnt is still enabled (TemplateEngine.Enabled).
	Learn(ctx context.Context, e *TemplateEngine) error
}

// Request is what a source is asked about one hypothesis.
type Request struct {
	Utterance string
	Lang      string // lowercase BCP-47 tag
	SessionID string
	// Limit is how many candidates to return, at least 1.
	Limit int
	// Keep reports whether an intent may be dispatched in this round
	// (session denylists, context rules); a source offers no other.
	Keep func(skillID, intentName string) bool
	// Explain asks for candidates whose Why is written.
	Explain bool
}

// Query is one utterance round put to the stack.
type Query struct {
	Hypotheses []Hypothesis
	Lang       string
	Session    session.Session
	// Round identifies the round (the entry's context.utterance_id): the
	// stack remembers the recognition of a round, so that every band of
	// the pipeline reads the same one. Empty: not remembered.
	Round string
	// Limit is how many candidates each source gives per hypothesis; 0
	// means 1, the best a band would claim. Tools ask for more, to show
	// the runners-up.
	Limit int
	// Explain asks for candidates whose Why is written, and claims whose
	// Why says why they beat the runner-up.
	Explain bool
	// Skill, when set, keeps only that skill's intents (bus id): the
	// answer to "what would you like to do with the timer?" is understood
	// as the timer's. Such a round is not remembered (Round).
	Skill string
}

// Recognition is one round's ranked candidates in claim order: a
// template or keyword parse in the high band first, then a generaliser's
// candidate it would act on (see Generaliser), then the rest, each group
// by score. It holds each intent's best candidate over all hypotheses,
// one from the structural sources and one from the generalisers. Every
// candidate is admissible in the round's session.
type Recognition struct {
	Lang       string
	SessionID  string
	Hypotheses []Hypothesis
	Candidates []Candidate
	explain    bool
}

// StackConfig configures NewStack.
type StackConfig struct {
	// Bus carries the registration topics (INTENT-4) to the stack's
	// registration service; nil builds no service, and definitions are
	// registered with the engines directly (jibohub, tools).
	Bus    *bus.Bus
	Logger *slog.Logger
	// Templates configures the template engine; its Logger and Lexicons
	// default to the stack's.
	Templates EngineOptions
	// Keywords configures the keyword engine likewise.
	Keywords KeywordOptions
	// Lexicons are the skip words per language; nil means BuiltinLexicons.
	Lexicons map[string]*Lexicon
	// Now is the clock for context rules; nil means time.Now.
	Now func() time.Time
	// Explain makes every candidate's Why written, and the bands' Match.Why
	// say why the claim beat the runner-up. Tools want it; the robot does
	// not pay for it (its Match.Why says how the claim was made).
	Explain bool
	// Sources are further ranked sources, added as AddSource adds them: a
	// paraphrase tier (paraphrase.NewTier) is one.
	Sources []Source
}

// Stack is the robot's understanding of text: the template and keyword
// engines, the registration service that feeds them from the bus (the one
// reader of the registration topics), further sources, and the pipeline
// bands that claim from one ranked recognition per utterance round. The
// robot, the tools, the scenario runner, the skills' test rig and jibohub
// all build it with NewStack.
type Stack struct {
	log       *slog.Logger
	Templates *TemplateEngine
	Keywords  *KeywordEngine
	// Service is the registration service; nil without a bus.
	Service *Service
	now     func() time.Time
	explain bool
	lex     map[string]*Lexicon

	mu      sync.Mutex
	sources []Source
	bands   []*Band // the structural bands, surest first
	stages  []*Band // the generalisers' stages, in the order added
	cache   [8]cached
	next    int

	// learn serialises learning; learnt is the template engine's version
	// the learners last learnt.
	learn   sync.Mutex
	learnt  uint64
	learns  atomic.Uint64 // learning passes run, failed or not
	stale   atomic.Bool   // a learner was added since
	changed chan struct{}
	// stopLearning stops the learning goroutine and waits for it.
	stopLearning func()
}

type cached struct {
	round string
	rec   *Recognition
}

// NewStack builds the stack. With a bus, Start subscribes its
// registration service.
func NewStack(cfg StackConfig) (*Stack, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	lex := cfg.Lexicons
	if lex == nil {
		var err error
		if lex, err = BuiltinLexicons(); err != nil {
			return nil, fmt.Errorf("intent stack: %w", err)
		}
	}
	changed := make(chan struct{}, 1)
	to := cfg.Templates
	user := to.OnChange
	to.OnChange = func() {
		if user != nil {
			user()
		}
		select {
		case changed <- struct{}{}:
		default: // a wake-up is already pending
		}
	}
	if to.Logger == nil {
		to.Logger = log
	}
	if to.Lexicons == nil {
		to.Lexicons = lex
	}
	ko := cfg.Keywords
	if ko.Logger == nil {
		ko.Logger = log
	}
	if ko.Lexicons == nil {
		ko.Lexicons = lex
	}
	s := &Stack{log: log, Templates: NewTemplateEngine(to), Keywords: NewKeywordEngine(ko), now: cfg.Now, explain: cfg.Explain,
		changed: changed, lex: lex}
	if s.now == nil {
		s.now = time.Now
	}
	if cfg.Bus != nil {
		s.Service = NewService(cfg.Bus, s.Templates, log, WithKeywordEngine(s.Keywords))
	}
	s.sources = []Source{templateSource{s.Templates}, keywordSource{s.Keywords}}
	s.bands = []*Band{
		{id: BandHigh, level: "high", min: HighFloor, max: math.Inf(1), stack: s},
		{id: BandMedium, level: "medium", min: MediumFloor, max: HighFloor, stack: s},
		{id: BandLow, level: "low", min: ClaimFloor, max: MediumFloor, stack: s},
	}
	for _, src := range cfg.Sources {
		if err := s.AddSource(src); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Lexicons are the skip words the stack's engines match with, by
// language, for other engines of the same robot to share (they are not
// changed after they are made).
func (s *Stack) Lexicons() map[string]*Lexicon { return s.lex }

// Start subscribes the registration service, when there is one, and
// starts the goroutine that has the learners learn when registrations
// change (Close stops it).
func (s *Stack) Start() error {
	if s.Service != nil {
		if err := s.Service.Start(); err != nil {
			return err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopLearning != nil || len(s.learnersLocked()) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.learnLoop(ctx)
	}()
	s.stopLearning = func() { cancel(); <-done }
	return nil
}

// Close stops the registration service and the learning goroutine,
// waiting for a learning under way.
func (s *Stack) Close() {
	if s.Service != nil {
		s.Service.Close()
	}
	s.mu.Lock()
	stop := s.stopLearning
	s.stopLearning = nil
	s.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// learnLoop has the learners learn whenever the registrations changed and
// then stayed quiet for LearnQuiet, until ctx ends. Registrations made
// before it started count as a change.
func (s *Stack) learnLoop(ctx context.Context) {
	quiet := time.NewTimer(LearnQuiet)
	defer quiet.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.changed:
			quiet.Reset(LearnQuiet)
		case <-quiet.C:
			learnt, err := s.learnIfChanged(ctx)
			if err != nil && ctx.Err() == nil {
				s.log.Warn("intent stack: learning the registered intents", "err", err)
			}
			if learnt {
				// Learning leaves megabytes of garbage behind; a long-running
				// process gives the pages back now rather than keep them
				// as idle memory (docs/intents.md, "The robot").
				debug.FreeOSMemory()
			}
		}
	}
}

// Learn has every learner learn the registered intents now, unless they
// already learnt this very set. Tools and tests call it after
// registering; the robot's stack learns on its own once started.
func (s *Stack) Learn(ctx context.Context) error {
	_, err := s.learnIfChanged(ctx)
	return err
}

// learnIfChanged has the learners learn unless they already learnt the
// current registrations; learnt says whether they were asked to.
func (s *Stack) learnIfChanged(ctx context.Context) (learnt bool, err error) {
	s.learn.Lock()
	defer s.learn.Unlock()
	v := s.Templates.Version()
	if !s.stale.Swap(false) && v == s.learnt {
		return false, nil
	}
	s.mu.Lock()
	learners := s.learnersLocked()
	s.mu.Unlock()
	var errs []error
	for _, l := range learners {
		if err := l.Learn(ctx, s.Templates); err != nil {
			errs = append(errs, fmt.Errorf("intent source %s: %w", l.Name(), err))
		}
	}
	if len(errs) > 0 {
		s.stale.Store(true) // try again on the next change or Learn
	}
	s.learnt = v
	s.learns.Add(1)
	return true, errors.Join(errs...)
}

// Generation changes whenever what the stack claims may have changed: at
// each registration or enabling (the template engine's version) and at
// each learning pass, failed or not. Equal generations answer alike, so
// a caller may remember answers under their generation.
func (s *Stack) Generation() uint64 { return s.Templates.Version() + s.learns.Load() }

func (s *Stack) learnersLocked() []Learner {
	var out []Learner
	for _, src := range s.sources {
		if l, ok := src.(Learner); ok {
			out = append(out, l)
		}
	}
	return out
}

// AddSource adds a further ranked source, consulted after the built-in
// ones for every hypothesis. A Generaliser gets a stage of its own (see
// Generaliser); a Learner learns the registered intents (see Learner),
// from the next change on or at the next Learn.
func (s *Stack) AddSource(src Source) error {
	if src == nil || src.Name() == "" {
		return errors.New("intent stack: a source needs a name")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, o := range s.sources {
		if o.Name() == src.Name() {
			return fmt.Errorf("intent stack: source %q added twice", src.Name())
		}
	}
	if g, ok := src.(Generaliser); ok {
		id := g.Stage()
		if err := pipeline.ValidatePluginID(id); err != nil {
			return fmt.Errorf("intent stack: source %q: %w", src.Name(), err)
		}
		for _, b := range append(slices.Clone(s.bands), s.stages...) {
			if b.id == id {
				return fmt.Errorf("intent stack: source %q: stage id %q is taken", src.Name(), id)
			}
		}
		s.stages = append(s.stages, &Band{id: id, source: src.Name(), min: ClaimFloor, max: math.Inf(1), stack: s})
	}
	s.sources = append(s.sources, src)
	if _, ok := src.(Learner); ok {
		s.stale.Store(true)
		select {
		case s.changed <- struct{}{}:
		default:
		}
	}
	return nil
}

// Rules returns what the orchestrator checks every match against
// (CTX-11, CTX-12, CTX-13, PIPE-15): the registration service's view, or
// nil without one.
func (s *Stack) Rules() pipeline.IntentRules {
	if s.Service == nil {
		return nil
	}
	return s.Service
}

// Bands returns the stack's pipeline plugins in claim order: intents-high,
// the generalisers' stages, intents-medium, intents-low.
func (s *Stack) Bands() []*Band {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.claimOrderLocked()
}

func (s *Stack) claimOrderLocked() []*Band {
	out := make([]*Band, 0, len(s.bands)+len(s.stages))
	out = append(out, s.bands[0])
	out = append(out, s.stages...)
	return append(out, s.bands[1:]...)
}

// Plugins returns the bands and stages as pipeline plugins, in claim
// order.
func (s *Stack) Plugins() []pipeline.Plugin {
	bands := s.Bands()
	out := make([]pipeline.Plugin, len(bands))
	for i, b := range bands {
		out[i] = b
	}
	return out
}

// Band returns the band or stage with a pipeline id, or nil.
func (s *Stack) Band(id string) *Band {
	for _, b := range s.Bands() {
		if b.id == id {
			return b
		}
	}
	return nil
}

// Pipeline is the robot's default-session pipeline (PIPE-13), the one
// place its order is decided: stop and converse first (STOP-10, CONV-10);
// then each band followed by the fallback stage of the same confidence
// (FALLBACK-1 §8.2), with the generalisers' stages right after
// intents-high; then the remote stages given (the cloud hub's), and last
// fallback-unknown, where the fallback skill says the robot did not
// understand:
//
//	stop, converse, intents-high, paraphrase, fallback-high,
//	intents-medium, fallback-medium, intents-low, fallback-low,
//	[hub-fallback,] fallback-unknown
func (s *Stack) Pipeline(remote ...string) []string {
	out := []string{"stop", "converse"}
	s.mu.Lock()
	for i, b := range s.bands {
		out = append(out, b.id)
		if i == 0 {
			for _, st := range s.stages {
				out = append(out, st.id)
			}
		}
		out = append(out, pipeline.FallbackStageID(b.level))
	}
	s.mu.Unlock()
	out = append(out, remote...)
	return append(out, pipeline.FallbackUnknown)
}

// Recognize ranks the candidates of every source for every hypothesis of
// one round. A round asked again (each band of the pipeline asks) is
// answered from memory, so the engines run once per utterance.
func (s *Stack) Recognize(ctx context.Context, q Query) (*Recognition, error) {
	hyps := q.Hypotheses
	if len(hyps) > MaxHypotheses {
		hyps = hyps[:MaxHypotheses]
	}
	lang := strings.ToLower(q.Lang)
	sess := q.Session
	if q.Round != "" && q.Skill == "" {
		s.mu.Lock()
		for _, c := range s.cache {
			if c.rec != nil && c.round == q.Round {
				s.mu.Unlock()
				return c.rec, nil
			}
		}
		s.mu.Unlock()
	}
	s.mu.Lock()
	sources := slices.Clone(s.sources)
	s.mu.Unlock()
	limit := max(1, q.Limit)
	keep := s.keeper(q)

	rec := &Recognition{Lang: lang, SessionID: sess.ID(), Hypotheses: slices.Clone(hyps), explain: q.Explain}
	type key struct {
		nameKey
		staged bool
	}
	best := map[key]int{}
	// The structural sources first. A generaliser's candidate is never
	// claimed (nor asked about) once a parse is sure, so then it is not
	// asked at all, unless the caller wants every candidate explained.
	sure := false
	for _, staged := range []bool{false, true} {
		if staged && sure && !q.Explain {
			break
		}
		for hi, h := range hyps {
			acoustic := h.Acoustic
			if acoustic <= 0 || acoustic > 1 || math.IsNaN(acoustic) {
				acoustic = 1
			}
			for _, src := range sources {
				if _, ok := src.(Generaliser); ok != staged {
					continue
				}
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				cands, err := src.Candidates(ctx, Request{Utterance: h.Text, Lang: lang, SessionID: sess.ID(),
					Limit: limit, Keep: keep, Explain: q.Explain})
				if err != nil {
					return nil, fmt.Errorf("intent source %s: %w", src.Name(), err)
				}
				for _, c := range cands {
					c.Source, c.Utterance, c.Hypothesis, c.Acoustic = src.Name(), h.Text, hi, acoustic
					c.Lang, c.staged = lang, staged
					c.Score = c.Confidence * acoustic
					c.group = claimGroup(&c)
					sure = sure || c.group == groupSure
					// Each intent's best candidate of each kind: a structural
					// parse and a generaliser's guess at the same intent are
					// claimed by different stages.
					k := key{nameKey{c.SkillID, c.IntentName}, staged}
					if i, ok := best[k]; ok {
						if o := &rec.Candidates[i]; c.group < o.group || c.group == o.group && c.Score > o.Score {
							*o = c
						}
						continue
					}
					best[k] = len(rec.Candidates)
					rec.Candidates = append(rec.Candidates, c)
				}
			}
		}
	}
	order := map[string]int{}
	for i, src := range sources {
		order[src.Name()] = i
	}
	sortx.StableFunc(rec.Candidates, func(a, b Candidate) int {
		return cmp.Or(cmp.Compare(a.group, b.group), cmp.Compare(b.Score, a.Score), cmp.Compare(a.Hypothesis, b.Hypothesis),
			cmp.Compare(order[a.Source], order[b.Source]), rankCompare(a.Rank, b.Rank),
			strings.Compare(a.SkillID, b.SkillID), strings.Compare(a.IntentName, b.IntentName))
	})
	if q.Round != "" && q.Skill == "" {
		s.mu.Lock()
		s.cache[s.next] = cached{round: q.Round, rec: rec}
		s.next = (s.next + 1) % len(s.cache)
		s.mu.Unlock()
	}
	return rec, nil
}

// keeper reports whether an intent may be dispatched in q's round: not
// denied by its session, admitted by the context rules (CTX-11), and of
// q.Skill when that is set.
func (s *Stack) keeper(q Query) func(skillID, intentName string) bool {
	lang, sess := strings.ToLower(q.Lang), q.Session
	rules, now := s.Rules(), float64(s.now().UnixNano())/1e9
	return func(skillID, intentName string) bool {
		if q.Skill != "" && skillID != q.Skill || sess.SkillBlocked(skillID) || sess.IntentBlocked(skillID, intentName) {
			return false
		}
		m := &pipeline.Match{SkillID: skillID, IntentName: intentName, Lang: lang}
		return pipeline.ContextAdmits(rules, sess, m, now)
	}
}

// Claim groups, in the order candidates are claimed (Recognition):
const (
	groupSure        = iota // a structural parse in the high band
	groupGeneralised        // a generaliser's claimable candidate
	groupRest               // every other: a less sure parse, a refused guess
)

// claimGroup places a candidate in the claim order: a structural parse
// sure enough for the high band first, then a generaliser's candidate it
// would act on, then everything else by score. So a generaliser outranks
// the medium and low bands, never a sure parse.
func claimGroup(c *Candidate) int {
	switch {
	case !c.staged && c.Score >= HighFloor:
		return groupSure
	case c.staged && c.Refused == "" && c.Score >= ClaimFloor:
		return groupGeneralised
	}
	return groupRest
}

func rankCompare(a, b *Rank) int {
	if a == nil || b == nil {
		return 0
	}
	return a.Compare(*b)
}

// intents lists the enabled intents of both engines for a session (PIPE-31).
func (s *Stack) intents(sessionID string) []pipeline.IntentRef {
	var out []pipeline.IntentRef
	for _, r := range s.Templates.Registrations(sessionID) {
		if r.Enabled {
			out = append(out, pipeline.IntentRef{SkillID: r.SkillID, IntentName: r.IntentName, Lang: r.Lang})
		}
	}
	for _, r := range s.Keywords.Registrations(sessionID) {
		if r.Enabled {
			out = append(out, pipeline.IntentRef{SkillID: r.SkillID, IntentName: r.IntentName, Lang: r.Lang})
		}
	}
	sortx.Func(out, func(a, b pipeline.IntentRef) int {
		return cmp.Or(strings.Compare(a.SkillID, b.SkillID), strings.Compare(a.IntentName, b.IntentName), strings.Compare(a.Lang, b.Lang))
	})
	return slices.Compact(out)
}

// Band is one confidence band of the stack as a pipeline plugin, or a
// generaliser's stage. A band claims the round's best template or keyword
// candidate when its score falls in the band; a stage claims its source's
// best candidate that the source would act on, when no template or
// keyword candidate reaches the high band. Every band and stage reads the
// same recognition, so the sources run once per round.
type Band struct {
	id       string
	level    string // "high", "medium", "low"; "" for a stage
	source   string // a stage's source; "" for a band
	min, max float64
	stack    *Stack
}

var (
	_ pipeline.RoundPlugin  = (*Band)(nil)
	_ pipeline.IntentLister = (*Band)(nil)
)

// ID is the band's pipeline id.
func (b *Band) ID() string { return b.id }

// Bounds returns the scores the band claims: at least min, below max.
func (b *Band) Bounds() (min, max float64) { return b.min, b.max }

// Intents lists the stack's enabled intents in the session's pool
// (PIPE-31). Every band lists them all: which band claims an intent
// depends on the utterance, not on the intent.
func (b *Band) Intents(sessionID string) []pipeline.IntentRef { return b.stack.intents(sessionID) }

// Match recognises the utterances (without acoustic scores) and claims as
// MatchRound does.
func (b *Band) Match(ctx context.Context, utterances []string, lang string, s session.Session) (*pipeline.Match, error) {
	return b.MatchRound(ctx, pipeline.Round{Utterances: utterances, Lang: lang, Session: s})
}

// MatchRound recognises the round's hypotheses, with the acoustic scores
// the entry carries under ContextASR, and claims the round's best
// candidate when its score is in the band. The recognition is shared by
// the round's bands (by the entry's utterance_id).
func (b *Band) MatchRound(ctx context.Context, r pipeline.Round) (*pipeline.Match, error) {
	rec, err := b.stack.Recognize(ctx, Query{Hypotheses: Hypotheses(r), Lang: r.Lang, Session: r.Session,
		Round: r.Entry.ContextString(bus.KeyUtteranceID), Explain: b.stack.explain})
	if err != nil {
		return nil, err
	}
	m, _ := b.Claim(rec)
	return m, nil
}

// Hypotheses reads a round's utterances and the acoustic scores its entry
// carries (ContextASR).
func Hypotheses(r pipeline.Round) []Hypothesis {
	asr, _ := r.Entry.Context[ContextASR].(map[string]any)
	scores, _ := asr["scores"].([]any)
	if len(scores) != len(r.Utterances) {
		scores = nil // not this list's: unknown
	}
	out := make([]Hypothesis, len(r.Utterances))
	for i, u := range r.Utterances {
		out[i].Text = u
		if scores == nil {
			continue
		}
		switch v := scores[i].(type) {
		case float64:
			out[i].Acoustic = v
		case int64:
			out[i].Acoustic = float64(v)
		}
	}
	return out
}

// Claim returns what the band claims from a recognition: its best
// candidate, when that candidate's score is in the band. The bands
// partition the scores above ClaimFloor, so exactly one band claims a
// recognition whose best template or keyword candidate scores that high;
// a stage asked before the lower bands may claim first.
func (b *Band) Claim(rec *Recognition) (*pipeline.Match, *Candidate) {
	c := b.candidate(rec)
	if c == nil || c.Score < b.min || c.Score >= b.max {
		return nil, nil
	}
	m := &pipeline.Match{SkillID: c.SkillID, IntentName: c.IntentName, Lang: rec.Lang, Slots: c.Slots,
		Utterance: c.Utterance, Confidence: c.Score}
	// Why rides on ovos.intent.matched for people watching (the web
	// page); why it beat the runner-up only for tools.
	m.Why = c.Explain()
	if p := rec.parseOf(c); p != nil {
		// A stage's intent that a template also parses, too unsure for its
		// band: the parse places every word, so its slots are the words
		// said ("remember that the keys…" keeps "the").
		m.Slots, m.Utterance = p.Slots, p.Utterance
		m.Why += "; slots from " + p.Explain()
	}
	if rec.explain {
		if ru := rec.runnerUp(c); ru != nil {
			m.Why += "; " + explainWin(c, ru)
		}
	}
	return m, c
}

// parseOf returns, for a generaliser's candidate c, the structural
// sources' parse of the same intent when one scores at least ClaimFloor
// and is not refused, and whose number and duration slots hold values
// their parser reads ("no make it please" gives no duration "please");
// nil otherwise, and for a structural candidate.
func (rec *Recognition) parseOf(c *Candidate) *Candidate {
	if !c.staged {
		return nil
	}
	for i := range rec.Candidates {
		p := &rec.Candidates[i]
		if !p.staged && p.SkillID == c.SkillID && p.IntentName == c.IntentName && p.Refused == "" && p.untyped == 0 && p.Score >= ClaimFloor {
			return p
		}
	}
	return nil
}

// candidate is the best candidate the band or stage may claim, or nil.
func (b *Band) candidate(rec *Recognition) *Candidate {
	for i := range rec.Candidates {
		c := &rec.Candidates[i]
		switch {
		case b.source == "" && !c.staged:
			return c
		case b.source == "" || c.Source != b.source:
		case c.group == groupGeneralised && (i == 0 || rec.Candidates[0].group != groupSure):
			return c
		default:
			return nil // a sure parse outranks it, or its source would not act on it
		}
	}
	return nil
}

// runnerUp is the best candidate of another intent than c.
func (rec *Recognition) runnerUp(c *Candidate) *Candidate {
	for i := range rec.Candidates {
		o := &rec.Candidates[i]
		if o.SkillID != c.SkillID || o.IntentName != c.IntentName {
			return o
		}
	}
	return nil
}

// explainWin says why candidate a ranks above b.
func explainWin(a, b *Candidate) string {
	if a.Rank != nil && b.Rank != nil && a.Hypothesis == b.Hypothesis {
		if w := a.Rank.Beats(*b.Rank); w != "" {
			return fmt.Sprintf("beat %s:%s (%.2f): %s", b.SkillID, b.IntentName, b.Score, w)
		}
	}
	if a.Score > b.Score {
		return fmt.Sprintf("beat %s:%s: score %.2f against %.2f", b.SkillID, b.IntentName, a.Score, b.Score)
	}
	return fmt.Sprintf("tied with %s:%s at %.2f; the earlier hypothesis, source and name go first", b.SkillID, b.IntentName, b.Score)
}

// templateSource offers the template engine's ranked parses.
type templateSource struct{ e *TemplateEngine }

func (t templateSource) Name() string { return SourceTemplates }

func (t templateSource) Candidates(_ context.Context, req Request) ([]Candidate, error) {
	rs := t.e.recognize(req.Utterance, req.Lang, req.SessionID, req.Limit, req.Explain, req.Keep)
	out := make([]Candidate, len(rs))
	for i, r := range rs {
		out[i] = Candidate{SkillID: r.SkillID, IntentName: r.IntentName, Slots: r.Slots,
			Confidence: r.Confidence, Rank: &r.Rank, Why: r.Why, explain: r.explain, untyped: r.untyped}
	}
	return out, nil
}

// keywordSource offers the keyword engine's match (REG-05).
type keywordSource struct{ e *KeywordEngine }

func (k keywordSource) Name() string { return SourceKeywords }

func (k keywordSource) Candidates(_ context.Context, req Request) ([]Candidate, error) {
	r := k.e.match(req.Utterance, req.Lang, req.SessionID, req.Keep)
	if r == nil {
		return nil, nil
	}
	return []Candidate{{SkillID: r.SkillID, IntentName: r.IntentName, Slots: r.Slots,
		Confidence: keywordConfidence(r), Why: r.Why}}, nil
}

// keywordConfidence calibrates a keyword match (docs/intents.md): it is
// as likely right as its phrases account for the words said; a content
// word it leaves unexplained makes it a coin toss, two make it unlikely.
func keywordConfidence(r *Result) float64 {
	var p float64
	switch r.Unexplained {
	case 0:
		p = 0.6 + 0.3*r.Confidence
	case 1:
		p = 0.52 + 0.1*r.Confidence
	default:
		p = 0.3 - 0.05*float64(r.Unexplained-2)
	}
	if r.Evidence == 0 {
		p -= 0.1 // its phrases are only function words
	}
	return min(0.95, max(0.01, p))
}

// Plugin returns the band with a pipeline id as a pipeline plugin, or nil.
func (s *Stack) Plugin(id string) pipeline.Plugin {
	if b := s.Band(id); b != nil {
		return b
	}
	return nil
}

// Claim is what the stack's bands, asked surest first, claim for a round:
// the match, the claiming band's id and the recognition it came from; a
// nil match when every band declines. Tools and test rigs use it in place
// of a pipeline, which would put other stages between the bands.
func (s *Stack) Claim(ctx context.Context, q Query) (*pipeline.Match, string, *Recognition, error) {
	rec, err := s.Recognize(ctx, q)
	if err != nil {
		return nil, "", nil, err
	}
	for _, b := range s.Bands() {
		if m, _ := b.Claim(rec); m != nil {
			return m, b.id, rec, nil
		}
	}
	return nil, "", rec, nil
}

// Guess returns what the robot half understood of a round no band or
// stage claims: the best candidate its source found likely but refused to
// act on (a paraphrase below its calibrated threshold or lead, with
// evidence in the words; or one whose required slot was not said, which
// Candidate.Missing names), at least GuessFloor likely. The fallback skill
// asks about it ("Were you asking about the timer?"). ok is false when a
// band or stage would claim the round, or there is no such candidate:
// nothing is asked about junk. A template or keyword parse below
// ClaimFloor is never a guess: such parses bind words their slots do not
// list, or leave content words unexplained, and are seldom right
// (docs/intents.md).
func (s *Stack) Guess(ctx context.Context, q Query) (Candidate, bool, error) {
	rec, err := s.Recognize(ctx, q)
	if err != nil {
		return Candidate{}, false, err
	}
	for _, b := range s.Bands() {
		if m, _ := b.Claim(rec); m != nil {
			return Candidate{}, false, nil
		}
	}
	for _, c := range rec.Candidates {
		if c.Refused != "" && c.Score >= GuessFloor {
			c.Lang = rec.Lang
			return c, true, nil
		}
	}
	if len(rec.Hypotheses) == 0 {
		return Candidate{}, false, nil
	}
	h := rec.Hypotheses[0]
	if h.Acoustic > 0 && h.Acoustic < GuessFloor {
		return Candidate{}, false, nil // too unsure of the words to ask about them
	}
	skillID, det, topic, ok := s.Templates.Topic(h.Text, rec.Lang, rec.SessionID, s.keeper(q))
	if !ok {
		return Candidate{}, false, nil
	}
	return Candidate{Source: SourceTopic, SkillID: skillID, Lang: rec.Lang, Utterance: h.Text, Topic: topic, Determiner: det,
		Refused: "a fragment: it names " + topic + ", a topic of " + skillID + ", and asks nothing of it"}, true, nil
}

// Texts turns utterances into hypotheses without acoustic scores.
func Texts(utterances ...string) []Hypothesis {
	out := make([]Hypothesis, len(utterances))
	for i, u := range utterances {
		out[i].Text = u
	}
	return out
}
