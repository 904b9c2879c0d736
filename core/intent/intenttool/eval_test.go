package intenttool

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/intent/paraphrase"
)

// memo trains each set of intents once for the whole package's tests.
var memo = paraphrase.NewMemo()

// robotStack is the robot's stack: the engines and the paraphrase tier.
func robotStack(b *bus.Bus, log *slog.Logger, explain bool) (*intent.Stack, error) {
	st, _, err := paraphrase.NewStack(intent.StackConfig{Bus: b, Logger: log, Explain: explain},
		paraphrase.TierOptions{Trainer: memo.Train})
	return st, err
}

// TestEvaluateSmallCorpus measures a corpus whose every number is worked
// out by hand: 10 tests, of which
//   - 7 are exactly right (4 template matches, 1 keyword match with its
//     capture, 2 utterances nobody may claim, one vetoed by an excluded
//     vocabulary, DEF-04);
//   - "how is the weather" has the right intent, but the keyword engine
//     captures weather=weather (DEF-06) and the test expects no slots;
//   - "turn on the light" is needs_context: right intent, but the room it
//     expects is not in the words;
//   - "lamp please" is claimed by nobody.
//
// One of 3 templates is malformed and counted, not fatal. The figures are
// the engines' alone: what the paraphrase tier makes of so small a corpus
// is its model's to decide.
func TestEvaluateSmallCorpus(t *testing.T) {
	c, err := LoadCorpus(smallCorpus)
	require.NoError(t, err)
	var progress []int
	rep, err := Evaluate(context.Background(), c, EvalOptions{Progress: func(done, total int) {
		assert.Equal(t, 10, total)
		progress = append(progress, done)
	}})
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, progress)
	assert.Equal(t, 10, rep.Tests)
	assert.Equal(t, 0.9, rep.IntentAccuracy)
	assert.Equal(t, 0.7, rep.ExactAccuracy)
	assert.Equal(t, 9, rep.TestsWithoutContext)
	assert.Equal(t, 0.8889, rep.IntentAccuracyWithoutContext)
	assert.Equal(t, 0.7778, rep.ExactAccuracyWithoutContext)
	assert.Equal(t, []int{2, 1, 3, 1, 0}, []int{rep.Intents, rep.KeywordIntents, rep.Templates, rep.TemplatesRejected, rep.IntentsRejected})
	assert.Equal(t, []Rejection{{Intent: "lights_on", Template: "broken (template",
		Error: "line 1 col 8: '(' is never closed by ')'"}}, rep.Rejected)
	assert.LessOrEqual(t, rep.P50us, rep.P95us)
	assert.LessOrEqual(t, rep.P95us, rep.MaxUs)
	assert.Equal(t, map[string]*Tier{
		"intents-high":   {Claimed: 4, Correct: 4},
		"intents-medium": {Claimed: 3, Correct: 3}, // how is the weather: 1 word of 4; the garage: a room outside the list
		"none":           {Claimed: 3, Correct: 2},
	}, rep.Tiers)
	assert.NotEmpty(t, rep.Calibration, "score bands against right answers")
	var failed []string
	for _, f := range rep.Failures {
		failed = append(failed, f.Utterance)
	}
	assert.ElementsMatch(t, []string{"how is the weather", "lamp please", "turn on the light"}, failed)
	assert.Zero(t, rep.LearnMs, "no paraphrase tier: nothing learnt")

	// With the paraphrase tier its learning is measured, and nothing the
	// engines got right is lost.
	with, err := Evaluate(context.Background(), c, EvalOptions{Stack: robotStack})
	require.NoError(t, err)
	assert.Positive(t, with.LearnMs)
	assert.GreaterOrEqual(t, with.IntentAccuracy, rep.IntentAccuracy)
	assert.GreaterOrEqual(t, with.ExactAccuracy, rep.ExactAccuracy)
	claimed := 0
	for _, tc := range with.Tiers {
		claimed += tc.Claimed
	}
	assert.Equal(t, 10, claimed, "every test is counted under one band or stage")
}

// TestEvaluateAbstentions: the report counts the tests where the stack
// abstained (the best candidate scored below the claim floor) and how many
// of those candidates were right, and each failure shows the abstained
// candidate, so the cost of abstaining is in plain view.
func TestEvaluateAbstentions(t *testing.T) {
	c, err := ParseCorpus([]byte(`{"lang": "en-us", "vocab": {"w": ["weather"]},
 "intents": {"turn_on": {"templates": ["{name} in {area}"]}, "play": {"templates": ["play {q}"]}},
 "keyword_intents": {"weather": {"required": ["w"]}},
 "tests": [
  {"utterance": "please turn the lights on in here", "intent": "turn_on"},
  {"utterance": "is the door open in the kitchen", "intent": null},
  {"utterance": "play the breaking bad tv show", "intent": "play", "slots": {"q": "the breaking bad tv show"}},
  {"utterance": "i love stormy weather", "intent": null},
  {"utterance": "weather", "intent": "weather", "slots": {"w": "weather"}}]}`))
	require.NoError(t, err)
	rep, err := Evaluate(context.Background(), c, EvalOptions{Stack: robotStack})
	require.NoError(t, err)
	assert.Equal(t, map[string]*Tier{
		"intents-high":   {Claimed: 1, Correct: 1},
		"intents-medium": {Claimed: 1, Correct: 1},
		"none":           {Claimed: 3, Correct: 2},
	}, rep.Tiers)
	assert.Equal(t, 3, rep.Abstained, "turn_on twice (no evidence), weather once (two words unexplained)")
	assert.Equal(t, 1, rep.AbstainedRight)
	require.Len(t, rep.Failures, 1, "only the abstained right answer fails")
	f := rep.Failures[0]
	assert.Equal(t, "please turn the lights on in here", f.Utterance)
	assert.Equal(t, "none", f.Tier)
	require.NotNil(t, f.Abstained)
	assert.Equal(t, "turn_on", f.Abstained.Intent)
	assert.Less(t, f.Abstained.Score, 0.5)

	var text bytes.Buffer
	rep.WriteText(&text, "abstentions.json")
	assert.Contains(t, text.String(), "right/claimed     intents-high 1/1, intents-medium 1/1, none 2/3")
	assert.Contains(t, text.String(), "abstained         3 below the claim floor (1 would have been right)")
	assert.Contains(t, text.String(), "     abstained from turn_on at 0.45: template \"{name} in {area}\"")

	b, err := json.Marshal(rep)
	require.NoError(t, err)
	var asJSON map[string]any
	require.NoError(t, json.Unmarshal(b, &asJSON))
	assert.Equal(t, 3.0, asJSON["abstained"])
	assert.Equal(t, "turn_on", asJSON["failures"].([]any)[0].(map[string]any)["abstained"].(map[string]any)["intent"])
}

// TestProgressOnlyOnTerminal: the bar is drawn only on a character device.
func TestProgressOnlyOnTerminal(t *testing.T) {
	assert.Nil(t, Progress(&bytes.Buffer{}))
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	require.NoError(t, err)
	defer f.Close()
	assert.Nil(t, Progress(f), "a regular file is not a terminal")
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	require.NoError(t, err)
	defer null.Close()
	assert.NotNil(t, Progress(null), "character devices get the bar")
}
