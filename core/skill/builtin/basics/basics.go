// Package basics is the robot's first built-in skill: it answers
// greetings with a spoken JCP action. (The time and the date are the clock
// skill's, small talk the chitchat skill's.)
package basics

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"log/slog"

	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/base"
	"github.com/openjibo/jibod/core/skill/builtin/internal/kit"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
)

// ManifestID is the skill's manifest id; ID is its id on the bus.
const (
	ManifestID = "jibo/basics"
	ID         = "jibo.basics"
)

// IntentGreet is the skill's intent, as the locale's .intent file names it.
const IntentGreet = "greet"

//go:embed locale
var files embed.FS

// Manifest is what the skill declares: it only speaks.
func Manifest() *registry.Manifest {
	return &registry.Manifest{ID: ManifestID, Name: "Basics", Version: "1.1.0",
		Description:       "Answers greetings.",
		Permissions:       []registry.Permission{registry.PermSpeech},
		SafetyLevel:       registry.SafetyLow,
		IdempotentIntents: []string{IntentGreet}}
}

// Skill answers greetings.
type Skill struct {
	manifest *registry.Manifest
	locale   *kit.Locale
	base     *base.Skill
}

// Options configure the skill.
type Options struct {
	// Rand picks among phrasings; nil means random.
	Rand func(n int) int
	// Logger; nil means slog.Default().
	Logger *slog.Logger
}

var _ skill.Skill = (*Skill)(nil)

// New loads and checks the skill's locale.
func New(opts Options) (*Skill, error) {
	m := Manifest()
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("basics skill: %w", err)
	}
	sub, err := fs.Sub(files, "locale")
	if err != nil {
		return nil, fmt.Errorf("basics skill: %w", err)
	}
	loc, err := kit.LoadLocale(sub, opts.Rand)
	if err != nil {
		return nil, fmt.Errorf("basics skill: %w", err)
	}
	s := &Skill{manifest: m, locale: loc}
	if s.base, err = base.New(ID, s.handle, base.Options{Logger: opts.Logger}); err != nil {
		return nil, fmt.Errorf("basics skill: %w", err)
	}
	return s, nil
}

// Manifest declares the skill to the host.
func (s *Skill) Manifest() *skill.Manifest { return s.manifest.Clone() }

// Locale is the skill's locale tree.
func (s *Skill) Locale() fs.FS { return s.locale.FS() }

// Handle answers one request.
func (s *Skill) Handle(ctx context.Context, req *protocol.Request) (*protocol.Response, error) {
	return s.base.Handle(ctx, req)
}

func (s *Skill) handle(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
	if req.Type != protocol.TypeListenLaunch {
		return nil, fmt.Errorf("handles LISTEN_LAUNCH only, not %s", req.Type)
	}
	if in := req.Data.Result.NLU.IntentName(); in != IntentGreet {
		return nil, fmt.Errorf("has no intent %q", in)
	}
	text, err := s.locale.Render(kit.Lang(req), IntentGreet, nil)
	if err != nil {
		return nil, err
	}
	return kit.Say(req, protocol.Skill(ID), text)
}
