// Package basics is the robot's first built-in skill: it answers
// greetings gladly, with a happy wiggle and a lift of its mood. (The time
// and the date are the clock skill's, small talk the chitchat skill's.)
package basics

import (
	"context"
	"embed"
	"fmt"
	"log/slog"

	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/builtin/internal/kit"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/jcp"
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

// Greeting is the animation a greeting is answered with.
const Greeting = "happy-wiggle"

// Manifest is what the skill declares: it speaks, wiggles (with the
// ring) and is glad.
func Manifest() *registry.Manifest {
	return &registry.Manifest{ID: ManifestID, Name: "Basics", Version: "1.2.0",
		Description: "Answers greetings.",
		Permissions: []registry.Permission{registry.PermSpeech, registry.PermMotion, registry.PermLED,
			registry.PermEmotion},
		SafetyLevel:       registry.SafetyModerate,
		IdempotentIntents: []string{IntentGreet}}
}

// Skill answers greetings.
type Skill struct {
	*kit.Skill
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
	s := &Skill{}
	var err error
	if s.Skill, err = kit.New(Manifest(), files, kit.Options{Rand: opts.Rand, Logger: opts.Logger}, s.launch); err != nil {
		return nil, err
	}
	return s, nil
}

// launch answers one LISTEN_LAUNCH.
func (s *Skill) launch(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
	if in := req.Data.Result.NLU.IntentName(); in != IntentGreet {
		return nil, fmt.Errorf("has no intent %q", in)
	}
	text, err := s.Render(kit.Lang(req), IntentGreet, nil)
	if err != nil {
		return nil, err
	}
	return kit.SayFeeling(req, protocol.Skill(ID), "<anim name='"+Greeting+"' nonBlocking='true'/>"+text, jcp.ImpactLowPos)
}
