package web

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/skill"
)

// The topics the page shows. The audio ones are audio/listen's, named
// here because core does not import audio.
const (
	topicHandle       = pipeline.TopicHandle
	topicMatched      = pipeline.TopicMatched
	topicUnmatched    = pipeline.TopicUnmatched
	topicHandlerError = pipeline.TopicHandlerError
	topicSpeak        = pipeline.TopicSpeak
	topicHandled      = pipeline.TopicHandled
	topicStop         = pipeline.TopicStop
	topicSkillError   = skill.TopicSkillError
	topicRecognized   = "jibo.audio.recognized" // {hypotheses: [{text, confidence}]}
	topicAudioError   = "jibo.audio.error"      // {error}
	topicWake         = "jibo.audio.wake"       // {source}
	bodyPrefix        = "jibo.body."
)

// keyInput is the context key the robot's text inputs tie a lifecycle to
// the line that started it with (cmd/jibod's console uses the same).
const keyInput = "jibo_input"

// Limits on what a conversation item carries.
const (
	maxItemText    = 300
	maxHypotheses  = 3
	maxItemSlots   = 8
	maxDidValueLen = 60
)

// item is one line of the conversation as the page shows it.
type item struct {
	// At is when it happened, in milliseconds since 1970.
	At int64 `json:"at"`
	// Kind is typed, heard, wake, matched, unmatched, said, did, error,
	// stop or handled.
	Kind string `json:"kind"`
	// Text is what was typed, heard or said, or what was done.
	Text string `json:"text,omitempty"`
	// Source is where a typed utterance or a wake came from.
	Source string `json:"source,omitempty"`
	// Confidence is how sure the ear or the intent stage was, 0..1.
	Confidence *float64 `json:"confidence,omitempty"`
	// Others are the ear's next guesses.
	Others []hypothesis `json:"others,omitempty"`
	// Skill, Intent, Stage, Why and Slots describe a match.
	Skill  string            `json:"skill,omitempty"`
	Intent string            `json:"intent,omitempty"`
	Stage  string            `json:"stage,omitempty"`
	Why    string            `json:"why,omitempty"`
	Slots  map[string]string `json:"slots,omitempty"`
	// Input ties the items of one typed utterance together.
	Input string `json:"input,omitempty"`
}

type hypothesis struct {
	Text       string  `json:"text"`
	Confidence float64 `json:"confidence"`
}

// conversationItem is what message m adds to the conversation, if
// anything.
func conversationItem(m bus.Message, now time.Time) (item, bool) {
	it := item{At: now.UnixMilli(), Input: clip(m.ContextString(keyInput), 64)}
	switch m.Type {
	case topicHandle:
		us, _ := m.Data["utterances"].([]any)
		if len(us) == 0 {
			return it, false
		}
		s, _ := us[0].(string)
		it.Kind, it.Text, it.Source = "typed", clip(s, maxItemText), clip(m.Source(), 40)
		if it.Source == "" {
			it.Source = "bus"
		}
	case topicRecognized:
		hyps, _ := m.Data["hypotheses"].([]any)
		it.Kind = "heard"
		for i, h := range hyps {
			o, _ := h.(map[string]any)
			text, _ := o["text"].(string)
			c, _ := number(o["confidence"])
			if i == 0 {
				it.Text, it.Confidence = clip(text, maxItemText), &c
				continue
			}
			if len(it.Others) == maxHypotheses {
				break
			}
			it.Others = append(it.Others, hypothesis{clip(text, maxItemText), c})
		}
		if len(hyps) == 0 {
			it.Text = "(speech, but no words recognised)"
		}
	case topicAudioError:
		it.Kind, it.Text = "error", "hearing: "+clip(m.DataString("error"), maxItemText)
	case topicWake:
		it.Kind, it.Source = "wake", clip(m.DataString("source"), 40)
	case topicMatched:
		it.Kind = "matched"
		it.Skill, it.Intent = clip(m.DataString("skill_id"), 80), clip(m.DataString("intent_name"), 80)
		it.Stage, it.Text = clip(m.DataString("pipeline_id"), 40), clip(m.DataString("utterance"), maxItemText)
		if c, ok := number(m.Context[pipeline.KeyMatchConfidence]); ok {
			it.Confidence = &c
		}
		it.Why = clip(m.ContextString(pipeline.KeyMatchWhy), maxItemText)
		if slots, _ := m.Data["slots"].(map[string]any); len(slots) > 0 {
			it.Slots = map[string]string{}
			for k, v := range slots {
				if len(it.Slots) == maxItemSlots {
					break
				}
				it.Slots[clip(k, 40)] = clip(fmt.Sprint(v), 80)
			}
		}
	case topicUnmatched:
		it.Kind = "unmatched"
	case topicSpeak:
		it.Kind, it.Text = "said", clip(m.DataString("utterance"), maxItemText)
		if it.Text == "" {
			return it, false
		}
	case topicHandlerError:
		it.Kind, it.Text = "error", clip(m.DataString("exception"), maxItemText)
		it.Skill, it.Intent = clip(m.DataString("skill_id"), 80), clip(m.DataString("intent_name"), 80)
	case topicSkillError:
		it.Kind, it.Text = "error", clip(m.DataString("error"), maxItemText)
		it.Skill = clip(m.DataString("skill_id"), 80)
	case topicStop:
		it.Kind, it.Source = "stop", clip(m.Source(), 40)
	case topicHandled:
		it.Kind = "handled"
		it.Text = clip(m.DataString("error"), maxItemText)
	default:
		text, ok := didText(m)
		if !ok {
			return it, false
		}
		it.Kind, it.Text = "did", text
	}
	return it, true
}

