package web

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/skill"
)

// The topics the page shows. The audio ones are audio/listen's, named
// here because core does not import audio.
const (
	topicHandle     = pipeline.TopicHandle
	topicStop       = pipeline.TopicStop
	topicRecognized = "jibo.audio.recognized" // {hypotheses: [{text, confidence}]}
	topicDisplay    = "jibo.body.display."
	bodyPrefix      = "jibo.body."
)

// keyInput is the context key the robot's text inputs tie a lifecycle to
// the line that started it with (cmd/jibod's console uses the same).
const keyInput = "jibo_input"

// conversationTopics are what the page shows of a turn, from the bus.
var conversationTopics = map[string]bool{
	topicHandle: true, topicRecognized: true, "jibo.audio.error": true, "jibo.audio.wake": true,
	pipeline.TopicMatched: true, pipeline.TopicUnmatched: true, pipeline.TopicSpeak: true,
	pipeline.TopicHandlerError: true, pipeline.TopicHandled: true, topicStop: true, skill.TopicSkillError: true,
}

// bodyDoings are the body's events the page shows as what the robot did;
// the rest (arrivals, the speaker's say and done, which "said" already
// shows, sound buffers) would only be noise.
var bodyDoings = []string{"led.set", "led.play", "motion.move", "motion.lookat", "motion.animation", "motion.halt",
	"motion.recover", "speaker.interrupted", "volume.set", "motor-power.set", "display.", "button."}

// shown reports whether the page shows a message of this topic.
func shown(topic string) bool {
	if conversationTopics[topic] {
		return true
	}
	what, ok := strings.CutPrefix(topic, bodyPrefix)
	if !ok {
		return false
	}
	for _, d := range bodyDoings {
		if what == d || (strings.HasSuffix(d, ".") && strings.HasPrefix(what, d)) {
			return true
		}
	}
	return false
}

// update is one bus message as the page receives it: the topic, its data
// cut to size, and the few context keys the page reads. The page's script
// words it for people.
type update struct {
	// At is when the page's server saw it, in milliseconds since 1970.
	At    int64  `json:"at"`
	Topic string `json:"topic"`
	Data  any    `json:"data,omitempty"`
	// Source is who sent it; Input ties a typed line's lifecycle together.
	Source string `json:"source,omitempty"`
	Input  string `json:"input,omitempty"`
	// Confidence and Why are how sure the winning intent stage was and
	// why it chose the intent (ovos.intent.matched).
	Confidence any    `json:"confidence,omitempty"`
	Why        string `json:"why,omitempty"`
}

// Limits on what an update carries: the page shows a conversation, not
// the bus's every byte.
const (
	maxText  = 300 // bytes of one string
	maxItems = 16  // elements of one list, keys of one object
	maxDepth = 4
)

func toUpdate(m bus.Message, now time.Time) update {
	u := update{At: now.UnixMilli(), Topic: m.Type, Data: bound(m.Data, 0),
		Source: clip(m.Source(), 64), Input: clip(m.ContextString(keyInput), 64)}
	if m.Type == pipeline.TopicMatched {
		u.Confidence = bound(m.Context[pipeline.KeyMatchConfidence], maxDepth)
		u.Why = clip(m.ContextString(pipeline.KeyMatchWhy), maxText)
	}
	return u
}

// bound copies v with long strings cut, long lists and objects shortened
// and deep nesting left out.
func bound(v any, depth int) any {
	switch t := v.(type) {
	case string:
		return clip(t, maxText)
	case map[string]any:
		if depth >= maxDepth {
			return nil
		}
		out := make(map[string]any, min(len(t), maxItems))
		for k, e := range t {
			if len(out) == maxItems {
				break
			}
			out[clip(k, 64)] = bound(e, depth+1)
		}
		return out
	case []any:
		if depth >= maxDepth {
			return nil
		}
		out := make([]any, 0, min(len(t), maxItems))
		for _, e := range t[:min(len(t), maxItems)] {
			out = append(out, bound(e, depth+1))
		}
		return out
	case bool, int64, float64, nil:
		return t
	}
	return nil // the bus normalises data to JSON's types; anything else is left out
}

// clip cuts s to at most n bytes, on a character boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
