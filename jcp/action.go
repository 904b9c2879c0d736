package jcp

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
)

// Envelope values.
const (
	// ActionType is the envelope's "type"; the only one there is.
	ActionType = "JCP"
	// Version is the protocol version Jibo's builders write and NewAction
	// uses. Other versions are accepted: the robot never acted on it.
	Version = "2.0"
)

// Limits on what an action may contain. Anything beyond them is rejected
// whole, before any of it runs.
const (
	// MaxActionBytes bounds the encoded action handed to ParseAction.
	MaxActionBytes = 256 << 10
	// MaxDepth bounds behaviour nesting; the root behaviour is at depth 1
	// and a SLIM's PLAY, LISTEN and DISPLAY sit one level below the SLIM.
	MaxDepth = 16
	// MaxBehaviors bounds the behaviours in one action, counting the PLAY,
	// LISTEN and DISPLAY inside SLIMs.
	MaxBehaviors = 256
	// MaxESMLBytes bounds one PLAY's ESML.
	MaxESMLBytes = 8 << 10
	// MaxIDBytes bounds a behaviour id.
	MaxIDBytes = 128
	// MaxContexts bounds the NLU contexts of one LISTEN.
	MaxContexts = 32
	// MaxStringBytes bounds other strings: the version, contexts, looper
	// ids, display names, animation URLs and queries.
	MaxStringBytes = 256
	// MaxLoops bounds PLAY_ANIMATION's loops.
	MaxLoops = 1000
	// MaxAnimationCategories bounds PLAY_ANIMATION's categories.
	MaxAnimationCategories = 16
	// MaxTargetDistance bounds a LOOKAT position, in metres.
	MaxTargetDistance = 100
	// MaxCameraCoordinate bounds a LOOKAT camera target, in pixels.
	MaxCameraCoordinate = 10000
)

// Action is a cloud JCP action: one behaviour tree to run.
type Action struct {
	// Version is the envelope's config.version; ParseAction sets Version
	// when the sender left it out.
	Version string
	// Behavior is the root of the tree (the envelope's config.jcp).
	Behavior Behavior
}

// NewAction wraps b in an action of the current Version.
func NewAction(b Behavior) *Action {
	return &Action{Version: Version, Behavior: b}
}

// NewID returns a fresh behaviour id: 32 hex digits from crypto/rand, the
// shape of the transaction ids Jibo's builders generate.
func NewID() string {
	var b [16]byte
	// crypto/rand.Read never fails; it crashes the program if the system's
	// randomness source does.
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Say returns a SLIM that speaks esml.
func Say(esml string) *SLIM {
	return &SLIM{
		Base: Base{ID: NewID()},
		Play: &Play{Base: Base{ID: NewID()}, ESML: esml},
	}
}

// Question returns a SLIM that speaks esml and then listens with the given
// NLU contexts.
func Question(esml string, contexts ...string) *SLIM {
	s := Say(esml)
	s.Listen = &Listen{Base: Base{ID: NewID()}, Contexts: append([]string(nil), contexts...)}
	return s
}

// Sequence returns a SEQUENCE of children.
func Sequence(children ...Behavior) *SequenceBehavior {
	return &SequenceBehavior{Base: Base{ID: NewID()}, Children: children}
}

// Parallel returns a PARALLEL of children.
func Parallel(succeedOnFirst bool, children ...Behavior) *ParallelBehavior {
	return &ParallelBehavior{Base: Base{ID: NewID()}, Children: children, SucceedOnFirst: succeedOnFirst}
}

// FieldError reports a bad part of an action by its JSON path from the
// envelope, e.g. "config.jcp.children[2].config.play.esml: missing".
type FieldError struct {
	// Path locates the bad value, e.g. "config.jcp.children[2].id".
	Path string
	// Reason says what is wrong with it.
	Reason string
}

// Error reports the path and the reason.
func (e *FieldError) Error() string {
	if e.Path == "" {
		return e.Reason
	}
	return e.Path + ": " + e.Reason
}

// fieldErr is not inlined: it runs on error paths only, and inlining would
// copy its body into each of its many callers.
//
//go:noinline
func fieldErr(path, format string, args ...any) *FieldError {
	return &FieldError{Path: path, Reason: fmt.Sprintf(format, args...)}
}

// join extends a JSON path by a key.
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// index extends a JSON path by an array index.
func index(path string, i int) string {
	return fmt.Sprintf("%s[%d]", path, i)
}
