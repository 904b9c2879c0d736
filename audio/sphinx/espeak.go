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
// phonemes to the acoustic model's phones.
type EspeakGuesser struct {
	// Program is the espeak-ng executable; "" means "espeak-ng" on PATH.
	Program string
	// Voice is the espeak voice; "" means "en-us".
	Voice string
	// Timeout bounds one run; 0 means 5 s.
	Timeout time.Duration
}

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
	if err := checkWord(word); err != nil {
		return "", err
	}
	for _, r := range word {
		if !unicode.IsLetter(r) && r != '\'' {
			return "", fmt.Errorf("guessing %q: only letters can be guessed", word)
		}
	}
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
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var out, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, prog, "-q", "-x", "--sep=_", "-v", voice, "--", word)
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("guessing %q with %s: %w (%s)", word, prog, err, strings.TrimSpace(stderr.String()))
	}
	if out.Len() > 4096 {
		return "", fmt.Errorf("guessing %q: %d bytes of phonemes", word, out.Len())
	}
	return espeakToPhones(out.String())
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
