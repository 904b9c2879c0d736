//go:build sphinx

package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/audio/grammar"
	"github.com/openjibo/jibod/audio/sphinx"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/skill/loop"
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
	// envSphinxFloors overrides the rejection floors, for tuning: four
	// numbers in [0, 1], "confidence,coverage,wake-confidence,wake-coverage".
	envSphinxFloors = "JIBOD_SPHINX_FLOORS"
	// envSphinxNoiseFloor is how far under the speech (dB, 10..60) a
	// quieter noise floor is raised before decoding.
	envSphinxNoiseFloor = "JIBOD_SPHINX_NOISE_FLOOR"
	// envSphinxTrim is how much audio (ms, 1..2000; "off" for all of it)
	// is decoded either side of an utterance's loud frames.
	envSphinxTrim = "JIBOD_SPHINX_TRIM_MS"
	// envSphinxDenoise is the signal-to-noise ratio (dB, 1..40; "off" for
	// never) under which an utterance's noise is suppressed before it is
	// decoded.
	envSphinxDenoise = "JIBOD_SPHINX_DENOISE_DB"
	// envSphinxDecoys set to "off" leaves the wake decoys out of the
	// grammar, for measuring what they do.
	envSphinxDecoys = "JIBOD_SPHINX_DECOYS"
	// envSphinxLM turns the open-vocabulary pass on (docs/hearing.md):
	// "debian" for Debian's en-us language model, or a language model
	// file (scripts/gen-hearing-lm.py makes one); unset or "off" for
	// none.
	envSphinxLM = "JIBOD_SPHINX_LM"
	// envSphinxPhoneMargin turns the phone loop's rejection on with a
	// margin (sphinx.Config.PhoneLoopMargin, per frame; "on" for
	// phoneLoopMargin); unset or "off" leaves it out (docs/hearing.md says
	// why it is not yet the default).
	envSphinxPhoneMargin = "JIBOD_SPHINX_PHONE_MARGIN"
)

// phoneLoopFromEnv returns the phone loop's language model and margin as
// $JIBOD_SPHINX_PHONE_MARGIN asks: none when unset or "off", or when
// Debian's phonetic model is not installed.
func phoneLoopFromEnv() (string, float64, error) {
	v := os.Getenv(envSphinxPhoneMargin)
	if v == "" || v == "off" {
		return "", 0, nil
	}
	margin := phoneLoopMargin
	if v != "on" {
		m, err := strconv.ParseFloat(v, 64)
		if err != nil || !(m > 0 && m <= sphinx.MaxPhoneLoopMargin) { // NaN too
			return "", 0, fmt.Errorf("%s=%q: want off, on or a margin in (0, %d]", envSphinxPhoneMargin, v, sphinx.MaxPhoneLoopMargin)
		}
		margin = m
	}
	if _, err := os.Stat(sphinx.DefaultPhoneLoop); err != nil {
		return "", 0, nil
	}
	return sphinx.DefaultPhoneLoop, margin, nil
}

// openFromEnv returns the open-vocabulary pass of $JIBOD_SPHINX_LM, nil
// for none.
func openFromEnv() (*sphinx.OpenConfig, error) {
	switch v := os.Getenv(envSphinxLM); v {
	case "", "off":
		return nil, nil
	case "debian":
		return &sphinx.OpenConfig{LanguageModel: sphinx.DefaultLanguageModel}, nil
	default:
		if _, err := os.Stat(v); err != nil {
			return nil, fmt.Errorf("%s=%q: want off, debian or a language model file: %w", envSphinxLM, v, err)
		}
		return &sphinx.OpenConfig{LanguageModel: v}, nil
	}
}

