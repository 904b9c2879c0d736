//go:build sphinx

package sphinx

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/openjibo/jibod/audio"
)

// Where Debian's pocketsphinx-en-us puts the US English model.
const (
	// DefaultPhoneLoop is Debian's phonetic language model of US English
	// (pocketsphinx-en-us), for Config.PhoneLoop.
	DefaultPhoneLoop = "/usr/share/pocketsphinx/model/en-us/en-us-phone.lm.bin"
	DefaultModelDir  = "/usr/share/pocketsphinx/model/en-us/en-us"
	DefaultDict      = "/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict"
)

// Limits and defaults.
const (
	// DefaultNBest is how many hypotheses Recognize returns at most: one,
	// since the n-best search builds the utterance's lattice, which can
	// cost more than decoding it.
	DefaultNBest = 1
	// MaxPhoneLoopMargin bounds Config.PhoneLoopMargin (per frame, in
	// the decoder's log units).
	MaxPhoneLoopMargin = 1000
	// MaxNBest bounds Config.NBest.
	MaxNBest = 20
	// MaxDecoders bounds Config.Decoders: each holds its own copy of the
	// acoustic model, the bulk of the recogniser's memory
	// (docs/hearing.md).
	MaxDecoders = 8
	// DefaultMaxSeconds is the longest utterance Recognize accepts.
	DefaultMaxSeconds = 30
	// maxDecoderWords bounds a decoder's dictionary: past it the decoder
	// is rebuilt with only the current grammar's words, so swapping
	// grammars cannot grow memory without end.
	maxDecoderWords = 4 * MaxLookupWords
	// searchName names the grammar search inside each decoder; a new
	// grammar replaces the old one under the same name.
	searchName = "grammar"
	// answersName names the answer grammar's search.
	answersName = "answers"
	// wideSuffix names a search's wider twin (see Recognizer.decode).
	wideSuffix = "-wide"
	// untailedSuffix names the grammar search's twin without filler
	// words after a sentence (see Recognizer.decode).
	untailedSuffix = "-untailed"
	// phonesName is the phone loop's search (Config.PhoneLoop).
	phonesName = "phones"
	// verifyName is the verifying language model's search
	// (ModelVerifies).
	verifyName = "verify"
	// fallbackName is the language model's search where the grammar's
	// sentence is refused (ModelFallback).
	fallbackName = "fallback"
)

// Config configures a Recognizer.
type Config struct {
	// ModelDir is the acoustic model folder; "" means DefaultModelDir.
	ModelDir string
	// Lexicon pronounces the grammar's words; nil means cmudict at
	// DefaultDict with BuiltinWords and no guesser.
	Lexicon *Lexicon
	// Grammar is what to recognise against (required).
	Grammar Grammar
	// Answers, if set, is the answer grammar: what RecognizeAnswer
	// recognises against (answers to a skill's question). It is a search
	// of its own in each decoder, so its sentences never compete with the
	// grammar's, nor with the wake phrase.
	Answers Grammar
	// NBest is the most hypotheses returned; 0 means DefaultNBest.
	NBest int
	// Decoders is how many utterances may be recognised at once; 0 means 1.
	Decoders int
	// MaxSeconds is the longest utterance accepted; 0 means
	// DefaultMaxSeconds.
	MaxSeconds int
	// MinConfidence drops hypotheses whose confidence is below it: the
	// guard against out-of-grammar speech forced onto a grammar sentence.
	MinConfidence float64
	// MinCoverage drops an utterance whose best sentence's words cover
	// less than this share of its loud frames: speech the sentence leaves
	// unexplained. 0 keeps every utterance.
	MinCoverage float64
	// Accept, if set, decides with MinConfidence and MinCoverage: the
	// best sentence is acted on when the acceptance model's probability
	// that it is right reaches AcceptThreshold (0: the model's own
	// threshold), or when it passes both floors and the probability
	// reaches the model's FloorVeto; its hypotheses carry the model's
	// probability as their confidence (AcceptConfidence), at least the
	// threshold's when acted on.
	Accept          *AcceptModel
	AcceptThreshold float64
	// Wake, if set, is the wake phrase, and a best sentence starting with
	// it must also reach WakeMinConfidence and WakeMinCoverage, or the
	// phrase is taken off every hypothesis (what is left must then pass
	// the other floors): waking the robot on speech not meant for it
	// costs more than missing a word.
	Wake                               string
	WakeMinConfidence, WakeMinCoverage float64
	// Understand, if set, says what the robot's intent engines make of a
	// text (core/runtime/hearing): the verifying search (ModelVerifies)
	// compares what the grammar's sentence and the language model's
	// transcript of the same speech mean, and the fallback
	// (ModelFallback) acts on a transcript only when they parse it
	// surely.
	Understand func(ctx context.Context, text string) (Meaning, error)
	// Fallback is how the fallback (ModelFallback) searches and what it
	// asks of a transcript; nil means DefaultFallback.
	Fallback *Fallback
	// PhoneLoop, if set, is a phonetic language model (DefaultPhoneLoop):
	// every utterance the grammar explains is decoded again as free
	// phones, and one whose best sentence scores more than
	// PhoneLoopMargin per frame under the free phones is dropped. Speech
	// the grammar does not hold, forced onto its nearest sentence, fits
	// that sentence much worse than it fits phones chosen freely; a
	// sentence said fits both about as well. Unlike the confidence, the
	// comparison does not depend on how well the acoustic model knows the
	// voice.
	PhoneLoop       string
	PhoneLoopMargin float64
	// RivalMargin, above 0, refuses a sentence the floors (or the
	// acceptance model) let through when a sentence of another meaning
	// (Understand: another intent or other slot values) among the
	// search's Rivals best comes within RivalMargin per frame of the best
	// sentence of its meaning (rivals.go): the search could as well have
	// heard another command. A negative margin measures (Verdict.Rival)
	// without refusing, for tuning. It needs Understand.
	RivalMargin float64
	Rivals      int
	// WordPosterior, above 0, refuses a sentence the floors (or the
	// acceptance model) let through when one of its words holds under
	// WordPosterior of the posterior mass of the search's word lattice
	// at its middle frame (posterior.go): the search also reached other
	// words there that fit about as well. A negative value measures
	// (Verdict.WordPosteriors) without refusing, for tuning. In (0, 1].
	WordPosterior float64
	// Garbage, if set, adds the garbage path to the grammar's search
	// (garbage.go): an utterance whose best path goes through its filler
	// words is refused, as one under the floors is. Not with the wake
	// phrase in the grammar (Wake), nor for the answer grammar.
	Garbage *Garbage
	// FloorBelowDB is how far under its speech (dB) an utterance's noise
	// floor is raised with a faint noise before decoding, when it is lower
	// (see withNoiseFloor); 0 means DefaultFloorBelow.
	FloorBelowDB float64
	// TrimMargin is how much audio is decoded either side of an
	// utterance's loud frames (see trimToSpeech); a negative margin
	// decodes the utterance whole, and 0 the default: DefaultLeadMargin
	// before the words, DefaultTrailMargin after them.
	TrimMargin time.Duration
	// DenoiseBelowSNR suppresses an utterance's stationary noise before
	// decoding when its speech stands less than this many dB over its
	// quiet frames (see denoise): 0 means DefaultDenoiseBelowSNR, a
	// negative number never.
	DenoiseBelowSNR float64
	// Enhance, if set, readies before the noise suppression (see
	// Enhancer) each utterance whose speech stands less than
	// EnhanceBelowSNR dB over its quiet frames (MaxEnhanceBelowSNR is
	// every utterance) and whose background's spectral shape fluctuates
	// by at least EnhanceAboveBackground dB (other talkers, music)
	// rather than holding still (steady noise). As for DenoiseBelowSNR,
	// 0 means the default (DefaultEnhanceBelowSNR,
	// DefaultEnhanceAboveBackground) and a negative number none: no
	// utterance enhanced, or no background gate.
	Enhance                Enhancer
	EnhanceBelowSNR        float64
	EnhanceAboveBackground float64
	// ResetNoise makes each utterance's decoding start pocketsphinx's
	// noise subtraction afresh (ps_start_stream) rather than from the
	// estimate the decoder's utterance before left, which may have been
	// another person's or another room's: for tuning (docs/hearing.md).
	// The wake phrase's alignment (AlignWake) always starts afresh.
	ResetNoise bool
	// Open, if set, starts the open-vocabulary pass (Transcribe): a
	// decoder with a language model, for what the grammar refuses.
	Open *OpenConfig
	// Args are extra pocketsphinx arguments as flag/value pairs
	// ("-beam", "1e-60"), for tuning.
	Args []string
	// Log receives the recognizer's own logs; nil means slog.Default().
	Log *slog.Logger
}

