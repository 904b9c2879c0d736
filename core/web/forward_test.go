package web

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/stretchr/testify/assert"
)

func TestWhatThePageShows(t *testing.T) {
	tests := []struct {
		topic string
		shown bool
	}{
		{pipeline.TopicHandle, true},
		{pipeline.TopicMatched, true},
		{pipeline.TopicUnmatched, true},
		{pipeline.TopicSpeak, true},
		{pipeline.TopicHandlerError, true},
		{pipeline.TopicStop, true},
		{"jibo.audio.recognized", true},
		{"jibo.body.led.set", true},
		{"jibo.body.motion.move", true},
		{"jibo.body.display.show", true},
		{"jibo.body.button.head.press", true},
		{"jibo.body.motion.arrived", false},
		{"jibo.body.speaker.say", false},
		{"jibo.body.audio.play", false},
		{"jibo.body.led.setx", false},
		{"ovos.intent.register.template", false},
		{"jibo.basics:greet", false},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.shown, shown(tc.topic), tc.topic)
	}
}

// An update carries the message cut to size: the page shows a
// conversation, not every byte a skill put on the bus.
func TestUpdatesAreBounded(t *testing.T) {
	long := strings.Repeat("é", 400)
	many := make([]any, 100)
	for i := range many {
		many[i] = int64(i)
	}
	deep := map[string]any{"a": map[string]any{"b": map[string]any{"c": map[string]any{"d": map[string]any{"e": "too deep"}}}}}
	m := bus.NewMessage(pipeline.TopicMatched, map[string]any{"utterance": long, "list": many, "deep": deep, "n": 1.5, "ok": true})
	m.Context[pipeline.KeyMatchConfidence] = 0.75
	m.Context[pipeline.KeyMatchWhy] = long
	m.Context["session"] = map[string]any{"secret": "not forwarded"}
	at := time.UnixMilli(1_800_000_000_000)
	u := toUpdate(m, at)
	assert.Equal(t, int64(1_800_000_000_000), u.At)
	d := u.Data.(map[string]any)
	assert.True(t, strings.HasSuffix(d["utterance"].(string), "é…"), "cut on a character boundary")
	assert.LessOrEqual(t, len(d["utterance"].(string)), maxText+len("…"))
	assert.Len(t, d["list"], maxItems)
	assert.Equal(t, map[string]any{"a": map[string]any{"b": map[string]any{"c": nil}}}, d["deep"], "nesting cut at depth %d", maxDepth)
	assert.Equal(t, 1.5, d["n"])
	assert.Equal(t, true, d["ok"])
	assert.Equal(t, 0.75, u.Confidence)
	assert.LessOrEqual(t, len(u.Why), maxText+len("…"))
	assert.NotContains(t, fmt.Sprint(u), "secret", "the session stays on the robot")

	big := map[string]any{}
	for i := range 100 {
		big[strings.Repeat("k", i+1)] = i
	}
	assert.Len(t, bound(big, 0), maxItems)
}
