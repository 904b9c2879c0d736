package grammar

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
)

// Lexicon is the recogniser's pronouncing dictionary, as a Builder uses
// it.
type Lexicon interface {
	// Unknown returns the words of words it cannot pronounce.
	Unknown(ctx context.Context, words []string) ([]string, error)
	// Pronounce returns the phones of a spelling (a phonetic name such
	// as "shivawn"); "" with an error when it cannot.
	Pronounce(ctx context.Context, spelling string) (string, error)
	// SetNames gives words (first names) pronunciations of their own,
	// replacing those given before.
	SetNames(names map[string][]string) error
}

// Person is someone the robot knows, as the grammar hears them.
type Person struct {
	FirstName, LastName string
	// PhoneticName spells how the first name sounds ("shivawn" for
	// Siobhan); "" when the spelling says it.
	PhoneticName string
}

// MaxNameVariants is how many pronunciations one word of a first name
// gets at most, the dictionary's own included.
const MaxNameVariants = 4

// ReferentSlot is the slot of an answer that names someone the robot
// knows ("this is {loop_member_referent}").
const ReferentSlot = "loop_member_referent"

// The answer grammar's sentences of a bare name (the people's first and
// full names) are an intent of their own: an answer template cannot be a
// slot alone (GRM-07).
const (
	NamesSkill  = "jibo.loop"
	NamesIntent = "loop_member_name"
)

// Builder makes the recogniser's grammars from what the robot's skills
// registered and the people it knows, leaving out sentences with words
// the lexicon cannot pronounce. Build and BuildAnswers may be called from
// several goroutines.
type Builder struct {
	// Intents lists the command intents as they are now.
	Intents func() []Intent
	// Answers lists the answer rules of the skills' questions; nil means
	// there is no answer grammar.
	Answers func() []Intent
	// People lists the people the robot knows; nil means nobody. Open
	// slots take their names, the answer grammar has each name alone (a
	// bare "Ann"), and answers naming someone take their names only.
	People func() []Person
	// Lexicon says which words can be heard and how names sound.
	Lexicon Lexicon
	// Options are the grammars' options; the people's names are added to
	// OpenVocabulary, Unknown is the lexicon's.
	Options Options
	// Log receives what was built and what was left out; nil is
	// slog.Default().
	Log *slog.Logger

	// phonetic caches the pronunciations of phonetic spellings ("" for
	// one that could not be pronounced, warned about once): grammars are
	// rebuilt at every burst of registrations, the people rarely change.
	mu       sync.Mutex
	phonetic map[string]string
}

func (b *Builder) log() *slog.Logger {
	if b.Log == nil {
		return slog.Default()
	}
	return b.Log
}

func (b *Builder) people() []Person {
	if b.People == nil {
		return nil
	}
	return b.People()
}

// Build makes the command grammar.
func (b *Builder) Build(ctx context.Context) (*Grammar, error) {
	if b.Intents == nil {
		return nil, errNoIntents
	}
	if b.Options.TemplateLanguage == nil {
		return nil, errNoLanguage
	}
	people := b.people()
	// Before the grammar's words are looked up, so a grammar rebuilt for a
	// change of the people is applied with the names as they are now said.
	if err := b.setNamePronunciations(ctx, people); err != nil {
		return nil, err
	}
	g, err := b.compile(ctx, b.Intents(), people)
	if err != nil {
		return nil, err
	}
	b.log().Info("speech grammar", "intents", g.Intents(), "samples", g.Samples(), "words", len(g.Words()), "dropped", len(g.Dropped()))
	return g, nil
}

// BuildAnswers makes the answer grammar: nil when there are no answer
// rules.
func (b *Builder) BuildAnswers(ctx context.Context) (*Grammar, error) {
	if b.Answers == nil {
		return nil, nil
	}
	if b.Options.TemplateLanguage == nil {
		return nil, errNoLanguage
	}
	people := b.people()
	names := nameSentences(b.Options.TemplateLanguage, people)
	var intents []Intent
	for _, in := range b.Answers() {
		if in, ok := WithReferentNames(in, names); ok {
			intents = append(intents, in)
		}
	}
	if len(intents) == 0 {
		return nil, nil
	}
	if len(names) > 0 {
		intents = append(intents, Intent{Skill: NamesSkill, Name: NamesIntent, Lang: b.Options.Lang, Templates: names})
	}
	g, err := b.compile(ctx, intents, people)
	if err != nil {
		return nil, fmt.Errorf("answer grammar: %w", err)
	}
	if g.Samples() == 0 {
		return nil, nil
	}
	b.log().Info("speech answer grammar", "rules", g.Intents(), "samples", g.Samples(), "words", len(g.Words()), "dropped", len(g.Dropped()))
	return g, nil
}