// Grammar is what the recognizer listens for.
type Grammar interface {
	// JSGF is the grammar's text.
	JSGF() string
	// Accepts reports whether a sentence is one of the grammar's: the
	// decoder's best path may stop short of a sentence's end when nothing
	// fits, and its n-best list holds such paths too.
	Accepts(sentence string) bool
}

// LanguageModel is a Grammar searched as a statistical language model
// (pocketsphinx's n-gram search) rather than as a finite-state grammar:
// what is said is transcribed with the model's words, not forced onto
// one of its sentences, and the transcript is returned whether Accepts
// takes it or not (the intent engines decide what it means). Its JSGF is
// not used.
type LanguageModel interface {
	Grammar
	// ARPA is the model in the ARPA text format.
	ARPA() string
	// Words are the model's words, each of which the lexicon must
	// pronounce.
	Words() []string
	// Use says how the model is searched.
	Use() ModelUse
}

// ModelUse is how a LanguageModel is searched.
type ModelUse int

const (
	// ModelAlone: the model is searched instead of the grammar, and its
	// transcript is the result.
	ModelAlone ModelUse = iota
	// ModelVerifies: the grammar is searched as before and the model
	// only checks the sentence found: the same audio is transcribed with
	// the model, and the two are compared (see Recognizer.check).
	ModelVerifies
	// ModelFallback: the grammar is searched as before, and only where
	// its sentence is refused (the robot would ask) the model transcribes
	// the same features; the transcript is acted on when the intent
	// engines parse it surely (see Recognizer.fallback).
	ModelFallback
)

// JSGF is a grammar given as text alone: every sentence the decoder
// returns is taken as one of it.
type JSGF string

// JSGF returns the text.
func (j JSGF) JSGF() string { return string(j) }

// Accepts accepts every sentence.
func (JSGF) Accepts(string) bool { return true }

// Recognizer recognises utterances against a JSGF grammar that can be
// replaced at run time. It is safe for concurrent use: it keeps a pool of
// decoders, each used by one goroutine at a time.
type Recognizer struct {
	cfg  Config
	lex  *Lexicon
	log  *slog.Logger
	pool chan *decoder

	// open is the open-vocabulary pass; nil for none.
	open *openPass
	// garbage are the garbage path's filler words (Config.Garbage) as
	// the decoder names them, with their pronunciation; nil for none.
	garbage map[string][]string
	// aligner holds the wake phrase's alignment decoder (AlignWake); nil
	// for none.
	aligner chan *decoder

	mu      sync.Mutex
	grammar grammarState
	closed  bool
}

// grammarState is the current grammars, their generation and
// pronunciations.
type grammarState struct {
	gen  uint64
	main search
	// answers is the answer grammar, nil for none.
	answers *search
}

// search is one grammar of a decoder: its text, its sentence check and
// its words' pronunciations.
type search struct {
	jsgf string
	// fsg is jsgf compiled to its minimal automaton; nil when the decoder
	// compiles the JSGF itself (see compileGrammar).
	fsg *automaton
	// lm is the ARPA text of a statistical language model searched instead
	// of jsgf (a LanguageModel grammar); "" for a grammar.
	lm string
	// verify is the ARPA text of a language model that checks what the
	// grammar found (ModelVerifies); "" for none.
	verify string
	// fallback is the ARPA text of a language model that transcribes
	// what the grammar refused (ModelFallback); "" for none.
	fallback string
	// slotted are the grammars of the intents with slots, one each, that
	// check the slots of a fallback's claim (Recognizer.fallback); nil
	// for none.
	slotted map[string]searchGrammar
	// intentWords gives the words of an intent's own sentences
	// (intentVocabulary) for the fallback's agreement; nil for a grammar
	// that cannot give them.
	intentWords func(intent string) ([]string, bool)
	accepts     func(string) bool
	// decoyed reports a sentence that starts with a wake decoy; nil for
	// a grammar without decoys.
	decoyed func(string) bool
	prons   map[string][]string
	// garbage: fsg holds the garbage path (Config.Garbage).
	garbage bool
	// untailed is fsg without the filler words after a sentence (nil
	// where it has none): where a sentence was found without them, its
	// confidence is measured there (Recognizer.decode).
	untailed *automaton
	// meanings are the grammar's sentences' meanings the rival check has
	// asked for; nil remembers none.
	meanings *meaningCache
}

// knows reports whether word is in the search's vocabulary.
func (s search) knows(word string) bool {
	_, ok := s.prons[word]
	return ok
}

