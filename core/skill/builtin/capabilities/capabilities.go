// Package capabilities is the built-in "what can you do" skill: it names a
// few of the installed skills and what each does, read from their
// manifests, so the answer grows with the robot.
package capabilities

import (
	"context"
	"embed"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/builtin/internal/kit"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
)

// ManifestID is the skill's registry id; ID is its id on the bus.
const (
	ManifestID = "jibo/capabilities"
	ID         = "jibo.capabilities"
)

// IntentWhatCanYouDo is the skill's one intent.
const IntentWhatCanYouDo = "what_can_you_do"

// MaxNamed is how many skills one answer names, so it stays short.
const MaxNamed = 5

// maxSaid bounds what is said of one description, in characters: its
// first sentence, cut at a word beyond this.
const maxSaid = 140

//go:embed locale
var files embed.FS

// Manifest is what the skill declares: it only speaks.
func Manifest() *registry.Manifest {
	return &registry.Manifest{
		ID: ManifestID, Version: "1.0.0", Name: "What I can do",
		Description:       "Tells you what I can do.",
		Permissions:       []registry.Permission{registry.PermSpeech},
		Timeout:           2 * time.Second,
		SafetyLevel:       registry.SafetyLow,
		IdempotentIntents: []string{IntentWhatCanYouDo},
	}
}

// Options configure the skill.
type Options struct {
	// Skills lists the installed skills' manifests (the registry's List);
	// nil means none.
	Skills func() []*registry.Manifest
	// Rand picks which skills to name when there are more than MaxNamed,
	// and among phrasings; nil means random.
	Rand func(n int) int
	// Logger; nil means slog.Default().
	Logger *slog.Logger
}

// Skill says what the robot can do.
type Skill struct {
	*kit.Skill
	skills func() []*registry.Manifest
	rnd    func(n int) int
}

var _ skill.Skill = (*Skill)(nil)

// New loads and checks the skill.
func New(opts Options) (*Skill, error) {
	s := &Skill{skills: opts.Skills, rnd: opts.Rand}
	if s.skills == nil {
		s.skills = func() []*registry.Manifest { return nil }
	}
	if s.rnd == nil {
		s.rnd = rand.IntN
	}
	var err error
	if s.Skill, err = kit.New(Manifest(), files, kit.Options{Rand: opts.Rand, Logger: opts.Logger}, s.launch); err != nil {
		return nil, err
	}
	return s, nil
}

// launch answers one LISTEN_LAUNCH.
func (s *Skill) launch(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
	if in := req.Data.Result.NLU.IntentName(); in != IntentWhatCanYouDo {
		return nil, fmt.Errorf("no intent %q", in)
	}
	lang := kit.Lang(req)
	named := s.pick()
	var text string
	var err error
	if len(named) == 0 {
		text, err = s.Render(lang, "nothing", nil)
	} else {
		text, err = s.describe(lang, named)
	}
	if err != nil {
		return nil, err
	}
	return kit.Say(req, protocol.Skill(ID), text)
}

// pick chooses up to MaxNamed of the other skills, at random when there
// are more, in the order of their names.
func (s *Skill) pick() []*registry.Manifest {
	var others []*registry.Manifest
	for _, m := range s.skills() {
		if m != nil && m.ID != ManifestID && strings.TrimSpace(m.Description) != "" {
			others = append(others, m)
		}
	}
	if len(others) > MaxNamed {
		// A partial Fisher–Yates shuffle: each answer may name others.
		for i := range MaxNamed {
			j := i + s.rnd(len(others)-i)
			others[i], others[j] = others[j], others[i]
		}
		others = others[:MaxNamed]
	}
	slices.SortFunc(others, func(a, b *registry.Manifest) int { return strings.Compare(a.Name, b.Name) })
	return others
}

// describe says the intro, then "<name>: <what it does>." for each, then
// the outro.
func (s *Skill) describe(lang string, named []*registry.Manifest) (string, error) {
	intro, err := s.Render(lang, "intro", nil)
	if err != nil {
		return "", err
	}
	outro, err := s.Render(lang, "outro", nil)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(intro)
	for _, m := range named {
		b.WriteString(" ")
		b.WriteString(esml(m.Name))
		b.WriteString(": ")
		b.WriteString(esml(firstSentence(m.Description)))
	}
	b.WriteString(" ")
	b.WriteString(outro)
	return b.String(), nil
}

// firstSentence is the description's first sentence, its first letter
// lowered to follow "Name:" (unless the word is all capitals, like "I"),
// cut at a word past maxSaid characters, ending with a full stop.
func firstSentence(desc string) string {
	d := strings.Join(strings.Fields(desc), " ")
	if i := strings.Index(d, ". "); i >= 0 {
		d = d[:i+1]
	}
	if utf8.RuneCountInString(d) > maxSaid {
		cut := []rune(d)[:maxSaid]
		if i := strings.LastIndexByte(string(cut), ' '); i > 0 {
			d = string(cut)[:i]
		} else {
			d = string(cut)
		}
		d = strings.TrimRight(d, ",;:") + "…"
	}
	if r, n := utf8.DecodeRuneInString(d); unicode.IsUpper(r) {
		if next, _ := utf8.DecodeRuneInString(d[n:]); unicode.IsLower(next) {
			d = string(unicode.ToLower(r)) + d[n:]
		}
	}
	if !strings.HasSuffix(d, ".") && !strings.HasSuffix(d, "!") && !strings.HasSuffix(d, "?") && !strings.HasSuffix(d, "…") {
		d += "."
	}
	return d
}

// esml escapes text for ESML: a manifest's words are never markup.
var esml = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace
