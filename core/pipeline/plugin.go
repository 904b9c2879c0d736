// Package pipeline is the utterance orchestrator (OVOS PIPELINE-1): it takes
// ovos.utterance.handle, asks pipeline plugins for a match in the session's
// order, dispatches the first surviving match to its skill handler with the
// handler trio around it, and ends every lifecycle with exactly one
// ovos.utterance.handled.
package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/internal/ascii"
)

// Topics the orchestrator consumes and produces (spec/ovos.md §12).
const (
	TopicHandle          = "ovos.utterance.handle"
	TopicHandled         = "ovos.utterance.handled"
	TopicCancelled       = "ovos.utterance.cancelled"
	TopicMatched         = "ovos.intent.matched"
	TopicUnmatched       = "ovos.intent.unmatched"
	TopicHandlerStart    = "ovos.intent.handler.start"
	TopicHandlerDone     = "ovos.intent.handler.complete"
	TopicHandlerError    = "ovos.intent.handler.error"
	TopicSpeak           = "ovos.utterance.speak"
	TopicSessionRejected = "ovos.session.rejected"
	// TopicSessionSync carries a handler's session mid-lifecycle (SES2-05,
	// accepted as input).
	TopicSessionSync = "ovos.session.sync"
	// TopicConverseActiveList asks for the session's converse_handlers (CONV-09).
	TopicConverseActiveList = "ovos.converse.active.list"
	// TopicPolicyDenied reports a candidate a session denylist dropped
	// (PIPE-32, diagnostic): {field, value, pipeline_id}.
	TopicPolicyDenied = "ovos.policy.denied"
)

// Context keys the orchestrator stamps on a cancelled lifecycle (TRF-12).
const (
	KeyCanceled     = "canceled"
	KeyCancelReason = "cancel_reason"
	KeyCancelBy     = "cancel_by"
)

// Context keys on ovos.intent.matched: how sure the winning stage was and
// why it chose the intent (Match's Confidence and Why), for people
// watching the robot think. PIPE-25 fixes the data, so they ride in the
// context; they are informational (DEF-11).
const (
	KeyMatchConfidence = "match_confidence"
	KeyMatchWhy        = "match_why"
)

// Round is one match call's view of its lifecycle, for plugins that talk on
// the bus while they match (stop, converse and fallback polls).
type Round struct {
	Utterances []string
	Lang       string
	Session    session.Session
	// Entry is the lifecycle's entry message as it stands at the match
	// round: its context carries the utterance_id (PIPE-02), the routing and
	// the session. Derive polls from it with Reply. Like Session it is the
	// plugin's own copy: changing either changes nothing for the round
	// (PIPE-08); a plugin changes the session only through its Match's
	// updated_session.
	Entry bus.Message
}

// RoundPlugin is a Plugin that needs its lifecycle's entry message; the
// orchestrator calls MatchRound instead of Match.
type RoundPlugin interface {
	Plugin
	MatchRound(ctx context.Context, r Round) (*Match, error)
}

// IntentHandler is a Plugin that handles the intents it matches for itself
// (skill_id = its own pipeline_id, as global_stop does); the orchestrator
// invokes it instead of the Invoker, with the same trio and timeout.
type IntentHandler interface {
	Plugin
	HandleIntent(ctx context.Context, d Dispatch) (session.Session, error)
}

// IntentRef names one intent a plugin can match (PIPE-31). Lang is empty for
// language-independent entries and then left out of the answer.
type IntentRef struct {
	SkillID    string
	IntentName string
	Lang       string
}

// IntentLister is a Plugin that can list what it matches for a session, to
// answer ovos.pipeline.<id>.intents.list (PIPE-31). A loaded plugin without
// it answers with an empty list.
type IntentLister interface {
	Plugin
	Intents(sessionID string) []IntentRef
}