// text is the grammar as the decoder takes it.
func (s search) text() searchGrammar { return searchGrammar{jsgf: s.jsgf, fsg: s.fsg} }

// decoyGrammar is a Grammar with wake decoys (grammar.Options.Decoys).
type decoyGrammar interface {
	Decoyed(sentence string) bool
}

// words returns the pronunciations of every word of g's grammars. The
// decoder's dictionary serves both: a word the two pronounce differently
// (one prepared before a name's pronunciation changed) has both's.
func (g grammarState) words() map[string][]string {
	if g.answers == nil {
		return g.main.prons
	}
	all := make(map[string][]string, len(g.main.prons)+len(g.answers.prons))
	for w, p := range g.main.prons {
		all[w] = p
	}
	for w, p := range g.answers.prons {
		list := all[w]
		for _, v := range p {
			if !slices.Contains(list, v) {
				list = append(slices.Clip(list), v)
			}
		}
		all[w] = list
	}
	return all
}

var (
	_ audio.Recognizer        = (*Recognizer)(nil)
	_ audio.AnswerRecognizer  = (*Recognizer)(nil)
	_ audio.Transcriber       = (*Recognizer)(nil)
	_ audio.VerdictRecognizer = (*Recognizer)(nil)
)

// New starts a recognizer: it checks the grammar's words against the
// lexicon and starts the decoders with it.
func New(ctx context.Context, cfg Config) (*Recognizer, error) {
	if cfg.ModelDir == "" {
		cfg.ModelDir = DefaultModelDir
	}
	if cfg.NBest == 0 {
		cfg.NBest = DefaultNBest
	}
	if cfg.Decoders == 0 {
		cfg.Decoders = 1
	}
	if cfg.MaxSeconds == 0 {
		cfg.MaxSeconds = DefaultMaxSeconds
	}
	if cfg.FloorBelowDB == 0 {
		cfg.FloorBelowDB = DefaultFloorBelow
	}
	if cfg.DenoiseBelowSNR == 0 {
		cfg.DenoiseBelowSNR = DefaultDenoiseBelowSNR
	}
	if cfg.EnhanceBelowSNR == 0 {
		cfg.EnhanceBelowSNR = DefaultEnhanceBelowSNR
	}
	if cfg.EnhanceAboveBackground == 0 {
		cfg.EnhanceAboveBackground = DefaultEnhanceAboveBackground
	}
	if cfg.Rivals == 0 {
		cfg.Rivals = DefaultRivals
	}
	// A copy: the caller's Fallback may change after New.
	fb := DefaultFallback
	if cfg.Fallback != nil {
		fb = *cfg.Fallback
	}
	cfg.Fallback = &fb
	switch {
	case cfg.DenoiseBelowSNR > MaxDenoiseBelowSNR || math.IsNaN(cfg.DenoiseBelowSNR):
		return nil, fmt.Errorf("speech recognizer: noise suppression below %g dB over %g", cfg.DenoiseBelowSNR, MaxDenoiseBelowSNR)
	case cfg.EnhanceBelowSNR > MaxEnhanceBelowSNR || math.IsNaN(cfg.EnhanceBelowSNR):
		return nil, fmt.Errorf("speech recognizer: enhancement below %g dB over %g", cfg.EnhanceBelowSNR, MaxEnhanceBelowSNR)
	case cfg.EnhanceAboveBackground > MaxEnhanceAboveBackground || math.IsNaN(cfg.EnhanceAboveBackground):
		return nil, fmt.Errorf("speech recognizer: enhancement above a background fluctuation of %g dB over %g", cfg.EnhanceAboveBackground, MaxEnhanceAboveBackground)
	case cfg.TrimMargin > MaxTrimMargin:
		return nil, fmt.Errorf("speech recognizer: trim margin %v over %v", cfg.TrimMargin, MaxTrimMargin)
	case cfg.FloorBelowDB < 10 || cfg.FloorBelowDB > 60:
		return nil, fmt.Errorf("speech recognizer: noise floor %g dB under the speech not in 10..60", cfg.FloorBelowDB)
	case cfg.NBest < 1 || cfg.NBest > MaxNBest:
		return nil, fmt.Errorf("speech recognizer: n-best %d not in 1..%d", cfg.NBest, MaxNBest)
	case cfg.Decoders < 1 || cfg.Decoders > MaxDecoders:
		return nil, fmt.Errorf("speech recognizer: %d decoders not in 1..%d", cfg.Decoders, MaxDecoders)
	case cfg.MaxSeconds < 1 || cfg.MaxSeconds > 300:
		return nil, fmt.Errorf("speech recognizer: longest utterance %d s not in 1..300", cfg.MaxSeconds)
	case cfg.MinConfidence < 0 || cfg.MinConfidence > 1:
		return nil, fmt.Errorf("speech recognizer: minimum confidence %g not in [0, 1]", cfg.MinConfidence)
	case cfg.AcceptThreshold < 0 || cfg.AcceptThreshold >= 1 || math.IsNaN(cfg.AcceptThreshold):
		return nil, fmt.Errorf("speech recognizer: acceptance threshold %g not in [0, 1)", cfg.AcceptThreshold)
	case cfg.MinCoverage < 0 || cfg.MinCoverage > 1:
		return nil, fmt.Errorf("speech recognizer: minimum coverage %g not in [0, 1]", cfg.MinCoverage)
	case cfg.WakeMinConfidence < 0 || cfg.WakeMinConfidence > 1 || cfg.WakeMinCoverage < 0 || cfg.WakeMinCoverage > 1:
		return nil, fmt.Errorf("speech recognizer: wake floors %g, %g not in [0, 1]", cfg.WakeMinConfidence, cfg.WakeMinCoverage)
	case cfg.PhoneLoop != "" && (!(cfg.PhoneLoopMargin > 0) || cfg.PhoneLoopMargin > MaxPhoneLoopMargin):
		return nil, fmt.Errorf("speech recognizer: phone loop margin %g not in (0, %d]", cfg.PhoneLoopMargin, MaxPhoneLoopMargin)
	case math.IsNaN(cfg.RivalMargin) || cfg.RivalMargin > MaxRivalMargin:
		return nil, fmt.Errorf("speech recognizer: rival margin %g over %d", cfg.RivalMargin, MaxRivalMargin)
	case cfg.Rivals < 1 || cfg.Rivals > MaxRivals:
		return nil, fmt.Errorf("speech recognizer: %d rivals not in 1..%d", cfg.Rivals, MaxRivals)
	case math.IsNaN(cfg.WordPosterior) || cfg.WordPosterior > 1:
		return nil, fmt.Errorf("speech recognizer: word posterior floor %g over 1", cfg.WordPosterior)
	case cfg.RivalMargin != 0 && cfg.Understand == nil:
		return nil, errors.New("speech recognizer: the rival check needs the intent engines (Config.Understand)")
	case cfg.Fallback.Check() != nil:
		return nil, fmt.Errorf("speech recognizer: %w", cfg.Fallback.Check())
	case cfg.Garbage != nil && cfg.Garbage.Check() != nil:
		return nil, fmt.Errorf("speech recognizer: %w", cfg.Garbage.Check())
	case len(cfg.Args)%2 != 0:
		return nil, fmt.Errorf("speech recognizer: arguments %q are not flag/value pairs", cfg.Args)
	}
	for i := 0; i < len(cfg.Args); i += 2 {
		if !strings.HasPrefix(cfg.Args[i], "-") {
			return nil, fmt.Errorf("speech recognizer: argument %q is not a flag", cfg.Args[i])
		}
		switch cfg.Args[i] {
		case "-hmm", "-dict", "-logfn", "-jsgf", "-kws", "-lm", "-fsg", "-keyphrase", "-remove_silence":
			return nil, fmt.Errorf("speech recognizer: argument %s is set by the recognizer", cfg.Args[i])
		}
	}
	if fi, err := os.Stat(cfg.ModelDir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("speech recognizer: acoustic model folder %s not found (Debian: apt install pocketsphinx-en-us)", cfg.ModelDir)
	}
	lex := cfg.Lexicon
	if lex == nil {
		var err error
		if lex, err = NewLexicon(DefaultDict, LexiconOptions{}); err != nil {
			return nil, fmt.Errorf("speech recognizer: %w (Debian: apt install pocketsphinx-en-us)", err)
		}
	}
	log := cfg.Log
	if log == nil {
		log = slog.Default()
	}
	r := &Recognizer{cfg: cfg, lex: lex, log: log.With("component", "sphinx"), pool: make(chan *decoder, cfg.Decoders)}
	if err := r.pronounceGarbage(ctx); err != nil {
		return nil, err
	}
	main, err := r.prepare(ctx, cfg.Grammar)
	if err != nil {
		return nil, err
	}
	r.addGarbage(&main)
	g := grammarState{gen: 1, main: main}
	if cfg.Answers != nil {
		ans, err := r.prepare(ctx, cfg.Answers)
		if err != nil {
			return nil, fmt.Errorf("answer grammar: %w", err)
		}
		g.answers = &ans
	}
	r.grammar = g
	if cfg.Open != nil {
		if r.open, err = newOpenPass(r.log, cfg.ModelDir, *cfg.Open, cfg.Args); err != nil {
			return nil, fmt.Errorf("speech recognizer: %w", err)
		}
	}
	if err := r.startWakeAligner(ctx); err != nil {
		if r.open != nil {
			r.open.close()
		}
		return nil, err
	}
	for i := 0; i < cfg.Decoders; i++ {
		d, err := r.build(g)
		if err != nil {
			if r.open != nil {
				r.open.close()
			}
			r.closeWakeAligner()
			close(r.pool)
			for d := range r.pool {
				d.close()
			}
			return nil, err
		}
		r.pool <- d
	}
	return r, nil
}

