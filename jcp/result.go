package jcp

import (
	"encoding/json"
	"time"
)

// Status is how a behaviour, or a whole run, ended.
type Status string

// The statuses a behaviour or run can end with.
const (
	StatusSucceeded Status = "succeeded"
	StatusFailed    Status = "failed"
	StatusCanceled  Status = "canceled"
	// StatusSkipped marks a behaviour this body cannot perform (a DISPLAY
	// without a display, emotion without a State); it does not fail its
	// parent.
	StatusSkipped Status = "skipped"
)

// Result is what running an action did.
type Result struct {
	// Status is StatusSucceeded, StatusFailed or StatusCanceled.
	Status Status `json:"status"`
	// Error explains a failed or cancelled run.
	Error string `json:"error,omitempty"`
	// Behaviors has one entry per behaviour that started, in start order.
	// Behaviours that never started (after a failure in a SEQUENCE) are
	// not listed.
	Behaviors []BehaviorResult `json:"behaviors"`
	// Spoken holds the text of each PLAY that was spoken to the end, in
	// the order they finished.
	Spoken []string `json:"spoken,omitempty"`
	// Listen is the last listen request of the run, if any: the skill host
	// acts on it (opens the next turn with its contexts).
	Listen *ListenRequest `json:"listen,omitempty"`
}

// BehaviorResult is how one behaviour ran.
type BehaviorResult struct {
	ID     string       `json:"id"`
	Type   BehaviorType `json:"type"`
	Status Status       `json:"status"`
	// Error explains a failure or cancellation.
	Error string `json:"error,omitempty"`
	// Note explains a skip, e.g. "no display device", and carries remarks
	// on what ran, e.g. "unknown ESML tags: foo".
	Note  string    `json:"note,omitempty"`
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

// ListenRequest is a SLIM's request to hear the next turn.
type ListenRequest struct {
	// SLIMID is the id of the SLIM that asked.
	SLIMID string `json:"slimId"`
	// BehaviorID is the id of its LISTEN.
	BehaviorID string `json:"behaviorId"`
	// Contexts are the NLU rules to listen with.
	Contexts []string `json:"contexts"`
	// Intents is the LISTEN's raw intents, if any.
	Intents json.RawMessage `json:"intents,omitempty"`
	// Heard is what the configured Listener heard; nil when the executor has
	// no Listener and the caller is to listen.
	Heard *ListenResult `json:"heard,omitempty"`
}

// ListenResult is what a Listener heard.
type ListenResult struct {
	// ASR is the recognised text; "" when nothing was heard.
	ASR string `json:"asr"`
	// NLU is the listener's understanding of it, as raw JSON; nil for none.
	NLU json.RawMessage `json:"nlu,omitempty"`
}

// EventKind says what happened to a behaviour.
type EventKind string

// The behaviour events an executor reports.
const (
	EventStarted   EventKind = "started"
	EventSucceeded EventKind = "succeeded"
	EventFailed    EventKind = "failed"
	EventCanceled  EventKind = "canceled"
	EventSkipped   EventKind = "skipped"
	// EventSpeaking marks a PLAY that holds the voice and starts to speak;
	// Event.Text is its whole spoken text.
	EventSpeaking EventKind = "speaking"
	// EventBlocked tells a behaviour it waits for a resource; Event.Note
	// names the resource and its holder.
	EventBlocked EventKind = "blocked"
	// EventOverridden tells a behaviour a newer action took its resource
	// (ExecutorConfig.Preempt); it ends canceled.
	EventOverridden EventKind = "overridden"
	// EventCue marks an ESML tag firing in a PLAY: Event.Note says what
	// (e.g. "anim nod", "sfx chime", "break 500ms").
	EventCue EventKind = "cue"
	// EventNote carries a remark on a behaviour in Event.Note, such as an
	// unknown ESML tag or an animation that could not be found.
	EventNote EventKind = "note"
)

// Event is a behaviour's progress, as reported to ExecutorConfig.Observer.
type Event struct {
	Time       time.Time
	BehaviorID string
	Type       BehaviorType
	Kind       EventKind
	// Error explains a failure or cancellation; Note a skip.
	Error, Note string
	// Text is the spoken text of a speaking event.
	Text string
}
