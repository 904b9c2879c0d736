package intent

import (
	"errors"
	"fmt"
)

// Kinds of malformed input. A [SyntaxError] matches its kind with
// errors.Is, so callers can tell the cases apart without parsing messages.
var (
	// ErrUnbalanced: an unbalanced or mismatched ( ) [ ] { } < > or a '|'
	// outside any group (GRM-07).
	ErrUnbalanced = errors.New("unbalanced or mismatched bracket")
	// ErrEmptyGroup: a group "()" with nothing inside (GRM-03, GRM-07).
	ErrEmptyGroup = errors.New("empty group")
	// ErrBadName: a slot, slot type or vocabulary name outside GRM-04.
	ErrBadName = errors.New("invalid name")
	// ErrEmptySample: the sample set contains the empty string (GRM-07).
	ErrEmptySample = errors.New("empty sample")
	// ErrSlotOnly: every sample of the template is only slots (GRM-07).
	ErrSlotOnly = errors.New("slot-only template")
	// ErrAdjacentSlots: two slots with nothing but spaces between them in an
	// expanded sample (GRM-07).
	ErrAdjacentSlots = errors.New("adjacent slots")
	// ErrRepeatedSlot: one sample names the same bare slot twice (GRM-07).
	ErrRepeatedSlot = errors.New("repeated slot name")
	// ErrUndefinedVocab: a <name> reference with no vocabulary (GRM-07).
	ErrUndefinedVocab = errors.New("undefined vocabulary")
	// ErrVocabCycle: vocabularies that refer to each other in a cycle (GRM-07).
	ErrVocabCycle = errors.New("cyclic vocabulary reference")
	// ErrSlotInVocab: a vocabulary sample containing a slot (GRM-06).
	ErrSlotInVocab = errors.New("slot in vocabulary")
	// ErrBadVocab: a referenced vocabulary is itself malformed; the
	// vocabulary's own error is wrapped.
	ErrBadVocab = errors.New("malformed vocabulary")
	// ErrDialogSlots: lines of one .dialog declaring different slots
	// (GRM-16).
	ErrDialogSlots = errors.New("inconsistent dialog slots")
	// ErrUndeclaredSlot: a .required line naming a slot no template of the
	// paired intent declares (RES-08).
	ErrUndeclaredSlot = errors.New("undeclared slot")
	// ErrTooLarge: a template, file or expansion over an explicit limit
	// (GRM-12).
	ErrTooLarge = errors.New("over limit")
	// ErrEncoding: a file that is not valid UTF-8 (RES-04).
	ErrEncoding = errors.New("invalid UTF-8")
	// ErrControl: a template or resource line holding a control character
	// (NUL, BEL, ESC, a bidi override, …; see internal/textcheck).
	ErrControl = errors.New("control character")
	// ErrNoTemplates: a resource file with no template lines (RES-04), or an
	// empty prompt (RES-07).
	ErrNoTemplates = errors.New("no templates")
)

// SyntaxError reports malformed input at a position. Line and Col are
// 1-based; Col counts runes. File names the file or vocabulary entry being
// read and is empty for a bare template.
type SyntaxError struct {
	File  string
	Line  int
	Col   int
	Token string // the offending token as written, e.g. "(" or "<device>"
	Kind  error  // one of the Err* kinds above
	Msg   string // what is wrong, for a person
	Err   error  // underlying cause, e.g. the malformed vocabulary's error
}

// Error formats the position, then what is wrong.
func (e *SyntaxError) Error() string {
	msg := e.Msg
	if msg == "" && e.Kind != nil {
		msg = e.Kind.Error()
	}
	if e.Err != nil {
		msg = fmt.Sprintf("%s: %v", msg, e.Err)
	}
	return Warning{File: e.File, Line: e.Line, Col: e.Col, Msg: msg}.String()
}

// Is reports whether target is this error's kind.
func (e *SyntaxError) Is(target error) bool { return target != nil && target == e.Kind }

// Unwrap returns the underlying cause, if any.
func (e *SyntaxError) Unwrap() error { return e.Err }

// Warning is a problem that does not reject the input: a degenerate group,
// an unregistered slot type, a skipped template. Line and Col are 0 when the
// warning is not tied to a position.
type Warning struct {
	File string // file, vocabulary entry or payload field; may be empty
	Line int
	Col  int
	Msg  string
}

// String formats the warning like a [SyntaxError].
func (w Warning) String() string {
	switch {
	case w.File != "" && w.Line > 0:
		return fmt.Sprintf("%s:%d:%d: %s", w.File, w.Line, w.Col, w.Msg)
	case w.File != "":
		return w.File + ": " + w.Msg
	case w.Line > 0:
		return fmt.Sprintf("line %d col %d: %s", w.Line, w.Col, w.Msg)
	default:
		return w.Msg
	}
}

// withFile returns warnings with File set where it is empty, so warnings
// from a template name the file or field the template came from.
func withFile(ws []Warning, file string) []Warning {
	for i := range ws {
		if ws[i].File == "" {
			ws[i].File = file
		}
	}
	return ws
}
