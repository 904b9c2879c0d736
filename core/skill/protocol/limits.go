package protocol

import (
	"errors"
	"fmt"
)

// Limits on one message, applied to JSON and CBOR alike. Every decoder in
// this package checks them before building anything, so a message over a
// limit is rejected whole.
const (
	// MaxMessageSize bounds an encoded message in bytes; decoders check it
	// before reading anything else.
	MaxMessageSize = 1 << 20
	// MaxNestedLevels bounds the nesting of objects and arrays (CBOR: maps,
	// arrays and tags). JCP actions nest two levels per behaviour, so this
	// leaves room for about 25 nested behaviours.
	MaxNestedLevels = 64
	// MaxArrayElements bounds the elements of any one array.
	MaxArrayElements = 16384
	// MaxMapPairs bounds the members of any one object.
	MaxMapPairs = 4096
	// MaxStringLen bounds, in bytes, every string member this package
	// models (ids, intents, rules, ASR text, error messages, …). Strings
	// inside verbatim members such as actions are bounded by the message
	// size only.
	MaxStringLen = 16 << 10
	// MaxTraceLen bounds a session's trace.
	MaxTraceLen = 4096
	// MaxEntities bounds the entities of one NLU result.
	MaxEntities = 256
	// MaxRules bounds the rules of one NLU result, LISTEN or agent.
	MaxRules = 256
	// MaxAgents bounds the extra NLU agents of one LISTEN.
	MaxAgents = 16
	// MaxHints bounds each phrase list of a LISTEN's ASR configuration
	// (hints, earlyEOS, regexpEOS, detectLangs).
	MaxHints = 1024
	// MaxSampleRate bounds a LISTEN's audio sample rate, in Hz.
	MaxSampleRate = 192000
	// MaxListenTimeoutMS bounds a LISTEN's sosTimeout and
	// maxSpeechTimeout (the hub gives up on ASR after 40 s anyway).
	MaxListenTimeoutMS = 10 * 60 * 1000
)

// Limits on a skill manifest (ManifestSkillConfig), checked by Validate.
const (
	// MaxManifestIntents bounds a manifest's intents.
	MaxManifestIntents = 1024
	// MaxIntentEntities bounds the entity conditions of one intent.
	MaxIntentEntities = 64
	// MaxProactives bounds a manifest's proactive registrations.
	MaxProactives = 256
	// MaxProactiveRules bounds each rule list (topics, contextRules,
	// IHRules, settingsRules) of one proactive registration.
	MaxProactiveRules = 64
	// MaxIHQueries bounds a manifest's interaction-history queries.
	MaxIHQueries = 256
)

// ErrLimit is wrapped by every error that reports a message over one of the
// package limits.
var ErrLimit = errors.New("message exceeds protocol limit")

// checkJSON applies the size, nesting and count limits to a JSON document
// with a single pass over its bytes, before any decoding. It does not check
// syntax; the decoder that follows does.
func checkJSON(data []byte) error {
	if len(data) > MaxMessageSize {
		return fmt.Errorf("%w: %d bytes, limit %d", ErrLimit, len(data), MaxMessageSize)
	}
	type level struct {
		object bool
		commas int
	}
	var stack [MaxNestedLevels]level
	depth := 0
	inString, escaped := false, false
	for i, c := range data {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			if depth == MaxNestedLevels {
				return fmt.Errorf("%w: nesting deeper than %d levels at byte %d", ErrLimit, MaxNestedLevels, i)
			}
			stack[depth] = level{object: c == '{'}
			depth++
		case '}', ']':
			if depth > 0 {
				depth--
			}
		case ',':
			if depth == 0 {
				continue
			}
			l := &stack[depth-1]
			l.commas++
			if l.object && l.commas+1 > MaxMapPairs {
				return fmt.Errorf("%w: object with more than %d members at byte %d", ErrLimit, MaxMapPairs, i)
			}
			if !l.object && l.commas+1 > MaxArrayElements {
				return fmt.Errorf("%w: array with more than %d elements at byte %d", ErrLimit, MaxArrayElements, i)
			}
		}
	}
	return nil
}
