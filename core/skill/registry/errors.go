package registry

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Sentinel errors; every error of this package wraps one of them.
var (
	// ErrInvalid marks a manifest (or an argument) that breaks a rule.
	ErrInvalid = errors.New("invalid")
	// ErrNotFound marks a skill id the registry does not hold.
	ErrNotFound = errors.New("not found")
	// ErrExists marks an Add of an id the registry already holds.
	ErrExists = errors.New("already exists")
	// ErrBusy marks a skill that is being removed or replaced: it takes no
	// new requests and no second update until the first one is done.
	ErrBusy = errors.New("being updated")
	// ErrDenied marks an action or request the skill is not permitted.
	ErrDenied = errors.New("permission denied")
)

// FieldError reports a bad member of a manifest by its JSON path, e.g.
// "limits.max_behaviors" or "permissions[2]". It wraps ErrInvalid.
type FieldError struct {
	// Path locates the member; "" for the manifest as a whole.
	Path string
	// Reason says what is wrong with it.
	Reason string
}

// Error reports the path and the reason.
func (e *FieldError) Error() string {
	if e.Path == "" {
		return "invalid manifest: " + e.Reason
	}
	return "invalid manifest: " + e.Path + ": " + e.Reason
}

// Unwrap makes errors.Is(err, ErrInvalid) true.
func (e *FieldError) Unwrap() error { return ErrInvalid }

// fieldErr is not inlined: it runs on error paths only, and inlining would
// copy its body into each of its many callers.
//
//go:noinline
func fieldErr(path, format string, args ...any) *FieldError {
	return &FieldError{Path: path, Reason: fmt.Sprintf(format, args...)}
}

// DeniedError is the gate's refusal of an action (or of a request, such as
// a proactive launch). It names the skill, what it lacks (a permission or a
// limit) and where in the action the offending behaviour stands. It
// matches ErrDenied with errors.Is.
type DeniedError struct {
	// Skill is the manifest id of the refused skill.
	Skill string
	// Permission is the permission the skill lacks; "" when a limit was
	// exceeded instead.
	Permission Permission
	// Limit names the manifest limit exceeded (e.g. "max_behaviors"); ""
	// when a permission is missing.
	Limit string
	// Path is the JSON path of the offending behaviour from the action
	// envelope (e.g. "config.jcp.children[1]"); "" when the refusal is
	// about the whole action or request.
	Path string
	// Reason says what needed the permission or broke the limit.
	Reason string
	// Missing lists every permission the action needs and the skill lacks
	// (Permission among them), sorted, so an author can fix all at once.
	Missing []Permission
	// RetryAfter is, for a rate limit (calls_per_minute), how long until
	// the skill takes a call again; 0 otherwise.
	RetryAfter time.Duration
}

// Error says who was refused what, where and why.
func (e *DeniedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "skill %s: ", e.Skill)
	switch {
	case e.Permission != "":
		fmt.Fprintf(&b, "no %q permission", e.Permission)
	case e.Limit != "":
		fmt.Fprintf(&b, "over its %s limit", e.Limit)
	default:
		b.WriteString("refused")
	}
	if e.Path != "" {
		fmt.Fprintf(&b, ": %s", e.Path)
	}
	if e.Reason != "" {
		fmt.Fprintf(&b, ": %s", e.Reason)
	}
	if len(e.Missing) > 1 {
		names := make([]string, len(e.Missing))
		for i, p := range e.Missing {
			names[i] = string(p)
		}
		fmt.Fprintf(&b, " (all missing: %s)", strings.Join(names, ", "))
	}
	return b.String()
}

// Is makes errors.Is(err, ErrDenied) true.
func (e *DeniedError) Is(target error) bool { return target == ErrDenied }