// didText says in a few words what a body event did; false for the
// events that would only be noise (arrivals, the speaker's say and done,
// which "said" already shows, sound buffers).
func didText(m bus.Message) (string, bool) {
	what, ok := strings.CutPrefix(m.Type, bodyPrefix)
	if !ok {
		return "", false
	}
	switch what {
	case "led.set":
		if c := m.DataString("color"); c != "" {
			return "LED ring " + clip(c, 16), true
		}
		px, _ := m.Data["pixels"].([]any)
		return fmt.Sprintf("LED ring: %d colours", len(px)), true
	case "led.play":
		return "LED ring plays " + clip(m.DataString("name"), maxDidValueLen), true
	case "motion.move":
		text := "moves to " + poseText(m.Data)
		if n := m.DataString("name"); n != "" && n != "move" {
			text += " (" + clip(n, maxDidValueLen) + ")"
		}
		return text, true
	case "motion.lookat":
		return "looks at " + clip(m.DataString("want"), maxDidValueLen), true
	case "motion.animation":
		return "animation " + clip(m.DataString("name"), maxDidValueLen), true
	case "motion.halt":
		return "stops moving: " + clip(m.DataString("reason"), maxDidValueLen), true
	case "motion.recover":
		return "motion recovers", true
	case "speaker.interrupted":
		return "speech cut short", true
	case "volume.set":
		if g, ok := number(m.Data["gain"]); ok {
			if g <= 0 {
				return "sound muted", true
			}
			return fmt.Sprintf("sound gain %.2f (%.0f dB)", g, 20*math.Log10(g)), true
		}
	case "motor-power.set":
		if on, _ := m.Data["on"].(bool); on {
			return "motors on", true
		}
		return "motors off", true
	case "display.show":
		v := clip(m.DataString("view"), 20)
		if t := m.DataString("text"); t != "" {
			v += " " + fmt.Sprintf("%q", clip(t, maxDidValueLen))
		}
		return "screen shows " + v, true
	}
	if strings.HasPrefix(what, "button.") {
		return "button " + clip(strings.TrimPrefix(what, "button."), maxDidValueLen), true
	}
	return "", false
}

// poseText is an event's axis angles in degrees, bottom to top.
func poseText(d map[string]any) string {
	var keys []string
	for k := range d {
		if strings.HasSuffix(k, "Section_r") {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return axisOrder(keys[i]) < axisOrder(keys[j]) })
	var parts []string
	for _, k := range keys {
		if v, ok := number(d[k]); ok {
			parts = append(parts, fmt.Sprintf("%s %.0f°", strings.TrimSuffix(k, "Section_r"), v*180/math.Pi))
		}
	}
	return strings.Join(parts, ", ")
}

func axisOrder(k string) int {
	switch {
	case strings.HasPrefix(k, "bottom"):
		return 0
	case strings.HasPrefix(k, "middle"):
		return 1
	}
	return 2
}

// displayChange is a screen event: a view shown on a layer or hidden.
type displayChange struct {
	layer int
	hide  bool
	view  view
}

// displayUpdate reads a screen event; false for any other message.
func displayUpdate(m bus.Message) (displayChange, bool) {
	var u displayChange
	switch m.Type {
	case bodyPrefix + "display.show":
	case bodyPrefix + "display.hide":
		u.hide = true
	default:
		return u, false
	}
	l, ok := number(m.Data["layer"])
	if !ok || l < 0 || l > 16 {
		return u, false
	}
	u.layer = int(l)
	u.view = view{Kind: clip(m.DataString("view"), 20), Text: clip(m.DataString("text"), maxItemText), Name: m.DataString("name")}
	return u, true
}

// number reads a JSON number.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, !math.IsNaN(n) && !math.IsInf(n, 0)
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}

// clip cuts s to at most n bytes, on a character boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
