package intent

import (
	"embed"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
)

// Lexicon limits. A lexicon is small by nature; the limits keep a bad one
// from slowing every utterance down.
const (
	// MaxLexiconPhrases caps the filler phrases plus optional words of one
	// language, after expansion.
	MaxLexiconPhrases = 2_000
	// MaxFillerWords caps the words of one filler phrase.
	MaxFillerWords = 8
)

// lexiconFiles holds the built-in lexicons: lexicon/<lang>.fillers,
// lexicon/<lang>.optional and lexicon/<lang>.function, and where a language
// has them lexicon/<lang>.determiners and lexicon/<lang>.topics, read like
// resource files (RES-04), one slot-free template per line.
//
//go:embed lexicon/*.fillers lexicon/*.optional lexicon/*.function lexicon/*.determiners lexicon/*.topics
var lexiconFiles embed.FS

// Lexicon is what the template engine may skip or tolerate in one
// language, wherever a template does not spell it: filler phrases a
// speaker adds ("please", "can you", "um") and optional words a speaker
// drops or adds ("the", "a", "my"). Each costs a parse a little rank and
// confidence. It also names the function words that are never skipped but
// say nothing about the request by themselves ("in", "is", "what"): with
// the fillers and optional words they are not evidence for a parse of free
// slot text (see Result.Evidence). It is data, read from files; see
// BuiltinLexicons.
type Lexicon struct {
	// fillers maps a first word to the filler phrases starting with it.
	fillers map[string][][]string
	// optional words may be missing from an utterance or extra in it.
	optional map[string]bool
	// function words are never skipped or tolerated; they only mark words
	// that are not content words.
	function map[string]bool
	// determiners introduce the thing a phrase is about ("the", "my"):
	// what a template says right after one is a topic of its intent.
	determiners map[string]bool
	// topics maps a first word to the phrases that ask about a thing by
	// naming it ("about", "what about"): with fillers and determiners
	// around a topic they make a fragment (TemplateEngine.Topic).
	topics map[string][][]string
}

// LexiconWords is the text of a lexicon, one template (grammar of
// OVOS-INTENT-1, slot-free) per entry, e.g. "(can|could) you".
type LexiconWords struct {
	Fillers  []string // filler phrases, at most MaxFillerWords words each
	Optional []string // optional words, one word each
	Function []string // function words, one word each
	// Determiners are the words that introduce a thing ("the", "my"), one
	// word each; Topics the phrases that ask about a thing by naming it
	// ("about", "what about"). Without them no fragment is a topic.
	Determiners []string
	Topics      []string
}

// NewLexicon builds a lexicon from filler phrase templates and optional
// word templates, without function words; see NewLexiconWords.
func NewLexicon(fillers, optional []string) (*Lexicon, error) {
	return NewLexiconWords(LexiconWords{Fillers: fillers, Optional: optional})
}

// NewLexiconWords builds a lexicon. Every expanded optional or function
// entry must be one word; a filler phrase has at most MaxFillerWords
// words. A malformed entry is an error naming it.
func NewLexiconWords(w LexiconWords) (*Lexicon, error) {
	toLines := func(ts []string) []Line {
		out := make([]Line, len(ts))
		for i, t := range ts {
			out[i] = Line{Number: i + 1, Col: 1, Text: t}
		}
		return out
	}
	l, err := newLexicon(lexiconSource{"fillers", toLines(w.Fillers)}, lexiconSource{"optional", toLines(w.Optional)},
		lexiconSource{"function", toLines(w.Function)}, lexiconSource{"determiners", toLines(w.Determiners)},
		lexiconSource{"topics", toLines(w.Topics)})
	if err != nil {
		return nil, fmt.Errorf("building lexicon: %w", err)
	}
	return l, nil
}

// lexiconSource is one word class of a lexicon and the file it came from.
type lexiconSource struct {
	file  string
	lines []Line
}

// BuiltinLexicons returns the lexicons shipped with the engine, keyed by
// primary language subtag ("en", "de"). Their files are
// core/intent/lexicon/<lang>.fillers, <lang>.optional and <lang>.function,
// and, where the language has them, <lang>.determiners and <lang>.topics.
func BuiltinLexicons() (map[string]*Lexicon, error) {
	names, err := fs.Glob(lexiconFiles, "lexicon/*.fillers")
	if err != nil {
		return nil, fmt.Errorf("listing built-in lexicons: %w", err)
	}
	out := map[string]*Lexicon{}
	for _, fp := range names {
		lang := strings.TrimSuffix(path.Base(fp), ".fillers")
		var src [5]lexiconSource
		for i, p := range []string{fp, path.Join("lexicon", lang+".optional"), path.Join("lexicon", lang+".function"),
			path.Join("lexicon", lang+".determiners"), path.Join("lexicon", lang+".topics")} {
			if _, err := fs.Stat(lexiconFiles, p); err != nil && i >= 3 {
				continue // a language without topic words asks about none
			}
			lines, err := readLexiconFile(p)
			if err != nil {
				return nil, err
			}
			src[i] = lexiconSource{p, lines}
		}
		l, err := newLexicon(src[0], src[1], src[2], src[3], src[4])
		if err != nil {
			return nil, fmt.Errorf("built-in lexicon %s: %w", lang, err)
		}
		out[lang] = l
	}
	return out, nil
}

