package trivia

import (
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/protocol"
)

// Every answer the bank accepts, said alone or in a sentence, is
// understood with the answer rule alone (as the robot does before it
// sends CLIENT_NLU, with no transcript) and judged right; "stop" ends the
// game.
func TestAnswerRuleUnderstandsEveryAnswer(t *testing.T) {
	rules, err := fs.Sub(files, "rules")
	require.NoError(t, err)
	ar, err := skill.NewAnswerRules(nil)
	require.NoError(t, err)
	require.NoError(t, ar.Add("openjibo.trivia", rules), "the robot's host names the rules by bus id")
	require.Contains(t, ar.Names(), RuleAnswer)

	for _, q := range Bank {
		for _, a := range q.Accepts {
			for _, utterance := range []string{a, "is it " + a, "the answer is " + a} {
				nlu := ar.Understand(utterance, "en-US", []string{RuleAnswer})
				require.NotEmpty(t, nlu.IntentName(), "%q understood", utterance)
				assert.Contains(t, q.Accepts, Normalize(saidAnswer(&nlu, nil)), "%q to %q", utterance, q.Text)
			}
		}
	}
	nlu := ar.Understand("stop", "en-US", []string{RuleAnswer})
	assert.Equal(t, IntentStop, nlu.IntentName())
}

func TestSaidAnswer(t *testing.T) {
	tests := []struct {
		name string
		nlu  *protocol.NLUResult
		asr  *protocol.ASRResult
		want string
	}{
		{"entity", ptr(protocol.NLUFromSlots(IntentAnswer, map[string]string{EntityAnswer: "paris"}, nil)), &protocol.ASRResult{Text: "it is paris"}, "paris"},
		{"said alone", ptr(protocol.NLUFromSlots("said_mars", nil, nil)), nil, "mars"},
		{"transcript", ptr(protocol.NLUFromSlots("", nil, nil)), &protocol.ASRResult{Text: "pluto"}, "pluto"},
		{"nothing", nil, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, saidAnswer(tt.nlu, tt.asr))
		})
	}
}

func ptr[T any](v T) *T { return &v }
