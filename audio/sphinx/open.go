//go:build sphinx

package sphinx

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"

	"github.com/openjibo/jibod/audio"
)

// Where Debian's pocketsphinx-en-us puts the US English language model.
const DefaultLanguageModel = "/usr/share/pocketsphinx/model/en-us/en-us.lm.bin"

// Defaults and limits of the open-vocabulary pass.
const (
	// DefaultOpenNBest is how many transcripts Transcribe returns at
	// most.
	DefaultOpenNBest = 3
	// DefaultOpenBeam and DefaultOpenWordBeam are the open pass's beams,
	// tighter than pocketsphinx's (1e-48, 7e-29): the pass runs only on
	// what the grammar refused, and must cost little more than the
	// grammar's search (docs/hearing.md).
	DefaultOpenBeam     = 1e-30
	DefaultOpenWordBeam = 1e-20
	// DefaultOpenMaxSeconds is the longest utterance transcribed: a
	// command is a few seconds, and the pass costs ten times the
	// grammar's per second.
	DefaultOpenMaxSeconds = 10
)

// OpenConfig configures the open-vocabulary pass (Config.Open): a
// decoder with a statistical language model and the whole pronouncing
// dictionary, for what the grammar does not hold.
type OpenConfig struct {
	// LanguageModel is the language model file (ARPA or pocketsphinx's
	// binary); "" means DefaultLanguageModel.
	LanguageModel string
	// Dict is the pronouncing dictionary; "" means DefaultDict.
	Dict string
	// NBest is how many transcripts are returned at most; 0 means
	// DefaultOpenNBest.
	NBest int
	// MaxSeconds bounds the utterance transcribed; 0 means
	// DefaultOpenMaxSeconds.
	MaxSeconds int
	// Args are extra pocketsphinx arguments for this decoder only
	// (flag/value pairs), after the default beams.
	Args []string
}

// openPass is the open-vocabulary decoder: one, used by one utterance at
// a time.
type openPass struct {
	cfg OpenConfig
	mu  sync.Mutex
	d   *decoder
}

func newOpenPass(log *slog.Logger, modelDir string, cfg OpenConfig, extra []string) (*openPass, error) {
	if cfg.LanguageModel == "" {
		cfg.LanguageModel = DefaultLanguageModel
	}
	if cfg.Dict == "" {
		cfg.Dict = DefaultDict
	}
	if cfg.NBest == 0 {
		cfg.NBest = DefaultOpenNBest
	}
	if cfg.MaxSeconds == 0 {
		cfg.MaxSeconds = DefaultOpenMaxSeconds
	}
	switch {
	case cfg.NBest < 1 || cfg.NBest > MaxNBest:
		return nil, fmt.Errorf("open-vocabulary pass: n-best %d not in 1..%d", cfg.NBest, MaxNBest)
	case cfg.MaxSeconds < 1 || cfg.MaxSeconds > 60:
		return nil, fmt.Errorf("open-vocabulary pass: longest utterance %d s not in 1..60", cfg.MaxSeconds)
	case len(cfg.Args)%2 != 0:
		return nil, fmt.Errorf("open-vocabulary pass: arguments %q are not flag/value pairs", cfg.Args)
	}
	for i := 0; i < len(cfg.Args); i += 2 {
		switch cfg.Args[i] {
		case "-hmm", "-dict", "-logfn", "-jsgf", "-kws", "-lm", "-fsg", "-keyphrase", "-remove_silence":
			return nil, fmt.Errorf("open-vocabulary pass: argument %s is set by the recognizer", cfg.Args[i])
		}
	}
	for _, f := range []string{cfg.LanguageModel, cfg.Dict} {
		if _, err := os.Stat(f); err != nil {
			return nil, fmt.Errorf("open-vocabulary pass: %w (Debian: apt install pocketsphinx-en-us)", err)
		}
	}
	// The recognizer's own arguments, then the open pass's: a flag given
	// twice is taken once, the later value.
	pairs := append([]string{"-lm", cfg.LanguageModel,
		"-beam", fmt.Sprint(DefaultOpenBeam), "-wbeam", fmt.Sprint(DefaultOpenWordBeam)}, extra...)
	pairs = append(pairs, cfg.Args...)
	var args []string
	at := map[string]int{}
	for i := 0; i+1 < len(pairs); i += 2 {
		if j, ok := at[pairs[i]]; ok {
			args[j+1] = pairs[i+1]
			continue
		}
		at[pairs[i]] = len(args)
		args = append(args, pairs[i], pairs[i+1])
	}
	d, err := newDecoder(modelDir, cfg.Dict, args)
	if err != nil {
		return nil, fmt.Errorf("open-vocabulary pass: %w", err)
	}
	logGaussInstall(log, d)
	return &openPass{cfg: cfg, d: d}, nil
}

