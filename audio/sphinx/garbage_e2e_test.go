//go:build sphinx

package sphinx

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGarbageRefusesForcedCommandEndToEnd is issue 24's "rejection
// instead of forcing" with the garbage path in the grammar's search
// (JIBOD_SPHINX_GARBAGE): "tell me the time", a wording the grammar does
// not hold, said by one of the tuning set's voices, is forced onto
// "delete timer" with a confidence the floors pass, and the timer skill
// answers; with the garbage path the search ends in filler words instead,
// and the robot asks. The grammar is searched alone, so the fallback does
// not hear it again.
func TestGarbageRefusesForcedCommandEndToEnd(t *testing.T) {
	bin := buildJibod(t)
	wav := writeWAV(t, speak(t, "hey jibo, tell me the time", "-v", "en-us+m3", "-s", "200", "-p", "55"))
	out, types := hearWith(t, bin, wav, []string{"JIBOD_SPHINX_SEARCH=grammar", "JIBOD_SPHINX_GARBAGE=off"})
	assert.Equal(t, 1, count(types, "jibo.audio.wake"), "woken by voice")
	assert.Equal(t, []string{"jibo.timer:cancel_timer"}, intents(types), "without the garbage path, forced onto another command: %s", out)
	out, types = hearWith(t, bin, wav, []string{"JIBOD_SPHINX_SEARCH=grammar", "JIBOD_SPHINX_GARBAGE=on"})
	assert.Equal(t, 1, count(types, "jibo.audio.wake"), "woken by voice")
	assert.Empty(t, intents(types), "with the garbage path, no command: %s", out)
	assert.Contains(t, out, "jibo: Sorry, what was that?")
}

// TestGarbageAfterASentenceEndToEnd: "put the volume on six", a wording
// the grammar does not hold (it holds "put the volume to six" and
// unmuting's "put the volume on please"), said by one of the tuning
// set's voices, is forced onto unmuting: "six" is stretched onto
// "please". With filler words allowed after a sentence
// (JIBOD_SPHINX_GARBAGE_ENDS=tail) the search explains "six" by them,
// the sentence is refused, and the robot asks instead of unmuting. The
// grammar is searched alone, so the fallback does not hear it again.
func TestGarbageAfterASentenceEndToEnd(t *testing.T) {
	bin := buildJibod(t)
	wav := writeWAV(t, speak(t, "hey jibo, put the volume on six", "-v", "en-gb", "-s", "165", "-p", "60"))
	out, types := hearWith(t, bin, wav, []string{"JIBOD_SPHINX_SEARCH=grammar", "JIBOD_SPHINX_GARBAGE_ENDS=off"})
	require.Equal(t, 1, count(types, "jibo.audio.wake"), "woken by voice: %s", out)
	if got := intents(types); !slices.Equal(got, []string{"jibo.volume:unmute"}) {
		// The test's premise, not what it checks: another change may
		// stop the confusion on its own.
		t.Skipf("premise gone: without filler words after a sentence it is no longer forced onto unmuting (%v)", got)
	}
	out, types = hearWith(t, bin, wav, []string{"JIBOD_SPHINX_SEARCH=grammar", "JIBOD_SPHINX_GARBAGE_ENDS=tail"})
	assert.Equal(t, 1, count(types, "jibo.audio.wake"), "woken by voice")
	assert.Empty(t, intents(types), "with them, no command: %s", out)
	assert.Contains(t, out, "jibo: Sorry, what was that?")
}
