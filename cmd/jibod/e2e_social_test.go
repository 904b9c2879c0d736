package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The end-to-end tests of issue 26: the real binary, asserted on what the
// body did (the trace's device events), not on console text.

// eventTime is a body event's time.
func eventTime(t *testing.T, m traced) time.Time {
	t.Helper()
	s, _ := m.Data["time"].(string)
	at, err := time.Parse(time.RFC3339Nano, s)
	require.NoError(t, err, "%s has a time", m.Type)
	return at
}

// span returns the trace between input id's entry and its handled.
func span(t *testing.T, msgs []traced, id string) []traced {
	t.Helper()
	from, to := -1, -1
	for i, m := range msgs {
		if m.Context["jibo_input"] != id {
			continue
		}
		switch m.Type {
		case "ovos.utterance.handle":
			from = i
		case "ovos.utterance.handled":
			to = i
		}
	}
	require.True(t, from >= 0 && to > from, "the trace holds %s's lifecycle", id)
	return msgs[from : to+1]
}

// An unknown request gets spoken words: the speaker says them, with the
// earcon, in the utterance's own lifecycle (FALLBACK-1).
func TestUnknownRequestIsSpokenAloud(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "t.jsonl")
	_, stderr, code := runJibod(t, "what is the airspeed velocity of an unladen swallow\n",
		"run", "--input", "stdin", "--trace", trace, "--speak-wpm", "600")
	require.Equal(t, 0, code, stderr)
	var speak string
	var said []string
	sounds := 0
	for _, m := range span(t, readTrace(t, trace), "stdin-1") {
		switch m.Type {
		case "ovos.utterance.speak":
			speak = m.Data["utterance"].(string)
		case "jibo.body.speaker.say":
			said = append(said, m.Data["text"].(string))
		case "jibo.body.audio.play":
			sounds++
		}
	}
	require.NotEmpty(t, speak, "the robot answered")
	assert.Equal(t, speak, strings.Join(said, " "), "every word of the answer went to the speaker")
	assert.GreaterOrEqual(t, sounds, 1, "the earcon played")
}

// "stop" typed one second into a long answer cuts the speech short
// (STOP-1), before its natural end; the rest is never said. How soon is
// measured, not asserted: on a loaded machine the wall clock says little.
func TestStopInterruptsALongAnswer(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "t.jsonl")
	j := startJibod(t, t.TempDir(), "--speak-wpm", "150", "--trace", trace)
	j.say(t, "what can you do")
	j.hear(t, "I can", 30*time.Second) // the answer has begun
	time.Sleep(time.Second)
	stopAt := time.Now()
	j.say(t, "stop")
	require.NoError(t, j.in.Close())
	exited := make(chan error, 1)
	go func() { exited <- j.cmd.Wait() }()
	select {
	case err := <-exited:
		require.NoError(t, err, "jibod exits cleanly at the end of its input")
	case <-time.After(60 * time.Second): // a hang guard, not a timing bound
		t.Fatal("jibod did not exit")
	}

	answer := span(t, readTrace(t, trace), "stdin-1")
	var speak string
	var interrupted *traced
	var spokenWords int
	for i, m := range answer {
		switch m.Type {
		case "ovos.utterance.speak":
			speak = m.Data["utterance"].(string)
		case "jibo.body.speaker.done":
			spokenWords += len(strings.Fields(m.Data["text"].(string)))
		case "jibo.body.speaker.interrupted":
			interrupted = &answer[i]
			spokenWords += len(strings.Fields(m.Data["spoken"].(string)))
		case "jibo.body.speaker.say":
			assert.Nil(t, interrupted, "nothing more is said after the stop")
		}
	}
	require.NotNil(t, interrupted, "the speech was cut short, not finished: %q", speak)
	assert.Less(t, spokenWords, len(strings.Fields(speak)), "stopped before its natural end")
	assert.False(t, eventTime(t, *interrupted).Before(stopAt), "the speech was cut by the stop, not before it")
}

// Answering "hello", the body moves while the robot speaks: an animation
// runs across the speech, and the control loop's limits held (no fault,
// no stall).
func TestHelloMovesTheBodyWhileSpeaking(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "t.jsonl")
	_, stderr, code := runJibod(t, "hello\n", "run", "--input", "stdin", "--trace", trace, "--speak-wpm", "150")
	require.Equal(t, 0, code, stderr)
	msgs := readTrace(t, trace)
	var saidFrom, saidTo time.Time
	for _, m := range span(t, msgs, "stdin-1") {
		switch m.Type {
		case "jibo.body.speaker.say":
			if saidFrom.IsZero() {
				saidFrom = eventTime(t, m)
			}
		case "jibo.body.speaker.done":
			saidTo = eventTime(t, m)
		}
	}
	require.False(t, saidFrom.IsZero() || saidTo.IsZero(), "the robot spoke")
	started := map[any]time.Time{}
	overlap := false
	for _, m := range msgs {
		assert.NotContains(t, []string{"jibo.body.motion.stall", "jibo.body.motion.late", "jibo.body.motion.motor-error"}, m.Type)
		switch m.Type {
		case "jibo.body.motion.animation":
			started[m.Data["job"]] = eventTime(t, m)
		case "jibo.body.motion.finished", "jibo.body.motion.preempted", "jibo.body.motion.halt":
			if from, ok := started[m.Data["job"]]; ok && from.Before(saidTo) && eventTime(t, m).After(saidFrom) {
				overlap = true
			}
		}
	}
	assert.True(t, overlap, "an animation ran while the robot said hello (speech %s..%s)", saidFrom.Format(time.StampMilli), saidTo.Format(time.StampMilli))
}
