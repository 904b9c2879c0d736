// Package bus is the robot's message bus: the OVOS-MSG-1 envelope and its
// derivations, an in-process publish/subscribe bus with bounded queues, the
// JSON and CBOR codecs, and a tap that records traffic as JSON lines.
//
// The bus knows no topic's meaning. Messages are values: once published, a
// message's Data and Context are shared by every subscriber and must be
// treated as read-only; derive a new message instead of editing one.
//
// Ordering: publishes are totally ordered and each subscriber receives its
// messages in that order, so no subscriber sees a message before one that was
// published before it (a consequence never overtakes its cause). Each
// subscriber has a bounded queue with an overflow policy (see Overflow).
package bus

import (
	"errors"
	"fmt"
	"strings"
)

// Message is one bus message (MSG-01): a topic and two JSON objects.
//
// Data and Context hold only JSON-shaped values after normalisation: nil,
// bool, string, int64, float64, []any and map[string]any.
type Message struct {
	Type    string         `json:"type"`
	Data    map[string]any `json:"data"`
	Context map[string]any `json:"context"`
}

// Context keys defined by MSG-1 and used across the runtime.
const (
	KeySource      = "source"
	KeyDestination = "destination"
	KeySession     = "session"
	KeySkillID     = "skill_id"
	KeyUtteranceID = "utterance_id"
	KeyPipelineID  = "pipeline_id"
)

// MaxTopicLen bounds a topic's length; longer topics are malformed.
const MaxTopicLen = 256

// ErrMalformed marks a message a consumer must drop (MSG-03).
var ErrMalformed = errors.New("malformed message")

// NewMessage returns a message with the given topic and data and an empty context.
// A nil data map stands for {} (MSG-01).
func NewMessage(topic string, data map[string]any) Message {
	if data == nil {
		data = map[string]any{}
	}
	return Message{Type: topic, Data: data, Context: map[string]any{}}
}

// WithContext returns a copy of m whose context has key set to value. The
// original context is not modified.
func (m Message) WithContext(key string, value any) Message {
	c := copyMap(m.Context)
	c[key] = value
	m.Context = c
	return m
}

// Validate reports whether m is well formed per MSG-03/04/05. It does not
// look inside Data or Context beyond their presence.
func (m Message) Validate() error {
	if err := ValidateTopic(m.Type); err != nil {
		return fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	return nil
}

// ValidateTopic checks a topic against MSG-04 (character set and dot/colon
// placement) and MSG-05 (at most one colon, which marks a dispatch topic).
func ValidateTopic(t string) error {
	if t == "" {
		return errors.New("type: empty topic")
	}
	if len(t) > MaxTopicLen {
		return fmt.Errorf("type: topic longer than %d bytes", MaxTopicLen)
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9',
			c == '.', c == '_', c == ':', c == '-':
		default:
			return fmt.Errorf("type %q: character %q at byte %d is not allowed (MSG-04)", t, c, i)
		}
	}
	switch t[0] {
	case '.', ':':
		return fmt.Errorf("type %q: must not start with %q (MSG-04)", t, t[0])
	}
	switch t[len(t)-1] {
	case '.', ':':
		return fmt.Errorf("type %q: must not end with %q (MSG-04)", t, t[len(t)-1])
	}
	for _, bad := range []string{"..", "::", ".:", ":."} {
		if strings.Contains(t, bad) {
			return fmt.Errorf("type %q: must not contain %q (MSG-04)", t, bad)
		}
	}
	if strings.Count(t, ":") > 1 {
		return fmt.Errorf("type %q: a dispatch topic has exactly one ':' (MSG-05)", t)
	}
	return nil
}

// DispatchTopic builds the dispatch topic "<skill_id>:<intent_name>"
// (MSG-05), rejecting parts that would make it ambiguous (MSG-06).
func DispatchTopic(skillID, intentName string) (string, error) {
	if skillID == "" || intentName == "" {
		return "", fmt.Errorf("dispatch topic: skill_id %q and intent_name %q must both be non-empty", skillID, intentName)
	}
	if strings.Contains(skillID, ":") || strings.Contains(intentName, ":") {
		return "", fmt.Errorf("dispatch topic: %q or %q contains ':' (MSG-06)", skillID, intentName)
	}
	t := skillID + ":" + intentName
	if err := ValidateTopic(t); err != nil {
		return "", fmt.Errorf("dispatch topic: %w", err)
	}
	return t, nil
}

