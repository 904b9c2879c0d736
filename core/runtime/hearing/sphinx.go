//go:build sphinx

package hearing

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/audio/grammar"
	"github.com/openjibo/jibod/audio/sphinx"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/runtime/config"
	"github.com/openjibo/jibod/core/skill/people"
)

// NewRecognizer builds the speech recogniser of the sphinx build:
// pocketsphinx against a grammar generated from what the robot's skills
// registered, rebuilt when the registrations change. The function it
// returns stops the rebuilding and frees the decoders.
func NewRecognizer(ctx context.Context, p Parts, o Options) (audio.Recognizer, func() error, error) {
	log := o.Log
	if log == nil {
		log = slog.Default()
	}
	if p.Intents == nil {
		return nil, nil, errors.New("speech recognition: the robot has no intent engines")
	}
	s := o.Sphinx
	dict := orDefault(s.Dict, sphinx.DefaultDict)
	lexOpts := sphinx.LexiconOptions{Log: log}
	var decoys []string
	wake := ""
	if o.WakeInGrammar {
		wake = audio.WakePhrase
		d, words, err := wakeDecoys(s.Decoys)
		if err != nil {
			return nil, nil, fmt.Errorf("speech recognition: %w", err)
		}
		decoys, lexOpts.Words = d, words
	}
	if _, err := exec.LookPath("espeak-ng"); err == nil {
		// Words cmudict lacks get espeak-ng's letter-to-sound rules.
		lexOpts.Guesser = sphinx.EspeakGuesser{}
	}
	lex, err := sphinx.NewLexicon(dict, lexOpts)
	if err != nil {
		return nil, nil, fmt.Errorf("speech recognition: %w (Debian: apt install pocketsphinx-en-us, or set sphinx.dict or $%s)", err, config.EnvSphinxDict)
	}
	nbest := defaultNBest
	if s.NBest != 0 {
		if s.NBest < 1 || s.NBest > sphinx.MaxNBest {
			return nil, nil, fmt.Errorf("speech recognition: sphinx.nbest %d: want 1 to %d", s.NBest, sphinx.MaxNBest)
		}
		nbest = s.NBest
	}
	open, err := openPass(s.LM)
	if err != nil {
		return nil, nil, fmt.Errorf("speech recognition: %w", err)
	}
	phones, phoneMargin, err := phoneLoopFromEnv(os.Getenv)
	if err != nil {
		return nil, nil, fmt.Errorf("speech recognition: %w", err)
	}
	rivalMargin, err := rivalMarginFromEnv(os.Getenv)
	if err != nil {
		return nil, nil, fmt.Errorf("speech recognition: %w", err)
	}
	wordPosterior, err := wordPosteriorFromEnv(os.Getenv)
	if err != nil {
		return nil, nil, fmt.Errorf("speech recognition: %w", err)
	}
	resetNoise, err := resetNoiseFromEnv(os.Getenv)
	if err != nil {
		return nil, nil, fmt.Errorf("speech recognition: %w", err)
	}
	garbage, err := garbageFromEnv(os.Getenv)
	if err != nil {
		return nil, nil, fmt.Errorf("speech recognition: %w", err)
	}
	if o.WakeInGrammar {
		// Filler words from the start would take the wake phrase too.
		garbage = nil
	}
	if garbage != nil {
		// Read with the grammar's words (the open words, when the domain
		// language model's are read, hold them).
		if err := lex.Prefetch(garbage.Words); err != nil {
			return nil, nil, fmt.Errorf("speech recognition: %w", err)
		}
	}
	gb := NewGrammarBuilder(p, lex, o.Lang, wake, decoys, log)
	if gb.Options.Sentences, err = sentencesFromEnv(os.Getenv); err != nil {
		return nil, nil, fmt.Errorf("speech recognition: %w", err)
	}
	wrap, err := wrappersFromEnv(os.Getenv)
	if err != nil {
		return nil, nil, fmt.Errorf("speech recognition: %w", err)
	}
	// The grammar holds them with "on" only, the domain language model's
	// corpus (below) with "lm" too.
	lmWrappers := gb.Options.Wrappers
	if wrap != wrapBoth {
		gb.Options.Wrappers = grammar.Wrappers{}
	}
	if wrap == wrapNone {
		lmWrappers = grammar.Wrappers{}
	}
	var meaning func(context.Context, string) (sphinx.Meaning, error)
	fallback, err := fallbackFromEnv(os.Getenv)
	if err != nil {
		return nil, nil, fmt.Errorf("speech recognition: %w", err)
	}
	if fallback == nil && (os.Getenv(EnvFallbackSlots) != "" || os.Getenv(EnvFallbackRival) != "" || os.Getenv(EnvFallbackGarbage) != "" ||
		os.Getenv(EnvFallbackAgree) != "" || os.Getenv(EnvFallbackLM) != "" || os.Getenv(EnvFallbackNBest) != "") {
		fb := sphinx.DefaultFallback
		fallback = &fb
	}
	if fallback != nil {
		if err := fallbackSlotsFromEnv(os.Getenv, fallback); err != nil {
			return nil, nil, fmt.Errorf("speech recognition: %w", err)
		}
		if err := fallbackRivalFromEnv(os.Getenv, fallback); err != nil {
			return nil, nil, fmt.Errorf("speech recognition: %w", err)
		}
		if err := fallbackGarbageFromEnv(os.Getenv, fallback); err != nil {
			return nil, nil, fmt.Errorf("speech recognition: %w", err)
		}
		if err := fallbackAgreeFromEnv(os.Getenv, fallback); err != nil {
			return nil, nil, fmt.Errorf("speech recognition: %w", err)
		}
		if err := fallbackSearchFromEnv(os.Getenv, fallback); err != nil {
			return nil, nil, fmt.Errorf("speech recognition: %w", err)
		}
	}
	// asSearched is the command grammar as the recogniser searches it.
	asSearched := func(_ context.Context, g *grammar.Grammar) (sphinx.Grammar, error) { return g, nil }
	// startEvery is the grammar of every wording (buildEvery's), built at
	// start before the command grammar: its words include the command
	// grammar's, so the pronouncing dictionary is read once, for both and
	// for the language model's open words.
	var startEvery *grammar.Grammar
	var buildEvery func(context.Context) (*grammar.Grammar, error)
	search := s.Search
	if search == "" {
		// The default: the grammar, and the domain language model where
		// it refuses (docs/hearing.md), which needs the wake word
		// detector's grammar of commands alone.
		search = config.SearchFallback
		if o.WakeInGrammar {
			search = config.SearchGrammar
		}
	}
	switch search {
	case config.SearchGrammar:
	case config.SearchNGram, config.SearchVerify, config.SearchFallback:
		if o.WakeInGrammar {
			return nil, nil, fmt.Errorf("speech recognition: sphinx.search %s needs the wake word detector, not the grammar's wake", search)
		}
		ns, err := ngramFromEnv(os.Getenv)
		if err != nil {
			return nil, nil, fmt.Errorf("speech recognition: %w", err)
		}
		// The model is made from every wording, not the grammar's choice.
		all := NewGrammarBuilder(p, lex, o.Lang, wake, decoys, log)
		all.Options.Sentences = -1
		all.Options.Wrappers = lmWrappers
		if search == config.SearchNGram {
			gb = all
		} else {
			meaning = understand(p.Intents, p.Session, o.Lang, log)
		}
		if ns.count > 0 && ns.weight > 0 {
			openWords, err := sphinx.OpenWords(ns.count)
			if err != nil {
				return nil, nil, fmt.Errorf("speech recognition: %w", err)
			}
			if err := lex.Prefetch(slices.Sorted(maps.Keys(openWords))); err != nil {
				return nil, nil, fmt.Errorf("speech recognition: %w", err)
			}
		}
		if search != config.SearchNGram {
			buildEvery = all.Build
		}
		asSearched = func(ctx context.Context, g *grammar.Grammar) (sphinx.Grammar, error) {
			every := g
			if search != config.SearchNGram {
				var err error
				if every, startEvery = startEvery, nil; every == nil {
					if every, err = all.Build(ctx); err != nil {
						return nil, err
					}
				}
			}
			m, err := newDomainLM(ctx, g, every, lex, ns)
			switch search {
			case config.SearchVerify:
				m.use = sphinx.ModelVerifies
			case config.SearchFallback:
				m.use = sphinx.ModelFallback
			}
			return m, err
		}
	default:
		return nil, nil, fmt.Errorf("speech recognition: sphinx.search %q: want %s, %s, %s or %s", search, config.SearchGrammar, config.SearchNGram, config.SearchVerify, config.SearchFallback)
	}
	// The people's names are in the grammar: a change of the loop
	// rebuilds it as a registration does. The watcher follows the bus
	// from before the first build, so a change made during it is not
	// missed.
	w := &Watcher{Bus: p.Bus, Build: gb.Build, Logger: log, Topics: []string{people.TopicChanged}}
	if err := w.Subscribe(); err != nil {
		return nil, nil, fmt.Errorf("speech recognition: %w", err)
	}
	started := false
	defer func() {
		if !started {
			w.Close()
		}
	}()
	if buildEvery != nil {
		if startEvery, err = buildEvery(ctx); err != nil {
			return nil, nil, fmt.Errorf("speech recognition: %w", err)
		}
	}
	built, err := gb.Build(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("speech recognition: %w", err)
	}
	g, err := asSearched(ctx, built)
	if err != nil {
		return nil, nil, fmt.Errorf("speech recognition: %w", err)
	}
	answers, err := AnswerGrammar(ctx, gb)
	if err != nil {
		return nil, nil, fmt.Errorf("speech recognition: %w", err)
	}
	model := ModelDir(s.Model, p.StateDir)
	fl, err := modelFloors(model, s.Floors)
	if err != nil && s.Model == "" {
		// The state folder's model is broken: the robot keeps hearing,
		// with Debian's model, and says why.
		log.Error("speech recogniser: the adapted acoustic model is unusable; using Debian's", "dir", model, "err", err)
		model = sphinx.DefaultModelDir
		fl, err = modelFloors(model, s.Floors)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("speech recognition: %w", err)
	}
	accept, acceptAt, err := acceptFromEnv(os.Getenv)
	if err != nil {
		return nil, nil, fmt.Errorf("speech recognition: %w", err)
	}
	if accept != nil && (model != sphinx.DefaultModelDir || s.Floors != nil) {
		// The model was trained on Debian's acoustic model's scores.
		log.Warn("speech recogniser: the acceptance model is not used with an adapted model or sphinx.floors; the floors decide",
			"env", EnvAccept)
		accept, acceptAt = nil, 0
	}
	garbage = garbageFor(garbage, model, s.Floors != nil, accept != nil, log)
	if rivalMargin != 0 && meaning == nil {
		meaning = understand(p.Intents, p.Session, o.Lang, log)
	}
	enh, enhGate, err := enhanceFromEnv(os.Getenv)
	if err != nil {
		return nil, nil, fmt.Errorf("speech recognition: %w", err)
	}
	denoise := DenoiseBelow(s.DenoiseDB)
	if denoise == 0 {
		denoise = modelDenoise(model)
	}
	if model != sphinx.DefaultModelDir {
		log.Info("speech recogniser: adapted acoustic model", "dir", model, "floors", fl, "denoise_below_snr", denoise)
	}
	rec, err := sphinx.New(ctx, sphinx.Config{ModelDir: model, Lexicon: lex,
		DenoiseBelowSNR: denoise, Enhance: enh, EnhanceBelowSNR: enhGate.belowSNR, EnhanceAboveBackground: enhGate.aboveBackground, ResetNoise: resetNoise, Open: open, Understand: meaning, Fallback: fallback, PhoneLoop: phones, PhoneLoopMargin: phoneMargin,
		Grammar: g, Answers: answers, NBest: nbest, FloorBelowDB: s.NoiseFloorDB, TrimMargin: TrimMargin(s.TrimMS), Args: strings.Fields(s.Args), Log: log,
		MinConfidence: fl.MinConfidence, MinCoverage: fl.MinCoverage, Accept: accept, AcceptThreshold: acceptAt, RivalMargin: rivalMargin, WordPosterior: wordPosterior, Garbage: garbage,
		Wake: wake, WakeMinConfidence: fl.WakeMinConfidence, WakeMinCoverage: fl.WakeMinCoverage})
	if err != nil {
		return nil, nil, err
	}
	w.Apply = func(ctx context.Context, built *grammar.Grammar) error {
		g, err := asSearched(ctx, built)
		if err != nil {
			return err
		}
		if err := rec.SetGrammar(ctx, g); err != nil {
			return err
		}
		// Skills that come and go bring and take their answer rules.
		a, err := AnswerGrammar(ctx, gb)
		if err != nil {
			return err
		}
		return rec.SetAnswerGrammar(ctx, a)
	}
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	started = true
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

// NewWakeSpotter starts pocketsphinx's keyphrase spotting of the wake
// phrase, for comparing wake methods (jibod audio eval --wake).
func NewWakeSpotter(ctx context.Context, threshold float64, s config.Sphinx) (sphinx.KeyphraseSpotter, func() error, error) {
	lex, err := sphinx.NewLexicon(orDefault(s.Dict, sphinx.DefaultDict), sphinx.LexiconOptions{})
	if err != nil {
		return nil, nil, fmt.Errorf("keyphrase spotter: %w", err)
	}
	sp, err := sphinx.NewSpotter(ctx, sphinx.SpotterConfig{ModelDir: orDefault(s.Model, sphinx.DefaultModelDir),
		Lexicon: lex, Threshold: threshold, Args: strings.Fields(s.Args)})
	if err != nil {
		return nil, nil, err
	}
	return sp, sp.Close, nil
}

// EnvSentences sets how many sentences of each intent the command
// grammar holds (grammar.Options.Sentences): a number, or "all" for every
// expansion; unset, the grammar's default. A tuning switch outside the
// typed config, for measuring the grammar's size.
const EnvSentences = "JIBOD_SPHINX_SENTENCES"

// maxSentencesPerIntent bounds EnvSentences.
const maxSentencesPerIntent = 10000

// sentencesFromEnv returns grammar.Options.Sentences as
// $JIBOD_SPHINX_SENTENCES asks.
func sentencesFromEnv(getenv func(string) string) (int, error) {
	switch v := getenv(EnvSentences); v {
	case "":
		return 0, nil
	case "all":
		return -1, nil
	default:
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxSentencesPerIntent {
			return 0, fmt.Errorf("%s=%q: want all or a number of sentences per intent in 1..%d", EnvSentences, v, maxSentencesPerIntent)
		}
		return n, nil
	}
}

// EnvWrappers says where the words people put around a request ("could
// you …", "… please"; grammar.Wrappers) are: "off" (the default) in
// neither the command grammar nor the domain language model, "lm" in the
// model's corpus only, "on" in both. A tuning switch outside the typed
// config; docs/hearing.md says why they are off by default.
const EnvWrappers = "JIBOD_SPHINX_WRAPPERS"

// Where the wrappers are (EnvWrappers).
const (
	wrapNone = iota
	wrapLM
	wrapBoth
)

// wrappersFromEnv reads $JIBOD_SPHINX_WRAPPERS.
func wrappersFromEnv(getenv func(string) string) (int, error) {
	switch v := getenv(EnvWrappers); v {
	case "", "off":
		return wrapNone, nil
	case "lm":
		return wrapLM, nil
	case "on":
		return wrapBoth, nil
	default:
		return 0, fmt.Errorf("%s=%q: want off, lm or on", EnvWrappers, v)
	}
}

// EnvAccept chooses how the recogniser decides whether to act on the
// sentence it found (a tuning switch outside the typed config): unset or
// "floors", the confidence and coverage floors alone (the default); "on",
// the acceptance model (sphinx.DefaultAcceptModel) at its own threshold;
// a number in (0, 1), that model at that threshold; any other value, an
// acceptance model file (scripts/train-accept.py writes them). The floors
// decide alone regardless with an adapted acoustic model, whose scores
// the model was not trained on, and when sphinx.floors sets them.
// docs/hearing.md says why the model is not the default.
const EnvAccept = "JIBOD_SPHINX_ACCEPT"

// acceptFromEnv returns the acceptance model and threshold
// $JIBOD_SPHINX_ACCEPT asks for: none for "floors".
func acceptFromEnv(getenv func(string) string) (*sphinx.AcceptModel, float64, error) {
	v := getenv(EnvAccept)
	switch v {
	case "", "floors":
		return nil, 0, nil
	case "on":
		m, err := sphinx.DefaultAcceptModel()
		return m, 0, err
	}
	if t, err := strconv.ParseFloat(v, 64); err == nil {
		if !(t > 0 && t < 1) { // NaN too
			return nil, 0, fmt.Errorf("%s=%q: want floors, on, a threshold in (0, 1) or a model file", EnvAccept, v)
		}
		m, err := sphinx.DefaultAcceptModel()
		return m, t, err
	}
	data, err := os.ReadFile(v)
	if err != nil {
		return nil, 0, fmt.Errorf("%s=%q: want floors, on, a threshold in (0, 1) or a model file: %w", EnvAccept, v, err)
	}
	m, err := sphinx.ParseAcceptModel(data)
	if err != nil {
		return nil, 0, fmt.Errorf("%s=%q: %w", EnvAccept, v, err)
	}
	return m, 0, nil
}

// EnvPhoneMargin turns the phone loop's rejection on with a margin
// (sphinx.Config.PhoneLoopMargin, per frame; "on" for phoneLoopMargin);
// unset or "off" leaves it out (docs/hearing.md says why it is not yet
// the default). It is a tuning switch outside the typed config.
const EnvPhoneMargin = "JIBOD_SPHINX_PHONE_MARGIN"

// phoneLoopFromEnv returns the phone loop's language model and margin as
// $JIBOD_SPHINX_PHONE_MARGIN asks: none when unset or "off", or when
// Debian's phonetic model is not installed.
func phoneLoopFromEnv(getenv func(string) string) (string, float64, error) {
	v := getenv(EnvPhoneMargin)
	if v == "" || v == "off" {
		return "", 0, nil
	}
	margin := phoneLoopMargin
	if v != "on" {
		m, err := strconv.ParseFloat(v, 64)
		if err != nil || !(m > 0 && m <= sphinx.MaxPhoneLoopMargin) { // NaN too
			return "", 0, fmt.Errorf("%s=%q: want off, on or a margin in (0, %d]", EnvPhoneMargin, v, sphinx.MaxPhoneLoopMargin)
		}
		margin = m
	}
	if _, err := os.Stat(sphinx.DefaultPhoneLoop); err != nil {
		return "", 0, nil
	}
	return sphinx.DefaultPhoneLoop, margin, nil
}

// EnvRivalMargin turns the rival check on (sphinx.Config.RivalMargin,
// per frame): "on" at rivalMarginOn, a number at that margin, "measure"
// the margins measured and reported without refusing; unset or "off",
// the default (docs/hearing.md says why it is off). A tuning switch
// outside the typed config.
const EnvRivalMargin = "JIBOD_SPHINX_RIVAL_MARGIN"

// rivalMarginFromEnv returns sphinx.Config.RivalMargin as
// $JIBOD_SPHINX_RIVAL_MARGIN asks.
func rivalMarginFromEnv(getenv func(string) string) (float64, error) {
	switch v := getenv(EnvRivalMargin); v {
	case "", "off":
		return 0, nil
	case "on":
		return rivalMarginOn, nil
	case "measure":
		return -1, nil
	default:
		m, err := strconv.ParseFloat(v, 64)
		if err != nil || !(m > 0 && m <= sphinx.MaxRivalMargin) { // NaN too
			return 0, fmt.Errorf("%s=%q: want off, on, measure or a margin in (0, %d]", EnvRivalMargin, v, sphinx.MaxRivalMargin)
		}
		return m, nil
	}
}

// EnvWordPosterior turns the word posterior check on
// (sphinx.Config.WordPosterior): a number in (0, 1] refuses a sentence
// one of whose words holds less of the search's lattice than that,
// "measure" reports the posteriors without refusing; unset or "off",
// the default (docs/hearing.md). A tuning switch outside the typed
// config.
const EnvWordPosterior = "JIBOD_SPHINX_WORD_POSTERIOR"

// wordPosteriorFromEnv returns sphinx.Config.WordPosterior as
// $JIBOD_SPHINX_WORD_POSTERIOR asks.
func wordPosteriorFromEnv(getenv func(string) string) (float64, error) {
	switch v := getenv(EnvWordPosterior); v {
	case "", "off":
		return 0, nil
	case "measure":
		return -1, nil
	default:
		p, err := strconv.ParseFloat(v, 64)
		if err != nil || !(p > 0 && p <= 1) { // NaN too
			return 0, fmt.Errorf("%s=%q: want off, measure or a floor in (0, 1]", EnvWordPosterior, v)
		}
		return p, nil
	}
}

// EnvResetNoise, "on", starts pocketsphinx's noise subtraction afresh on
// every utterance (sphinx.Config.ResetNoise), for tuning.
const EnvResetNoise = "JIBOD_SPHINX_RESET_NOISE"

// resetNoiseFromEnv reads $JIBOD_SPHINX_RESET_NOISE: off when unset.
func resetNoiseFromEnv(getenv func(string) string) (bool, error) {
	switch v := getenv(EnvResetNoise); v {
	case "", "off":
		return false, nil
	case "on":
		return true, nil
	default:
		return false, fmt.Errorf("%s=%q: want on or off", EnvResetNoise, v)
	}
}

// openPass returns the open-vocabulary pass of sphinx.lm, nil for none.
func openPass(lm string) (*sphinx.OpenConfig, error) {
	switch lm {
	case "", "off":
		return nil, nil
	case "debian":
		return &sphinx.OpenConfig{LanguageModel: sphinx.DefaultLanguageModel}, nil
	default:
		if _, err := os.Stat(lm); err != nil {
			return nil, fmt.Errorf("sphinx.lm %q: want off, debian or a language model file: %w", lm, err)
		}
		return &sphinx.OpenConfig{LanguageModel: lm}, nil
	}
}

// modelFloors returns the rejection floors to use with the acoustic model
// in dir: those its provenance records when it is an adapted model that
// records them, else the defaults; override (sphinx.floors) wins over
// both.
func modelFloors(dir string, override *config.Floors) (sphinx.Floors, error) {
	fl := defaultFloors
	switch p, err := sphinx.ReadProvenance(dir); {
	case errors.Is(err, fs.ErrNotExist): // not an adapted model
	case err != nil:
		return fl, err
	case p.Floors != nil:
		fl = *p.Floors
	}
	if override != nil {
		fl = sphinx.Floors{MinConfidence: override.Confidence, MinCoverage: override.Coverage,
			WakeMinConfidence: override.WakeConfidence, WakeMinCoverage: override.WakeCoverage}
	}
	return fl, nil
}

// modelDenoise returns the noise suppression threshold the acoustic model
// in dir records (sphinx.Provenance); 0, the recogniser's default, for
// Debian's model or a model adapted before it was recorded.
func modelDenoise(dir string) float64 {
	p, err := sphinx.ReadProvenance(dir)
	if err != nil {
		return 0
	}
	return p.DenoiseBelowSNR
}

// DenoiseBelow is sphinx.denoise_db as the recogniser takes it: 0 (its
// default) when unset, negative for off.
func DenoiseBelow(s config.Switch) float64 {
	if s.Off {
		return -1
	}
	return s.Value
}

// TrimMargin is sphinx.trim_ms as the recogniser takes it: 0 (its
// default) when unset, negative for off.
func TrimMargin(s config.Switch) time.Duration {
	if s.Off {
		return -1
	}
	return time.Duration(s.Value) * time.Millisecond
}

// wakeDecoys returns the wake decoys and their words' pronunciations
// (sphinx.WakeDecoys), or none when sphinx.decoys is "off".
func wakeDecoys(v string) ([]string, map[string]string, error) {
	switch v {
	case "", "on":
		phrases, words := sphinx.WakeDecoys(audio.WakePhrase)
		return phrases, words, nil
	case "off":
		return nil, nil, nil
	default:
		return nil, nil, fmt.Errorf("sphinx.decoys %q: want on or off", v)
	}
}

// AdaptedModelName is the folder of the state folder where the robot
// looks for an acoustic model adapted to its people (jibod audio adapt
// --out STATE/acoustic-model).
const AdaptedModelName = "acoustic-model"

// ModelDir is the acoustic model the recogniser uses: model (sphinx.model)
// when set, else the state folder's adapted model when there is one (a
// folder holding sphinx.ProvenanceFile), else Debian's.
func ModelDir(model, stateDir string) string {
	if model != "" {
		return model
	}
	if stateDir != "" {
		dir := filepath.Join(stateDir, AdaptedModelName)
		if _, err := os.Stat(filepath.Join(dir, sphinx.ProvenanceFile)); err == nil {
			return dir
		}
	}
	return sphinx.DefaultModelDir
}

func orDefault(v, def string) string {
	if v != "" {
		return v
	}
	return def
}

// The floors below which a recognition is dropped (see sphinx.Config):
// out-of-grammar speech is forced onto the nearest sentence, and the share
// of the speech its words cover, with their acoustic score, is what tells
// it apart. Chosen on the tuning set (scripts/gen-audio-testset.sh; README,
// "Figures") as the floors with no false wake that keep the most wake hits
// and right commands, from one run with the floors off (grid: confidence
// and coverage 0.6–0.9, wake floors 0.8–0.95): everyday speech taken for a
// command with the window open fell from 102 to 17 of 108 files, false
// wakes from 11 to 0, wake hits from 154 to 135 of 168 and right commands
// from 203 to 188 of 288. The wake phrase's confidence floor went from
// 0.85 to 0.9 with the smaller grammar of the factored JSGF; a per-word
// floor on "hey" and "jibo" and floors on their lengths took no false
// wake away that this floor keeps. The held-out set's figures are in the
// README.
const (
	minConfidence     = 0.8
	minCoverage       = 0.8
	wakeMinConfidence = 0.9
	wakeMinCoverage   = 0.8
	// phoneLoopMargin is how much worse per frame than free phones a
	// sentence may explain an utterance (sphinx.Config.PhoneLoopMargin),
	// chosen with the floors above on the espeak-ng tuning set
	// (docs/hearing.md): it takes most everyday speech that the floors
	// let through, at the cost of some right commands.
	phoneLoopMargin = 32.0
	// rivalMarginOn is the rival check's margin per frame
	// (sphinx.Config.RivalMargin) with JIBOD_SPHINX_RIVAL_MARGIN=on,
	// chosen on the espeak-ng tuning sets (docs/hearing.md).
	rivalMarginOn = 1.0
	// defaultNBest is one hypothesis per utterance: pocketsphinx's n-best
	// search builds the utterance's lattice, which on the test set cost
	// more than the decoding (CPU real-time factor 0.24 with 3 against
	// 0.09 with 1, worst latency 16 s against 1 s). sphinx.nbest
	// asks for more.
	defaultNBest = 1
)

// defaultFloors are the rejection floors for Debian's model.
var defaultFloors = sphinx.Floors{MinConfidence: minConfidence, MinCoverage: minCoverage,
	WakeMinConfidence: wakeMinConfidence, WakeMinCoverage: wakeMinCoverage}

// AdaptedFloors are the rejection floors `jibod audio adapt` records in
// the models it makes. A model adapted to its speakers scores their speech
// higher, false wake phrases too ("Hey Joe, are you coming…" heard as "hey
// jibo are you a fan of pop" at 0.971). On the tuning set, with models
// adapted to four enrollments of its voices (four draws of prompts), a
// wake confidence floor of 0.97 let one false wake through with each,
// 0.975 and 0.98 one with one of them (at 0.982), with the same wake hits
// (166–167 of 168) and right commands (270–274 of 288) at all three; an
// earlier enrollment had 0.9, 0.95 and 0.96 let 2, 2 and 1 through.
//
// For the same reason a sentence needs confidence 0.95, not Debian's 0.8:
// over the same four models, everyday speech taken for a command with the
// window open fell from 75 to 58, 37, 25, 16 and 11 files of 448 at
// 0.8, 0.85, 0.9, 0.93, 0.95 and 0.97, while right commands went 1090,
// 1090, 1088, 1087, 1087 and 1082 of 1152: 0.95 is where commands start
// to go. The coverage floors are as for Debian's model.
var AdaptedFloors = sphinx.Floors{MinConfidence: 0.95, MinCoverage: minCoverage,
	WakeMinConfidence: 0.975, WakeMinCoverage: wakeMinCoverage}

// answerIntents lists the skills' answer rules for the answer grammar:
// their sentences make it, searched only while a question waits, so an
// answer said aloud ("five minutes") can be heard without competing with
// the wake phrase. Nil when there are none to list.
func answerIntents(rules func() []intent.TemplateIntent) func() []grammar.Intent {
	if rules == nil {
		return nil
	}
	return func() []grammar.Intent {
		var out []grammar.Intent
		for _, d := range rules() {
			out = append(out, definitionIntent(d))
		}
		return out
	}
}

// grammarPeople lists the loop's members as the grammar hears them.
func grammarPeople(s *people.Store) func() []grammar.Person {
	return func() []grammar.Person {
		if s == nil {
			return nil
		}
		members, _ := s.Members()
		out := make([]grammar.Person, len(members))
		for i, m := range members {
			out[i] = grammar.Person{FirstName: m.FirstName, LastName: m.LastName, PhoneticName: m.PhoneticName}
		}
		return out
	}
}

// NewGrammarBuilder makes the recogniser's grammars from the robot's
// intent engines, the host's answer rules and the loop's names.
func NewGrammarBuilder(p Parts, lex *sphinx.Lexicon, lang, wake string, decoys []string, log *slog.Logger) *grammar.Builder {
	return &grammar.Builder{
		Intents: func() []grammar.Intent { return GrammarIntents(p.Intents) },
		Answers: answerIntents(p.AnswerRules),
		People:  grammarPeople(p.People),
		Lexicon: lex,
		Options: grammar.Options{TemplateLanguage: IntentTemplates{}, Lang: lang, Wake: wake, Decoys: decoys, DecoyWeight: sphinx.DecoyWeight,
			Wrappers: grammar.WrappersFor(lang)},
		Log: log,
	}
}

// AnswerGrammar is gb's answer grammar as the recogniser takes it: no
// grammar at all (a nil interface) when there is none.
func AnswerGrammar(ctx context.Context, gb *grammar.Builder) (sphinx.Grammar, error) {
	g, err := gb.BuildAnswers(ctx)
	if g == nil || err != nil {
		return nil, err
	}
	return g, nil
}
