package intent

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// homeDefs is a small home-automation domain with the shapes that made
// the expanding engine rank wrongly: a listed value beside free text, a
// name that contains an area, a slot that could swallow literal words.
func homeDefs() []TemplateIntent {
	ents := map[string][]string{
		"area":         {"kitchen", "bedroom", "living room"},
		"name":         {"bedroom lamp", "ceiling fan", "front door", "phone"},
		"device_class": {"windows", "blinds", "door"},
		"color":        {"red", "blue"},
	}
	return []TemplateIntent{
		{SkillID: "home", IntentName: "turn_off", Lang: "en-us", Entities: ents, Samples: []string{
			"turn off [the] {name}", "turn off [the] {area} lamp[s]", "close [the] {device_class} in [the] {area}", "close [the] {name}",
			"turn (all|[the]) lights in [the] {area} off"}},
		{SkillID: "home", IntentName: "turn_on", Lang: "en-us", Entities: ents, Samples: []string{
			"turn on [the] {name}", "turn on [the] {name} in [the] {area}", "{area} lamp on"}},
		{SkillID: "home", IntentName: "get_state", Lang: "en-us", Entities: ents, Samples: []string{
			"is [the] {name} (on|off)", "(is|are) [the] {name} battery {state}"}},
		{SkillID: "home", IntentName: "light_set", Lang: "en-us", Entities: ents, Samples: []string{
			"turn all [the] lights {color}", "set [the] {area} lights [to] {color}"}},
	}
}

// TestRankingByEntityHints_GRM15: parses whose slot values are listed beat
// parses whose values are not; a whole multi-word entity name beats
// covering part of it with literal words; free text takes what is left.
func TestRankingByEntityHints_GRM15(t *testing.T) {
	e := newTestEngine()
	for _, d := range homeDefs() {
		mustRegister(t, e, d)
	}
	tests := []struct {
		utterance string
		intent    string
		slots     map[string]string
	}{
		// Listed area and device class, not the unlisted name "windows in
		// the kitchen".
		{"close the windows in the kitchen", "turn_off", map[string]string{"area": "kitchen", "device_class": "windows"}},
		// The whole name "bedroom lamp", not area "bedroom" and "lamp".
		{"turn off bedroom lamp", "turn_off", map[string]string{"name": "bedroom lamp"}},
		// A listed name, not turn_on with the area "is the bedroom".
		{"is the bedroom lamp on", "get_state", map[string]string{"name": "bedroom lamp"}},
		{"is the phone battery low", "get_state", map[string]string{"name": "phone", "state": "low"}},
		// Literal words, not a color "in kitchen off".
		{"turn all the lights in kitchen off", "turn_off", map[string]string{"area": "kitchen"}},
		{"turn all lights red", "light_set", map[string]string{"color": "red"}},
		{"turn on the ceiling fan in the living room", "turn_on", map[string]string{"area": "living room", "name": "ceiling fan"}},
	}
	for _, tc := range tests {
		t.Run(tc.utterance, func(t *testing.T) {
			r := e.Match(tc.utterance, "en-us", "")
			require.NotNil(t, r)
			assert.Equal(t, tc.intent, r.IntentName, r.Why)
			assert.Equal(t, tc.slots, r.Slots, r.Why)
		})
	}
}

// TestRankOrder: Rank.Compare orders field by field, and Beats names the
// deciding field.
func TestRankOrder(t *testing.T) {
	ranks := []Rank{
		{Literal: 4},
		{Multi: 1, Literal: 2},
		{Tolerated: 1, Literal: 5},
		{Skipped: 1, Literal: 6},
		{Open: 1, Literal: 7},
		{Unlisted: 1, Literal: 8},
		{Lost: 1, Literal: 9},
	}
	// Best first: more multi-word entity words beat more literal words, and
	// every earlier field outweighs all later ones.
	order := []int{1, 0, 2, 3, 4, 5, 6}
	for i := 0; i+1 < len(order); i++ {
		a, b := ranks[order[i]], ranks[order[i+1]]
		assert.Negative(t, a.Compare(b), "%+v before %+v", a, b)
		assert.NotEmpty(t, a.Beats(b))
		assert.Empty(t, b.Beats(a))
	}
	assert.Equal(t, "entity values take 1 more words together (a whole name beats covering part of it with literal words)",
		ranks[1].Beats(ranks[0]))
	for _, r := range ranks {
		packed := -wLost*int64(r.Lost) - wUnlisted*int64(r.Unlisted) - wOpen*int64(r.Open) - wSkip*int64(r.Skipped) -
			wTol*int64(r.Tolerated) + wMulti*int64(r.Multi) + wLit*int64(r.Literal)
		assert.Equal(t, r, rankOf(packed), "scores unpack to their fields")
	}
}

// TestExplainWinner: Explain says why the match beat the runner-up.
func TestExplainWinner(t *testing.T) {
	e := newTestEngine()
	for _, d := range homeDefs() {
		mustRegister(t, e, d)
	}
	ex := e.Explain("is the bedroom lamp on", "en-us", "", 3)
	require.NotNil(t, ex.Match)
	require.NotNil(t, ex.RunnerUp)
	assert.Equal(t, "get_state", ex.Match.IntentName)
	assert.True(t, strings.HasPrefix(ex.Won, "home:get_state beat home:turn_on: "), ex.Won)
	assert.Contains(t, ex.Won, "outside its slot's values")
}

// TestBoundHolds: the bound a template is pruned by never underestimates
// its parse, so pruning never changes the result.
func TestBoundHolds(t *testing.T) {
	e := newTestEngine()
	for _, d := range append(homeDefs(), skipDefs()...) {
		mustRegister(t, e, d)
	}
	for _, u := range []string{
		"close the kitchen windows", "turn off bedroom lamp", "is the bedroom lamp on please", "turn all the lights in kitchen off",
		"could you turn on the ceiling fan in the living room for me", "set a timer for ten minutes please", "play just the way you are",
		"the the the", "turn on on on the lamp", "is the phone battery low",
	} {
		c := &chart{}
		c.reset(Normalize(u), lexiconFor(e.opts.Lexicons, "en-us"), "en-us", false)
		pools := e.pools("en-us", DefaultSession)
		for _, cd := range e.candidates(c, pools) {
			c.begin(cd.t.intent.nodes)
			score, _, ok := c.parse(cd.t.root, cd.t.intent.need)
			if ok {
				assert.GreaterOrEqual(t, cd.bound, score, "%q: bound of %q", u, cd.t.src)
			}
		}
		assert.Equal(t, e.Recognize(u, "en-us", "", 0)[:min(1, len(e.Recognize(u, "en-us", "", 0)))],
			e.Recognize(u, "en-us", "", 1), "%q: pruning to the best changes nothing", u)
	}
}
