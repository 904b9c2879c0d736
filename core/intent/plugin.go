package intent

import (
	"context"

	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/session"
)

// Confidence tiers: each engine is offered to the pipeline as three plugins
// that claim disjoint confidence bands, so a deployment can put other
// stages between a sure match and a guess, and interleave the engines band
// by band.
//
// With the template engine's scoring (a literal word 1.0, a slot word from
// the entity list 0.85, an open slot word 0.5, averaged over the
// utterance):
//
//	templates-high    confidence >= 0.8   exact samples; slots that are short or listed values
//	templates-medium  0.6 <= c < 0.8      about a third of the words are open slot text
//	templates-low     c < 0.6             mostly open slot text
//
// The keyword engine's confidence is the share of the utterance's words
// that its required, one_of and optional phrases account for; the rest are
// words it knows nothing about:
//
//	keywords-high     confidence >= 0.75  at most one word in four unexplained ("what's the weather like")
//	keywords-medium   0.5 <= c < 0.75     half or more of the words are keywords
//	keywords-low      c < 0.5             the definition holds, but most words are unexplained
const (
	TierHigh   = 0.8
	TierMedium = 0.6

	KeywordTierHigh   = 0.75
	KeywordTierMedium = 0.5
)

// Matcher is an engine a tier plugin asks: TemplateEngine or KeywordEngine.
type Matcher interface {
	Match(utterance, lang, sessionID string) *Result
}

// TierPlugin offers one engine to the pipeline for one confidence band.
type TierPlugin struct {
	id       string
	engine   Matcher
	min, max float64 // claims confidence in [min, max)
	// list names the engine's enabled intents for a session.
	list func(sessionID string) []pipeline.IntentRef
}

var _ pipeline.IntentLister = (*TierPlugin)(nil)

// TemplatePlugins returns the three tiers of the template engine:
// templates-high, templates-medium and templates-low.
func TemplatePlugins(e *TemplateEngine) []*TierPlugin {
	return tiers("templates", e, TierHigh, TierMedium, func(sid string) []pipeline.IntentRef {
		var out []pipeline.IntentRef
		for _, r := range e.Registrations(sid) {
			if r.Enabled {
				out = append(out, pipeline.IntentRef{SkillID: r.SkillID, IntentName: r.IntentName, Lang: r.Lang})
			}
		}
		return out
	})
}

// KeywordPlugins returns the three tiers of the keyword engine:
// keywords-high, keywords-medium and keywords-low.
func KeywordPlugins(e *KeywordEngine) []*TierPlugin {
	return tiers("keywords", e, KeywordTierHigh, KeywordTierMedium, func(sid string) []pipeline.IntentRef {
		var out []pipeline.IntentRef
		for _, r := range e.Registrations(sid) {
			if r.Enabled {
				out = append(out, pipeline.IntentRef{SkillID: r.SkillID, IntentName: r.IntentName, Lang: r.Lang})
			}
		}
		return out
	})
}

func tiers(prefix string, e Matcher, high, medium float64, list func(string) []pipeline.IntentRef) []*TierPlugin {
	return []*TierPlugin{
		{id: prefix + "-high", engine: e, min: high, max: 2, list: list},
		{id: prefix + "-medium", engine: e, min: medium, max: high, list: list},
		{id: prefix + "-low", engine: e, min: 0, max: medium, list: list},
	}
}

// ID is the plugin's pipeline id.
func (p *TierPlugin) ID() string { return p.id }

// Intents lists the engine's enabled intents in the session's pool
// ("default" and its own), for ovos.pipeline.<id>.intents.list (PIPE-31).
// Every tier lists them all: which band an intent falls in depends on the
// utterance, not on the intent.
func (p *TierPlugin) Intents(sessionID string) []pipeline.IntentRef {
	if p.list == nil {
		return nil
	}
	return p.list(sessionID)
}

// Match returns the engine's best match among the candidates whose
// confidence falls in this plugin's band; the first candidate wins a tie.
func (p *TierPlugin) Match(ctx context.Context, utterances []string, lang string, s session.Session) (*pipeline.Match, error) {
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
		Utterance: bestU, Confidence: best.Confidence, Why: best.Why,
	}, nil
}
