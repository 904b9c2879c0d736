// Package capabilities is the built-in "what can you do" skill: it says
// in one short sentence what a few of the installed skills do, read from
// their manifests, and how many more there are; "what else can you do"
// goes on with the next few until all have been named, so the answer
// grows with the robot and stays short.
package capabilities

import (
	"context"
	"embed"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
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
const MaxNamed = 3

// GoOnWithin is how long "what else can you do" goes on from the last
// answer; later, it starts again.
const GoOnWithin = 10 * time.Minute

// maxSaid bounds what is said of one skill, in characters: its
// description's first clause, cut at a word beyond this.
const maxSaid = 60

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
	// Hidden are manifest ids never named (the fallback, which is no
	// ability one asks for).
	Hidden []string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Rand orders the skills named and picks among phrasings; nil means
	// random.
	Rand func(n int) int
	// Logger; nil means slog.Default().
	Logger *slog.Logger
}

// Skill says what the robot can do.
type Skill struct {
	*kit.Skill
	opts Options
	rnd  func(n int) int

	mu    sync.Mutex
	order []string  // ids in the order they are named
	said  int       // how many of order have been named
	last  time.Time // when the last answer was given
}

var _ skill.Skill = (*Skill)(nil)

// New loads and checks the skill.
func New(opts Options) (*Skill, error) {
	s := &Skill{opts: opts, rnd: opts.Rand}
	if s.opts.Skills == nil {
		s.opts.Skills = func() []*registry.Manifest { return nil }
	}
	if s.opts.Now == nil {
		s.opts.Now = time.Now
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
	said := ""
	if a := req.Data.Result.ASR; a != nil {
		said = a.Text
	}
	abilities := s.abilities()
	if len(abilities) == 0 {
		text, err := s.Render(lang, "nothing", nil)
		if err != nil {
			return nil, err
		}
		return kit.Say(req, protocol.Skill(ID), text)
	}
	named, more, goOn := s.next(abilities, asksForMore(said))
	var b strings.Builder
	switch {
	case len(named) == 0:
		text, err := s.Render(lang, "all_said", nil)
		if err != nil {
			return nil, err
		}
		b.WriteString(text)
	default:
		dialog := "first"
		if goOn {
			dialog = "also"
		}
		text, err := s.Render(lang, dialog, map[string]string{"list": esml(spokenList(named))})
		if err != nil {
			return nil, err
		}
		b.WriteString(text)
		end, values := "outro", map[string]string(nil)
		if more > 0 {
			end, values = "more", map[string]string{"count": strconv.Itoa(more)}
		}
		if text, err = s.Render(lang, end, values); err != nil {
			return nil, err
		}
		b.WriteString(" " + text)
	}
	return kit.Say(req, protocol.Skill(ID), b.String())
}

// asksForMore reports whether the question goes on from the last answer:
// "what else can you do", "what more".
func asksForMore(said string) bool {
	for _, w := range strings.Fields(strings.ToLower(said)) {
		if w = strings.Trim(w, "?!.,"); w == "else" || w == "more" {
			return true
		}
	}
	return false
}

// abilities maps each skill to name, by manifest id, to what it does as
// said after "I can".
func (s *Skill) abilities() map[string]string {
	out := map[string]string{}
	for _, m := range s.opts.Skills() {
		if m == nil || m.ID == ManifestID || slices.Contains(s.opts.Hidden, m.ID) {
			continue
		}
		if a := ability(m); a != "" {
			out[m.ID] = a
		}
	}
	return out
}

// next returns the abilities to name now, how many remain unnamed after
// them, and whether this answer goes on from the last. A fresh answer
// shuffles the skills (each answer may start with others); going on takes
// the next ones, skills installed since coming last.
func (s *Skill) next(abilities map[string]string, more bool) (named []string, left int, goOn bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.opts.Now()
	goOn = more && !s.last.IsZero() && now.Sub(s.last) <= GoOnWithin
	s.last = now
	if !goOn {
		ids := make([]string, 0, len(abilities))
		for id := range abilities {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		// A partial Fisher–Yates shuffle of the first few.
		for i := 0; i < min(MaxNamed, len(ids)); i++ {
			j := i + s.rnd(len(ids)-i)
			ids[i], ids[j] = ids[j], ids[i]
		}
		s.order, s.said = ids, 0
	}
	var order []string
	for _, id := range s.order {
		if _, ok := abilities[id]; ok {
			order = append(order, id)
		}
	}
	for id := range abilities {
		if !slices.Contains(order, id) {
			order = append(order, id)
		}
	}
	s.said = min(s.said, len(order))
	end := min(s.said+MaxNamed, len(order))
	for _, id := range order[s.said:end] {
		named = append(named, abilities[id])
	}
	s.order, s.said = order, end
	return named, len(order) - end, goOn
}

// ability is what a skill does as said after "I can": its description's
// first clause with the verb made plain ("Sets timers, …" → "set
// timers"), or, for a description that does not start with a verb, help
// with the skill by name ("help with trivia"). "" when there is nothing
// to say.
func ability(m *registry.Manifest) string {
	d := strings.Join(strings.Fields(m.Description), " ")
	if i := strings.IndexAny(d, ",.;:!?("); i >= 0 {
		d = d[:i]
	}
	if utf8.RuneCountInString(d) > maxSaid {
		cut := []rune(d)[:maxSaid]
		if i := strings.LastIndexByte(string(cut), ' '); i > 0 {
			d = string(cut)[:i]
		} else {
			d = string(cut)
		}
	}
	verb, rest, _ := strings.Cut(d, " ")
	if plain, ok := skill.PlainVerb(verb); ok && rest != "" {
		return strings.TrimSpace(plain + " " + rest)
	}
	if name := skill.SpokenName(m); name != "" {
		return "help with " + name
	}
	return ""
}

// spokenList joins phrases as English says them: "a", "a and b",
// "a, b and c".
func spokenList(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// esml escapes text for ESML: a manifest's words are never markup.
var esml = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace
