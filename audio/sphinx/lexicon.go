package sphinx

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Limits on the lexicon.
const (
	// MaxDictBytes bounds the pronouncing dictionary file (cmudict-en-us is
	// 3.2 MB).
	MaxDictBytes = 32 << 20
	// MaxLookupWords bounds the words of one lookup: a grammar's vocabulary.
	MaxLookupWords = 20_000
	// MaxWordBytes bounds one word.
	MaxWordBytes = 64
	// MaxGuesses bounds the words one lookup hands to the guesser.
	MaxGuesses = 200
	// maxPhones bounds the phones of one pronunciation.
	maxPhones = 48
	// MaxNameWords bounds the words SetNames takes: the loop's 32 people's
	// first names, with room for names of several words.
	MaxNameWords = 256
	// MaxNameVariants bounds the pronunciations SetNames takes for one
	// word (people who share a first name but say it differently).
	MaxNameVariants = 4
)

// Phones are the phones of pocketsphinx's US English acoustic model (the
// CMU set), the only ones a pronunciation may use.
var Phones = []string{"AA", "AE", "AH", "AO", "AW", "AY", "B", "CH", "D", "DH", "EH", "ER", "EY", "F", "G",
	"HH", "IH", "IY", "JH", "K", "L", "M", "N", "NG", "OW", "OY", "P", "R", "S", "SH", "T", "TH", "UH", "UW",
	"V", "W", "Y", "Z", "ZH"}

// BuiltinWords are pronunciations the robot needs that cmudict lacks.
var BuiltinWords = map[string]string{
	"jibo": "JH IY B OW",
}

// Guesser derives a pronunciation for a word no dictionary has.
type Guesser interface {
	// Guess returns the word's phones (space-separated, from Phones).
	Guess(ctx context.Context, word string) (string, error)
}

// WordsGuesser is a Guesser that pronounces many words at once, cheaper
// than one by one (one subprocess instead of one a word); a Lexicon uses
// it for its guesser if the guesser has it.
type WordsGuesser interface {
	Guesser
	// GuessWords returns a guess for each of words, in order.
	GuessWords(ctx context.Context, words []string) []Guess
}

// Guess is one word's guessed pronunciation: its phones (as
// Guesser.Guess returns them) or why there are none.
type Guess struct {
	Phones string
	Err    error
}

// LexiconOptions configures a Lexicon.
type LexiconOptions struct {
	// Words are extra pronunciations (word → phones), looked up before the
	// dictionary; BuiltinWords are always there.
	Words map[string]string
	// Guesser, if set, pronounces words nothing else could; nil refuses
	// them.
	Guesser Guesser
	// Log receives warnings of words the guesser could not pronounce; nil
	// means slog.Default().
	Log *slog.Logger
}

// Lexicon pronounces words: a pronouncing dictionary in cmudict's format
// (word, or word(2) for a variant, then phones), plus rules for the way
// ASR-normalised templates spell words (apostrophes dropped: "whats",
// "dont", "im"; plurals: "mins"), plus an optional guesser. It reads the
// dictionary file when a lookup wants words it has not read before,
// instead of holding its 134,000 entries in memory (lookups happen when
// the grammar changes, which is rare), and remembers what it found for
// those words.
// Names (SetNames) add pronunciations that change at run time. A Lexicon
// is safe for concurrent use.
type Lexicon struct {
	path  string
	words map[string][]string
	guess Guesser
	log   *slog.Logger

	mu sync.RWMutex
	// names are SetNames's pronunciations; replaced whole, never changed.
	names map[string][]string
	// found is what the dictionary gave for each word a lookup scanned it
	// for (nothing, for a word it lacks): the robot's grammars and language
	// model look up mostly the same words, several times as it starts and
	// again when skills change, and the file need not be read again for
	// them.
	found map[string]dictResult
	// prefetch are words the next scan also looks for (Prefetch).
	prefetch []string
	// guessed are the guesser's pronunciations so far: a guess costs a
	// subprocess, and the same words come back with every lookup of the
	// grammar. A word the guesser failed on is not kept: the next lookup
	// asks again.
	guessed map[string]string
}