func readLexiconFile(p string) ([]Line, error) {
	data, err := lexiconFiles.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("reading built-in lexicon: %w", err)
	}
	lines, err := splitLines(data)
	if err != nil {
		return nil, fmt.Errorf("reading built-in lexicon: %w", atFile(err, p))
	}
	return lines, nil
}

func newLexicon(fillers, optional, function, determiners, topics lexiconSource) (*Lexicon, error) {
	l := &Lexicon{fillers: map[string][][]string{}, optional: map[string]bool{},
		function: map[string]bool{}, determiners: map[string]bool{}, topics: map[string][][]string{}}
	ex := newExpander(nil, DefaultMaxSamples)
	count := 0
	phrasesOf := func(file string, line Line) ([][]string, error) {
		t, err := parse(line.Text, line.Number, line.Col)
		if err != nil {
			return nil, atFile(err, file)
		}
		if len(t.slots) > 0 {
			s := t.slots[0]
			return nil, &SyntaxError{File: file, Line: s.Line, Col: s.Col, Token: "{" + s.Name + "}", Kind: ErrBadName,
				Msg: "lexicon entries are slot-free"}
		}
		samples, err := ex.expand(t)
		if err != nil {
			return nil, atFile(err, file)
		}
		var out [][]string
		for _, s := range samples {
			n := Normalize(s)
			if n == "" {
				return nil, &SyntaxError{File: file, Line: line.Number, Col: line.Col, Kind: ErrEmptySample,
					Msg: fmt.Sprintf("entry %q has no words after normalisation", s)}
			}
			words := strings.Split(n, " ")
			if len(words) > MaxFillerWords {
				return nil, &SyntaxError{File: file, Line: line.Number, Col: line.Col, Kind: ErrTooLarge,
					Msg: fmt.Sprintf("phrase %q has %d words, limit is %d", n, len(words), MaxFillerWords)}
			}
			if count++; count > MaxLexiconPhrases {
				return nil, &SyntaxError{File: file, Line: line.Number, Col: line.Col, Kind: ErrTooLarge,
					Msg: fmt.Sprintf("lexicon has more than %d phrases", MaxLexiconPhrases)}
			}
			out = append(out, words)
		}
		return out, nil
	}
	phrases := func(src lexiconSource, into map[string][][]string) error {
		for _, line := range src.lines {
			ps, err := phrasesOf(src.file, line)
			if err != nil {
				return err
			}
			for _, p := range ps {
				if !slices.ContainsFunc(into[p[0]], func(q []string) bool { return slices.Equal(p, q) }) {
					into[p[0]] = append(into[p[0]], p)
				}
			}
		}
		return nil
	}
	if err := phrases(fillers, l.fillers); err != nil {
		return nil, err
	}
	if err := phrases(topics, l.topics); err != nil {
		return nil, err
	}
	oneWords := func(src lexiconSource, kind string, into map[string]bool) error {
		for _, line := range src.lines {
			ps, err := phrasesOf(src.file, line)
			if err != nil {
				return err
			}
			for _, p := range ps {
				if len(p) != 1 {
					return &SyntaxError{File: src.file, Line: line.Number, Col: line.Col, Kind: ErrBadName,
						Msg: fmt.Sprintf("%s entry %q is not one word", kind, strings.Join(p, " "))}
				}
				into[p[0]] = true
			}
		}
		return nil
	}
	if err := oneWords(optional, "optional", l.optional); err != nil {
		return nil, err
	}
	if err := oneWords(function, "function", l.function); err != nil {
		return nil, err
	}
	if err := oneWords(determiners, "determiner", l.determiners); err != nil {
		return nil, err
	}
	return l, nil
}

// Fillers returns the filler phrases, sorted.
func (l *Lexicon) Fillers() []string {
	var out []string
	for _, ps := range l.fillers {
		for _, p := range ps {
			out = append(out, strings.Join(p, " "))
		}
	}
	slices.Sort(out)
	return out
}

// Optional returns the optional words, sorted.
func (l *Lexicon) Optional() []string { return slices.Sorted(maps.Keys(l.optional)) }

// Function returns the function words, sorted.
func (l *Lexicon) Function() []string { return slices.Sorted(maps.Keys(l.function)) }

// isContent reports whether words[j] is a content word in lex's language:
// not a function or optional word, and not inside an occurrence of a
// filler phrase. Without a lexicon every word is
// one. It allocates nothing: Match asks it for the winner's words only.
func (l *Lexicon) isContent(words []string, j int) bool {
	if l == nil {
		return true
	}
	if w := words[j]; l.optional[w] || l.function[w] {
		return false
	}
	for i := max(0, j-MaxFillerWords+1); i <= j; i++ {
		for _, p := range l.fillers[words[i]] {
			if i+len(p) > j && i+len(p) <= len(words) && slices.Equal(words[i:i+len(p)], p) {
				return false
			}
		}
	}
	return true
}

// common counts the words of a clause the lexicon knows (filler, optional
// or function words): words most utterances say.
func (l *Lexicon) common(words []string) int {
	if l == nil {
		return 0
	}
	n := 0
	for _, w := range words {
		if l.optional[w] || l.function[w] || len(l.fillers[w]) > 0 {
			n++
		}
	}
	return n
}

// lexiconFor returns the lexicon of a lowercase language tag's primary
// subtag, or nil.
func lexiconFor(lexicons map[string]*Lexicon, lang string) *Lexicon {
	primary, _, _ := strings.Cut(lang, "-")
	return lexicons[primary]
}
