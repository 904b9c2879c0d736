// Package greeter is jibohub's proactive remote skill "openjibo/greeter": on
// a TRIGGER of NEW_ARRIVAL or SURPRISE the hub launches it with
// PROACTIVE_LAUNCH; it greets and asks "Do you want to play trivia?"
// (answer rule globals/yes_no). Yes redirects to openjibo/trivia
// (skill-form SKILL_REDIRECT); no, or no answer, ends with "Okay, maybe
// later."
package greeter

import (
	"context"
	"embed"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/openjibo/jibod/cmd/jibohub/skills/internal/cloud"
	"github.com/openjibo/jibod/cmd/jibohub/skills/trivia"
	"github.com/openjibo/jibod/core/skill/graph"
	"github.com/openjibo/jibod/core/skill/mim"
	"github.com/openjibo/jibod/core/skill/mim/factory"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
)

// ID is the skill's id.
const ID = "openjibo/greeter"

//go:embed locale mims
var files embed.FS

// Options configure the skill.
type Options struct {
	// Logger; nil means slog.Default().
	Logger *slog.Logger
	// Now is the clock of prompt data; nil means time.Now.
	Now func() time.Time
}

// Manifest is the skill's registry manifest: it starts on its own.
func Manifest() *registry.Manifest {
	return &registry.Manifest{
		ID: ID, Version: "1.0.0", Name: "Greeter",
		Description: "Greets people who arrive and offers a game of trivia.",
		Permissions: append([]registry.Permission{registry.PermProactive}, cloud.Permissions...),
		SafetyLevel: registry.SafetyModerate, Timeout: 2 * time.Second,
		Limits: registry.Limits{CallsPerMinute: registry.MaxCallsPerMinute},
	}
}

// memo is what each proactive registration hands PROACTIVE_LAUNCH.
type memo struct {
	Trigger string `json:"trigger"`
}

// Config is the hub manifest: no launch intents, one proactive
// registration per trigger source (topics hold the source).
func Config() protocol.ManifestSkillConfig {
	reg := func(source string) protocol.ProactiveRegistration {
		m, _ := json.Marshal(memo{Trigger: source})
		return protocol.ProactiveRegistration{Memo: m, Topics: []string{source}, ContextRules: []protocol.ContextRule{}}
	}
	return protocol.ManifestSkillConfig{Intents: []protocol.ManifestIntent{},
		Proactives: []protocol.ProactiveRegistration{reg(protocol.TriggerNewArrival), reg(protocol.TriggerSurprise)}}
}

const greetingKey = "greeting"

// New builds the skill.
func New(opts Options) (*cloud.Skill, error) {
	return cloud.New(cloud.Spec{
		Manifest: Manifest(), Config: Config(), Files: files, Logger: opts.Logger,
		Build: func(s *cloud.Skill, log *slog.Logger) (*graph.Graph, error) {
			offer, err := mim.Load(files, "mims/OfferTrivia.mim")
			if err != nil {
				return nil, err
			}
			qn, err := factory.QN("OfferTrivia", factory.Options{MIMs: factory.MIMs(offer), Now: opts.Now,
				Slimmer: &mim.Slimmer{Logger: log},
				SkillData: func(_ context.Context, d *graph.Data) (map[string]any, error) {
					var g string
					_, err := d.Get(greetingKey, &g)
					return map[string]any{"greeting": g}, err
				}})
			if err != nil {
				return nil, err
			}
			greet := graph.Func("Greet", []string{"Offer"}, nil, func(_ context.Context, d *graph.Data) (graph.ExitResult, error) {
				g, err := greeting(s, d)
				if err != nil {
					return graph.ExitResult{}, err
				}
				return graph.ExitResult{Transition: "Offer"}, d.Set(greetingKey, g)
			})
			decide := graph.Func("Decide", []string{"Later"}, nil, func(_ context.Context, d *graph.Data) (graph.ExitResult, error) {
				if d.NLU().IntentName() == "yes" {
					return graph.ExitResult{Redirect: &graph.Redirect{SkillID: trivia.ID}}, nil
				}
				return graph.ExitResult{Transition: "Later"}, nil
			})
			later := s.SayNode("Later", "later", "End")
			g := graph.New("greeter", "End")
			_ = g.AddNode(greet, graph.To("Offer", qn.Initial()))
			_ = g.AddSubGraph(qn, graph.To(factory.Success, decide), graph.To(factory.NoMatch, later),
				graph.To(factory.NoInput, later))
			_ = g.AddNode(decide, graph.To("Later", later))
			_ = g.AddNode(later, graph.ToExit("End", "End"))
			return g, g.Finalize()
		},
	})
}

// greeting is what the greeter says first, by the trigger in the memo.
func greeting(s *cloud.Skill, d *graph.Data) (string, error) {
	var m memo
	if res, ok := d.Result.(protocol.Result); ok && len(res.Memo) > 0 {
		_ = json.Unmarshal(res.Memo, &m) // an unreadable memo greets as an arrival
	}
	lang := d.General.Lang
	if m.Trigger == protocol.TriggerSurprise {
		return s.Render(lang, "surprise", nil)
	}
	if p := d.Runtime.Perception.Speaker; p != nil && *p != "" {
		for _, u := range d.Runtime.Loop.Users {
			if u.ID == *p && u.FirstName != "" {
				return s.Render(lang, "arrival_name", map[string]string{"name": u.FirstName})
			}
		}
	}
	return s.Render(lang, "arrival", nil)
}