// dictResult is what the dictionary holds for a word: its pronunciations
// (the key itself and its apostrophe spellings), and its stem's with
// the -s ending.
type dictResult struct {
	direct, plural []string
}

// maxFoundWords bounds the words Lexicon remembers the dictionary's
// answer for; past it, it starts again.
const maxFoundWords = 4 * MaxLookupWords

// MissingWordsError lists words no pronunciation was found for.
type MissingWordsError struct {
	Words []string // sorted
}

func (e *MissingWordsError) Error() string {
	return fmt.Sprintf("no pronunciation for %d word(s): %s (add them to the dictionary or give their phones)",
		len(e.Words), strings.Join(e.Words, ", "))
}

// NewLexicon returns a lexicon over the dictionary file at path, checking
// that it can be read and that every extra word is valid.
func NewLexicon(path string, opts LexiconOptions) (*Lexicon, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("pronouncing dictionary: %w", err)
	}
	if fi.IsDir() || fi.Size() > MaxDictBytes {
		return nil, fmt.Errorf("pronouncing dictionary %s: not a file of at most %d bytes", path, MaxDictBytes)
	}
	l := &Lexicon{path: path, words: map[string][]string{}, guess: opts.Guesser, log: opts.Log}
	if l.log == nil {
		l.log = slog.Default()
	}
	add := func(src map[string]string) error {
		for w, ph := range src {
			if err := checkWord(w); err != nil {
				return err
			}
			norm, err := checkPhones(ph)
			if err != nil {
				return fmt.Errorf("pronunciation of %q: %w", w, err)
			}
			l.words[w] = []string{norm}
		}
		return nil
	}
	if err := add(BuiltinWords); err != nil {
		return nil, err
	}
	if err := add(opts.Words); err != nil {
		return nil, err
	}
	return l, nil
}

// Path is the dictionary file the lexicon reads.
func (l *Lexicon) Path() string { return l.path }

// checkWord validates a word as a grammar or dictionary word.
func checkWord(w string) error {
	if w == "" || len(w) > MaxWordBytes {
		return fmt.Errorf("word %q: want 1 to %d bytes", w, MaxWordBytes)
	}
	for _, r := range w {
		if r <= ' ' || r == 0x7f || strings.ContainsRune("()<>[]{}|*+=;/\"\\#", r) {
			return fmt.Errorf("word %q: character %q not allowed", w, r)
		}
	}
	return nil
}

// checkPhones validates a phone string and returns it single-spaced.
func checkPhones(ph string) (string, error) {
	f := strings.Fields(ph)
	if len(f) == 0 || len(f) > maxPhones {
		return "", fmt.Errorf("want 1 to %d phones, got %d", maxPhones, len(f))
	}
	for _, p := range f {
		if !slices.Contains(Phones, p) {
			return "", fmt.Errorf("unknown phone %q", p)
		}
	}
	return strings.Join(f, " "), nil
}

// variant is a dictionary key that may pronounce a requested word.
type variant struct {
	word   string
	plural bool // the key is the word's stem; add the -s ending
}

// Unknown returns the words of words it cannot pronounce (for
// grammar.Builder).
func (l *Lexicon) Unknown(ctx context.Context, words []string) ([]string, error) {
	_, err := l.Lookup(ctx, words)
	var missing *MissingWordsError
	if errors.As(err, &missing) {
		return missing.Words, nil
	}
	return nil, err
}