// Listener takes messages from the orchestrator's own subscription, so it
// sees them in the same total order as utterances: a registration published
// before an utterance is applied before that utterance's match round.
// Receive must return quickly and must not block on the bus.
type Listener interface {
	Topics() []string
	Receive(ctx context.Context, m bus.Message)
}

// Match is a plugin's claim on an utterance (PIPE-06).
type Match struct {
	SkillID    string
	IntentName string
	Lang       string
	Slots      map[string]string
	// Utterance is the winning candidate, verbatim.
	Utterance string
	// UpdatedSession, when set, is a complete snapshot committed only if
	// this match wins (PIPE-08, SES2-02).
	UpdatedSession map[string]any
	// Confidence and Why are informational (DEF-11: unspecified by OVOS).
	Confidence float64
	Why        string
	// Continues marks a turn of the conversation the skill is already in,
	// not a new launch of it: the hub routing the utterance to the running
	// cloud skill (jibo.md §1.5). The invoker hands it on as Dispatch's.
	Continues bool
	// After, when set, runs once the dispatched handler has returned
	// without error, inside its trio and timeout and with its Dispatch:
	// what the matching plugin has the robot do once the handler's work
	// is done (the stop plugin's word about a timer a stop left running).
	// It never goes on the bus; an error it returns is logged, the
	// handler's outcome stands.
	After func(ctx context.Context, d Dispatch) error
}

// Plugin is one pipeline stage (PIPE-05). Match must honour ctx: the
// orchestrator abandons a call at its deadline and ignores any late answer.
type Plugin interface {
	ID() string
	Match(ctx context.Context, utterances []string, lang string, s session.Session) (*Match, error)
}

var pluginIDChars = ascii.NewSet("A-Za-z0-9_-")

// ValidatePluginID checks PIPE-04: non-empty, [A-Za-z0-9_-]+.
func ValidatePluginID(id string) error {
	if id == "" || !pluginIDChars.All(id) {
		return fmt.Errorf("pipeline id %q: want [A-Za-z0-9_-]+ (PIPE-04)", id)
	}
	return nil
}

// errMalformedMatch marks a Match that counts as a silent decline (PIPE-07).
var errMalformedMatch = errors.New("malformed match")

// validate applies PIPE-07 to a plugin's Match.
func (m *Match) validate() error {
	switch {
	case m.SkillID == "":
		return fmt.Errorf("%w: skill_id empty", errMalformedMatch)
	case strings.Contains(m.SkillID, ":"):
		return fmt.Errorf("%w: skill_id %q contains ':'", errMalformedMatch, m.SkillID)
	case m.IntentName == "":
		return fmt.Errorf("%w: intent_name empty", errMalformedMatch)
	case strings.Contains(m.IntentName, ":"):
		return fmt.Errorf("%w: intent_name %q contains ':'", errMalformedMatch, m.IntentName)
	case !session.ValidLang(m.Lang):
		return fmt.Errorf("%w: lang %q is not BCP-47", errMalformedMatch, m.Lang)
	case m.Slots == nil:
		return fmt.Errorf("%w: slots missing", errMalformedMatch)
	case m.Utterance == "":
		return fmt.Errorf("%w: utterance empty", errMalformedMatch)
	}
	return nil
}

// Reserved intent names (PIPE-21): plugins may return them, skills may
// never register them (REG-05, REG-06). The value says whether dispatching
// one pushes the skill onto active_handlers (PIPE-19): only fallback does.
var reservedIntents = map[string]bool{"converse": false, "response": false, "stop": false, "common_query": false, "fallback": true}

// IsReservedIntent reports whether name is reserved (PIPE-21), in any
// letter case: "Stop" would read as "stop" to a person.
func IsReservedIntent(name string) bool {
	_, ok := reservedIntents[strings.ToLower(name)]
	return ok
}

// ReservedIntents returns the reserved intent names, sorted.
func ReservedIntents() []string {
	return []string{"common_query", "converse", "fallback", "response", "stop"}
}
