package paraphrase

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestCorpusFigures trains the tier on an evaluation corpus in the format
// `jibod intents eval` reads (../shared/eval/ha_en.json) and prints how it
// classifies the corpus's tests, intent only: run with
// PARAPHRASE_CORPUS=path go test -run TestCorpusFigures -v. It measures;
// it asserts nothing about the figures.
func TestCorpusFigures(t *testing.T) {
	path := os.Getenv("PARAPHRASE_CORPUS")
	if path == "" {
		t.Skip("PARAPHRASE_CORPUS names no corpus")
	}
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var c struct {
		Vocab   map[string][]string
		Intents map[string]struct {
			Templates []string
			Slots     map[string]any // slot → spoken values, or "wildcard"
		}
		Tests []struct {
			Utterance    string
			Intent       string
			NeedsContext bool `json:"needs_context"`
		}
	}
	require.NoError(t, json.Unmarshal(b, &c))
	var ins []Intent
	for name, in := range c.Intents {
		ents := map[string][]string{}
		for s, v := range in.Slots {
			if l, ok := v.([]any); ok {
				for _, x := range l {
					ents[s] = append(ents[s], fmt.Sprint(x))
				}
			}
		}
		ins = append(ins, Intent{SkillID: "corpus", Name: name, Templates: in.Templates, Vocab: c.Vocab, Entities: ents})
	}
	start := time.Now()
	m, err := Train(ins, Options{})
	require.NoError(t, err)
	st := m.Stats()
	t.Logf("trained on %d intents in %s (wall): %d samples, %d features", st.Intents, time.Since(start).Round(time.Millisecond),
		st.Samples, st.Features)
	var right, wrong, abstained, negClaimed, negs int
	for _, tc := range c.Tests {
		d := m.Classify(tc.Utterance)
		switch {
		case tc.Intent == "":
			negs++
			if d.Claim {
				negClaimed++
			}
		case !d.Claim:
			abstained++
		case d.Label.Intent == tc.Intent:
			right++
		default:
			wrong++
		}
	}
	n := len(c.Tests) - negs
	pct := func(k int) float64 { return 100 * float64(k) / float64(max(n, 1)) }
	t.Logf("%d tests: right %.1f %%, wrong %.1f %%, abstained %.1f %%; tests expecting no intent claimed: %d of %d",
		n, pct(right), pct(wrong), pct(abstained), negClaimed, negs)
}
