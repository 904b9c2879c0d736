//go:build sphinx

package hearing

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
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