// prepare checks a grammar and pronounces its words.
func (r *Recognizer) prepare(ctx context.Context, gr Grammar) (search, error) {
	if gr == nil {
		return search{}, errors.New("speech recognizer: no grammar")
	}
	var lm LanguageModel
	var lmProns map[string][]string
	if m, ok := gr.(LanguageModel); ok {
		arpa, words := m.ARPA(), m.Words()
		if len(words) == 0 || len(words) > MaxLookupWords || strings.TrimSpace(arpa) == "" {
			return search{}, fmt.Errorf("speech recognizer: a language model of %d words", len(words))
		}
		prons, err := r.lex.Lookup(ctx, words)
		if err != nil {
			return search{}, fmt.Errorf("speech recognizer: language model refused: %w", err)
		}
		switch m.Use() {
		case ModelAlone:
			return search{lm: arpa, accepts: gr.Accepts, prons: prons}, nil
		case ModelVerifies, ModelFallback:
		default:
			return search{}, fmt.Errorf("speech recognizer: language model use %d", m.Use())
		}
		if m.Use() == ModelFallback && r.cfg.Understand == nil {
			return search{}, errors.New("speech recognizer: a fallback language model needs the intent engines (Config.Understand)")
		}
		lm, lmProns = m, prons
	}
	jsgf := gr.JSGF()
	if strings.TrimSpace(jsgf) == "" {
		return search{}, errors.New("speech recognizer: empty grammar")
	}
	words, err := GrammarWords(jsgf)
	if err != nil {
		return search{}, fmt.Errorf("speech recognizer: %w", err)
	}
	if len(words) == 0 {
		return search{}, errors.New("speech recognizer: the grammar has no words")
	}
	prons, err := r.lex.Lookup(ctx, words)
	if err != nil {
		return search{}, fmt.Errorf("speech recognizer: grammar refused: %w", err)
	}
	s := search{jsgf: jsgf, accepts: gr.Accepts, prons: prons, meanings: &meaningCache{}}
	if a, err := compileGrammar(jsgf); err == nil {
		s.fsg = a
	} else {
		r.log.Debug("the decoder compiles the grammar itself", "why", err)
	}
	if d, ok := gr.(decoyGrammar); ok {
		s.decoyed = d.Decoyed
	}
	if lm != nil {
		if lm.Use() == ModelFallback {
			s.fallback = lm.ARPA()
			s.slotted = slotGrammars(gr)
			if iv, ok := gr.(intentVocabulary); ok {
				s.intentWords = iv.IntentWords
			}
		} else {
			s.verify = lm.ARPA()
		}
		for w, p := range lmProns {
			if _, ok := s.prons[w]; !ok {
				s.prons[w] = p
			}
		}
	}
	return s, nil
}

// build starts a decoder whose dictionary holds exactly g's words.
func (r *Recognizer) build(g grammarState) (*decoder, error) {
	prons := g.words()
	dict, err := writeDict(prons)
	if err != nil {
		return nil, fmt.Errorf("speech recognizer: %w", err)
	}
	defer os.Remove(dict)
	d, err := newDecoder(r.cfg.ModelDir, dict, r.cfg.Args)
	if err != nil {
		return nil, fmt.Errorf("speech recognizer: %w", err)
	}
	logGaussInstall(r.log, d)
	for w, p := range prons {
		d.prons[w] = slices.Clone(p)
	}
	d.phoneLoop = r.cfg.PhoneLoop
	d.resetNoise = r.cfg.ResetNoise
	d.fallbackBeams = r.cfg.Fallback.beams()
	if err := d.setSearches(g); err != nil {
		d.close()
		return nil, fmt.Errorf("speech recognizer: %w", err)
	}
	return d, nil
}

