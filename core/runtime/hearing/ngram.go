//go:build sphinx

package hearing

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/openjibo/jibod/audio/grammar"
	"github.com/openjibo/jibod/audio/ngram"
	"github.com/openjibo/jibod/audio/sphinx"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/session"
)

// The domain language model's settings (sphinx.search "ngram").
const (
	// openWordCount is how many of the most frequent English words
	// (sphinx.OpenWords) the model has besides the skills' own.
	openWordCount = 1000
	// openWeight is the open words' share of the model's unigrams.
	openWeight = 0.3
	// maxSlotValues bounds the values of one slot read into the corpus
	// (the timer's lengths are over 40,000).
	maxSlotValues = 100_000
)

// EnvNGramOpen sets the domain language model's open words as
// "WEIGHT[,COUNT]" (openWeight, openWordCount): a tuning switch outside
// the typed config.
const EnvNGramOpen = "JIBOD_SPHINX_NGRAM_OPEN"

// domainLM is a command grammar searched as its domain language model
// (sphinx.LanguageModel).
type domainLM struct {
	*grammar.Grammar
	arpa  string
	words []string
	// use is how the model is searched.
	use sphinx.ModelUse
}

// Use says how the model is searched.
func (d domainLM) Use() sphinx.ModelUse { return d.use }

// ARPA is the model's text.
func (d domainLM) ARPA() string { return d.arpa }

// Words are the model's words.
func (d domainLM) Words() []string { return d.words }

// ngramSettings are the domain language model's open words.
type ngramSettings struct {
	weight float64
	count  int
}

// EnvFallback sets the fallback's checks and beams as
// "CLAIM,CONFIDENCE,COVERAGE[,BEAM,WORDBEAM,MAXHMMS[,MAXSECONDS]]"
// (sphinx.Fallback; the fields left out keep sphinx.DefaultFallback's, a
// floor of 0 is none): a tuning switch outside the typed config.
const EnvFallback = "JIBOD_SPHINX_FALLBACK"

// fallbackFromEnv reads $JIBOD_SPHINX_FALLBACK; nil (the recogniser's
// defaults) when unset.
func fallbackFromEnv(getenv func(string) string) (*sphinx.Fallback, error) {
	v := getenv(EnvFallback)
	if v == "" {
		return nil, nil
	}
	parts := strings.Split(v, ",")
	bad := fmt.Errorf("%s=%q: want CLAIM,CONFIDENCE,COVERAGE in [0, 1], then optionally BEAM,WORDBEAM in (0, 1), MAXHMMS in 100..100000 and MAXSECONDS in (0, %d]",
		EnvFallback, v, sphinx.DefaultMaxSeconds)
	if len(parts) != 3 && len(parts) != 6 && len(parts) != 7 {
		return nil, bad
	}
	nums := make([]float64, len(parts))
	for i, p := range parts {
		n, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || n < 0 || math.IsNaN(n) || (i < 5 && n > 1) {
			return nil, bad
		}
		nums[i] = n
	}
	f := sphinx.DefaultFallback
	f.Claim, f.MinConfidence, f.MinCoverage = nums[0], nums[1], nums[2]
	if len(nums) >= 6 {
		f.Beam, f.WordBeam, f.MaxHMMs = nums[3], nums[4], int(nums[5])
	}
	if len(nums) == 7 {
		f.MaxAudio = time.Duration(nums[6] * float64(time.Second))
	}
	if err := f.Check(); err != nil {
		return nil, fmt.Errorf("%w: %w", bad, err)
	}
	return &f, nil
}

// EnvFallbackSlots sets what the fallback does with a claim that binds
// slots (sphinx.Fallback.SlotConfidence, KeepSlots, SlotGuesses): "off"
// never acts on one; "guesses" checks the generalising tier's guesses
// with slots as it does parses; a number in (0, 1] is the least confidence of the slots' words in
// the sentence the claimed intent's own search finds; unset, the
// recogniser's default. A tuning switch outside the typed config.
const EnvFallbackSlots = "JIBOD_SPHINX_FALLBACK_SLOTS"

// fallbackSlotsFromEnv reads $JIBOD_SPHINX_FALLBACK_SLOTS into f.
func fallbackSlotsFromEnv(getenv func(string) string, f *sphinx.Fallback) error {
	switch v := getenv(EnvFallbackSlots); v {
	case "":
	case "off":
		f.KeepSlots = true
	case "guesses":
		f.SlotGuesses = true
	default:
		n, err := strconv.ParseFloat(v, 64)
		if err != nil || !(n > 0 && n <= 1) {
			return fmt.Errorf("%s=%q: want off, guesses or a confidence in (0, 1]", EnvFallbackSlots, v)
		}
		f.SlotConfidence = n
	}
	return nil
}

