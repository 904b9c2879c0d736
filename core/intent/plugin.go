package intent

import (
	"context"
	"fmt"

	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/session"
)

// Confidence tiers: each engine is offered to the pipeline as three plugins
// that claim disjoint confidence bands, so a deployment can put other
// stages between a sure match and a guess. With the template engine's
// scoring (a literal word 1.0, a slot word from the entity list 0.85, an
// open slot word 0.5, averaged over the utterance):
//
//	templates-high    confidence >= 0.8   exact samples; slots that are short or listed values
//	templates-medium  0.6 <= c < 0.8      about a third of the words are open slot text
//	templates-low     c < 0.6             mostly open slot text
const (
	TierHigh   = 0.8
	TierMedium = 0.6
)

// TemplatePlugin offers the template engine to the pipeline for one band.
type TemplatePlugin struct {
	id       string
	engine   *TemplateEngine
	min, max float64 // claims confidence in [min, max)
}

var _ pipeline.Plugin = (*TemplatePlugin)(nil)

// TemplatePlugins returns the three tiers of the template engine:
// templates-high, templates-medium and templates-low.
func TemplatePlugins(e *TemplateEngine) []*TemplatePlugin {
	return []*TemplatePlugin{
		{id: "templates-high", engine: e, min: TierHigh, max: 2},
		{id: "templates-medium", engine: e, min: TierMedium, max: TierHigh},
		{id: "templates-low", engine: e, min: 0, max: TierMedium},
	}
}

// ID is the plugin's pipeline id.
func (p *TemplatePlugin) ID() string { return p.id }

// Match returns the best template match among the candidates whose
// confidence falls in this plugin's band.
func (p *TemplatePlugin) Match(ctx context.Context, utterances []string, lang string, s session.Session) (*pipeline.Match, error) {
	var best *Result
	var bestU string
	for _, u := range utterances {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r := p.engine.Match(u, lang, s.ID())
		if r == nil || r.Confidence < p.min || r.Confidence >= p.max {
			continue
		}
		if best == nil || r.Confidence > best.Confidence {
			best, bestU = r, u
		}
	}
	if best == nil {
		return nil, nil
	}
	return &pipeline.Match{
		SkillID: best.SkillID, IntentName: best.IntentName, Lang: lang, Slots: best.Slots,
		Utterance: bestU, Confidence: best.Confidence,
		Why: fmt.Sprintf("%s (sample %q)", best.Why, best.Sample),
	}, nil
}