// WithReferentNames makes in's ReferentSlot a name of people's: as an
// open slot it took any words of the grammar, and "five minutes", said to
// the timer's "For how long?", was heard as "im it its". With nobody
// known, the sentences through the slot are left out (ok is false when
// none is left).
func WithReferentNames(in Intent, names []string) (_ Intent, ok bool) {
	slot := "{" + ReferentSlot + "}"
	if !slices.ContainsFunc(in.Templates, func(t string) bool { return strings.Contains(t, slot) }) {
		return in, true
	}
	if len(names) > 0 {
		ents := maps.Clone(in.Entities)
		if ents == nil {
			ents = map[string][]string{}
		}
		ents[ReferentSlot] = names
		in.Entities = ents
		return in, true
	}
	in.Templates = slices.DeleteFunc(slices.Clone(in.Templates), func(t string) bool { return strings.Contains(t, slot) })
	return in, len(in.Templates) > 0
}

// compile builds a grammar of intents, leaving out the sentences with
// words the lexicon cannot pronounce.
func (b *Builder) compile(ctx context.Context, intents []Intent, people []Person) (*Grammar, error) {
	opts := b.Options
	opts.OpenVocabulary = append(slices.Clip(opts.OpenVocabulary), nameWords(people)...)
	opts.Unknown = nil
	g, err := Build(intents, opts)
	if err != nil {
		return nil, err
	}
	unknown, err := b.Lexicon.Unknown(ctx, g.Words())
	if err != nil {
		return nil, err
	}
	if len(unknown) > 0 {
		opts.Unknown = map[string]bool{}
		for _, w := range unknown {
			opts.Unknown[w] = true
		}
		b.log().Warn("words the recogniser cannot pronounce are left out of the grammar", "words", unknown)
		if g, err = Build(intents, opts); err != nil {
			return nil, err
		}
	}
	for _, d := range g.Dropped() {
		b.log().Debug("left out of the speech grammar", "what", d.String())
	}
	return g, nil
}

// nameSentences are the people's first names and full names as sentences
// in the template grammar (ASR-normalised words: "O'Brien" is "obrien").
func nameSentences(tl TemplateLanguage, people []Person) []string {
	var out []string
	for _, p := range people {
		full := strings.TrimSpace(p.FirstName + " " + p.LastName)
		for _, n := range []string{p.FirstName, full} {
			if w := tl.Normalize(n); w != "" && !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	return out
}

// nameWords are the words of the people's first and last names, for open
// slots.
func nameWords(people []Person) []string {
	var out []string
	for _, p := range people {
		out = append(out, p.FirstName)
		if p.LastName != "" {
			out = append(out, p.LastName)
		}
	}
	return out
}

// setNamePronunciations gives the lexicon the people's phonetic names: a
// first name is also heard as its phonetic name is said ("siobhan" as
// "shivawn" sounds), besides the dictionary's way. A phonetic name that
// cannot be pronounced (not in the dictionary, no letter-to-sound rules)
// is left out with a warning.
func (b *Builder) setNamePronunciations(ctx context.Context, people []Person) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	cache := map[string]string{} // these people's spellings only
	say := func(spelling string) (string, error) {
		if p, ok := b.phonetic[spelling]; ok {
			cache[spelling] = p
			return p, nil
		}
		p, err := b.Lexicon.Pronounce(ctx, spelling)
		if err != nil {
			if ctx.Err() != nil {
				return "", ctx.Err()
			}
			b.log().Warn("a phonetic name the recogniser cannot pronounce is not listened for", "phonetic", spelling, "err", err)
		}
		cache[spelling] = p
		return p, nil
	}
	names := map[string][]string{}
	for _, m := range people {
		if m.PhoneticName == "" {
			continue
		}
		first := strings.Fields(b.Options.TemplateLanguage.Normalize(m.FirstName))
		spoken := strings.Fields(b.Options.TemplateLanguage.Normalize(m.PhoneticName))
		// Each word of the first name needs the words that say it.
		var pairs [][2]string
		switch {
		case len(first) == 1:
			pairs = [][2]string{{first[0], strings.Join(spoken, " ")}}
		case len(first) == len(spoken):
			for i := range first {
				pairs = append(pairs, [2]string{first[i], spoken[i]})
			}
		default:
			b.log().Warn("a phonetic name whose words do not match the first name's is not listened for",
				"first", m.FirstName, "phonetic", m.PhoneticName)
		}
		for _, p := range pairs {
			if p[0] == p[1] || len(names[p[0]]) == MaxNameVariants {
				continue // the dictionary's own, or enough ways to say it
			}
			phones, err := say(p[1])
			if err != nil {
				return err
			}
			if phones != "" && !slices.Contains(names[p[0]], phones) {
				names[p[0]] = append(names[p[0]], phones)
			}
		}
	}
	b.phonetic = cache
	if err := b.Lexicon.SetNames(names); err != nil {
		return fmt.Errorf("the people's phonetic names: %w", err)
	}
	return nil
}

// errNoIntents is returned when a Builder has no Intents to list.
var errNoIntents = errors.New("grammar builder: no intents to list")

// errNoLanguage is returned when a Builder has no template language.
var errNoLanguage = errors.New("grammar builder: no template language (Options.TemplateLanguage)")