// answerRuleLister is what a skill host offers when it can list the
// answer rules of its skills' questions: their sentences make the answer
// grammar, searched only while a question waits, so an answer said aloud
// ("five minutes") can be heard without competing with the wake phrase.
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
	if r.intents == nil {
		return nil, nil, errors.New("speech recognition: the robot has no intent engines")
	}
	dict := envOr(envSphinxDict, sphinx.DefaultDict)
	lexOpts := sphinx.LexiconOptions{}
	var decoys []string
	wake := ""
	if o.WakeInGrammar {
		wake = audio.WakePhrase
		d, words, err := decoysFromEnv()
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
	floorDB, err := noiseFloorFromEnv()
	if err != nil {
		return nil, nil, fmt.Errorf("speech recognition: %w", err)
	}
	trim, err := trimFromEnv()
	if err != nil {
		return nil, nil, fmt.Errorf("speech recognition: %w", err)
	}
	denoise, err := denoiseFromEnv()
	if err != nil {
		return nil, nil, fmt.Errorf("speech recognition: %w", err)
	}
	open, err := openFromEnv()
	if err != nil {
		return nil, nil, fmt.Errorf("speech recognition: %w", err)
	}
	phones, phoneMargin, err := phoneLoopFromEnv()
	if err != nil {
		return nil, nil, fmt.Errorf("speech recognition: %w", err)
	}
	gb := newGrammarBuilder(r, lex, o.Lang, wake, decoys, log)
	// The people's names are in the grammar: a change of the loop
	// rebuilds it as a registration does. The watcher follows the bus
	// from before the first build, so a change made during it is not
	// missed.
	w := &grammar.Watcher{Bus: r.bus, Build: gb.Build, Logger: log, Topics: []string{loop.TopicChanged}}
	if err := w.Subscribe(); err != nil {
		return nil, nil, fmt.Errorf("speech recognition: %w", err)
	}
	started := false
	defer func() {
		if !started {
			w.Close()
		}
	}()
	g, err := gb.Build(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("speech recognition: %w", err)
	}
	answers, err := answerGrammar(ctx, gb)
	if err != nil {
		return nil, nil, fmt.Errorf("speech recognition: %w", err)
	}
	model := modelDir(r.stateDir)
	fl, err := modelFloors(model)
	if err != nil && os.Getenv(envSphinxModel) == "" {
		// The state folder's model is broken: the robot keeps hearing,
		// with Debian's model, and says why.
		log.Error("speech recogniser: the adapted acoustic model is unusable; using Debian's", "dir", model, "err", err)
		model = sphinx.DefaultModelDir
		fl, err = modelFloors(model)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("speech recognition: %w", err)
	}
	if denoise == 0 {
		denoise = modelDenoise(model)
	}
	if model != sphinx.DefaultModelDir {
		log.Info("speech recogniser: adapted acoustic model", "dir", model, "floors", fl, "denoise_below_snr", denoise)
	}
	rec, err := sphinx.New(ctx, sphinx.Config{ModelDir: model, Lexicon: lex,
		DenoiseBelowSNR: denoise, Open: open, PhoneLoop: phones, PhoneLoopMargin: phoneMargin,
		Grammar: g, Answers: answers, NBest: nbest, FloorBelowDB: floorDB, TrimMargin: trim, Args: strings.Fields(os.Getenv(envSphinxArgs)), Log: log,
		MinConfidence: fl.MinConfidence, MinCoverage: fl.MinCoverage,
		Wake: wake, WakeMinConfidence: fl.WakeMinConfidence, WakeMinCoverage: fl.WakeMinCoverage})
	if err != nil {
		return nil, nil, err
	}
	w.Apply = func(ctx context.Context, g *grammar.Grammar) error {
		if err := rec.SetGrammar(ctx, g); err != nil {
			return err
		}
		// Skills that come and go bring and take their answer rules.
		a, err := answerGrammar(ctx, gb)
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
	// defaultNBest is one hypothesis per utterance: pocketsphinx's n-best
	// search builds the utterance's lattice, which on the test set cost
	// more than the decoding (CPU real-time factor 0.24 with 3 against
	// 0.09 with 1, worst latency 16 s against 1 s). $JIBOD_SPHINX_NBEST
	// asks for more.
	defaultNBest = 1
)

// defaultFloors are the rejection floors for Debian's model.
var defaultFloors = sphinx.Floors{MinConfidence: minConfidence, MinCoverage: minCoverage,
	WakeMinConfidence: wakeMinConfidence, WakeMinCoverage: wakeMinCoverage}

// adaptedFloors are the rejection floors `jibod audio adapt` records in
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
var adaptedFloors = sphinx.Floors{MinConfidence: 0.95, MinCoverage: minCoverage,
	WakeMinConfidence: 0.975, WakeMinCoverage: wakeMinCoverage}

// modelFloors returns the rejection floors to use with the acoustic model
// in dir: those its provenance records when it is an adapted model that
// records them, else the defaults; $JIBOD_SPHINX_FLOORS overrides both.
func modelFloors(dir string) (sphinx.Floors, error) {
	fl := defaultFloors
	switch p, err := sphinx.ReadProvenance(dir); {
	case errors.Is(err, fs.ErrNotExist): // not an adapted model
	case err != nil:
		return fl, err
	case p.Floors != nil:
		fl = *p.Floors
	}
	return floorsFromEnv(fl)
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

// floorsFromEnv returns the rejection floors of $JIBOD_SPHINX_FLOORS, or
// fl when it is unset.
func floorsFromEnv(fl sphinx.Floors) (sphinx.Floors, error) {
	v := os.Getenv(envSphinxFloors)
	if v == "" {
		return fl, nil
	}
	parts := strings.Split(v, ",")
	if len(parts) != 4 {
		return fl, fmt.Errorf("%s=%q: want four numbers, confidence,coverage,wake-confidence,wake-coverage", envSphinxFloors, v)
	}
	var f [4]float64
	for i, p := range parts {
		x, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || x < 0 || x > 1 {
			return fl, fmt.Errorf("%s=%q: %q is not a number in [0, 1]", envSphinxFloors, v, p)
		}
		f[i] = x
	}
	return sphinx.Floors{MinConfidence: f[0], MinCoverage: f[1], WakeMinConfidence: f[2], WakeMinCoverage: f[3]}, nil
}

// noiseFloorFromEnv returns the noise floor depth of
// $JIBOD_SPHINX_NOISE_FLOOR: 0 (the recogniser's default) when unset.
func noiseFloorFromEnv() (float64, error) {
	v := os.Getenv(envSphinxNoiseFloor)
	if v == "" {
		return 0, nil
	}
	db, err := strconv.ParseFloat(v, 64)
	if err != nil || !(db >= 10 && db <= 60) { // NaN too
		return 0, fmt.Errorf("%s=%q: want a number of dB from 10 to 60", envSphinxNoiseFloor, v)
	}
	return db, nil
}

// trimFromEnv returns the trim margin of $JIBOD_SPHINX_TRIM_MS: 0 (the
// recogniser's default) when unset, negative for "off".
func trimFromEnv() (time.Duration, error) {
	v := os.Getenv(envSphinxTrim)
	switch v {
	case "":
		return 0, nil
	case "off":
		return -1, nil
	}
	ms, err := strconv.Atoi(v)
	if err != nil || ms < 1 || time.Duration(ms)*time.Millisecond > sphinx.MaxTrimMargin {
		return 0, fmt.Errorf("%s=%q: want off or a number of milliseconds from 1 to %d", envSphinxTrim, v, sphinx.MaxTrimMargin.Milliseconds())
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// decoysFromEnv returns the wake decoys and their words'
// pronunciations (sphinx.WakeDecoys), or none when $JIBOD_SPHINX_DECOYS
// is "off".
func decoysFromEnv() ([]string, map[string]string, error) {
	switch v := os.Getenv(envSphinxDecoys); v {
	case "", "on":
		phrases, words := sphinx.WakeDecoys(audio.WakePhrase)
		return phrases, words, nil
	case "off":
		return nil, nil, nil
	default:
		return nil, nil, fmt.Errorf("%s=%q: want on or off", envSphinxDecoys, v)
	}
}

// denoiseFromEnv returns the noise suppression threshold of
// $JIBOD_SPHINX_DENOISE_DB: 0 (the recogniser's default) when unset,
// negative for "off".
func denoiseFromEnv() (float64, error) {
	v := os.Getenv(envSphinxDenoise)
	switch v {
	case "":
		return 0, nil
	case "off":
		return -1, nil
	}
	db, err := strconv.ParseFloat(v, 64)
	if err != nil || !(db >= 1 && db <= sphinx.MaxDenoiseBelowSNR) { // NaN too
		return 0, fmt.Errorf("%s=%q: want off or a number of dB from 1 to %g", envSphinxDenoise, v, sphinx.MaxDenoiseBelowSNR)
	}
	return db, nil
}

// adaptedModelName is the folder of the state folder where the robot
// looks for an acoustic model adapted to its people (jibod audio adapt
// --out STATE/acoustic-model).
const adaptedModelName = "acoustic-model"

// modelDir is the acoustic model the recogniser uses: $JIBOD_SPHINX_MODEL
// when set, else the state folder's adapted model when there is one (a
// folder holding sphinx.ProvenanceFile), else Debian's.
func modelDir(stateDir string) string {
	if v := os.Getenv(envSphinxModel); v != "" {
		return v
	}
	if stateDir != "" {
		dir := filepath.Join(stateDir, adaptedModelName)
		if _, err := os.Stat(filepath.Join(dir, sphinx.ProvenanceFile)); err == nil {
			return dir
		}
	}
	return sphinx.DefaultModelDir
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// answerIntents lists the host's answer rules for the answer grammar;
// nil when the host cannot list them.
func answerIntents(r *robot) func() []grammar.Intent {
	rl, ok := any(r.host).(answerRuleLister)
	if !ok || r.host == nil {
		return nil
	}
	return func() []grammar.Intent {
		var out []grammar.Intent
		for _, d := range rl.AnswerRules() {
			out = append(out, grammar.FromDefinition(d))
		}
		return out
	}
}

// grammarPeople lists the loop's members as the grammar hears them.
func grammarPeople(s *loop.Store) func() []grammar.Person {
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

// newGrammarBuilder makes the recogniser's grammars from the robot's
// intent engines, the host's answer rules and the loop's names.
func newGrammarBuilder(r *robot, lex *sphinx.Lexicon, lang, wake string, decoys []string, log *slog.Logger) *grammar.Builder {
	return &grammar.Builder{
		Intents: func() []grammar.Intent { return robotGrammarIntents(r) },
		Answers: answerIntents(r),
		People:  grammarPeople(r.loop),
		Lexicon: lex,
		Options: grammar.Options{Lang: lang, Wake: wake, Decoys: decoys, DecoyWeight: sphinx.DecoyWeight},
		Log:     log,
	}
}

// answerGrammar is gb's answer grammar as the recogniser takes it: no
// grammar at all (a nil interface) when there is none.
func answerGrammar(ctx context.Context, gb *grammar.Builder) (sphinx.Grammar, error) {
	g, err := gb.BuildAnswers(ctx)
	if g == nil || err != nil {
		return nil, err
	}
	return g, nil
}
