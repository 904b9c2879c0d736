package wasmskill

import (
	"errors"
	"fmt"
	"time"
)

// Host is what the robot offers a skill while it answers a request. Each
// call is checked against the skill's manifest: storage needs the
// "storage" permission, Fetch the "network" permission and a host listed
// in network_hosts. A call the manifest does not permit stops the request
// there (the robot reports the skill), so a skill only calls what it
// declares.
type Host interface {
	// Get returns the value stored under key, or an error that Is
	// ErrNotFound.
	Get(key string) ([]byte, error)
	// Set stores value under key, durably; over the quota it fails with
	// ErrQuota.
	Set(key string, value []byte) error
	// Delete removes key; a missing key is no error.
	Delete(key string) error
	// Keys lists the skill's keys starting with prefix, sorted.
	Keys(prefix string) ([]string, error)
	// Fetch makes an HTTP request to a host the manifest lists; while the
	// robot is offline it fails with ErrOffline.
	Fetch(req FetchRequest) (*FetchResponse, error)
	// Log writes a line to the robot's log, tagged with the skill.
	Log(level Level, msg string)
	// Now is the robot's wall-clock time in its local time zone.
	Now() time.Time
	// State is what the robot feels and whom it attends to right now.
	State() (State, error)
	// Dialog renders one of the skill's .dialog files (locale/<lang>/
	// <name>.dialog) in the request's language: a line picked at random,
	// its {slots} filled from slots. The robot checked the files when the
	// skill was installed. A dialog the package lacks fails with an error
	// that Is ErrNotFound; a slot the chosen line names but slots lacks,
	// with ErrInvalid. The text is plain: answer with Say, which escapes it.
	Dialog(name string, slots map[string]string) (string, error)
}

// FetchRequest is an HTTP request.
type FetchRequest struct {
	// Method is GET, HEAD, POST, PUT, PATCH or DELETE; "" means GET.
	Method string `json:"method,omitempty"`
	// URL is an absolute http or https URL on a listed host.
	URL string `json:"url"`
	// Headers are the request's headers, one value each.
	Headers map[string]string `json:"headers,omitempty"`
	// Body is the request's body.
	Body []byte `json:"body,omitempty"`
}

// FetchResponse is an HTTP response.
type FetchResponse struct {
	// Status is the HTTP status code.
	Status int `json:"status"`
	// Headers are the response's headers, the first value of each.
	Headers map[string]string `json:"headers,omitempty"`
	// Body is the whole body.
	Body []byte `json:"body,omitempty"`
}

// State is the robot's social state.
type State struct {
	// Emotion is the robot's emotion.
	Emotion Emotion `json:"emotion"`
	// Speaker is the id of the person the robot attends to; "" for none.
	Speaker string `json:"speaker,omitempty"`
}

// Emotion is the robot's emotion: a name and two dimensions in [-1, 1].
type Emotion struct {
	Name       string  `json:"name"`
	Valence    float64 `json:"valence"`
	Confidence float64 `json:"confidence"`
}

// Error is a host call that did not succeed: its code and the host's
// message. errors.Is matches it against the Err* values by code.
type Error struct {
	// Op is the host function ("kv_get").
	Op string
	// Code is one of the Code* values.
	Code int32
	// Message is what the host said.
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s (code %d)", e.Op, e.Message, e.Code) }

// Is matches an *Error by its code, so errors.Is(err, ErrNotFound) works.
func (e *Error) Is(target error) bool {
	var t *Error
	return errors.As(target, &t) && t.Op == "" && t.Code == e.Code
}

// Values to test host errors against with errors.Is.
var (
	ErrInvalid  = &Error{Code: CodeInvalid, Message: "invalid argument"}
	ErrNotFound = &Error{Code: CodeNotFound, Message: "not found"}
	ErrQuota    = &Error{Code: CodeQuota, Message: "storage quota exceeded"}
	ErrOffline  = &Error{Code: CodeOffline, Message: "the robot is offline"}
	ErrNetwork  = &Error{Code: CodeNetwork, Message: "network failure"}
	ErrTooLarge = &Error{Code: CodeTooLarge, Message: "too large"}
	ErrLimit    = &Error{Code: CodeLimit, Message: "too many calls"}
	ErrInternal = &Error{Code: CodeInternal, Message: "host failure"}
)