// writeDict writes pronunciations as a dictionary file in cmudict's
// format (variants named word(2), word(3)…) and returns its path; the
// caller removes it once the decoder has read it.
func writeDict(prons map[string][]string) (string, error) {
	f, err := os.CreateTemp("", "jibod-dict-*.dic")
	if err != nil {
		return "", fmt.Errorf("writing the decoder's dictionary: %w", err)
	}
	_, werr := f.WriteString(dictText(prons))
	if cerr := f.Close(); werr != nil || cerr != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("writing the decoder's dictionary: %w", errors.Join(werr, cerr))
	}
	return f.Name(), nil
}

// apply brings d to grammars g, adding the words it lacks and the
// variants a word gained (a name's pronunciation), or building a new
// decoder when its dictionary has grown too large or holds a variant g
// no longer has: pocketsphinx cannot take a pronunciation away.
func (r *Recognizer) apply(d *decoder, g grammarState) (*decoder, error) {
	if d.grammar == g.gen {
		return d, nil
	}
	prons := g.words()
	var missing []string
	newWords, stale := 0, false
	for w, want := range prons {
		have, ok := d.prons[w]
		switch {
		case !ok:
			missing = append(missing, w)
			newWords++
		case len(have) < len(want) && slices.Equal(have, want[:len(have)]):
			missing = append(missing, w) // the new variants only
		case !slices.Equal(have, want):
			stale = true
		}
	}
	if stale || len(d.prons)+newWords > maxDecoderWords {
		d.close()
		return r.build(g)
	}
	sort.Strings(missing)
	for _, w := range missing {
		if err := d.addWord(w, prons[w]); err != nil {
			return d, fmt.Errorf("speech recognizer: %w", err)
		}
	}
	if err := d.setSearches(g); err != nil {
		return d, fmt.Errorf("speech recognizer: %w", err)
	}
	return d, nil
}

// setSearches compiles g's grammars on d (the answer grammar, when there
// is one, as a second named search) and records g's generation.
func (d *decoder) setSearches(g grammarState) error {
	if g.answers != nil {
		if err := d.setGrammar(answersName, g.answers.text()); err != nil {
			return fmt.Errorf("answer grammar: %w", err)
		}
		if err := d.addWideGrammar(answersName+wideSuffix, g.answers.text()); err != nil {
			return fmt.Errorf("answer grammar: %w", err)
		}
	}
	if d.phoneLoop != "" {
		if err := d.addAllphone(phonesName, d.phoneLoop); err != nil {
			return err
		}
	}
	if g.main.lm != "" {
		if err := d.addLM(searchName, g.main.lm, true); err != nil {
			return err
		}
		if err := d.useSearch(searchName); err != nil {
			return err
		}
		d.grammar = g.gen
		return nil
	}
	if g.main.verify != "" {
		// Its transcript is compared, not acted on as it stands: one
		// pass is enough (docs/hearing.md).
		if err := d.addLM(verifyName, g.main.verify, false); err != nil {
			return err
		}
	}
	if g.main.fallback != "" {
		if err := d.addLMBeams(fallbackName, g.main.fallback, d.fallbackBeams); err != nil {
			return err
		}
		for intent, sg := range g.main.slotted {
			if err := d.addGrammar(slotSearchName(intent), sg, 0); err != nil {
				return fmt.Errorf("the grammar of %s: %w", intent, err)
			}
		}
	}
	if err := d.addWideGrammar(searchName+wideSuffix, g.main.text()); err != nil {
		return err
	}
	if g.main.untailed != nil {
		if err := d.addGrammar(searchName+untailedSuffix, searchGrammar{jsgf: g.main.jsgf, fsg: g.main.untailed}, 0); err != nil {
			return err
		}
	}
	if err := d.setGrammar(searchName, g.main.text()); err != nil {
		return err
	}
	d.grammar = g.gen
	return nil
}

// take waits for a free decoder.
func (r *Recognizer) take(ctx context.Context) (*decoder, error) {
	select {
	case d, ok := <-r.pool:
		if !ok {
			return nil, errors.New("speech recognizer: closed")
		}
		return d, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// SetGrammar replaces the grammar. The words are checked against the
// lexicon and the grammar is compiled on one decoder before it becomes
// current: on any error the old grammar stays. The other decoders switch
// when they are next used.
func (r *Recognizer) SetGrammar(ctx context.Context, gr Grammar) error {
	s, err := r.prepare(ctx, gr)
	if err != nil {
		return err
	}
	r.addGarbage(&s)
	return r.install(ctx, func(g *grammarState) { g.main = s })
}

// SetAnswerGrammar replaces the answer grammar (nil removes it), as
// SetGrammar does the grammar.
func (r *Recognizer) SetAnswerGrammar(ctx context.Context, gr Grammar) error {
	if gr == nil {
		return r.install(ctx, func(g *grammarState) { g.answers = nil })
	}
	s, err := r.prepare(ctx, gr)
	if err != nil {
		return fmt.Errorf("answer grammar: %w", err)
	}
	return r.install(ctx, func(g *grammarState) { g.answers = &s })
}

// install makes the grammars change makes of the current ones current,
// after compiling them on one decoder.
func (r *Recognizer) install(ctx context.Context, change func(*grammarState)) error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return errors.New("speech recognizer: closed")
	}
	r.mu.Unlock()
	d, err := r.take(ctx)
	if err != nil {
		return err
	}
	// Grammars are installed one at a time: holding a decoder does that
	// only while there is one, so serialise on mu for the generation.
	r.mu.Lock()
	g := r.grammar
	change(&g)
	g.gen = r.grammar.gen + 1
	nd, err := r.apply(d, g)
	if err == nil {
		r.grammar = g
	} else if nd != nil {
		// Put the decoder back on the old grammars.
		nd.grammar = 0
		if back, berr := r.apply(nd, r.grammar); berr == nil {
			nd = back
		} else {
			r.log.Error("decoder lost its grammar; rebuilding", "err", berr)
			nd.close()
			nd, _ = r.build(r.grammar)
		}
	}
	r.mu.Unlock()
	r.give(nd)
	return err
}

// give returns a decoder to the pool; nil (a rebuild failed) is replaced
// by a fresh one when possible.
func (r *Recognizer) give(d *decoder) {
	if d == nil {
		r.mu.Lock()
		g := r.grammar
		r.mu.Unlock()
		nd, err := r.build(g)
		if err != nil {
			r.log.Error("decoder lost", "err", err)
			// Keep the pool's size: a decoder without a search refuses
			// every utterance with an error rather than blocking callers.
			nd = &decoder{}
		}
		d = nd
	}
	r.pool <- d
}

