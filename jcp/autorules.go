package jcp

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"
)

// AutoRules are the classes of Jibo's automatic embodied speech (spec/jibo.md
// §3.1 autoRuleConfig, §3.5): the body moves with what it says without the
// skill writing a single <anim> tag.
//
//   - Beat: the start of a turn looks toward the listener (Initiate), and
//     each new sentence gets a small beat of the head (BeatBlink).
//   - Punctuation: a question tilts the head for as long as it is asked
//     (Question); a clause after a comma gets a blink of the ring (Comma).
//   - HotWords: words that carry emotion move the body as they are said:
//     a greeting wiggles, a yes nods, a no shakes, joy bounces, an apology
//     droops, a "hmm" thinks.
//   - Voice: an emotional voice for the text. The voices this runtime has
//     (the sim speaker, espeak-ng) have no emotional styles, so the class is
//     read and has no effect.
//
// Cues stand at the start of the clause they belong to, never inside one,
// so the voice says each clause in one breath. A clause that already has
// an <anim> or <es> tag gets no automatic gesture: what the skill wrote
// wins (the turn toward the listener still comes first).
type AutoRules struct {
	HotWords    bool
	Punctuation bool
	Voice       bool
	Beat        bool
}

// AllAutoRules has every rule class on: a PLAY that says nothing about
// them.
var AllAutoRules = AutoRules{HotWords: true, Punctuation: true, Voice: true, Beat: true}

// Any reports whether any class is on.
func (a AutoRules) Any() bool { return a.HotWords || a.Punctuation || a.Voice || a.Beat }

// AutoRulesOf reads the rule classes a PLAY asks for: every class is on
// unless speakOptions.disableAutoRules is true, autoRuleConfig is false,
// or autoRuleConfig's object sets that class false. Values that are not
// booleans leave the class on (Validate has already checked the shapes).
func AutoRulesOf(p *Play) AutoRules {
	r := AllAutoRules
	if len(p.SpeakOptions) > 0 {
		var so struct {
			DisableAutoRules *bool `json:"disableAutoRules"`
		}
		if json.Unmarshal(p.SpeakOptions, &so) == nil && so.DisableAutoRules != nil && *so.DisableAutoRules {
			return AutoRules{}
		}
	}
	raw := bytes.TrimSpace(p.AutoRuleConfig)
	switch {
	case len(raw) == 0:
	case bytes.Equal(raw, []byte("false")):
		return AutoRules{}
	case raw[0] == '{':
		var c struct {
			HotWords    *bool `json:"hotWords"`
			Punctuation *bool `json:"punctuation"`
			Voice       *bool `json:"voice"`
			Beat        *bool `json:"beat"`
		}
		if json.Unmarshal(raw, &c) == nil {
			for _, f := range []struct {
				v   *bool
				dst *bool
			}{{c.HotWords, &r.HotWords}, {c.Punctuation, &r.Punctuation}, {c.Voice, &r.Voice}, {c.Beat, &r.Beat}} {
				if f.v != nil {
					*f.dst = *f.v
				}
			}
		}
	}
	return r
}

// The animations the rules use, from the motion package's built-in library.
// A body whose library lacks one simply does not make that gesture.
const (
	autoBeat     = "beat"
	autoBlink    = "blink"
	autoQuestion = "tilt"
)

// hotWords map a spoken word (lower case, apostrophes dropped) to the
// animation it calls for.
var hotWords = map[string]string{
	"hello": "happy-wiggle", "hi": "happy-wiggle", "hey": "happy-wiggle", "howdy": "happy-wiggle",
	"yes": "nod", "yeah": "nod", "yep": "nod", "sure": "nod", "absolutely": "nod", "definitely": "nod", "okay": "nod", "ok": "nod",
	"no": "shake", "nope": "shake", "never": "shake",
	"great": "bounce", "awesome": "bounce", "wonderful": "bounce", "amazing": "bounce", "fantastic": "bounce",
	"yay": "bounce", "hooray": "bounce", "congratulations": "bounce", "wow": "bounce", "love": "bounce",
	"sorry": "droop", "unfortunately": "droop", "oops": "droop",
	"hmm": "think", "hm": "think", "um": "think", "uh": "think",
}

// autoLook is the name of the synthetic tag that turns toward the listener.
const autoLook = "look-at-listener"

