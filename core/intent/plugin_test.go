package intent

import (
	"context"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/session"
)

// TestPlausible: a guess needs a content word of evidence and may leave no
// more content words unexplained than it rests on.
func TestPlausible(t *testing.T) {
	tests := []struct {
		name                  string
		evidence, unexplained int
		complete              bool
		ok                    bool
		reason                string
	}{
		{"one word of evidence, nothing unexplained", 1, 0, false, true, ""},
		{"as much explained as not", 1, 1, false, true, ""},
		{"more explained than not", 2, 1, false, true, ""},
		{"no evidence", 0, 0, false, false, "no evidence"},
		{"no evidence, but the whole sample said", 0, 0, true, true, ""},
		{"no evidence, words unexplained", 0, 3, false, false, "no evidence"},
		{"more unexplained than explained", 1, 2, false, false, "2 content words unexplained, more than the 1 it rests on"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ok, why := Plausible(&Result{Evidence: tc.evidence, Unexplained: tc.unexplained, Complete: tc.complete})
			assert.Equal(t, tc.ok, ok)
			if tc.reason == "" {
				assert.Empty(t, why)
			} else {
				assert.Contains(t, why, tc.reason)
			}
		})
	}
}

// lowTierPipeline registers the shapes behind the low-tier claims measured
// on the HA and robot corpora (README, "Accuracy, measured honestly") and
// returns both engines' tiers in the robot's default order.
func lowTierPipeline(t testing.TB) []*TierPlugin {
	quiet := slog.New(slog.DiscardHandler)
	te := NewTemplateEngine(EngineOptions{Logger: quiet})
	ke := NewKeywordEngine(KeywordOptions{Logger: quiet})
	for _, d := range []TemplateIntent{
		// Anchored on function words only, as HA's optional-everything
		// templates expand to; "on" carries the request.
		{SkillID: "home", IntentName: "turn_on", Lang: "en-us", Samples: []string{"{name} in {area}", "{name} of {area}", "{name} on {area}"}},
		{SkillID: "home", IntentName: "light_set", Lang: "en-us", Samples: []string{"{name} to {color}"}},
		{SkillID: "media", IntentName: "play", Lang: "en-us", Samples: []string{"play {query}"}},
		{SkillID: "phone", IntentName: "call", Lang: "en-us", Samples: []string{"phone {contact}"}},
		// Function words only, a real request ("help" skill).
		{SkillID: "help", IntentName: "capabilities", Lang: "en-us", Samples: []string{"what can you do"}},
	} {
		if _, err := te.Register(d); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []KeywordIntent{
		{SkillID: "weather", IntentName: "now", Lang: "en-us", Required: []KeywordVocab{voc("weather", "weather", "forecast")}},
		{SkillID: "story", IntentName: "tell", Lang: "en-us", Required: []KeywordVocab{voc("story", "stor(y|ies)", "tale")}},
		{SkillID: "news", IntentName: "read", Lang: "en-us", Required: []KeywordVocab{voc("news", "news", "headlines")}},
		{SkillID: "robot", IntentName: "who_made_you", Lang: "en-us", Required: []KeywordVocab{voc("made", "made", "invented"), voc("you", "you")}},
		{SkillID: "robot", IntentName: "addressed", Lang: "en-us", Required: []KeywordVocab{voc("you", "you")}},
		{SkillID: "volume", IntentName: "up", Lang: "en-us", Required: []KeywordVocab{voc("louder", "louder")}},
		{SkillID: "greet", IntentName: "wave", Lang: "en-us", Required: []KeywordVocab{voc("wave", "wave")}},
	} {
		if _, err := ke.Register(d); err != nil {
			t.Fatal(err)
		}
	}
	tp, kp := TemplatePlugins(te), KeywordPlugins(ke)
	return []*TierPlugin{tp[0], kp[0], tp[1], kp[1], tp[2], kp[2]}
}

// firstClaim runs the tiers in order (PIPE-09: the first match wins) and
// returns the claiming tier and match, and the refusals of the tiers
// tried before it.
func firstClaim(t *testing.T, tiers []*TierPlugin, u string) (string, *pipeline.Match, map[string]*Refusal) {
	t.Helper()
	ctx := context.Background()
	refused := map[string]*Refusal{}
	for _, p := range tiers {
		m, err := p.Match(ctx, []string{u}, "en-us", session.Empty())
		require.NoError(t, err)
		if m != nil {
			return p.ID(), m, refused
		}
		ref, err := p.Refused(ctx, []string{u}, "en-us", session.Empty())
		require.NoError(t, err)
		if ref != nil {
			refused[p.ID()] = ref
		}
	}
	return "", nil, refused
}

// TestLowTierRule: the low tiers (and templates-medium) claim guesses that rest on content words
// and refuse those that rest on function words or leave more unexplained
// than they explain; declining (PIPE-05: nil) lets the next plugin, and in
// the end the fallback, have the utterance. Every case is a shape measured
// on the corpora; the last two are wrong claims the rule cannot see.
func TestLowTierRule(t *testing.T) {
	tiers := lowTierPipeline(t)
	tests := []struct {
		name, utterance string
		tier, intent    string // the claim; "" for none
		refusedBy       string // the low tier that refused a guess, if any
		refusedIntent   string
		reason          string
	}{
		// Claimed: the evidence is a content word of the request.
		{"open slot after a verb", "play the breaking bad tv show", "templates-low", "play", "", "", ""},
		{"particle that carries the request", "please turn on all the lights everywhere", "templates-low", "turn_on", "", "", ""},
		// "to" is the only evidence for {name} to {color}: refused, and the
		// keyword guess after it claims.
		{"filler phrase costs nothing", "i want to hear a tale", "keywords-low", "tell", "templates-low", "light_set", "no evidence"},
		{"one unexplained for one explained", "were you invented by engineers", "keywords-low", "who_made_you", "", "", ""},
		{"fillers and optional words cost nothing", "a bit louder jibo", "keywords-low", "up", "", "", ""},
		{"light verb costs nothing", "give us a little wave", "keywords-low", "wave", "", "", ""},

		// Refused: nothing said is evidence for the intent.
		{"anchored on of", "what is the state of curtain left", "", "", "templates-low", "turn_on", "no evidence"},
		{"anchored on in", "please turn the lights off in here", "", "", "templates-low", "turn_on", "no evidence"},
		{"anchored on to", "on the tv increase the volume to 90 percent", "", "", "templates-low", "light_set", "no evidence"},
		// Refused: more content unexplained than explained.
		{"keyword in passing", "i love stormy weather", "", "", "keywords-low", "now", "2 content words unexplained, more than the 1"},
		{"news in passing", "the news was sad today", "", "", "keywords-low", "read", "2 content words unexplained"},
		{"story in passing", "i read a story to my son", "", "", "keywords-low", "tell", "2 content words unexplained"},

		// templates-medium is guarded too: a tolerated match on function
		// words is as much a guess there, and one with evidence is kept.
		{"templates-medium on function words", "state of curtain", "", "", "templates-medium", "turn_on", "no evidence"},
		{"templates-medium with evidence", "play some jazz please", "templates-medium", "play", "", "", ""},
		// The whole sample said is evidence enough, even in function words
		// (the spoken "what can you do for me" was refused before).
		{"templates-medium, the whole sample said", "what can you do for me", "templates-medium", "capabilities", "", "", ""},
		// keywords-medium is not: half the words as keywords the skill
		// chose is no guess, even when the keyword is a function word.
		{"keywords-medium is not guarded", "you there", "keywords-medium", "addressed", "", "", ""},
		// Wrong claims the rule does not catch: the evidence is real,
		// the slot text or the extra word is what makes it wrong.
		{"open slot takes anything", "my phone needs help", "templates-low", "call", "", "", ""},
		{"one unexplained word changes the meaning", "i made you a sandwich", "keywords-low", "who_made_you", "", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tier, m, refused := firstClaim(t, tiers, tc.utterance)
			assert.Equal(t, tc.tier, tier)
			if tc.intent == "" {
				assert.Nil(t, m)
			} else if assert.NotNil(t, m) {
				assert.Equal(t, tc.intent, m.IntentName)
			}
			if tc.refusedBy == "" {
				assert.Empty(t, refused)
				return
			}
			require.Contains(t, refused, tc.refusedBy)
			ref := refused[tc.refusedBy]
			assert.Equal(t, tc.refusedIntent, ref.Match.IntentName)
			assert.Contains(t, ref.Reason, tc.reason)
			assert.Less(t, ref.Match.Confidence, TierHigh, "only guesses are refused")
		})
	}
}

