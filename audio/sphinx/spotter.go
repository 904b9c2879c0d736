//go:build sphinx

package sphinx

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"

	"github.com/openjibo/jibod/audio"
)

// DefaultKeyphraseThreshold is the detection threshold of keyphrase
// spotting when SpotterConfig leaves it zero (pocketsphinx's -kws_threshold;
// smaller spots more, and falsely more).
const DefaultKeyphraseThreshold = 1e-20

// SpotterConfig configures a Spotter.
type SpotterConfig struct {
	ModelDir string   // "" means DefaultModelDir
	Lexicon  *Lexicon // nil means cmudict at DefaultDict
	// Phrase is the keyphrase; "" means audio.WakePhrase.
	Phrase string
	// Threshold is the detection threshold; 0 means
	// DefaultKeyphraseThreshold.
	Threshold float64
	// Args are extra pocketsphinx flag/value pairs.
	Args []string
	// Log receives the spotter's own logs; nil means slog.Default().
	Log *slog.Logger
}

// Spotter tells whether an utterance holds a keyphrase, with
// pocketsphinx's keyphrase search: the alternative to reading the wake
// phrase off the start of a grammar sentence (docs/hearing.md). It is
// safe for concurrent use; one utterance is spotted at a time.
type Spotter struct {
	pool chan *decoder
	log  *slog.Logger
}

// NewSpotter starts a keyphrase spotter.
func NewSpotter(ctx context.Context, cfg SpotterConfig) (*Spotter, error) {
	if cfg.ModelDir == "" {
		cfg.ModelDir = DefaultModelDir
	}
	if cfg.Phrase == "" {
		cfg.Phrase = audio.WakePhrase
	}
	if cfg.Threshold == 0 {
		cfg.Threshold = DefaultKeyphraseThreshold
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Threshold < 0 || cfg.Threshold >= 1 {
		return nil, fmt.Errorf("keyphrase spotter: threshold %g not in (0, 1)", cfg.Threshold)
	}
	if len(cfg.Args)%2 != 0 {
		return nil, fmt.Errorf("keyphrase spotter: arguments %q are not flag/value pairs", cfg.Args)
	}
	lex := cfg.Lexicon
	if lex == nil {
		var err error
		if lex, err = NewLexicon(DefaultDict, LexiconOptions{}); err != nil {
			return nil, fmt.Errorf("keyphrase spotter: %w", err)
		}
	}
	words := strings.Fields(cfg.Phrase)
	if len(words) == 0 || len(words) > 8 {
		return nil, fmt.Errorf("keyphrase spotter: phrase %q: want 1 to 8 words", cfg.Phrase)
	}
	prons, err := lex.Lookup(ctx, words)
	if err != nil {
		return nil, fmt.Errorf("keyphrase spotter: %w", err)
	}
	dict, err := writeDict(prons)
	if err != nil {
		return nil, fmt.Errorf("keyphrase spotter: %w", err)
	}
	defer os.Remove(dict)
	args := append([]string{"-kws_threshold", strconv.FormatFloat(cfg.Threshold, 'g', -1, 64)}, cfg.Args...)
	d, err := newDecoder(cfg.ModelDir, dict, args)
	if err != nil {
		return nil, fmt.Errorf("keyphrase spotter: %w", err)
	}
	logGaussInstall(cfg.Log, d)
	if err := d.setKeyphrase("wake", strings.Join(words, " ")); err != nil {
		d.close()
		return nil, fmt.Errorf("keyphrase spotter: %w", err)
	}
	s := &Spotter{pool: make(chan *decoder, 1), log: cfg.Log}
	s.pool <- d
	return s, nil
}

// Spot reports whether pcm (16 kHz mono) holds the keyphrase.
func (s *Spotter) Spot(ctx context.Context, pcm []int16) (bool, error) {
	if len(pcm) == 0 {
		return false, nil
	}
	var d *decoder
	select {
	case x, ok := <-s.pool:
		if !ok {
			return false, errors.New("keyphrase spotter: closed")
		}
		d = x
	case <-ctx.Done():
		return false, ctx.Err()
	}
	defer func() { s.pool <- d }()
	defer warnGaussTripped(s.log)
	if err := d.start(); err != nil {
		return false, err
	}
	if err := d.process(pcm); err != nil {
		_ = d.end()
		return false, err
	}
	if err := d.end(); err != nil {
		return false, err
	}
	return d.hyp().text != "", nil
}

// Close frees the decoder, waiting for a spotting in progress.
func (s *Spotter) Close() error {
	d, ok := <-s.pool
	if !ok {
		return nil
	}
	d.close()
	close(s.pool)
	return nil
}