// Recognize decodes one utterance of 16 kHz mono PCM and returns its
// n-best hypotheses, best first, with confidences in [0, 1]. Speech that
// fits no sentence of the grammar, or whose best sentence falls below
// MinConfidence or MinCoverage, gives none; a wake phrase below the wake
// floors is taken off.
func (r *Recognizer) Recognize(ctx context.Context, pcm []int16) ([]audio.Hypothesis, error) {
	return r.recognize(ctx, pcm, false)
}

// RecognizeAnswer is Recognize against the answer grammar, for an
// utterance heard while a question waits; with no answer grammar it
// returns no hypotheses.
func (r *Recognizer) RecognizeAnswer(ctx context.Context, pcm []int16) ([]audio.Hypothesis, error) {
	return r.recognize(ctx, pcm, true)
}

// RecognizeVerdict is Recognize, with what the search found and which
// check dropped it (audio.VerdictRecognizer).
func (r *Recognizer) RecognizeVerdict(ctx context.Context, pcm []int16) ([]audio.Hypothesis, audio.Verdict, error) {
	var v audio.Verdict
	hyps, err := r.recognizeVerdict(ctx, pcm, false, &v)
	return hyps, v, err
}

func (r *Recognizer) recognize(ctx context.Context, pcm []int16, answer bool) ([]audio.Hypothesis, error) {
	return r.recognizeVerdict(ctx, pcm, answer, &audio.Verdict{})
}

func (r *Recognizer) recognizeVerdict(ctx context.Context, pcm []int16, answer bool, v *audio.Verdict) ([]audio.Hypothesis, error) {
	if max := r.cfg.MaxSeconds * audio.SampleRate; len(pcm) > max {
		return nil, fmt.Errorf("recognizing %.1f s of audio: longer than %d s", float64(len(pcm))/audio.SampleRate, r.cfg.MaxSeconds)
	}
	if len(pcm) == 0 {
		return nil, nil
	}
	d, err := r.take(ctx)
	if err != nil {
		return nil, err
	}
	defer warnHistoryMismatch(r.log)
	defer warnGaussTripped(r.log)
	r.mu.Lock()
	g := r.grammar
	r.mu.Unlock()
	if d.ps == nil {
		r.give(nil)
		return nil, errors.New("speech recognizer: no working decoder")
	}
	if d, err = r.apply(d, g); err != nil {
		r.give(d)
		return nil, err
	}
	name, s := searchName, g.main
	if answer {
		if g.answers == nil {
			r.give(d)
			return nil, nil
		}
		name, s = answersName, *g.answers
	}
	tripped := gaussTripped()
	hyps, err := r.decode(ctx, d, name, s, pcm, v)
	if err == nil && !tripped && gaussTripped() {
		// A check found the vector scoring wrong during this utterance:
		// frames before it were scored by that code, so the utterance is
		// heard again on pocketsphinx's own scoring, now the only one.
		*v = audio.Verdict{}
		hyps, err = r.decode(ctx, d, name, s, pcm, v)
	}
	r.give(d)
	return hyps, err
}

