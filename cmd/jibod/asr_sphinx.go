//go:build sphinx

package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/audio/grammar"
	"github.com/openjibo/jibod/audio/sphinx"
	"github.com/openjibo/jibod/core/intent"
)

// Environment settings of the sphinx build's recogniser.
const (
	// envSphinxModel is the acoustic model folder.
	envSphinxModel = "JIBOD_SPHINX_MODEL"
	// envSphinxDict is the pronouncing dictionary.
	envSphinxDict = "JIBOD_SPHINX_DICT"
	// envSphinxArgs are extra pocketsphinx flags, for tuning.
	envSphinxArgs = "JIBOD_SPHINX_ARGS"
	// envSphinxNBest is how many hypotheses an utterance gives (1..20).
	envSphinxNBest = "JIBOD_SPHINX_NBEST"
)

// answerRuleLister is what a skill host offers when it can list the
// answer rules of its skills' questions: their sentences then join the
// grammar, so an answer said aloud ("five minutes") can be heard.
type answerRuleLister interface {
	AnswerRules() []intent.TemplateIntent
}

// newRecognizer builds the speech recogniser of the sphinx build:
// pocketsphinx against a grammar generated from what the robot's skills
// registered, rebuilt when the registrations change. The function it
// returns stops the rebuilding and frees the decoders.
func newRecognizer(ctx context.Context, r *robot, o asrOptions) (audio.Recognizer, func() error, error) {
	log := o.Log
	if log == nil {
		log = slog.Default()
	}
	if r.engines == nil {
		return nil, nil, errors.New("speech recognition: the robot has no intent engines")
	}
	dict := envOr(envSphinxDict, sphinx.DefaultDict)
	lexOpts := sphinx.LexiconOptions{}
	if _, err := exec.LookPath("espeak-ng"); err == nil {
		// Words cmudict lacks get espeak-ng's letter-to-sound rules.
		lexOpts.Guesser = sphinx.EspeakGuesser{}
	}
	lex, err := sphinx.NewLexicon(dict, lexOpts)
	if err != nil {
		return nil, nil, fmt.Errorf("speech recognition: %w (Debian: apt install pocketsphinx-en-us, or set %s)", err, envSphinxDict)
	}
	nbest := defaultNBest
	if v := os.Getenv(envSphinxNBest); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > sphinx.MaxNBest {
			return nil, nil, fmt.Errorf("speech recognition: %s=%q: want 1 to %d", envSphinxNBest, v, sphinx.MaxNBest)
		}
		nbest = n
	}
	gb := &grammarBuilder{r: r, lex: lex, lang: o.Lang, log: log}
	g, err := gb.build(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("speech recognition: %w", err)
	}
	rec, err := sphinx.New(ctx, sphinx.Config{ModelDir: envOr(envSphinxModel, sphinx.DefaultModelDir), Lexicon: lex,
		Grammar: g, NBest: nbest, Args: strings.Fields(os.Getenv(envSphinxArgs)), Log: log,
		MinConfidence: minConfidence, MinCoverage: minCoverage,
		Wake: audio.WakePhrase, WakeMinConfidence: wakeMinConfidence, WakeMinCoverage: wakeMinCoverage})
	if err != nil {
		return nil, nil, err
	}
	w := &grammar.Watcher{Bus: r.bus, Build: gb.build, Logger: log,
		Apply: func(ctx context.Context, g *grammar.Grammar) error { return rec.SetGrammar(ctx, g) }}
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() { // owned: free cancels it and waits
		defer close(done)
		if err := w.Run(wctx); err != nil && !errors.Is(err, context.Canceled) {
			log.Error("grammar watcher stopped", "err", err)
		}
	}()
	free := func() error {
		cancel()
		<-done
		return rec.Close()
	}
	return rec, free, nil
}

// newWakeSpotter starts pocketsphinx's keyphrase spotting of the wake
// phrase, for comparing wake methods (jibod audio eval --wake).
func newWakeSpotter(ctx context.Context, threshold float64) (sphinx.KeyphraseSpotter, func() error, error) {
	lex, err := sphinx.NewLexicon(envOr(envSphinxDict, sphinx.DefaultDict), sphinx.LexiconOptions{})
	if err != nil {
		return nil, nil, fmt.Errorf("keyphrase spotter: %w", err)
	}
	s, err := sphinx.NewSpotter(ctx, sphinx.SpotterConfig{ModelDir: envOr(envSphinxModel, sphinx.DefaultModelDir),
		Lexicon: lex, Threshold: threshold, Args: strings.Fields(os.Getenv(envSphinxArgs))})
	if err != nil {
		return nil, nil, err
	}
	return s, s.Close, nil
}

// The floors below which a recognition is dropped (see sphinx.Config):
// out-of-grammar speech is forced onto the nearest sentence, and the share
// of the speech its words cover, with their acoustic score, is what tells
// it apart. Chosen on the generated test set (README, "Hearing: figures"):
// for commands, confidence 0.12 (a score of -65 per frame) and coverage
// 0.6 cut everyday speech taken for a command with the window open from
// 75 % to 33 % for 5 points of command accuracy; the wake phrase needs
// 0.5 (-55) and 0.8, which cut false wakes from 27 to 4.5 an hour and
// wake hits from 64 % to 49 %.
const (
	minConfidence     = 0.12
	minCoverage       = 0.6
	wakeMinConfidence = 0.5
	wakeMinCoverage   = 0.8
	// defaultNBest is one hypothesis per utterance: pocketsphinx's n-best
	// search builds the utterance's lattice, which on the test set cost
	// more than the decoding (CPU real-time factor 0.24 with 3 against
	// 0.09 with 1, worst latency 16 s against 1 s). $JIBOD_SPHINX_NBEST
	// asks for more.
	defaultNBest = 1
)

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// grammarBuilder makes the recogniser's grammar from the robot's intent
// engines (and the host's answer rules, when it lists them), leaving out
// sentences with words the lexicon cannot pronounce.
type grammarBuilder struct {
	r    *robot
	lex  *sphinx.Lexicon
	lang string
	log  *slog.Logger
}

func (gb *grammarBuilder) build(ctx context.Context) (*grammar.Grammar, error) {
	intents := grammar.FromTemplates(gb.r.engines.templates.Registrations(""))
	intents = append(intents, grammar.FromKeywords(gb.r.engines.keywords.Registrations(""))...)
	if rl, ok := any(gb.r.host).(answerRuleLister); ok {
		for _, d := range rl.AnswerRules() {
			intents = append(intents, grammar.FromDefinition(d))
		}
	}
	opts := grammar.Options{Lang: gb.lang, Wake: audio.WakePhrase}
	g, err := grammar.Build(intents, opts)
	if err != nil {
		return nil, err
	}
	_, err = gb.lex.Lookup(ctx, g.Words())
	var missing *sphinx.MissingWordsError
	switch {
	case errors.As(err, &missing):
		opts.Unknown = map[string]bool{}
		for _, w := range missing.Words {
			opts.Unknown[w] = true
		}
		gb.log.Warn("words the recogniser cannot pronounce are left out of the grammar", "words", missing.Words)
		if g, err = grammar.Build(intents, opts); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, err
	}
	for _, d := range g.Dropped() {
		gb.log.Debug("left out of the speech grammar", "what", d.String())
	}
	gb.log.Info("speech grammar", "intents", g.Intents(), "samples", g.Samples(), "words", len(g.Words()), "dropped", len(g.Dropped()))
	return g, nil
}
