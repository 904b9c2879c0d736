package intent

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTypedParsers: the number and duration readers find every span a
// value can be read from, in English and (digits only) elsewhere.
func TestTypedParsers(t *testing.T) {
	ends := func(s posSet, n int) []int {
		var out []int
		for i := 0; i <= n; i++ {
			if s.has(i) {
				out = append(out, i)
			}
		}
		return out
	}
	numbers := []struct {
		text string
		ends []int
	}{
		{"50", []int{1}},
		{"20.5 degrees", []int{1}},
		{"1/2 an hour", []int{1}},
		{"3rd", []int{1}},
		{"twenty five", []int{1, 2}},
		{"one hundred and five", []int{1, 2, 4}},
		{"a hundred", []int{2}},
		{"two thousand twenty", []int{1, 2, 3}},
		{"one and a half", []int{1, 4}},
		{"three quarters", []int{1, 2}},
		{"twenty first", []int{1, 2}},
		{"first", []int{1}},
		{"50 percent", []int{1, 2}},
		{"fifty per cent", []int{1, 3}},
		{"half", []int{1}},
		{"loud", nil},
		{"a", nil},
	}
	for _, tc := range numbers {
		words := strings.Fields(tc.text)
		tp := typedParser{words: words, english: true}
		assert.Equal(t, tc.ends, ends(tp.numberEnds(0), len(words)), "number %q", tc.text)
	}
	durations := []struct {
		text string
		ends []int
	}{
		{"ten minutes", []int{2}},
		{"90 seconds", []int{2}},
		{"1 hour 15 minutes", []int{2, 4}},
		{"1 hour and 30 minutes please", []int{2, 5}},
		{"an hour and a half", []int{2, 5}},
		{"half an hour", []int{3}},
		{"a quarter of an hour", []int{5}},
		{"one and a half minutes", []int{5}},
		{"a minute", []int{2}},
		{"five", nil},
		{"minutes", nil},
	}
	for _, tc := range durations {
		words := strings.Fields(tc.text)
		tp := typedParser{words: words, english: true}
		assert.Equal(t, tc.ends, ends(tp.durationEnds(0), len(words)), "duration %q", tc.text)
	}
	de := typedParser{words: []string{"zehn", "minuten"}}
	assert.Empty(t, ends(de.numberEnds(0), 2), "number words are English only")
	de = typedParser{words: []string{"10", "minuten"}}
	assert.Equal(t, []int{2}, ends(de.durationEnds(0), 2), "digits and a unit word elsewhere")
}

// TestTypedSlotsRank_GRM05: a typed slot prefers a value its type reads;
// other text still fills it (GRM-14, GRM-15), ranked below, and the slot
// gets the words as said.
func TestTypedSlotsRank_GRM05(t *testing.T) {
	e := newTestEngine()
	mustRegister(t, e, TemplateIntent{SkillID: "timer", IntentName: "set", Lang: "en-us",
		Samples: []string{"(set|start) a timer for {duration}", "timer for {duration}"}, SlotTypes: map[string]string{"duration": "duration"}})
	mustRegister(t, e, TemplateIntent{SkillID: "volume", IntentName: "set", Lang: "en-us",
		Samples: []string{"volume (at|to) {number:level}", "set [the] volume to {number:level}"}})
	tests := []struct {
		utterance string
		intent    string
		slots     map[string]string
		why       string
	}{
		{"set a timer for ten minutes please", "timer:set", map[string]string{"duration": "ten minutes"}, `duration="ten minutes" (duration)`},
		{"timer for an hour and a half", "timer:set", map[string]string{"duration": "an hour and a half"}, "(duration)"},
		{"start a timer for a quarter of an hour", "timer:set", map[string]string{"duration": "a quarter of an hour"}, "(duration)"},
		{"volume at 4", "volume:set", map[string]string{"level": "4"}, `level="4" (number)`},
		{"set the volume to fifty percent", "volume:set", map[string]string{"level": "fifty percent"}, "(number)"},
		{"set the volume to loud", "volume:set", map[string]string{"level": "loud"}, `level="loud" (not a number)`},
	}
	for _, tc := range tests {
		r := e.Match(tc.utterance, "en-us", "")
		require.NotNil(t, r, tc.utterance)
		assert.Equal(t, tc.intent, r.SkillID+":"+r.IntentName, tc.utterance)
		assert.Equal(t, tc.slots, r.Slots, tc.utterance)
		assert.Contains(t, r.Why, tc.why, tc.utterance)
	}
	loud := e.Match("set the volume to loud", "en-us", "")
	four := e.Match("set the volume to four", "en-us", "")
	assert.Less(t, loud.Confidence, four.Confidence, "a value its type cannot read is less likely right")
}

// TestTypedSlotRefusedIsNoLowClaim: words a number or duration slot's
// parser does not read ("please", "is red") never fill it in the low
// band: such a parse stays below the claim floor, so a fragment is not
// acted on as a timer of "please". A parse sure enough of its intent for
// the medium band still reaches the skill, which says what it accepts
// ("set the volume to loud"); an entity list alone is a hint (GRM-15),
// so a value outside it still claims.
func TestTypedSlotRefusedIsNoLowClaim(t *testing.T) {
	e := newTestEngine()
	mustRegister(t, e, TemplateIntent{SkillID: "timer", IntentName: "set", Lang: "en-us",
		Samples: []string{"[a|the] timer for {duration:duration} [please]", "timer {duration:duration} [please]"}})
	mustRegister(t, e, TemplateIntent{SkillID: "volume", IntentName: "set", Lang: "en-us",
		Samples: []string{"volume {number:level} [please]", "set [the] volume to {number:level}"}})
	mustRegister(t, e, TemplateIntent{SkillID: "lights", IntentName: "on", Lang: "en-us",
		Samples: []string{"lights {room}"}, Entities: map[string][]string{"room": {"kitchen"}}})
	tests := []struct {
		utterance, intent string
		claim             bool // at least ClaimFloor
		medium            bool // at least MediumFloor
		why               string
	}{
		{"timer please", "timer:set", false, false, `duration="please" (not a duration)`},
		{"the timer is red", "timer:set", false, false, "(not a duration)"},
		{"volume please", "volume:set", false, false, `level="please" (not a number)`},
		{"set the volume to loud", "volume:set", true, true, `level="loud" (not a number)`},
		{"timer ten minutes", "timer:set", true, true, "(duration)"},
		{"volume seven", "volume:set", true, true, "(number)"},
		{"lights attic", "lights:on", true, false, "(not among its values)"},
	}
	for _, tc := range tests {
		t.Run(tc.utterance, func(t *testing.T) {
			r := e.Match(tc.utterance, "en-us", "")
			require.NotNil(t, r)
			assert.Equal(t, tc.intent, r.SkillID+":"+r.IntentName)
			assert.Contains(t, r.Why, tc.why)
			assert.Equal(t, tc.claim, r.Confidence >= ClaimFloor, "claimable at %.2f", r.Confidence)
			assert.Equal(t, tc.medium, r.Confidence >= MediumFloor, "medium band at %.2f", r.Confidence)
		})
	}
}
