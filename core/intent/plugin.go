package intent

import (
	"context"
	"fmt"

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
//
// A low tier, and templates-medium, claim a match only when Plausible:
// confidence this low is a guess, and a guess that rests on function words ("{name} in {area}"
// said as "what is the state of curtain left") or that leaves more of
// what was said unexplained than it explains ("i love stormy weather" for
// the weather) is a wrong action more often than a right one. Refusing
// lets the fallback say it did not understand.
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

// Plausible reports whether a match rests on enough of what was said to
// be claimed as a guess, and when it does not, why. It needs evidence (see
// Result.Evidence): at least one content word said as a literal word of
// the sample or inside a keyword phrase, and no more content words left
// unexplained than that. Function words, fillers and open slot text are
// never evidence, and unexplained function words cost nothing. A Complete
// template match needs none: when every word of the sample was said, and
// its slots took listed values, the sample itself is the evidence, even
// one made of function words only ("what can you do" in "what can you do
// for me").
func Plausible(r *Result) (bool, string) {
	switch {
	case r.Complete && r.Unexplained == 0:
		return true, ""
	case r.Evidence == 0:
		return false, "no evidence: of the words said, only function words, fillers or open slot text match it"
	case r.Unexplained > r.Evidence:
		return false, fmt.Sprintf("%d content words unexplained, more than the %d it rests on", r.Unexplained, r.Evidence)
	}
	return true, ""
}

// TierPlugin offers one engine to the pipeline for one confidence band.
type TierPlugin struct {
	id       string
	engine   Matcher
	min, max float64 // claims confidence in [min, max)
	// guess marks a guarded tier (the low ones, templates-medium): it
	// claims only Plausible matches.
	guess bool
	// list names the engine's enabled intents for a session.
	list func(sessionID string) []pipeline.IntentRef
}

var _ pipeline.IntentLister = (*TierPlugin)(nil)

// TemplatePlugins returns the three tiers of the template engine:
// templates-high, templates-medium and templates-low.
func TemplatePlugins(e *TemplateEngine) []*TierPlugin {
	// A template's medium band is still a tolerated match whose literal
	// words may all be function words ("{name} of {area}" taking "what is
	// the state of the curtain"): on the HA corpus 63 of its 164 claims
	// were wrong, and the guard refuses 38: 29 wrong, 9 of the right
	// intent but all with wrong slots (exact accuracy is unchanged).
	return tiers("templates", e, TierHigh, TierMedium, true, func(sid string) []pipeline.IntentRef {
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
	// A keyword's medium band means half the words or more are phrases
	// the skill chose ("you there"): no guess, even in function words.
	return tiers("keywords", e, KeywordTierHigh, KeywordTierMedium, false, func(sid string) []pipeline.IntentRef {
		var out []pipeline.IntentRef
		for _, r := range e.Registrations(sid) {
			if r.Enabled {
				out = append(out, pipeline.IntentRef{SkillID: r.SkillID, IntentName: r.IntentName, Lang: r.Lang})
			}
		}
		return out
	})
}

// tiers builds an engine's three bands; guessMedium guards the medium
// band as well as the low one (see Plausible).
func tiers(prefix string, e Matcher, high, medium float64, guessMedium bool, list func(string) []pipeline.IntentRef) []*TierPlugin {
	return []*TierPlugin{
		{id: prefix + "-high", engine: e, min: high, max: 2, list: list},
		{id: prefix + "-medium", engine: e, min: medium, max: high, list: list, guess: guessMedium},
		{id: prefix + "-low", engine: e, min: 0, max: medium, list: list, guess: true},
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
// A guarded tier skips candidates that are not Plausible.
func (p *TierPlugin) Match(ctx context.Context, utterances []string, lang string, s session.Session) (*pipeline.Match, error) {
	m, _, err := p.match(ctx, utterances, lang, s)
	return m, err
}

// Refusal is a match in a guarded tier's band that the tier did not claim
// because it is not Plausible.
type Refusal struct {
	Match  pipeline.Match
	Reason string
}

// Refused returns what Match would have claimed for the utterances but
// refused as implausible, or nil: the engine's best candidate in the band
// that failed Plausible, when no candidate passed. Tools use it to show a
// skill author what a low tier declined and why.
func (p *TierPlugin) Refused(ctx context.Context, utterances []string, lang string, s session.Session) (*Refusal, error) {
	if !p.guess {
		return nil, nil // only guarded tiers refuse
	}
	m, ref, err := p.match(ctx, utterances, lang, s)
	if m != nil {
		return nil, err
	}
	return ref, err
}

func (p *TierPlugin) match(ctx context.Context, utterances []string, lang string, s session.Session) (*pipeline.Match, *Refusal, error) {
	var best, refused *Result
	var bestU, refusedU, reason string
	for _, u := range utterances {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		r := p.engine.Match(u, lang, s.ID())
		if r == nil || r.Confidence < p.min || r.Confidence >= p.max {
			continue
		}
		if p.guess {
			if ok, why := Plausible(r); !ok {
				if refused == nil || r.Confidence > refused.Confidence {
					refused, refusedU, reason = r, u, why
				}
				continue
			}
		}
		if best == nil || r.Confidence > best.Confidence {
			best, bestU = r, u
		}
	}
	if best == nil {
		if refused == nil {
			return nil, nil, nil
		}
		return nil, &Refusal{Match: toMatch(refused, refusedU, lang), Reason: reason}, nil
	}
	m := toMatch(best, bestU, lang)
	return &m, nil, nil
}

func toMatch(r *Result, u, lang string) pipeline.Match {
	return pipeline.Match{
		SkillID: r.SkillID, IntentName: r.IntentName, Lang: lang, Slots: r.Slots,
		Utterance: u, Confidence: r.Confidence, Why: r.Why,
	}
}