// TestRefused: only low tiers refuse; a refusal is reported only when the
// tier claims nothing, and among several utterances (PIPE-05) a plausible
// one is claimed over a surer implausible one.
func TestRefused(t *testing.T) {
	tiers := lowTierPipeline(t)
	ctx := context.Background()
	byID := map[string]*TierPlugin{}
	for _, p := range tiers {
		byID[p.ID()] = p
	}
	s := session.Empty()

	ref, err := byID["templates-high"].Refused(ctx, []string{"what is the state of curtain left"}, "en-us", s)
	require.NoError(t, err)
	assert.Nil(t, ref, "a high tier never refuses")

	ref, err = byID["templates-low"].Refused(ctx, []string{"play the breaking bad tv show"}, "en-us", s)
	require.NoError(t, err)
	assert.Nil(t, ref, "claimed, so nothing refused")

	both := []string{"what is the air pressure of the outside air sensor", "play the breaking bad tv show"}
	m, err := byID["templates-low"].Match(ctx, both, "en-us", s)
	require.NoError(t, err)
	require.NotNil(t, m)
	assert.Equal(t, "play", m.IntentName)
	assert.Equal(t, "play the breaking bad tv show", m.Utterance)

	ref, err = byID["templates-low"].Refused(ctx, both[:1], "en-us", s)
	require.NoError(t, err)
	require.NotNil(t, ref)
	assert.Equal(t, "turn_on", ref.Match.IntentName)
	assert.Equal(t, both[0], ref.Match.Utterance)
	assert.Equal(t, map[string]string{"name": "what is the air pressure", "area": "the outside air sensor"}, ref.Match.Slots)

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = byID["templates-low"].Refused(cancelled, both, "en-us", s)
	assert.ErrorIs(t, err, context.Canceled)
}

