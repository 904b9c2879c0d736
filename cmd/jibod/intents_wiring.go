package main

import (
	"fmt"
	"log/slog"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/pipeline"
)

// intentEngines is the robot's understanding of text: both engines behind
// the registration service on a bus, and their pipeline tiers. The robot
// and `jibod intents match` build it the same way, here.
type intentEngines struct {
	templates *intent.TemplateEngine
	keywords  *intent.KeywordEngine
	service   *intent.Service
	// tiers are the engines' pipeline plugins by id.
	tiers map[string]pipeline.Plugin
}

// startIntentEngines builds the engines and starts the service on b.
func startIntentEngines(b *bus.Bus, log *slog.Logger) (*intentEngines, error) {
	ie := &intentEngines{
		templates: intent.NewTemplateEngine(intent.EngineOptions{Logger: log}),
		keywords:  intent.NewKeywordEngine(intent.KeywordOptions{Logger: log}),
		tiers:     map[string]pipeline.Plugin{},
	}
	ie.service = intent.NewService(b, ie.templates, log, intent.WithKeywordEngine(ie.keywords))
	if err := ie.service.Start(); err != nil {
		return nil, fmt.Errorf("starting the intent service: %w", err)
	}
	for _, p := range intent.TemplatePlugins(ie.templates) {
		ie.tiers[p.ID()] = p
	}
	for _, p := range intent.KeywordPlugins(ie.keywords) {
		ie.tiers[p.ID()] = p
	}
	return ie, nil
}

// inOrder returns the tiers named by ids, in that order, skipping ids that
// are not tiers (other pipeline stages).
func (ie *intentEngines) inOrder(ids []string) []pipeline.Plugin {
	var out []pipeline.Plugin
	for _, id := range ids {
		if p, ok := ie.tiers[id]; ok {
			out = append(out, p)
		}
	}
	return out
}
