package sphinx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
	"unicode"
)

// EspeakGuesser pronounces a word with the espeak-ng program's
// letter-to-sound rules (`espeak-ng -q -x --sep=_`), run as a subprocess
// (espeak-ng is GPL-3.0; it is never linked in), and maps espeak's English
// phonemes to the acoustic model's phones. GuessWords pronounces many
// words with one run.
type EspeakGuesser struct {
	// Program is the espeak-ng executable; "" means "espeak-ng" on PATH.
	Program string
	// Voice is the espeak voice; "" means "en-us".
	Voice string
	// Timeout bounds a run of one word; 0 means 5 s. A run of several
	// words has espeakPerWord more for each, up to espeakMaxTimeout. A run
	// that times out is tried once more.
	Timeout time.Duration
}

// Bounds on an espeak-ng run.
const (
	// espeakPerWord is the time a batch run has for each word beyond the
	// first: espeak-ng's own work per word is a fraction of a millisecond,
	// the rest is room for a loaded machine.
	espeakPerWord = 50 * time.Millisecond
	// espeakMaxTimeout caps a batch run's time limit.
	espeakMaxTimeout = 30 * time.Second
	// espeakMaxWordOutput bounds espeak-ng's output for one word.
	espeakMaxWordOutput = 4096
)

// espeakPhones maps espeak-ng's English phoneme mnemonics (stress marks
// removed) to CMU phones.
var espeakPhones = map[string]string{
	// consonants
	"p": "P", "b": "B", "t": "T", "d": "D", "k": "K", "g": "G", "f": "F", "v": "V",
	"T": "TH", "D": "DH", "s": "S", "z": "Z", "S": "SH", "Z": "ZH", "h": "HH",
	"m": "M", "n": "N", "N": "NG", "l": "L", "r": "R", "w": "W", "j": "Y",
	"tS": "CH", "dZ": "JH", "t#": "T", "d#": "D", "x": "K", "C": "HH",
	"n-": "N", "m-": "M", "l-": "L", "r-": "R", "?": "",
	// vowels
	"a": "AE", "aa": "AE", "a#": "AH", "a2": "AH", "A": "AA", "A:": "AA", "A@": "AA R", "A#": "AA",
	"aI": "AY", "aI@": "AY ER", "aI3": "AY ER", "aU": "AW", "aU@": "AW ER",
	"e": "EH", "E": "EH", "E2": "EH", "E#": "EH", "e@": "EH R", "eI": "EY",
	"@": "AH", "@2": "AH", "@5": "AH", "@L": "AH L", "@r": "ER", "3": "ER", "3:": "ER",
	"i": "IY", "i:": "IY", "i@": "IY R", "i@3": "IY R", "I": "IH", "I#": "IH", "I2": "IH",
	"0": "AA", "O": "AO", "O2": "AO", "O:": "AO", "O@": "AO R", "o@": "AO R", "oU": "OW", "o": "OW", "OI": "OY",
	"u:": "UW", "u": "UW", "U": "UH", "U@": "UH R", "V": "AH",
}

// Guess runs espeak-ng on word and maps its phonemes. A word that is not
// letters only (after any apostrophe), or a phoneme with no mapping, is an
// error.
func (g EspeakGuesser) Guess(ctx context.Context, word string) (string, error) {
	if err := guessable(word); err != nil {
		return "", err
	}
	out, err := g.run(ctx, 1, []string{"--", word}, "")
	if err != nil {
		return "", fmt.Errorf("guessing %q: %w", word, err)
	}
	return espeakToPhones(out)
}

