package intent

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzMatchTolerant feeds arbitrary utterances to Match and Explain over
// intents that exercise every path (exact, slots, entities, blacklists,
// required slots, tolerance) and checks what must always hold.
func FuzzMatchTolerant(f *testing.F) {
	for _, s := range []string{
		"please switch on the lights", "could you please switch on lights for me", "dont switch on the lights",
		"set a timer for ever", "please set a timer for ten minutes", "play jazz radio", "um the", "", "?!",
		"turn on the alarm", "hey jibo what time is it", "the the the the", "play play play radio radio",
	} {
		f.Add(s)
	}
	e := NewTemplateEngine(EngineOptions{MaxUtteranceWords: 24})
	for _, d := range tolerantDefs() {
		if _, err := e.Register(d); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, u string) {
		r := e.Match(u, "en-us", "")
		ex := e.Explain(u, "en-us", "", 5)
		require.Equal(t, r, ex.Match, "Explain matches as Match does")
		if r != nil {
			require.GreaterOrEqual(t, r.Confidence, 0.0)
			require.LessOrEqual(t, r.Confidence, 1.0)
			if strings.Contains(r.Why, "tolerant match") {
				require.Less(t, r.Confidence, 1.0)
			}
			require.NotNil(t, r.Slots)
			for _, v := range r.Slots {
				require.NotEmpty(t, v)
				require.Contains(t, " "+r.Utterance+" ", " "+v+" ", "a slot value is a run of whole utterance words")
			}
		}
		checkBounds(t, e, u, "en-us")
		require.LessOrEqual(t, len(ex.NearMisses), 5)
		for _, n := range ex.NearMisses {
			require.GreaterOrEqual(t, n.Score, 0.0)
			require.LessOrEqual(t, n.Score, 1.0)
			require.NotEmpty(t, n.Reason)
			if r != nil {
				require.False(t, n.SkillID == r.SkillID && n.IntentName == r.IntentName)
			}
		}
	})
}