// EnvFallbackGarbage sets the fallback transcript's confidence floor
// where the grammar's search ended in its garbage path
// (sphinx.Fallback.GarbageConfidence): a confidence in [0, 1], 0 for the
// fallback's own floor; unset, the recogniser's default. A tuning switch
// outside the typed config.
const EnvFallbackGarbage = "JIBOD_SPHINX_FALLBACK_GARBAGE"

// fallbackGarbageFromEnv reads $JIBOD_SPHINX_FALLBACK_GARBAGE into f.
func fallbackGarbageFromEnv(getenv func(string) string, f *sphinx.Fallback) error {
	v := getenv(EnvFallbackGarbage)
	if v == "" {
		return nil
	}
	n, err := strconv.ParseFloat(v, 64)
	if err != nil || !(n >= 0 && n <= 1) {
		return fmt.Errorf("%s=%q: want a confidence in [0, 1]", EnvFallbackGarbage, v)
	}
	f.GarbageConfidence = n
	return nil
}

// EnvFallbackRival sets the fallback's rival check
// (sphinx.Fallback.RivalMargin): "off", "on" (DefaultFallbackRivalMargin),
// "measure" (the rival and margin recorded, nothing refused) or a margin
// per frame in (0, 1000]; unset, the recogniser's default. A tuning
// switch outside the typed config.
const EnvFallbackRival = "JIBOD_SPHINX_FALLBACK_RIVAL"

// fallbackRivalFromEnv reads $JIBOD_SPHINX_FALLBACK_RIVAL into f.
func fallbackRivalFromEnv(getenv func(string) string, f *sphinx.Fallback) error {
	switch v := getenv(EnvFallbackRival); v {
	case "":
	case "off":
		f.RivalMargin = 0
	case "on":
		f.RivalMargin = sphinx.DefaultFallbackRivalMargin
	case "measure":
		f.RivalMargin = -1
	default:
		n, err := strconv.ParseFloat(v, 64)
		if err != nil || !(n > 0 && n <= sphinx.MaxRivalMargin) {
			return fmt.Errorf("%s=%q: want off, on, measure or a margin per frame in (0, %d]", EnvFallbackRival, v, sphinx.MaxRivalMargin)
		}
		f.RivalMargin = n
	}
	return nil
}

// EnvFallbackLM sets the fallback search's language weight and word
// insertion penalty as "LW,WIP" (sphinx.Fallback.LanguageWeight,
// InsertionPenalty): a tuning switch outside the typed config.
const EnvFallbackLM = "JIBOD_SPHINX_FALLBACK_LM"

// EnvFallbackNBest sets how many distinct transcripts the fallback reads
// (sphinx.Fallback.NBest): a tuning switch outside the typed config.
const EnvFallbackNBest = "JIBOD_SPHINX_FALLBACK_NBEST"

// fallbackSearchFromEnv reads $JIBOD_SPHINX_FALLBACK_LM and
// $JIBOD_SPHINX_FALLBACK_NBEST into f.
func fallbackSearchFromEnv(getenv func(string) string, f *sphinx.Fallback) error {
	if v := getenv(EnvFallbackLM); v != "" {
		lw, wip, ok := strings.Cut(v, ",")
		a, err1 := strconv.ParseFloat(strings.TrimSpace(lw), 64)
		b, err2 := strconv.ParseFloat(strings.TrimSpace(wip), 64)
		if !ok || err1 != nil || err2 != nil || !(a > 0 && a <= 100) || !(b > 0 && b <= 100) {
			return fmt.Errorf("%s=%q: want a language weight and a word insertion penalty in (0, 100], comma-separated", EnvFallbackLM, v)
		}
		f.LanguageWeight, f.InsertionPenalty = a, b
	}
	if v := getenv(EnvFallbackNBest); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > sphinx.MaxNBest {
			return fmt.Errorf("%s=%q: want a number of transcripts in 1..%d", EnvFallbackNBest, v, sphinx.MaxNBest)
		}
		f.NBest = n
	}
	return nil
}

// ngramFromEnv reads $JIBOD_SPHINX_NGRAM_OPEN over the defaults.
func ngramFromEnv(getenv func(string) string) (ngramSettings, error) {
	s := ngramSettings{weight: openWeight, count: openWordCount}
	v := getenv(EnvNGramOpen)
	if v == "" {
		return s, nil
	}
	w, c, hasCount := strings.Cut(v, ",")
	var err error
	if s.weight, err = strconv.ParseFloat(w, 64); err != nil || !(s.weight >= 0 && s.weight < 1) {
		return s, fmt.Errorf("%s=%q: want a weight in [0, 1), then optionally a comma and a number of words", EnvNGramOpen, v)
	}
	if hasCount {
		if s.count, err = strconv.Atoi(c); err != nil || s.count < 0 || s.count > ngram.MaxWords/2 {
			return s, fmt.Errorf("%s=%q: number of open words not in 0..%d", EnvNGramOpen, v, ngram.MaxWords/2)
		}
	}
	return s, nil
}