// GuessWords pronounces words with one espeak-ng run, each word on its
// own line of its input (espeak-ng ends a clause at a line's end and
// prints each clause's phonemes on a line of their own, the same as for
// the word alone). If the output's lines do not match the words one to
// one, each word is guessed on its own instead.
func (g EspeakGuesser) GuessWords(ctx context.Context, words []string) []Guess {
	out := make([]Guess, len(words))
	var batch []int // indexes into words of the words to run
	for i, w := range words {
		if err := guessable(w); err != nil {
			out[i].Err = err
			continue
		}
		batch = append(batch, i)
	}
	if len(batch) == 0 {
		return out
	}
	var in strings.Builder
	for _, i := range batch {
		in.WriteString(words[i])
		in.WriteByte('\n')
	}
	text, err := g.run(ctx, len(batch), nil, in.String())
	if err != nil {
		for _, i := range batch {
			out[i].Err = fmt.Errorf("guessing %q: %w", words[i], err)
		}
		return out
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) != len(batch) {
		for _, i := range batch {
			out[i].Phones, out[i].Err = g.Guess(ctx, words[i])
		}
		return out
	}
	for k, i := range batch {
		out[i].Phones, out[i].Err = espeakToPhones(lines[k])
		if out[i].Err != nil {
			out[i].Err = fmt.Errorf("guessing %q: %w", words[i], out[i].Err)
		}
	}
	return out
}

// guessable checks that a word can be handed to espeak-ng.
func guessable(word string) error {
	if err := checkWord(word); err != nil {
		return err
	}
	for _, r := range word {
		if !unicode.IsLetter(r) && r != '\'' {
			return fmt.Errorf("guessing %q: only letters can be guessed", word)
		}
	}
	return nil
}

// run runs espeak-ng for n words, with args after its own and stdin as
// its input, and returns its output. Its time limit grows with n; a run
// that exceeds it is tried once more before it is an error.
func (g EspeakGuesser) run(ctx context.Context, n int, args []string, stdin string) (string, error) {
	prog, voice, timeout := g.Program, g.Voice, g.Timeout
	if prog == "" {
		prog = "espeak-ng"
	}
	if voice == "" {
		voice = "en-us"
	}
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	timeout = min(timeout+time.Duration(n-1)*espeakPerWord, max(timeout, espeakMaxTimeout))
	args = append([]string{"-q", "-x", "--sep=_", "-v", voice}, args...)
	var err error
	for range 2 {
		var out string
		out, err = runBounded(ctx, timeout, n*espeakMaxWordOutput, prog, args, stdin)
		if err == nil || !errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
			return out, err
		}
	}
	return "", fmt.Errorf("%s timed out twice: %w", prog, err)
}

// runBounded runs prog once within timeout, with at most maxOut bytes of
// output.
func runBounded(ctx context.Context, timeout time.Duration, maxOut int, prog string, args []string, stdin string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var out, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Stdout, cmd.Stderr = &out, &stderr
	// A child that keeps the output open past the kill must not hold the
	// run up.
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return "", fmt.Errorf("running %s: no answer within %v: %w", prog, timeout, context.DeadlineExceeded)
	}
	if err != nil {
		return "", fmt.Errorf("running %s: %w (%s)", prog, err, strings.TrimSpace(stderr.String()))
	}
	if out.Len() > maxOut {
		return "", fmt.Errorf("running %s: %d bytes of phonemes, more than %d", prog, out.Len(), maxOut)
	}
	return out.String(), nil
}

// espeakToPhones maps espeak-ng's `-x --sep=_` output for one word.
func espeakToPhones(s string) (string, error) {
	var phones []string
	for _, tok := range strings.FieldsFunc(s, func(r rune) bool { return r == '_' || unicode.IsSpace(r) }) {
		tok = strings.Map(func(r rune) rune {
			if r == '\'' || r == ',' || r == '%' || r == '=' {
				return -1
			}
			return r
		}, tok)
		if tok == "" {
			continue
		}
		ph, ok := espeakPhones[tok]
		if !ok {
			return "", fmt.Errorf("espeak phoneme %q has no CMU equivalent", tok)
		}
		if ph != "" {
			phones = append(phones, ph)
		}
	}
	if len(phones) == 0 {
		return "", errors.New("espeak gave no phonemes")
	}
	return strings.Join(phones, " "), nil
}