func (o *openPass) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.d != nil {
		o.d.close()
		o.d = nil
	}
}

// Transcribe is the open-vocabulary pass: it decodes one utterance with
// the language model and returns up to OpenConfig.NBest transcripts, best
// first, with confidences in [0, 1] (the acoustic fit of the best path,
// as for a grammar sentence; a rival's scaled by its likelihood against
// the best's). Words the grammar does not know are heard here: a
// paraphrase ("turn it down a bit") or a request no skill takes. With no
// open pass configured it returns none.
func (r *Recognizer) Transcribe(ctx context.Context, pcm []int16) ([]audio.Hypothesis, error) {
	o := r.open
	if o == nil || len(pcm) == 0 {
		return nil, nil
	}
	if max := o.cfg.MaxSeconds * audio.SampleRate; len(pcm) > max {
		return nil, fmt.Errorf("transcribing %.1f s of audio: longer than %d s", float64(len(pcm))/audio.SampleRate, o.cfg.MaxSeconds)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.d == nil {
		return nil, errors.New("open-vocabulary pass: closed")
	}
	pcm, snr := enhanceAt(r.cfg.Enhance, pcm, quietSNR(pcm), r.cfg.EnhanceBelowSNR, r.cfg.EnhanceAboveBackground, &audio.Verdict{})
	pcm = prepareAudioAt(pcm, snr, r.cfg.DenoiseBelowSNR, r.cfg.FloorBelowDB, r.cfg.TrimMargin)
	d := o.d
	if err := d.start(); err != nil {
		return nil, err
	}
	if err := d.process(pcm); err != nil {
		_ = d.end()
		return nil, err
	}
	if err := d.end(); err != nil {
		return nil, err
	}
	best := d.hyp()
	text := cleanTranscript(best.text)
	if text == "" {
		return nil, nil
	}
	_, conf := confidence(d.align())
	out := []audio.Hypothesis{{Text: text, Confidence: conf, Open: true}}
	if o.cfg.NBest > 1 {
		seen := map[string]bool{text: true}
		for _, h := range d.nbest(o.cfg.NBest+2, nil) {
			t := cleanTranscript(h.text)
			if len(out) == o.cfg.NBest || t == "" || seen[t] {
				continue
			}
			seen[t] = true
			out = append(out, audio.Hypothesis{Text: t, Confidence: conf * min(1, d.ratio(h.score-best.score)), Open: true})
		}
	}
	r.log.Debug("transcribed", "text", text, "confidence", conf, "hypotheses", len(out))
	return out, nil
}

// cleanTranscript drops the language model's sentence marks and fillers
// and cmudict's variant numbers ("read(2)") from a transcript.
func cleanTranscript(s string) string {
	var out []string
	for _, w := range strings.Fields(s) {
		if isFiller(w) {
			continue
		}
		if i := strings.IndexByte(w, '('); i > 0 {
			w = w[:i]
		}
		out = append(out, w)
	}
	return strings.Join(out, " ")
}
