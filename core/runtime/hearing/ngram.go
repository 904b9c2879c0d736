//go:build sphinx

package hearing

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

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
	// verifies: the grammar is searched, the model checks its sentence.
	verifies bool
}

// Verifies reports whether the model only checks the grammar's sentence.
func (d domainLM) Verifies() bool { return d.verifies }

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

// EnvVerifyMargin sets sphinx.Config.VerifyMargin (per frame, in the
// decoder's log units) for sphinx.search "verify": a tuning switch
// outside the typed config.
const EnvVerifyMargin = "JIBOD_SPHINX_VERIFY_MARGIN"

// maxVerifyMargin bounds $JIBOD_SPHINX_VERIFY_MARGIN.
const maxVerifyMargin = 1000

// verifyMarginFromEnv reads $JIBOD_SPHINX_VERIFY_MARGIN; 0 (the
// recogniser's default) when unset.
func verifyMarginFromEnv(getenv func(string) string) (float64, error) {
	v := getenv(EnvVerifyMargin)
	if v == "" {
		return 0, nil
	}
	m, err := strconv.ParseFloat(v, 64)
	if err != nil || !(m > 0 && m <= maxVerifyMargin) {
		return 0, fmt.Errorf("%s=%q: want a margin in (0, %d]", EnvVerifyMargin, v, maxVerifyMargin)
	}
	return m, nil
}

// sameIntent tells whether the grammar's sentence and the verifying
// language model's transcript mean the same (sphinx.Config.Agree): the
// robot's intent stack claims each, as the pipeline would. A transcript
// no intent claims does not contradict the sentence (the model's words
// for a command in noise are often no command at all); a transcript
// claimed by another intent than the sentence, or one claimed when the
// sentence is not, does.
func sameIntent(s *intent.Stack, lang string) func(ctx context.Context, sentence, transcript string) (bool, error) {
	claim := func(ctx context.Context, text string) (string, error) {
		m, _, _, err := s.Claim(ctx, intent.Query{Hypotheses: intent.Texts(text), Lang: lang, Session: session.Empty()})
		if err != nil || m == nil {
			return "", err
		}
		return m.SkillID + ":" + m.IntentName, nil
	}
	return func(ctx context.Context, sentence, transcript string) (bool, error) {
		t, err := claim(ctx, transcript)
		if err != nil || t == "" {
			return true, err
		}
		g, err := claim(ctx, sentence)
		return g == t, err
	}
}
