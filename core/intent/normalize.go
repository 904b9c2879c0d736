package intent

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Normalize returns text the way GRM-02 expects utterances and input
// templates: lowercase words of letters, digits and combining marks
// separated by single spaces, with punctuation gone.
//
// Two choices go beyond the spec's wording, both so that text written with
// ordinary punctuation and the same text from an ASR agree:
//   - an apostrophe inside a word is dropped ("what's" → "whats"), so the
//     word stays one token;
//   - '.', ',' and '/' between two digits are kept ("20.5", "1/2"), so
//     numbers keep their value as slot text (GRM-14).
//
// Everything else that is not a letter, digit or mark separates words.
func Normalize(s string) string {
	return normalize(s, nil)
}

// normalize is Normalize with extra runes that count as letters; the engine
// uses it to keep slot markers inside sample words.
func normalize(s string, letter func(rune) bool) string {
	if normalASCII(s) {
		return s
	}
	isWord := func(r rune) bool {
		return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r) || (letter != nil && letter(r))
	}
	var b strings.Builder
	b.Grow(len(s))
	pending := false // a separator is owed before the next word rune
	var prev rune    // last rune written, 0 after a separator
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if r == utf8.RuneError && n <= 1 {
			r = ' '
		}
		r = unicode.ToLower(r)
		if isWord(r) {
			if pending && b.Len() > 0 {
				b.WriteByte(' ')
			}
			pending = false
			b.WriteRune(r)
			prev = r
			continue
		}
		next, _ := utf8.DecodeRuneInString(s[i:])
		switch {
		case isApostrophe(r) && prev != 0 && !pending && isWord(unicode.ToLower(next)):
			// Joined: "what's" stays one word.
		case (r == '.' || r == ',' || r == '/') && !pending && unicode.IsDigit(prev) && unicode.IsDigit(next):
			b.WriteRune(r)
			prev = r
		default:
			pending = true
			prev = 0
		}
	}
	return b.String()
}

func isApostrophe(r rune) bool {
	return r == '\'' || r == '\u2019' || r == '\u02bc'
}

// normalASCII reports whether s is already normal and plain ASCII: words
// of a-z and 0-9 separated by single spaces. Most utterances are, and
// normalize returns them as they are.
func normalASCII(s string) bool {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' {
		return s == ""
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case c == ' ' && s[i-1] != ' ':
		default:
			return false
		}
	}
	return true
}
