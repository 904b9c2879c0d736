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

// The RCP v2 behaviours this package runs besides the cloud set
// (spec/jibo.md §3.3).
const (
	TypeLookAt        BehaviorType = "LOOKAT"
	TypePlayAnimation BehaviorType = "PLAY_ANIMATION"
)

// DOFSet selects what a motion behaviour may move.
type DOFSet string

// The DOF sets of LOOKAT and PLAY_ANIMATION options.
const (
	// DOFBase is the bottom (base) axis.
	DOFBase DOFSet = "BASE"
	// DOFEye is the eye on the screen.
	DOFEye DOFSet = "EYE"
	// DOFBody is the three axes.
	DOFBody DOFSet = "BODY"
	// DOFAll is everything: the axes, the eye and the light ring.
	DOFAll DOFSet = "ALL"
)

func (d DOFSet) valid() bool {
	switch d {
	case "", DOFBase, DOFEye, DOFBody, DOFAll:
		return true
	}
	return false
}

// LookType is how LOOKAT turns the body.
type LookType string

// The LOOKAT option types.
const (
	// LookLevelHead turns every axis and keeps the head level.
	LookLevelHead LookType = "LEVEL_HEAD"
	// LookFlushBase keeps the base still and looks with torso and head.
	LookFlushBase LookType = "FLUSH_BASE"
)

// Vector3 is a point in metres from the centre of the robot's base: X
// forward, Y left, Z up.
type Vector3 struct{ X, Y, Z float64 }

// Vector2 is a pair of numbers: an angle pair or screen coordinates.
type Vector2 struct{ X, Y float64 }

// LookTarget is what LOOKAT looks at: exactly one of its fields is set.
type LookTarget struct {
	// Position is a point to look at ("position").
	Position *Vector3
	// Angle turns the gaze from where the robot looks now ("angleVector"):
	// X twists (radians, left positive), Y tips (radians, up positive), as
	// RCP's relative angle target.
	Angle *Vector2
	// Camera is a point in the camera image ("cameraTarget"), in pixels.
	Camera *Vector2
	// Entity is a perceived entity to look at ("entityId"), as raw JSON
	// (a number or a string); Track keeps following it.
	Entity json.RawMessage
	// Track follows the entity until the behaviour is stopped.
	Track bool
}

// LookAtOptions are LOOKAT's options.
type LookAtOptions struct {
	// Type is "" (LookLevelHead), LookLevelHead or LookFlushBase.
	Type LookType
	// DOFs is "" (DOFAll) or a DOFSet.
	DOFs DOFSet
}

// LookAt turns the robot to look at a target (RCP v2 LOOKAT). It succeeds
// when the body arrives.
type LookAt struct {
	Base
	// Target is what to look at.
	Target LookTarget
	// Options is nil when absent.
	Options *LookAtOptions
}

// BehaviorType returns TypeLookAt.
func (*LookAt) BehaviorType() BehaviorType { return TypeLookAt }

// AnimationRef names the animation PLAY_ANIMATION plays: exactly one of
// its fields is set.
type AnimationRef struct {
	// URL names a library animation by its name or a path ending in it
	// ("nod", "animations/nod.keys").
	URL string
	// Data is an animation inline, in package motion's keyframe format
	// (motion/FORMAT.md), as raw JSON.
	Data json.RawMessage
	// Query is a free-text animation query.
	Query string
	// Categories picks the first library animation tagged with all of them.
	Categories []string
}

// AnimationOptions are PLAY_ANIMATION's options.
type AnimationOptions struct {
	// DOFs is "" (DOFAll) or a DOFSet.
	DOFs DOFSet
	// Speed scales time (0.1..10); nil means 1.
	Speed *float64
	// Loops is how many times to play: -1 until stopped, 0 or 1 once, at
	// most MaxLoops; nil means once.
	Loops *int
}

// PlayAnimation plays a keyframe animation of the body and light ring
// (RCP v2 PLAY_ANIMATION). It succeeds when the animation has played and
// the body is back at rest.
type PlayAnimation struct {
	Base
	// Animation is what to play.
	Animation AnimationRef
	// Options is nil when absent.
	Options *AnimationOptions
}

// BehaviorType returns TypePlayAnimation.
func (*PlayAnimation) BehaviorType() BehaviorType { return TypePlayAnimation }

// EachSLIM calls fn for every SLIM of a behaviour tree, in running order
// (children of sequences and parallels depth first, as written).
func EachSLIM(b Behavior, fn func(*SLIM)) {
	switch t := b.(type) {
	case *SLIM:
		fn(t)
	case *SequenceBehavior:
		for _, c := range t.Children {
			EachSLIM(c, fn)
		}
	case *ParallelBehavior:
		for _, c := range t.Children {
			EachSLIM(c, fn)
		}
	}
}
