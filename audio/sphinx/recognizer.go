//go:build sphinx

package sphinx

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/openjibo/jibod/audio"
)

// Where Debian's pocketsphinx-en-us puts the US English model.
const (
	DefaultModelDir = "/usr/share/pocketsphinx/model/en-us/en-us"
	DefaultDict     = "/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict"
)

// Limits and defaults.
const (
	// DefaultNBest is how many hypotheses Recognize returns at most.
	DefaultNBest = 5
	// MaxNBest bounds Config.NBest.
	MaxNBest = 20
	// MaxDecoders bounds Config.Decoders: each holds the acoustic model
	// (about 15 MB).
	MaxDecoders = 8
	// DefaultMaxSeconds is the longest utterance Recognize accepts.
	DefaultMaxSeconds = 30
	// maxDecoderWords bounds a decoder's dictionary: past it the decoder
	// is rebuilt with only the current grammar's words, so swapping
	// grammars cannot grow memory without end.
	maxDecoderWords = 4 * MaxLookupWords
	// chunk is how many samples are fed between context checks (0.25 s).
	chunk = audio.SampleRate / 4
	// searchName names the grammar search inside each decoder; a new
	// grammar replaces the old one under the same name.
	searchName = "grammar"
)

// Config configures a Recognizer.
type Config struct {
	// ModelDir is the acoustic model folder; "" means DefaultModelDir.
	ModelDir string
	// Lexicon pronounces the grammar's words; nil means cmudict at
	// DefaultDict with BuiltinWords and no guesser.
	Lexicon *Lexicon
	// Grammar is the JSGF grammar to recognise against (required).
	Grammar string
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
	// Args are extra pocketsphinx arguments as flag/value pairs
	// ("-beam", "1e-60"), for tuning.
	Args []string
	// Log receives the recognizer's own logs; nil means slog.Default().
	Log *slog.Logger
}

// Recognizer recognises utterances against a JSGF grammar that can be
// replaced at run time. It is safe for concurrent use: it keeps a pool of
// decoders, each used by one goroutine at a time.
type Recognizer struct {
	cfg  Config
	lex  *Lexicon
	log  *slog.Logger
	pool chan *decoder

	mu      sync.Mutex
	grammar grammarState
	closed  bool
}

// grammarState is the current grammar, its generation and pronunciations.
type grammarState struct {
	gen   uint64
	jsgf  string
	prons map[string][]string
}

