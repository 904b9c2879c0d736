package plants_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/local"
	"github.com/openjibo/jibod/core/skill/try"
	"github.com/openjibo/jibod/examples/go-skills/plants"
)

// say is what a turn's SLIMs say.
func say(turn *try.Turn) []string {
	var out []string
	for _, s := range turn.SLIMs {
		out = append(out, s.ESML)
	}
	return out
}

// The skill played turn by turn as the robot plays it: the question from
// its MIM (listening with Jibo's shared/yes_no, the robot's
// globals/yes_no), a yes and a no, and the no-match and no-input ladders
// ending in a line of its dialog.
func TestConversations(t *testing.T) {
	ctx := context.Background()
	s, err := plants.New(local.Options{Rand: func(int) int { return 0 }})
	require.NoError(t, err)
	p, err := try.New(try.Config{Skill: s})
	require.NoError(t, err)

	for _, tt := range []struct {
		name    string
		answers []string
		said    [][]string
	}{
		{"yes", []string{"yeah"}, [][]string{{"Good. They will be happy."}}},
		{"no", []string{"nope"}, [][]string{{"Then they must be thirsty. Now is a good time."}}},
		{"no-match, then yes", []string{"purple", "yes"}, [][]string{{"Sorry, did you water them? Yes or no."}, {"Good. They will be happy."}}},
		{"silence twice", []string{"", ""}, [][]string{{"Did you water the plants?"}, {"OK, I'll ask again another time."}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			turn, err := p.Launch(ctx, "did i water the plants")
			require.NoError(t, err)
			assert.Equal(t, "plants", turn.Intent)
			assert.Equal(t, []string{"Did you water the plants today?"}, say(turn))
			require.Len(t, turn.SLIMs, 1)
			assert.Equal(t, "AskWatered", turn.SLIMs[0].MIMID)
			assert.Equal(t, []string{"shared/yes_no"}, turn.Listen, "the MIM's rule as written")
			require.NotEmpty(t, turn.Trace)
			assert.Equal(t, "QN:SL:AskWatered", turn.Trace[len(turn.Trace)-1].Node, "it waits in the question's node")
			for i, a := range tt.answers {
				turn, err = p.Answer(ctx, a)
				require.NoError(t, err)
				assert.Equal(t, tt.said[i], say(turn), "answer %q", a)
			}
			assert.True(t, turn.Final, "the conversation ends")
			assert.Empty(t, p.Waiting())
		})
	}
}