// decode recognises pcm with the search named name and tells v what it
// found and why it dropped it.
func (r *Recognizer) decode(ctx context.Context, d *decoder, name string, g search, pcm []int16, v *audio.Verdict) ([]audio.Hypothesis, error) {
	d.searched = d.searched[:0]
	defer func() { v.Searches = slices.Clone(d.searched) }()
	// The verdict's SNR is the utterance's as heard; the suppression is
	// gated on the enhanced audio's.
	v.SNR = quietSNR(pcm)
	pcm, snr := enhanceAt(r.cfg.Enhance, pcm, v.SNR, r.cfg.EnhanceBelowSNR, r.cfg.EnhanceAboveBackground, v)
	pcm = prepareAudioAt(pcm, snr, r.cfg.DenoiseBelowSNR, r.cfg.FloorBelowDB, r.cfg.TrimMargin)
	v.Decoded = time.Duration(len(pcm)) * time.Second / audio.SampleRate
	var heard *transcript
	if g.verify != "" {
		// The language model's search first: the grammar's then starts
		// from a noise estimate made on this utterance rather than on the
		// one before (docs/hearing.md).
		t, err := r.transcribe(ctx, d, pcm)
		if err != nil {
			return nil, err
		}
		heard = &t
	}
	var best result
	var err error
	// refused is what the robot hears where the grammar's sentence is
	// refused: nothing, or the fallback's transcript.
	refused := func() ([]audio.Hypothesis, error) { return nil, nil }
	// f are the utterance's features, kept for a second search of it.
	var f *features
	if (g.fallback != "" || g.untailed != nil) && name == searchName {
		if best, f, err = d.searchKeeping(ctx, name, pcm); err != nil {
			return nil, err
		}
		defer f.free()
		if g.fallback != "" {
			refused = func() ([]audio.Hypothesis, error) { return r.fallback(ctx, d, g, f, pcm, v) }
		}
	} else if best, err = d.search(ctx, name, pcm); err != nil {
		return nil, err
	}
	if g.lm != "" {
		v.Sentence = best.text
		return r.transcribed(ctx, d, best, pcm)
	}
	// untailed: best was measured by the search without filler words
	// after a sentence.
	untailed := false
	// garbage refuses a sentence that went through the garbage path,
	// unless the filler words after it cover no one talking and the
	// search without them finds it too.
	garbage := func() (bool, error) {
		if !g.viaGarbage(best.text) {
			return false, nil
		}
		if gb := r.cfg.Garbage; f != nil && g.untailed != nil && gb.QuietTail > 0 &&
			quietTail(d.align(), pcm, gb.QuietTail) {
			again, err := d.searchFeatures(ctx, searchName+untailedSuffix, f)
			if err != nil && ctx.Err() != nil {
				return false, err
			}
			if err == nil && again.text == withoutTail(best.text) {
				r.log.Debug("filler words after the sentence cover no one talking: measured without them", "text", best.text)
				best, untailed, v.QuietTail = again, true, true
				return false, nil
			}
			if err != nil {
				r.log.Warn("speech: searching again without filler words failed; refused", "text", best.text, "err", err)
			} else {
				r.log.Debug("rejected: without filler words after it another sentence fits", "text", best.text, "untailed", again.text)
			}
		}
		r.log.Debug("rejected: the garbage path explains the speech better than any sentence", "text", best.text)
		v.Sentence, v.Dropped = best.text, "garbage"
		return true, nil
	}
	if refuse, err := garbage(); err != nil {
		return nil, err
	} else if refuse {
		return refused()
	}
	if best.text == "" || !g.accepts(best.text) {
		// No path reached the end of a sentence: the word beam pruned
		// the one that would have, for a path that fitted the speech
		// better halfway. Search again with a wider word beam. Wider
		// beams on every utterance cost a quarter more time and, with
		// Debian's model, lost more than they found (docs/hearing.md);
		// here they only cost when the first search found nothing.
		r.log.Debug("no sentence; searching again with a wider word beam", "partial", best.text)
		if best, err = d.search(ctx, name+wideSuffix, pcm); err != nil {
			return nil, err
		}
		if refuse, err := garbage(); err != nil {
			return nil, err
		} else if refuse {
			return refused()
		}
		if best.text == "" || !g.accepts(best.text) {
			v.Dropped = "no sentence"
			return refused()
		}
	}
	v.Sentence = best.text
	if g.decoyed != nil && g.decoyed(best.text) {
		// Heard as a decoy of the wake phrase ("hey jay …"): speech for
		// someone else, not a command without the wake phrase.
		r.log.Debug("rejected: a wake decoy", "text", best.text)
		v.Dropped = "decoy"
		return nil, nil
	}
	minConf := r.minConfidence(g)
	if heard != nil && heard.text == cleanTranscript(best.text) {
		// Both searches heard the same words: their agreement vouches
		// for the sentence as much as a higher score would.
		minConf = min(minConf, agreedMinConfidence)
	}
	segs := d.align()
	perFrame, conf := confidence(segs)
	cover := coverage(segs, pcm)
	if conf < minConf && f != nil && g.untailed != nil && !untailed && r.cfg.Accept == nil {
		// The sentence was found without filler words after it, so they
		// have said their part; but wherever a shorter sentence ended
		// earlier ("set a timer" of "set a timer for ten minutes") their
		// HMMs were searched from there on, each frame's best senone is a
		// better one, and the rest of the sentence scores lower than the
		// floor, chosen without them, expects (most of all over other
		// talkers, whom the common words fit). Its confidence is measured
		// as the floor was: by the search without them, which must find
		// the same sentence.
		again, err := d.searchFeatures(ctx, searchName+untailedSuffix, f)
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			// The tailed search's verdict stands: under the floor.
			r.log.Warn("speech: measuring a sentence again without filler words failed; refused", "text", best.text, "err", err)
			v.Confidence, v.Coverage, v.Dropped = conf, cover, "confidence"
			return refused()
		}
		if again.text != best.text {
			r.log.Debug("rejected: without filler words after it another sentence fits", "text", best.text, "untailed", again.text, "confidence", conf)
			v.Confidence, v.Coverage, v.Dropped = conf, cover, "confidence"
			return refused()
		}
		// The n-best and the rivals read this search's lattice: its
		// score goes with it.
		best = again
		segs = d.align()
		perFrame, conf = confidence(segs)
		cover = coverage(segs, pcm)
	}
	v.Confidence, v.Coverage = conf, cover
	feats := HypothesisFeatures(d.wordSpans(segs), cover, len(pcm)/floorFrame, v.SNR)
	v.Features = feats[:]
	// hypConf is the confidence the hypotheses carry: the acoustic one,
	// or the acceptance model's probability mapped onto it.
	accepted, hypConf := true, conf
	if m := r.cfg.Accept; m != nil {
		t := r.cfg.AcceptThreshold
		if t == 0 {
			t = m.Threshold
		}
		p := m.Probability(feats)
		floors := conf >= r.minConfidence(g) && cover >= r.cfg.MinCoverage
		v.Accept, accepted = p, p >= t || m.FloorVeto > 0 && floors && p >= m.FloorVeto
		if accepted {
			p = max(p, t)
		}
		hypConf = AcceptConfidence(p, t)
	}
	wake := strings.Fields(r.cfg.Wake)
	woke := len(wake) > 0 && hasPrefix(best.text, wake)
	r.log.Debug("recognised", "text", best.text, "score_per_frame", perFrame, "confidence", conf, "coverage", cover)
	texts := []string{best.text}
	scores := []int32{best.score}
	nbest := &nbestOnce{d: d, depth: r.cfg.NBest + 1, skip: g.viaGarbage}
	if r.cfg.RivalMargin != 0 && name == searchName {
		nbest.depth = max(nbest.depth, r.cfg.Rivals)
	}
	if r.cfg.NBest > 1 {
		for _, h := range nbest.first(r.cfg.NBest + 1) {
			if len(texts) == r.cfg.NBest {
				break
			}
			if h.text != best.text && g.accepts(h.text) && (g.decoyed == nil || !g.decoyed(h.text)) {
				texts = append(texts, h.text)
				scores = append(scores, h.score)
			}
		}
	}
	if woke && (conf < r.cfg.WakeMinConfidence || cover < r.cfg.WakeMinCoverage) {
		r.log.Debug("wake phrase too weak: taken off", "text", best.text, "confidence", conf, "coverage", cover)
		for i, t := range texts {
			if hasPrefix(t, wake) {
				texts[i] = strings.Join(strings.Fields(t)[len(wake):], " ")
			}
		}
	}
	if r.cfg.Accept != nil {
		if !accepted && (heard == nil || heard.text != cleanTranscript(best.text)) {
			r.log.Debug("rejected by the acceptance model", "text", best.text, "probability", v.Accept)
			v.Dropped = "acceptance"
			return refused()
		}
	} else if cover < r.cfg.MinCoverage || conf < minConf {
		r.log.Debug("rejected: the sentence does not explain the speech", "text", best.text, "confidence", conf, "coverage", cover)
		switch {
		case cover < r.cfg.MinCoverage && conf < r.minConfidence(g):
			v.Dropped = "coverage and confidence"
		case cover < r.cfg.MinCoverage:
			v.Dropped = "coverage"
		default:
			v.Dropped = "confidence"
		}
		return refused()
	}
	if r.cfg.WordPosterior != 0 && name == searchName {
		// Before the rival check: its n-best walk reads the same lattice.
		words, post, ok := d.wordPosteriors()
		v.Words, v.WordPosteriors = words, post
		if least := slices.Min(append([]float64{1}, post...)); ok && r.cfg.WordPosterior > 0 && least < r.cfg.WordPosterior {
			r.log.Debug("rejected: other words fit a word of the sentence about as well", "text", best.text, "posteriors", post)
			v.Dropped = "posterior"
			return refused()
		}
	}
	if r.cfg.RivalMargin != 0 && name == searchName {
		text, margin, found, err := r.rival(ctx, nbest.first(r.cfg.Rivals), g, best.text, len(pcm)/floorFrame)
		if err != nil {
			return nil, err
		}
		v.Rival, v.RivalMargin = text, margin
		r.log.Debug("rival", "text", best.text, "rival", text, "margin_per_frame", margin)
		if found && r.cfg.RivalMargin > 0 && margin < r.cfg.RivalMargin {
			r.log.Debug("rejected: a sentence of another meaning fits nearly as well", "text", best.text, "rival", text, "margin_per_frame", margin)
			v.Dropped = "rival"
			return refused()
		}
	}
	if heard != nil {
		switch out, err := r.check(ctx, cleanTranscript(best.text), *heard); {
		case err != nil:
			return nil, err
		case out == dropBoth:
			v.Dropped = "verify"
			return nil, nil
		case out == takeTranscript:
			v.Sentence = heard.text
			return []audio.Hypothesis{{Text: heard.text, Confidence: heard.conf, Open: true}}, nil
		}
	}
	if r.cfg.PhoneLoop != "" {
		// Last: the phone loop's search replaces the grammar's results.
		delta, err := d.phoneLoopDelta(ctx, segs, pcm)
		if err != nil {
			return nil, err
		}
		r.log.Debug("phone loop", "text", best.text, "delta_per_frame", delta)
		if delta < -r.cfg.PhoneLoopMargin {
			r.log.Debug("rejected: free phones explain the speech much better than the sentence", "text", best.text, "delta_per_frame", delta)
			v.Dropped = "phone loop"
			return refused()
		}
	}
	var out []audio.Hypothesis
	seen := map[string]bool{}
	for i, t := range texts {
		if t == "" || seen[t] {
			continue
		}
		seen[t] = true
		// A rival's confidence: the best's, scaled by its likelihood
		// relative to the best path.
		c := hypConf
		if i > 0 {
			c = hypConf * min(1, d.ratio(scores[i]-scores[0]))
		}
		out = append(out, audio.Hypothesis{Text: t, Confidence: c})
	}
	return out, nil
}