// newDomainLM makes the domain language model of all, a grammar of every
// wording (grammar.Options.Sentences -1): its sentences, each slot
// through its values, and the open words the lexicon pronounces. The
// result searches g.
func newDomainLM(ctx context.Context, g, all *grammar.Grammar, lex *sphinx.Lexicon, s ngramSettings) (domainLM, error) {
	c, err := all.Corpus(ngram.MaxSentences, maxSlotValues)
	if err != nil {
		return domainLM{}, fmt.Errorf("domain language model: %w", err)
	}
	corpus := ngram.Corpus{Slots: map[string][][]string{}}
	for name, vals := range c.Slots {
		corpus.Slots[grammar.SlotToken(name)] = vals
	}
	for _, sen := range c.Sentences {
		corpus.Sentences = append(corpus.Sentences, ngram.Sentence{Tokens: sen.Tokens, Group: sen.Intent})
	}
	var open map[string]float64
	weight := 0.0
	if s.count > 0 && s.weight > 0 {
		if open, err = sphinx.OpenWords(s.count); err != nil {
			return domainLM{}, fmt.Errorf("domain language model: %w", err)
		}
		unknown, err := lex.Unknown(ctx, slices.Sorted(maps.Keys(open)))
		if err != nil {
			return domainLM{}, fmt.Errorf("domain language model: %w", err)
		}
		for _, w := range unknown {
			delete(open, w)
		}
		weight = s.weight
	}
	m, err := ngram.Build(corpus, ngram.Options{Open: open, OpenWeight: weight})
	if err != nil {
		return domainLM{}, fmt.Errorf("domain language model: %w", err)
	}
	var sb strings.Builder
	if err := m.WriteARPA(&sb); err != nil {
		return domainLM{}, err
	}
	return domainLM{Grammar: g, arpa: sb.String(), words: m.Words()}, nil
}

var _ sphinx.LanguageModel = domainLM{}

// understand says what the robot's intent stack makes of a text
// (sphinx.Config.Understand): the intent that claims it, as the pipeline
// would, the claim's confidence, and whether it is a parse in the high
// band. The stack learns the registered intents first when it has not
// yet, so what the recogniser decides does not depend on how soon the
// robot learnt its skills. A learner that fails is said and the stack
// claims with what it learnt before, as the typed pipeline does: one
// broken source does not stop the robot hearing. The claim is made in
// the robot's session as it stands (sess; nil: a session without
// context), so a follow-up is claimed only while its context is live, as
// the pipeline will decide (CTX-11); the answer names the live contexts
// (Meaning.Context) so that no remembered meaning outlives them.
func understand(s *intent.Stack, sess func() session.Session, lang string, log *slog.Logger) func(ctx context.Context, text string) (sphinx.Meaning, error) {
	return func(ctx context.Context, text string) (sphinx.Meaning, error) {
		if err := s.Learn(ctx); err != nil {
			log.Warn("speech recogniser: learning the registered intents", "error", err)
		}
		// Read before the claim: a change during it makes the answer
		// look older than it is, never newer.
		gen := s.Generation()
		in := session.Empty()
		if sess != nil {
			in = sess()
		}
		live := liveContexts(in, time.Now())
		m, band, _, err := s.Claim(ctx, intent.Query{Hypotheses: intent.Texts(text), Lang: lang, Session: in})
		if err != nil {
			return sphinx.Meaning{}, err
		}
		if m == nil {
			return sphinx.Meaning{Generation: gen, Context: live}, nil
		}
		return sphinx.Meaning{Intent: m.SkillID + ":" + m.IntentName, Confidence: m.Confidence, Parsed: band == intent.BandHigh,
			Slots: maps.Clone(m.Slots), Generation: gen, Context: live}, nil
	}
}

// liveContexts names the contexts live in s at now, each key with its
// value, in key order: what a claim in s may depend on. "" when none is
// live. The decay counters are left out, so a context counting down its
// turns is still the same context.
func liveContexts(s session.Session, now time.Time) string {
	raw, _ := s.Get(session.FieldIntentContext)
	cm, _ := raw.(map[string]any)
	if len(cm) == 0 {
		return ""
	}
	at := float64(now.UnixNano()) / 1e9
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(cm)) {
		e, ok := s.ContextLookup(k, at)
		if !ok {
			continue
		}
		fmt.Fprintf(&b, "%q", k)
		if e.Value != nil {
			fmt.Fprintf(&b, "=%q", *e.Value)
		}
		b.WriteByte(' ')
	}
	return b.String()
}
