package intent

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzMatch feeds arbitrary utterances to Recognize and Explain over
// intents that exercise every path (literal words, slots, entities,
// typed slots, blacklists, required slots, skip words) and checks what
// must always hold, the pruning bound included.
func FuzzMatch(f *testing.F) {
	for _, s := range []string{
		"please switch on the lights", "could you please switch on lights for me", "dont switch on the lights",
		"set a timer for ever", "please set a timer for ten minutes", "play jazz radio", "um the", "", "?!",
		"turn on the alarm", "hey jibo what time is it", "the the the the", "play play play radio radio",
		"close the windows in the kitchen", "is the bedroom lamp on",
	} {
		f.Add(s)
	}
	e := NewTemplateEngine(EngineOptions{MaxUtteranceWords: 24})
	for _, d := range append(skipDefs(), homeDefs()...) {
		if _, err := e.Register(d); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, u string) {
		all := e.Recognize(u, "en-us", "", 0)
		r := e.Match(u, "en-us", "")
		ex := e.Explain(u, "en-us", "", 5)
		require.Equal(t, r, ex.Match, "Explain matches as Match does")
		if len(all) > 0 {
			require.Equal(t, all[0], r, "pruning to the best changes nothing")
		}
		for i, x := range all {
			require.GreaterOrEqual(t, x.Confidence, 0.0)
			require.LessOrEqual(t, x.Confidence, 1.0)
			require.NotNil(t, x.Slots)
			if i > 0 {
				require.LessOrEqual(t, all[i-1].Rank.Compare(x.Rank), 0, "best first")
			}
			for _, v := range x.Slots {
				require.NotEmpty(t, v)
				require.Contains(t, " "+x.Utterance+" ", v, "a slot value is utterance text")
			}
		}
		require.LessOrEqual(t, len(ex.NearMisses), 5)
		for _, n := range ex.NearMisses {
			require.GreaterOrEqual(t, n.Score, 0.0)
			require.LessOrEqual(t, n.Score, 1.0)
			require.NotEmpty(t, n.Reason)
			if r != nil {
				require.False(t, n.SkillID == r.SkillID && n.IntentName == r.IntentName)
			}
		}
		norm := Normalize(u)
		if norm == "" || len(strings.Fields(norm)) > 24 {
			return
		}
		c := &chart{}
		c.reset(norm, lexiconFor(e.opts.Lexicons, "en-us"), "en-us", false)
		e.mu.RLock()
		defer e.mu.RUnlock()
		for _, cd := range e.candidates(c, e.pools("en-us", DefaultSession)) {
			c.begin(cd.t.intent.nodes)
			if score, _, ok := c.parse(cd.t.root, cd.t.intent.need); ok {
				require.GreaterOrEqual(t, cd.bound, score, "%q: bound of %q", norm, cd.t.src)
			}
		}
	})
}
