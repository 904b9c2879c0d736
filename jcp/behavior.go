package jcp

import "encoding/json"

// BehaviorType is a behaviour's wire "type".
type BehaviorType string

// The behaviour types this package understands.
const (
	TypeSLIM             BehaviorType = "SLIM"
	TypePlay             BehaviorType = "PLAY"
	TypeListen           BehaviorType = "LISTEN"
	TypeDisplay          BehaviorType = "DISPLAY"
	TypeSequence         BehaviorType = "SEQUENCE"
	TypeParallel         BehaviorType = "PARALLEL"
	TypeSetPresentPerson BehaviorType = "SET_PRESENT_PERSON"
	TypeImpactEmotion    BehaviorType = "IMPACT_EMOTION"
)

// Behavior is one node of a JCP behaviour tree. The concrete types are the
// pointer types in this package (*SLIM, *Play, ...); the set is closed so
// the executor can run every behaviour that validates.
type Behavior interface {
	// BehaviorID returns the behaviour's id, unique within its action.
	BehaviorID() string
	// BehaviorType returns the behaviour's wire type.
	BehaviorType() BehaviorType
	// MarshalJSON writes the behaviour in canonical form.
	MarshalJSON() ([]byte, error)

	// sealed keeps the set of behaviours to this package.
	sealed()
}

// Base holds the fields every behaviour has.
type Base struct {
	// ID identifies the behaviour within its action; Jibo's builders use
	// 32 hex digits (see NewID).
	ID string
	// Meta is opaque data carried with the behaviour (raw JSON; nil when
	// absent). The Slimmer puts prompt and MIM ids here.
	Meta json.RawMessage
}

// BehaviorID returns b.ID.
func (b *Base) BehaviorID() string { return b.ID }

func (b *Base) sealed() {}

// SLIM is a spoken line: play some ESML, then optionally listen, with an
// optional display.
type SLIM struct {
	Base
	// Play is what to say; nil for none.
	Play *Play
	// Listen, when set, makes the SLIM a question.
	Listen *Listen
	// Display is what to show; running it is future work, so the executor
	// reports it as skipped.
	Display *Display
	// Options holds the SLIM's options; nil when absent.
	Options *SLIMOptions
}

// BehaviorType returns TypeSLIM.
func (*SLIM) BehaviorType() BehaviorType { return TypeSLIM }

// DisplayMode says when a SLIM's display is shown.
type DisplayMode string

// The display modes of a SLIM.
const (
	DisplayStartOnPlay   DisplayMode = "START_ON_PLAY"
	DisplayStartOnListen DisplayMode = "START_ON_LISTEN"
)

// SLIMOptions are a SLIM's options.
type SLIMOptions struct {
	// DisplayMode is "" (absent), DisplayStartOnPlay or DisplayStartOnListen.
	DisplayMode DisplayMode
}

// Play speaks ESML.
type Play struct {
	Base
	// ESML is the markup to speak (at most MaxESMLBytes).
	ESML string
	// AutoRuleConfig is raw JSON: an object of booleans or a single boolean,
	// as the Slimmer passes either.
	AutoRuleConfig json.RawMessage
	// SpeakOptions is raw JSON ({disableAutoRules?, followedByListen?,
	// centeringEnabled?}).
	SpeakOptions json.RawMessage
}

// BehaviorType returns TypePlay.
func (*Play) BehaviorType() BehaviorType { return TypePlay }

// Listen asks for the next turn to be heard against NLU rules.
type Listen struct {
	Base
	// Contexts are the NLU rules to listen with (at least one).
	Contexts []string
	// Intents is raw JSON (an array of intent descriptions); nil when absent.
	Intents json.RawMessage
}

// BehaviorType returns TypeListen.
func (*Listen) BehaviorType() BehaviorType { return TypeListen }

// Overlay is how a display covers what lies beneath it.
type Overlay string

