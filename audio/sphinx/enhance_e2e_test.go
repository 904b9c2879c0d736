//go:build sphinx

package sphinx

import (
	"math"
	"testing"

	"github.com/openjibo/jibod/audio"
	"github.com/stretchr/testify/assert"
)

// overBabble mixes cmd snr dB over two other talkers (babble), who talk
// for lead seconds before it and 3 s after it.
func overBabble(t testing.TB, cmd []int16, snr float64, lead int) []int16 {
	t.Helper()
	bed := babble(t, lead+len(cmd)/audio.SampleRate+4)
	scale := rms(cmd) / math.Pow(10, snr/20) / rms(bed)
	mix := make([]int16, len(bed))
	for i := range bed {
		v := float64(bed[i]) * scale
		if j := i - lead*audio.SampleRate; j >= 0 && j < len(cmd) {
			v += float64(cmd[j])
		}
		mix[i] = int16(max(-32768, min(32767, v)))
	}
	return mix
}

// TestEnhancedCommandOverBabbleEndToEnd is issue 24's "a command over
// two-talker babble and the right skill answers" with the trained speech
// enhancement in front of the recogniser, as it runs by default (gated on
// the background: other talkers here), through `jibod run --audio
// file:…`: "hey jibo, set a timer for ten minutes" said 8 dB over two
// other talkers (which the recogniser alone does not catch) wakes the
// robot and the timer skill answers.
func TestEnhancedCommandOverBabbleEndToEnd(t *testing.T) {
	bin := buildJibod(t)
	wav := writeWAV(t, overBabble(t, speak(t, "hey jibo, set a timer for ten minutes"), 8, 6))
	out, types := hearWith(t, bin, wav, nil)
	assert.Equal(t, 1, count(types, "jibo.audio.wake"), "woken by voice over the babble: %s", out)
	assert.Equal(t, []string{"jibo.timer:set_timer"}, intents(types), out)
}