// search decodes pcm, whole, with the search named name and returns the
// best hypothesis ("" when no path reached a sentence's end).
func (d *decoder) search(ctx context.Context, name string, pcm []int16) (result, error) {
	if err := ctx.Err(); err != nil {
		return result{}, err
	}
	if err := d.useSearch(name); err != nil {
		return result{}, err
	}
	d.searched = append(d.searched, name)
	if d.resetNoise {
		if err := d.startStream(); err != nil {
			return result{}, err
		}
	}
	if err := d.start(); err != nil {
		return result{}, err
	}
	if err := d.process(pcm); err != nil {
		_ = d.end()
		return result{}, err
	}
	if err := d.end(); err != nil {
		return result{}, err
	}
	return d.hyp(), nil
}

// phoneLoopDelta decodes pcm again with the phone loop and returns how
// much worse per frame the grammar's alignment segs scored acoustically
// (negative: worse), over the frames the alignment spans.
func (d *decoder) phoneLoopDelta(ctx context.Context, segs []segment, pcm []int16) (float64, error) {
	if len(segs) == 0 {
		return 0, nil
	}
	var g int64
	for _, s := range segs {
		g += int64(s.ascr)
	}
	if _, err := d.search(ctx, phonesName, pcm); err != nil {
		return 0, err
	}
	var p int64
	for _, s := range d.align() {
		p += int64(s.ascr)
	}
	frames := segs[len(segs)-1].end + 1
	return float64(g-p) / float64(max(frames, 1)), nil
}

// hasPrefix reports whether sentence starts with the words of prefix.
func hasPrefix(sentence string, prefix []string) bool {
	w := strings.Fields(sentence)
	return len(w) >= len(prefix) && slices.Equal(w[:len(prefix)], prefix)
}

// Confidence mapping: the mean acoustic score per frame of the best
// path's words (silences and fillers left out), relative to the best
// senone of each frame, through a logistic centred on -55. On the
// generated test set, through the listener (docs/hearing.md),
// sentences recognised right had a median of -35 (a tenth below -50) and
// everyday speech forced onto a sentence a median of -50; the score
// depends on the voice as much as on the fit, so it is a weak guard on
// its own and coverage does most of the work.
const (
	confCenter = -55.0
	confScale  = 5.0
)

// confidence rates an alignment in [0, 1]; perFrame is the score it is
// rated from.
func confidence(segs []segment) (perFrame, conf float64) {
	var frames int
	var score int64
	for _, s := range segs {
		if isFiller(s.word) {
			continue
		}
		frames += s.end - s.start + 1
		score += int64(s.ascr)
	}
	if frames == 0 {
		return 0, 0
	}
	perFrame = float64(score) / float64(frames)
	return perFrame, 1 / (1 + math.Exp(-(perFrame-confCenter)/confScale))
}

// coverage is the share of the utterance's loud frames that the best
// path's words cover. Speech that fits no sentence is often forced onto a
// short one, the rest of it explained as silence or noise: the words
// then cover little of what was loud. A frame is loud when its energy is
// well above the utterance's quietest tenth (by 35 % of the range from
// there to the loudest frame, at least 6 dB) and within 30 dB of the
// loudest: over digital silence the range is so wide that breath and
// the tails of words would count as loud.
func coverage(segs []segment, pcm []int16) float64 {
	db := frameLevels(pcm)
	n := len(db)
	if n == 0 {
		return 0
	}
	sorted := slices.Clone(db)
	slices.Sort(sorted)
	floor, peak := sorted[n/10], sorted[n-1]
	loud := max(floor+max(6, 0.35*(peak-floor)), peak-30)
	inWord := make([]bool, n)
	for _, s := range segs {
		if isFiller(s.word) {
			continue
		}
		for f := max(0, s.start); f <= s.end && f < n; f++ {
			inWord[f] = true
		}
	}
	var total, covered int
	for f, d := range db {
		if d > loud {
			total++
			if inWord[f] {
				covered++
			}
		}
	}
	if total == 0 {
		return 1
	}
	return float64(covered) / float64(total)
}

// isFiller reports silence, noise and null segments.
func isFiller(w string) bool {
	return w == "" || w == "(NULL)" || strings.HasPrefix(w, "<") || strings.HasPrefix(w, "[") || strings.HasPrefix(w, "+")
}

// Close frees every decoder, waiting for recognitions in progress.
func (r *Recognizer) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	r.mu.Unlock()
	for i := 0; i < cap(r.pool); i++ {
		d := <-r.pool
		d.close()
	}
	close(r.pool)
	if r.open != nil {
		r.open.close()
	}
	r.closeWakeAligner()
	return nil
}