var _ audio.Recognizer = (*Recognizer)(nil)

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
	switch {
	case cfg.NBest < 1 || cfg.NBest > MaxNBest:
		return nil, fmt.Errorf("speech recognizer: n-best %d not in 1..%d", cfg.NBest, MaxNBest)
	case cfg.Decoders < 1 || cfg.Decoders > MaxDecoders:
		return nil, fmt.Errorf("speech recognizer: %d decoders not in 1..%d", cfg.Decoders, MaxDecoders)
	case cfg.MaxSeconds < 1 || cfg.MaxSeconds > 300:
		return nil, fmt.Errorf("speech recognizer: longest utterance %d s not in 1..300", cfg.MaxSeconds)
	case cfg.MinConfidence < 0 || cfg.MinConfidence > 1:
		return nil, fmt.Errorf("speech recognizer: minimum confidence %g not in [0, 1]", cfg.MinConfidence)
	case len(cfg.Args)%2 != 0:
		return nil, fmt.Errorf("speech recognizer: arguments %q are not flag/value pairs", cfg.Args)
	}
	for i := 0; i < len(cfg.Args); i += 2 {
		if !strings.HasPrefix(cfg.Args[i], "-") {
			return nil, fmt.Errorf("speech recognizer: argument %q is not a flag", cfg.Args[i])
		}
		switch cfg.Args[i] {
		case "-hmm", "-dict", "-logfn", "-jsgf", "-kws", "-lm", "-fsg", "-keyphrase":
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
	g, err := r.prepare(ctx, cfg.Grammar, 1)
	if err != nil {
		return nil, err
	}
	r.grammar = g
	for i := 0; i < cfg.Decoders; i++ {
		d, err := r.build(g)
		if err != nil {
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
func (r *Recognizer) prepare(ctx context.Context, jsgf string, gen uint64) (grammarState, error) {
	if strings.TrimSpace(jsgf) == "" {
		return grammarState{}, errors.New("speech recognizer: empty grammar")
	}
	words, err := GrammarWords(jsgf)
	if err != nil {
		return grammarState{}, fmt.Errorf("speech recognizer: %w", err)
	}
	if len(words) == 0 {
		return grammarState{}, errors.New("speech recognizer: the grammar has no words")
	}
	prons, err := r.lex.Lookup(ctx, words)
	if err != nil {
		return grammarState{}, fmt.Errorf("speech recognizer: grammar refused: %w", err)
	}
	return grammarState{gen: gen, jsgf: jsgf, prons: prons}, nil
}

// build starts a decoder whose dictionary holds exactly g's words.
func (r *Recognizer) build(g grammarState) (*decoder, error) {
	f, err := os.CreateTemp("", "jibod-dict-*.dic")
	if err != nil {
		return nil, fmt.Errorf("speech recognizer: writing the decoder's dictionary: %w", err)
	}
	defer os.Remove(f.Name())
	words := make([]string, 0, len(g.prons))
	for w := range g.prons {
		words = append(words, w)
	}
	sort.Strings(words)
	var b strings.Builder
	for _, w := range words {
		for i, p := range g.prons[w] {
			if i == 0 {
				fmt.Fprintf(&b, "%s %s\n", w, p)
			} else {
				fmt.Fprintf(&b, "%s(%d) %s\n", w, i+1, p)
			}
		}
	}
	_, werr := f.WriteString(b.String())
	if cerr := f.Close(); werr != nil || cerr != nil {
		return nil, fmt.Errorf("speech recognizer: writing the decoder's dictionary: %w", errors.Join(werr, cerr))
	}
	d, err := newDecoder(r.cfg.ModelDir, f.Name(), r.cfg.Args)
	if err != nil {
		return nil, fmt.Errorf("speech recognizer: %w", err)
	}
	for _, w := range words {
		d.words[w] = true
	}
	if err := d.setGrammar(searchName, g.jsgf); err != nil {
		d.close()
		return nil, fmt.Errorf("speech recognizer: %w", err)
	}
	d.grammar = g.gen
	return d, nil
}

// apply brings d to grammar g, adding the words it lacks or, when its
// dictionary has grown too large, building a new decoder.
func (r *Recognizer) apply(d *decoder, g grammarState) (*decoder, error) {
	if d.grammar == g.gen {
		return d, nil
	}
	var missing []string
	for w := range g.prons {
		if !d.hasWord(w) {
			missing = append(missing, w)
		}
	}
	if len(d.words)+len(missing) > maxDecoderWords {
		d.close()
		return r.build(g)
	}
	sort.Strings(missing)
	for _, w := range missing {
		if err := d.addWord(w, g.prons[w]); err != nil {
			return d, fmt.Errorf("speech recognizer: %w", err)
		}
	}
	if err := d.setGrammar(searchName, g.jsgf); err != nil {
		return d, fmt.Errorf("speech recognizer: %w", err)
	}
	d.grammar = g.gen
	return d, nil
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
// lexicon and the grammar is compiled on one decoder before it is taken:
// on any error the old grammar stays. The other decoders switch when they
// are next used.
func (r *Recognizer) SetGrammar(ctx context.Context, jsgf string) error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return errors.New("speech recognizer: closed")
	}
	next := r.grammar.gen + 1
	r.mu.Unlock()
	g, err := r.prepare(ctx, jsgf, next)
	if err != nil {
		return err
	}
	d, err := r.take(ctx)
	if err != nil {
		return err
	}
	// Grammars are installed one at a time: holding a decoder does that
	// only while there is one, so serialise on mu for the generation.
	r.mu.Lock()
	if r.grammar.gen >= next {
		g.gen = r.grammar.gen + 1
	}
	nd, err := r.apply(d, g)
	if err == nil {
		r.grammar = g
	} else if nd != nil {
		// Put the decoder back on the old grammar.
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
// fits no sentence of the grammar, or falls below MinConfidence, gives no
// hypotheses.
func (r *Recognizer) Recognize(ctx context.Context, pcm []int16) ([]audio.Hypothesis, error) {
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
	hyps, err := r.decode(ctx, d, pcm)
	r.give(d)
	return hyps, err
}

func (r *Recognizer) decode(ctx context.Context, d *decoder, pcm []int16) ([]audio.Hypothesis, error) {
	if err := d.start(); err != nil {
		return nil, err
	}
	for off := 0; off < len(pcm); off += chunk {
		if err := ctx.Err(); err != nil {
			_ = d.end()
			return nil, err
		}
		if err := d.process(pcm[off:min(off+chunk, len(pcm))]); err != nil {
			_ = d.end()
			return nil, err
		}
	}
	if err := d.end(); err != nil {
		return nil, err
	}
	best := d.hyp()
	if best.text == "" {
		return nil, nil
	}
	conf := d.posterior()
	list := d.nbest(r.cfg.NBest)
	if len(list) == 0 || list[0].text != best.text {
		list = append([]result{best}, list...)
	}
	out := make([]audio.Hypothesis, 0, len(list))
	for i, h := range list {
		if i > 0 && h.text == best.text {
			continue
		}
		c := conf
		if i > 0 {
			// Relative likelihood against the best path, scaled by its
			// posterior: a rival that scores far below gets ~0.
			c = conf * d.ratio(h.score-list[0].score)
		}
		if c < r.cfg.MinConfidence {
			continue
		}
		out = append(out, audio.Hypothesis{Text: h.text, Confidence: c})
		if len(out) == r.cfg.NBest {
			break
		}
	}
	return out, nil
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
	return nil
}