// Lookup returns every pronunciation of each word (word → phone strings,
// variants in dictionary order). Words it cannot pronounce are left out
// and reported in a *MissingWordsError, with the rest still returned.
func (l *Lexicon) Lookup(ctx context.Context, words []string) (map[string][]string, error) {
	if len(words) > MaxLookupWords {
		return nil, fmt.Errorf("looking up %d words: more than %d", len(words), MaxLookupWords)
	}
	var distinct []string
	seen := map[string]bool{}
	for _, w := range words {
		if err := checkWord(w); err != nil {
			return nil, err
		}
		if !seen[w] {
			seen[w] = true
			distinct = append(distinct, w)
		}
	}
	l.mu.RLock()
	names := l.names
	l.mu.RUnlock()
	out, err := l.lookup(ctx, distinct, names)
	if err != nil {
		return nil, err
	}
	var missing []string
	for _, w := range distinct {
		if _, ok := out[w]; !ok {
			missing = append(missing, w)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return out, &MissingWordsError{Words: missing}
	}
	return out, nil
}

// SetNames replaces the pronunciations of people's names (word → phone
// strings, from Phones), which change at run time: each is heard as a
// variant of the word, after the word's own pronunciations (extra words,
// then the dictionary's; the guesser is not asked for a word that has
// one). Nil or empty removes them all. Every word and pronunciation is
// checked first: on any error nothing changes.
func (l *Lexicon) SetNames(names map[string][]string) error {
	if len(names) > MaxNameWords {
		return fmt.Errorf("name pronunciations: %d words, more than %d", len(names), MaxNameWords)
	}
	checked := make(map[string][]string, len(names))
	for w, prons := range names {
		if err := checkWord(w); err != nil {
			return fmt.Errorf("name pronunciations: %w", err)
		}
		if len(prons) == 0 || len(prons) > MaxNameVariants {
			return fmt.Errorf("name pronunciations of %q: want 1 to %d, got %d", w, MaxNameVariants, len(prons))
		}
		var list []string
		for _, p := range prons {
			norm, err := checkPhones(p)
			if err != nil {
				return fmt.Errorf("name pronunciation of %q: %w", w, err)
			}
			list = appendNew(list, norm)
		}
		checked[w] = list
	}
	l.mu.Lock()
	l.names = checked
	l.mu.Unlock()
	return nil
}

// Pronounce returns one pronunciation of a spelling of one or more words
// (ASR-normalised, space-separated): each word's first pronunciation
// from the extra words, the dictionary or the guesser, never from the
// names, joined. It derives a name's pronunciation from the way it is
// spelt to be said ("shivawn" for "siobhan").
func (l *Lexicon) Pronounce(ctx context.Context, spelling string) (string, error) {
	words := strings.Fields(spelling)
	// Every word has a phone at least: more words than maxPhones cannot fit.
	if len(words) == 0 || len(words) > maxPhones {
		return "", fmt.Errorf("pronouncing %q: want 1 to %d words", spelling, maxPhones)
	}
	for _, w := range words {
		if err := checkWord(w); err != nil {
			return "", fmt.Errorf("pronouncing %q: %w", spelling, err)
		}
	}
	prons, err := l.lookup(ctx, slices.Compact(slices.Sorted(slices.Values(words))), nil)
	if err != nil {
		return "", fmt.Errorf("pronouncing %q: %w", spelling, err)
	}
	var missing []string
	phones := make([]string, 0, len(words))
	for _, w := range words {
		if p := prons[w]; len(p) > 0 {
			phones = append(phones, p[0])
		} else if !slices.Contains(missing, w) {
			missing = append(missing, w)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return "", fmt.Errorf("pronouncing %q: %w", spelling, &MissingWordsError{Words: missing})
	}
	norm, err := checkPhones(strings.Join(phones, " "))
	if err != nil {
		return "", fmt.Errorf("pronouncing %q: %w", spelling, err)
	}
	return norm, nil
}

// Prefetch has the next lookup that reads the dictionary also read the
// pronunciations of words (which are checked as Lookup checks them), so
// that a later lookup of them need not read it again: for words known to
// be wanted soon, such as a language model's. Calls before that lookup
// add up: each one's words are read.
func (l *Lexicon) Prefetch(words []string) error {
	for _, w := range words {
		if err := checkWord(w); err != nil {
			return err
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := len(l.prefetch) + len(words); n > MaxLookupWords {
		return fmt.Errorf("prefetching %d words: more than %d", n, MaxLookupWords)
	}
	l.prefetch = append(l.prefetch, words...)
	return nil
}

// lookup pronounces distinct plain words, adding names' pronunciations
// after each word's own; missing ones are left out.
func (l *Lexicon) lookup(ctx context.Context, words []string, names map[string][]string) (map[string][]string, error) {
	out := map[string][]string{}
	direct, plural := map[string][]string{}, map[string][]string{}
	var scan []string
	l.mu.RLock()
	for _, w := range words {
		if p, ok := l.words[w]; ok {
			out[w] = slices.Clone(p)
			continue
		}
		if r, ok := l.found[w]; ok {
			direct[w], plural[w] = slices.Clone(r.direct), slices.Clone(r.plural)
			continue
		}
		scan = append(scan, w)
	}
	var prefetch []string
	if len(scan) > 0 {
		for _, w := range l.prefetch {
			if _, ok := l.found[w]; !ok && !slices.Contains(scan, w) {
				if _, own := l.words[w]; !own {
					prefetch = append(prefetch, w)
				}
			}
		}
	}
	l.mu.RUnlock()
	if len(scan) > 0 {
		got, err := l.read(ctx, append(scan, prefetch...))
		if err != nil {
			return nil, err
		}
		for _, w := range scan {
			direct[w], plural[w] = slices.Clone(got[w].direct), slices.Clone(got[w].plural)
		}
		l.mu.Lock()
		if l.found == nil || len(l.found)+len(got) > maxFoundWords {
			l.found = make(map[string]dictResult, len(got))
		}
		for w, r := range got {
			l.found[w] = r
		}
		l.prefetch = nil
		l.mu.Unlock()
	}
	var unknown []string
	for _, w := range words {
		if _, ok := out[w]; ok {
			continue
		}
		switch {
		case len(direct[w]) > 0:
			out[w] = direct[w]
		case len(plural[w]) > 0:
			out[w] = plural[w]
		case len(names[w]) > 0:
			// A guess from the spelling adds nothing to how the name is
			// said, only another sound the word could be mistaken for.
		default:
			unknown = append(unknown, w)
		}
	}
	if err := l.guessAll(ctx, unknown, out); err != nil {
		return nil, err
	}
	for _, w := range words {
		for _, p := range names[w] {
			out[w] = appendNew(out[w], p)
		}
	}
	return out, nil
}

// guessAll has the guesser pronounce words into out: those it
// pronounced before from memory, at most MaxGuesses others anew. A word it cannot pronounce is left out, with a warning that
// names it and says why: the grammar goes without it.
func (l *Lexicon) guessAll(ctx context.Context, words []string, out map[string][]string) error {
	if l.guess == nil || len(words) == 0 {
		return nil
	}
	l.mu.RLock()
	ask := words[:0:0]
	for _, w := range words {
		if ph, ok := l.guessed[w]; ok {
			out[w] = []string{ph}
		} else {
			ask = append(ask, w)
		}
	}
	l.mu.RUnlock()
	words = ask
	if len(words) == 0 {
		return nil
	}
	if len(words) > MaxGuesses {
		l.log.Warn("speech lexicon: too many words to guess; those past the limit have no pronunciation",
			"limit", MaxGuesses, "words", words[MaxGuesses:])
		words = words[:MaxGuesses]
	}
	var guesses []Guess
	if wg, ok := l.guess.(WordsGuesser); ok {
		guesses = wg.GuessWords(ctx, words)
		if len(guesses) != len(words) {
			return fmt.Errorf("guessing %d words: the guesser gave %d answers", len(words), len(guesses))
		}
	} else {
		guesses = make([]Guess, len(words))
		for i, w := range words {
			guesses[i].Phones, guesses[i].Err = l.guess.Guess(ctx, w)
			if ctx.Err() != nil {
				return ctx.Err()
			}
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	for i, w := range words {
		g := guesses[i]
		ph, err := g.Phones, g.Err
		if err == nil {
			ph, err = checkPhones(ph)
		}
		if err != nil {
			l.log.Warn("speech lexicon: no pronunciation guessed; the word cannot be heard", "word", w, "err", err)
			continue
		}
		out[w] = []string{ph}
		l.mu.Lock()
		if l.guessed == nil || len(l.guessed) >= maxFoundWords {
			l.guessed = map[string]string{}
		}
		l.guessed[w] = ph
		l.mu.Unlock()
	}
	return nil
}

// read reads the dictionary once for words, distinct and not among the
// lexicon's own words (LexiconOptions): what it holds for each.
func (l *Lexicon) read(ctx context.Context, words []string) (map[string]dictResult, error) {
	keys := map[string][]variant{} // dictionary key → what it may pronounce
	for _, w := range words {
		for _, k := range spellings(w) {
			keys[k] = append(keys[k], variant{word: w})
		}
		if stem, ok := strings.CutSuffix(w, "s"); ok && len(stem) >= 2 {
			for _, k := range spellings(stem) {
				keys[k] = append(keys[k], variant{word: w, plural: true})
			}
		}
	}
	out := make(map[string]dictResult, len(words))
	for _, w := range words {
		out[w] = dictResult{}
	}
	wanted := func(key []byte) bool { _, ok := keys[string(key)]; return ok }
	if err := l.scan(ctx, wanted, func(key, phones string) {
		for _, v := range keys[key] {
			r := out[v.word]
			if v.plural {
				r.plural = appendNew(r.plural, pluralOf(phones))
			} else {
				r.direct = appendNew(r.direct, phones)
			}
			out[v.word] = r
		}
	}); err != nil {
		return nil, err
	}
	return out, nil
}

// spellings returns the dictionary keys a normalised word may stand for:
// itself and, since normalisation drops apostrophes ("what's" → "whats"),
// the word with an apostrophe put back between any two letters.
func spellings(w string) []string {
	out := []string{w}
	if strings.ContainsRune(w, '\'') {
		return out
	}
	for i := 1; i < len(w); i++ {
		out = append(out, w[:i]+"'"+w[i:])
	}
	return out
}

// pluralOf adds the -s ending to a pronunciation: /IH Z/ after a sibilant,
// /S/ after another voiceless consonant, /Z/ otherwise.
func pluralOf(phones string) string {
	last := phones[strings.LastIndexByte(phones, ' ')+1:]
	switch last {
	case "S", "Z", "SH", "ZH", "CH", "JH":
		return phones + " IH Z"
	case "P", "T", "K", "F", "TH":
		return phones + " S"
	}
	return phones + " Z"
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// scan calls fn for every entry of the dictionary whose key (the word,
// any "(n)" variant suffix removed) is wanted, with its phones,
// single-spaced. The dictionary is large and a lookup wants few of its
// words: the others cost no allocation.
func (l *Lexicon) scan(ctx context.Context, wanted func(key []byte) bool, fn func(key, phones string)) error {
	f, err := os.Open(l.path)
	if err != nil {
		return fmt.Errorf("reading the pronouncing dictionary: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, MaxDictBytes))
	sc.Buffer(make([]byte, 0, 4096), 4096)
	for n := 0; sc.Scan(); n++ {
		if n%8192 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		line := sc.Bytes()
		sp := bytes.IndexAny(line, " \t")
		if sp <= 0 {
			continue
		}
		key := line[:sp]
		if i := bytes.IndexByte(key, '('); i > 0 && bytes.HasSuffix(key, []byte(")")) {
			key = key[:i]
		}
		if wanted(key) {
			fn(string(key), strings.Join(strings.Fields(string(line[sp:])), " "))
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("reading the pronouncing dictionary %s: a line is longer than 4 KiB", l.path)
		}
		return fmt.Errorf("reading the pronouncing dictionary %s: %w", l.path, err)
	}
	return nil
}

// dictText is pronunciations in cmudict's format, words sorted, variants
// named word(2), word(3)…: what the decoder and sphinxtrain read.
func dictText(prons map[string][]string) string {
	words := make([]string, 0, len(prons))
	for w := range prons {
		words = append(words, w)
	}
	sort.Strings(words)
	var b strings.Builder
	for _, w := range words {
		for i, p := range prons[w] {
			if i == 0 {
				fmt.Fprintf(&b, "%s %s\n", w, p)
			} else {
				fmt.Fprintf(&b, "%s(%d) %s\n", w, i+1, p)
			}
		}
	}
	return b.String()
}
