//go:build sphinx

package sphinx

import (
	"slices"
	"strings"
	"testing"

	"github.com/openjibo/jibod/audio"
	"github.com/stretchr/testify/assert"
)

// TestFallbackRefusesForcedTranscriptEndToEnd is issue 24's "rejection
// instead of forcing" for the fallback, through the real binary as it
// runs by default: "hey jibo, tell me the time", said by an espeak-ng
// voice the grammar's garbage path refuses, is transcribed by the domain
// language model as "delete that timer", which the timer skill parses
// surely. Without the fallback's floor after the garbage path a timer is
// cancelled; by default no timer is: the robot asks, or tells the time.
func TestFallbackRefusesForcedTranscriptEndToEnd(t *testing.T) {
	bin := buildJibod(t)
	wav := writeWAV(t, speak(t, "hey jibo, tell me the time", "-v", "en-us+m3", "-s", "170"))
	out, types := hearWith(t, bin, wav, []string{"JIBOD_SPHINX_FALLBACK_GARBAGE=0"})
	assert.Equal(t, 1, count(types, "jibo.audio.wake"), "woken by voice")
	assert.Equal(t, []string{"jibo.timer:cancel_timer"}, intents(types), "without the floor, the fallback's transcript is acted on: %s", out)
	out, types = hearWith(t, bin, wav, nil)
	assert.Equal(t, 1, count(types, "jibo.audio.wake"), "woken by voice")
	assert.NotContains(t, intents(types), "jibo.timer:cancel_timer", "no timer cancelled: %s", out)
	asked := len(intents(types)) == 0 && strings.Contains(out, "jibo: Sorry, what was that?")
	told := slices.Equal(intents(types), []string{"jibo.clock:time_now"})
	assert.True(t, asked || told, "the robot asks or tells the time: %v: %s", intents(types), out)
}

// TestFallbackAgreementEndToEnd: "hey jibo, what date is it today", said
// by an espeak-ng voice the grammar hears as "what date is it" with
// filler words over "today", is refused by the garbage path; the
// fallback's transcript alone is only the generalising tier's guess of
// the date. The two agree, so the robot tells the date; without the
// agreement it asks, and so it does where the rival check, set with a
// margin no rival reaches, refuses the transcript: the check comes
// before the agreement.
func TestFallbackAgreementEndToEnd(t *testing.T) {
	bin := buildJibod(t)
	wav := writeWAV(t, speak(t, "hey jibo, what date is it today", "-v", "en-us", "-s", "175", "-p", "60"))
	out, types := hearWith(t, bin, wav, []string{"JIBOD_SPHINX_FALLBACK_AGREE=off"})
	assert.Equal(t, 1, count(types, "jibo.audio.wake"), "woken by voice")
	assert.Empty(t, intents(types), "without the agreement nothing is acted on: %s", out)
	assert.Contains(t, out, "jibo: Sorry, what was that?", "the robot asks")
	out, types = hearWith(t, bin, wav, nil)
	assert.Equal(t, 1, count(types, "jibo.audio.wake"), "woken by voice")
	assert.Equal(t, []string{"jibo.clock:date_today"}, intents(types), "the date told: %s", out)
	out, types = hearWith(t, bin, wav, []string{"JIBOD_SPHINX_FALLBACK_RIVAL=1000"})
	assert.Equal(t, 1, count(types, "jibo.audio.wake"), "woken by voice")
	assert.Empty(t, intents(types), "the rival check refuses: %s", out)
	assert.Contains(t, out, "jibo: Sorry, what was that?", "the robot asks")
}

// TestFallbackAgreementKeepsTheTimerEndToEnd: with a ten minute timer
// running, "hey jibo, cancel that timer, no" (espeak-ng en-us) is heard
// by the grammar as "cancel that timer" with filler words over "no", and
// transcribed "cancel that timer know", which the generalising tier
// guesses is the timer's cancelling: "know" is no word of that intent's
// sentences, so the two do not agree and the timer keeps running.
func TestFallbackAgreementKeepsTheTimerEndToEnd(t *testing.T) {
	bin := buildJibod(t)
	var pcm []int16
	pcm = append(pcm, speak(t, "hey jibo, set a timer for ten minutes")...)
	pcm = append(pcm, make([]int16, audio.SampleRate)...)
	pcm = append(pcm, speak(t, "hey jibo, cancel that timer, no")...)
	out, types := hear(t, bin, writeWAV(t, pcm))
	assert.Equal(t, 2, count(types, "jibo.audio.wake"), "woken twice by voice")
	assert.Equal(t, []string{"jibo.timer:set_timer"}, intents(types), "the timer set and not cancelled: %s", out)
	assert.Contains(t, out, "jibo: Sorry, what was that?", "the robot asks")
}
