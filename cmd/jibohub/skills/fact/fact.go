// Package fact is jibohub's single-turn remote skill "openjibo/fact": "tell
// me a fun fact" gets one fun fact and the skill ends.
package fact

import (
	"context"
	"embed"
	"log/slog"
	"time"

	"github.com/openjibo/jibod/cmd/jibohub/skills/internal/cloud"
	"github.com/openjibo/jibod/core/skill/graph"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/jcp"
)

// ID is the skill's id; IntentFunFact the intent that launches it.
const (
	ID            = "openjibo/fact"
	IntentFunFact = "fun_fact"
)

//go:embed locale
var files embed.FS

// Options configure the skill.
type Options struct {
	// Seed makes the choice of fact deterministic; 0 means random.
	Seed uint64
	// Logger; nil means slog.Default().
	Logger *slog.Logger
}

// Manifest is the skill's registry manifest.
func Manifest() *registry.Manifest {
	return &registry.Manifest{
		ID: ID, Version: "1.0.0", Name: "Fun facts",
		Description: "Tells a fun fact.",
		Permissions: cloud.Permissions, SafetyLevel: registry.SafetyLow,
		Timeout:           2 * time.Second,
		Limits:            registry.Limits{CallsPerMinute: registry.MaxCallsPerMinute},
		IdempotentIntents: []string{IntentFunFact},
	}
}

// New builds the skill.
func New(opts Options) (*cloud.Skill, error) {
	return cloud.New(cloud.Spec{
		Manifest: Manifest(),
		Config:   protocol.ManifestSkillConfig{Intents: []protocol.ManifestIntent{{Name: IntentFunFact}}},
		Files:    files, Rand: cloud.Rand(opts.Seed), Logger: opts.Logger,
		Build: func(s *cloud.Skill, _ *slog.Logger) (*graph.Graph, error) {
			tell := graph.JCP("Tell", func(_ context.Context, d *graph.Data) (*jcp.Action, error) {
				intro, err := s.Render(d.General.Lang, "intro", nil)
				if err != nil {
					return nil, err
				}
				fact, err := s.Render(d.General.Lang, "fact", nil)
				if err != nil {
					return nil, err
				}
				return jcp.NewAction(jcp.Say(intro + " " + fact)), nil
			}, nil, "Done").Final()
			g := graph.New("fact", "Done")
			_ = g.AddNode(tell, graph.ToExit("Done", "Done"))
			return g, g.Finalize()
		},
	})
}
