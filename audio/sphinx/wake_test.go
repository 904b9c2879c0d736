package sphinx

import (
	"context"
	"testing"

	"github.com/openjibo/jibod/audio"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type saying []audio.Hypothesis

func (s saying) Recognize(context.Context, []int16) ([]audio.Hypothesis, error) { return s, nil }

type spotting bool

func (s spotting) Spot(context.Context, []int16) (bool, error) { return bool(s), nil }

func TestWakeCheck(t *testing.T) {
	wakeCmd := saying{{Text: "hey jibo what time is it", Confidence: 0.9}, {Text: "what time is it", Confidence: 0.4}}
	cmd := saying{{Text: "what time is it", Confidence: 0.9}}
	bare := saying{{Text: "hey jibo", Confidence: 0.9}}
	tests := []struct {
		name    string
		method  string
		said    saying
		spotted bool
		want    []string
	}{
		{"grammar leaves it", WakeGrammar, wakeCmd, false, []string{"hey jibo what time is it", "what time is it"}},
		{"spotter removes an unspotted wake", WakeSpotter, wakeCmd, false, []string{"what time is it"}},
		{"spotter adds a spotted one", WakeSpotter, cmd, true, []string{"hey jibo what time is it"}},
		{"spotter keeps a spotted one", WakeSpotter, wakeCmd, true, []string{"hey jibo what time is it"}},
		{"spotter: the phrase alone when nothing else", WakeSpotter, nil, true, []string{"hey jibo"}},
		{"both: grammar without spotter is no wake", WakeBoth, wakeCmd, false, []string{"what time is it"}},
		{"both: bare wake unspotted is nothing", WakeBoth, bare, false, nil},
		{"both: agreement wakes", WakeBoth, bare, true, []string{"hey jibo"}},
		{"both: spotter alone does not wake", WakeBoth, cmd, true, []string{"what time is it"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &WakeCheck{Recognizer: tt.said, Spotter: spotting(tt.spotted), Method: tt.method}
			h, err := w.Recognize(context.Background(), make([]int16, 10))
			require.NoError(t, err)
			var got []string
			for _, x := range h {
				got = append(got, x.Text)
			}
			assert.Equal(t, tt.want, got)
		})
	}
	_, err := (&WakeCheck{Recognizer: cmd, Method: WakeBoth}).Recognize(context.Background(), nil)
	assert.ErrorContains(t, err, "needs a keyphrase spotter")
	_, err = (&WakeCheck{Recognizer: cmd, Spotter: spotting(true), Method: "vibes"}).Recognize(context.Background(), nil)
	assert.ErrorContains(t, err, "want grammar, spotter or both")
}