// The display overlays.
const (
	OverlayDim   Overlay = "dim"
	OverlayClear Overlay = "clear"
)

// MaxDisplayLayer is the highest display layer (layers are 0..4).
const MaxDisplayLayer = 4

// Display shows a view on the screen. It is parsed and kept so that a later
// display device can run it.
type Display struct {
	Base
	// Name identifies the display; "" when absent.
	Name string
	// View is raw JSON describing what to show (required, an object).
	View json.RawMessage
	// Layer is 0..MaxDisplayLayer; nil when absent.
	Layer *int
	// Visible and KeepDisplay are nil when absent.
	Visible, KeepDisplay *bool
	// OnCancel is raw JSON (an array of actions); nil when absent.
	OnCancel json.RawMessage
	// Overlay is "" (absent), OverlayDim or OverlayClear.
	Overlay Overlay
}

// BehaviorType returns TypeDisplay.
func (*Display) BehaviorType() BehaviorType { return TypeDisplay }

// SequenceBehavior runs its children in order and fails as soon as one
// fails. (Sequence, the function, builds one.)
type SequenceBehavior struct {
	Base
	// Children run in order; at least one.
	Children []Behavior
}

// BehaviorType returns TypeSequence.
func (*SequenceBehavior) BehaviorType() BehaviorType { return TypeSequence }

// ParallelBehavior runs its children at the same time. (Parallel, the
// function, builds one.)
type ParallelBehavior struct {
	Base
	// Children run concurrently; at least one.
	Children []Behavior
	// SucceedOnFirst ends the behaviour, successfully, as soon as one child
	// succeeds, cancelling the rest.
	SucceedOnFirst bool
}

// BehaviorType returns TypeParallel.
func (*ParallelBehavior) BehaviorType() BehaviorType { return TypeParallel }

// PersonSource says how the present person was identified.
type PersonSource string

// The sources of SET_PRESENT_PERSON.
const (
	SourceVoice        PersonSource = "VOICE"
	SourceFace         PersonSource = "FACE"
	SourceUserOverride PersonSource = "USER_OVERRIDE"
)

// MaxPresentPersonConfidence is the top of SET_PRESENT_PERSON's confidence
// scale; Jibo's SetLooperIDNode sends 100.
const MaxPresentPersonConfidence = 100

// SetPresentPerson tells the robot who it is talking to.
type SetPresentPerson struct {
	Base
	// LooperID identifies the person (a loop member).
	LooperID string
	// Source is how they were identified.
	Source PersonSource
	// Confidence is 0..MaxPresentPersonConfidence.
	Confidence float64
}

// BehaviorType returns TypeSetPresentPerson.
func (*SetPresentPerson) BehaviorType() BehaviorType { return TypeSetPresentPerson }

// Impact is the size and sign of a change to the robot's emotion.
type Impact string

// The impacts IMPACT_EMOTION accepts for valence and confidence.
const (
	ImpactNone      Impact = "NONE"
	ImpactLowPos    Impact = "LOW_POS"
	ImpactMediumPos Impact = "MEDIUM_POS"
	ImpactHighPos   Impact = "HIGH_POS"
	ImpactLowNeg    Impact = "LOW_NEG"
	ImpactMediumNeg Impact = "MEDIUM_NEG"
	ImpactHighNeg   Impact = "HIGH_NEG"
)

func (i Impact) valid() bool {
	switch i {
	case ImpactNone, ImpactLowPos, ImpactMediumPos, ImpactHighPos, ImpactLowNeg, ImpactMediumNeg, ImpactHighNeg:
		return true
	}
	return false
}

// ImpactEmotion nudges the robot's emotion.
type ImpactEmotion struct {
	Base
	// Valence and Confidence are "" when absent.
	Valence, Confidence Impact
}

// BehaviorType returns TypeImpactEmotion.
func (*ImpactEmotion) BehaviorType() BehaviorType { return TypeImpactEmotion }