// clause is a stretch of the spoken text between punctuation.
type clause struct {
	start, end int  // byte offsets in ESML.Text, end after its punctuation
	first      bool // first clause of its sentence
	sentence   int  // index of its sentence
	sentEnd    int  // where its sentence ends
	question   bool // its sentence ends with '?'
	comma      bool // it follows a comma, semicolon or colon
}

// clauses cuts text into clauses: sentences end at '.', '!', '?' or '…'
// followed by white space or the end, clauses at ',', ';' or ':' followed
// by white space.
func clauses(text string) []clause {
	var out []clause
	start, sentence := -1, 0
	afterComma := false
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if start < 0 && !unicode.IsSpace(r) {
			start = i
		}
		end := i + n
		atEnd := end >= len(text)
		nextSpace := atEnd
		if !atEnd {
			nr, _ := utf8.DecodeRuneInString(text[end:])
			nextSpace = unicode.IsSpace(nr)
		}
		switch {
		case start >= 0 && strings.ContainsRune(".!?…", r) && nextSpace:
			// Runs like "?!" and "..." end together.
			out = append(out, clause{start: start, end: end, first: len(out) == 0 || out[len(out)-1].sentence != sentence, sentence: sentence, comma: afterComma})
			q := r == '?' || strings.Contains(text[max(i-2, start):end], "?")
			for k := len(out) - 1; k >= 0 && out[k].sentence == sentence; k-- {
				out[k].sentEnd, out[k].question = end, q
			}
			sentence++
			start, afterComma = -1, false
		case start >= 0 && strings.ContainsRune(",;:", r) && nextSpace:
			out = append(out, clause{start: start, end: end, first: len(out) == 0 || out[len(out)-1].sentence != sentence, sentence: sentence, comma: afterComma})
			start, afterComma = -1, true
		}
		i = end
	}
	if start >= 0 {
		out = append(out, clause{start: start, end: len(text), first: len(out) == 0 || out[len(out)-1].sentence != sentence, sentence: sentence, comma: afterComma})
	}
	// A sentence without final punctuation ends with the text.
	for k := range out {
		if out[k].sentEnd == 0 {
			out[k].sentEnd = len(text)
		}
	}
	return out
}

// autoTags returns the synthetic tags the rules add to doc: the look toward
// the listener at the start (when look is true), and animation tags at the
// start of the clauses they belong to. Explicit <anim> and <es> tags keep
// their clause to themselves.
func autoTags(doc *ESML, r AutoRules, look bool) []Tag {
	if !r.Beat && !r.HotWords && !r.Punctuation || strings.TrimSpace(doc.Text) == "" {
		return nil
	}
	explicit := func(c clause) bool {
		for _, t := range doc.Tags {
			if (t.Name == "anim" || t.Name == "es") && t.Start >= c.start && t.Start < c.end {
				return true
			}
			if (t.Name == "anim" || t.Name == "es") && t.End > t.Start && t.Start < c.end && t.End > c.start {
				return true
			}
		}
		return false
	}
	var out []Tag
	anim := func(at, end int, name string) {
		out = append(out, Tag{Name: "anim", Attrs: []Attr{{Name: "name", Value: name}, {Name: "nonBlocking", Value: "true"}},
			Start: at, End: end, auto: true})
	}
	cs := clauses(doc.Text)
	if r.Beat && look && len(cs) > 0 {
		out = append(out, Tag{Name: autoLook, Start: 0, End: 0, auto: true})
	}
	tilting := -1 // the sentence a question tilt covers
	for i, c := range cs {
		if explicit(c) || c.sentence == tilting {
			continue
		}
		if r.HotWords {
			if name := hotWordIn(doc.Text[c.start:c.end]); name != "" {
				anim(c.start, c.start, name)
				continue
			}
		}
		switch {
		case r.Punctuation && c.first && c.question:
			anim(c.start, c.sentEnd, autoQuestion)
			tilting = c.sentence
		case r.Beat && c.first && i > 0:
			anim(c.start, c.start, autoBeat)
		case r.Punctuation && c.comma && len(strings.Fields(doc.Text[c.start:c.end])) >= 3:
			anim(c.start, c.start, autoBlink)
		}
	}
	return out
}

// hotWordIn returns the animation of the first hot word in s, or "".
func hotWordIn(s string) string {
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && r != '\'' && r != '’'
	}) {
		w = strings.NewReplacer("'", "", "’", "").Replace(w)
		if a, ok := hotWords[w]; ok {
			return a
		}
	}
	return ""
}