// TestResultEvidence: what each engine counts as evidence and as
// unexplained (DEF-11 leaves confidence and the like to the engine).
func TestResultEvidence(t *testing.T) {
	te := newTestEngine()
	mustRegister(t, te, TemplateIntent{SkillID: "s", IntentName: "light", Lang: "en-us",
		Samples: []string{"turn on the kitchen light", "turn on the {room} light", "{thing} of {place}"}})
	mustRegister(t, te, TemplateIntent{SkillID: "s", IntentName: "help", Lang: "en-us", Samples: []string{"what can you do"}})
	ke := newKeywordEngine()
	mustRegisterKeyword(t, ke, weather())
	noLex := NewTemplateEngine(EngineOptions{Logger: slog.New(slog.DiscardHandler), Lexicons: map[string]*Lexicon{}})
	mustRegister(t, noLex, TemplateIntent{SkillID: "s", IntentName: "light", Lang: "en-us", Samples: []string{"{thing} of {place}"}})

	tests := []struct {
		name, utterance       string
		engine                Matcher
		evidence, unexplained int
		complete              bool
	}{
		{"exact sample: every content word", "turn on the kitchen light", te, 4, 0, true},
		{"slot text is no evidence", "turn on the living room light", te, 3, 0, false},
		{"skipped fillers are no evidence", "could you please turn on the kitchen light", te, 4, 0, true},
		{"literal function words are no evidence", "the state of the curtain", te, 0, 0, false},
		{"without a lexicon every word is content", "the state of the curtain", noLex, 1, 0, false},
		{"function words only, the whole sample said", "what can you do for me", te, 0, 0, true},
		{"keywords: covered and not", "i love stormy weather", ke, 1, 2, false},
		{"keywords: optional vocabulary is evidence", "what is the weather like today", ke, 2, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.engine.Match(tc.utterance, "en-us", "")
			require.NotNil(t, r)
			assert.Equal(t, tc.evidence, r.Evidence, "evidence")
			assert.Equal(t, tc.unexplained, r.Unexplained, "unexplained")
			assert.Equal(t, tc.complete, r.Complete, "complete")
		})
	}
}

// BenchmarkLowTiers runs all six tiers in the robot's order on utterances
// that reach the low tiers, claimed and refused: the path `intents eval`
// times.
func BenchmarkLowTiers(b *testing.B) {
	tiers := lowTierPipeline(b)
	ctx := context.Background()
	s := session.Empty()
	for name, u := range map[string]string{
		"template_claimed": "play the breaking bad tv show",
		"template_refused": "what is the amount of energy from solar production",
		"keyword_claimed":  "were you invented in boston",
		"keyword_refused":  "the weather channel is boring",
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, p := range tiers {
					if m, _ := p.Match(ctx, []string{u}, "en-us", s); m != nil {
						break
					}
				}
			}
		})
	}
}