// SplitDispatch splits a dispatch topic into skill and intent; ok is false for
// dotted (non-dispatch) topics.
func SplitDispatch(topic string) (skillID, intentName string, ok bool) {
	skillID, intentName, ok = strings.Cut(topic, ":")
	return skillID, intentName, ok && skillID != "" && intentName != ""
}

// Source returns the context's source, or "" when absent or empty (MSG-10).
func (m Message) Source() string {
	s, _ := m.Context[KeySource].(string)
	return s
}

// Destinations returns the context's destination as a list with empty
// members dropped (MSG-10). Nil means broadcast.
func (m Message) Destinations() []string {
	switch d := m.Context[KeyDestination].(type) {
	case string:
		if d != "" {
			return []string{d}
		}
	case []any:
		var out []string
		for _, v := range d {
			if s, ok := v.(string); ok && s != "" {
				out = append(out, s)
			}
		}
		return out
	case []string:
		var out []string
		for _, s := range d {
			if s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// IsFor reports whether the message is a broadcast or addressed to name,
// comparing by exact string equality only (MSG-11).
func (m Message) IsFor(name string) bool {
	ds := m.Destinations()
	if len(ds) == 0 {
		return true
	}
	for _, d := range ds {
		if d == name {
			return true
		}
	}
	return false
}

// Forward derives a message with a new topic and data and the context copied
// unchanged, routing and session included (MSG-12, MSG-15).
func (m Message) Forward(topic string, data map[string]any) Message {
	if data == nil {
		data = map[string]any{}
	}
	return Message{Type: topic, Data: data, Context: copyMap(m.Context)}
}

// Reply derives an answer (MSG-13): the new source is the old destination
// (its first element for a list) when one is set, the new destination is the
// old source when one is set, and every other key is carried unchanged.
// Absent keys stay absent; it reads only the message, never the replier.
func (m Message) Reply(topic string, data map[string]any) Message {
	if data == nil {
		data = map[string]any{}
	}
	c := copyMap(m.Context)
	src := m.Source()
	if ds := m.Destinations(); len(ds) > 0 {
		c[KeySource] = ds[0]
	}
	if src != "" {
		c[KeyDestination] = src
	}
	return Message{Type: topic, Data: data, Context: c}
}

// Response is Reply(Type+".response", data) (MSG-14). It is undefined, and
// returns an error, when the topic already ends in ".response" or is a
// dispatch topic; the answerer must then name the topic and use Reply.
func (m Message) Response(data map[string]any) (Message, error) {
	if strings.HasSuffix(m.Type, ".response") {
		return Message{}, fmt.Errorf("response to %q: topic already ends in .response (MSG-14)", m.Type)
	}
	if strings.Contains(m.Type, ":") {
		return Message{}, fmt.Errorf("response to %q: dispatch topics have no .response form (MSG-14)", m.Type)
	}
	return m.Reply(m.Type+".response", data), nil
}

// ContextString returns a string context value, "" when absent or not a string.
func (m Message) ContextString(key string) string {
	s, _ := m.Context[key].(string)
	return s
}

// DataString returns a string data value, "" when absent or not a string.
func (m Message) DataString(key string) string {
	s, _ := m.Data[key].(string)
	return s
}

// copyMap deep-copies a JSON-shaped map so derived messages never share
// mutable state with their source.
func copyMap(in map[string]any) map[string]any {
	out := make(map[string]any, len(in))
	for k, v := range in {
		out[k] = copyValue(v)
	}
	return out
}

func copyValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		return copyMap(t)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = copyValue(e)
		}
		return out
	case []string:
		return append([]string(nil), t...)
	default:
		return v
	}
}

// CopyMap returns a deep copy of a JSON-shaped map.
func CopyMap(in map[string]any) map[string]any { return copyMap(in) }
