// Package character keeps the robot's social state: its emotion, which
// IMPACT_EMOTION moves, and the person it is talking to, which
// SET_PRESENT_PERSON sets (spec/jibo.md §3.1, §3.2 step 4). State
// implements jcp.State for the executor and is read by the skill host for
// a request's RuntimeContext.character and perception.speaker.
//
// It lives here, beside jcp, because JCP behaviours are what change it and
// the skill host (core) may import jcp but not motion or device: imports
// stay one-way (cmd → core → jcp → motion → device).
//
// The emotion model is ours (Jibo's was not published): valence (pleasant
// or not) and confidence each lie in [-1, 1]; an impact moves one by
// 0.1 (LOW), 0.25 (MEDIUM) or 0.5 (HIGH), clamped; both decay towards
// neutral with a half-life; the name follows the stronger dimension.
package character

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/openjibo/jibod/jcp"
)

// Emotion names, by the stronger of valence and confidence. PLEASED and
// INSECURE are names Jibo's content uses (spec/jibo.md §5.1); the others
// complete the set.
const (
	Neutral    = "NEUTRAL"
	Pleased    = "PLEASED"
	Displeased = "DISPLEASED"
	Confident  = "CONFIDENT"
	Insecure   = "INSECURE"
)

// Impact sizes.
const (
	LowImpact    = 0.1
	MediumImpact = 0.25
	HighImpact   = 0.5
)

// DefaultHalfLife is how long an emotion takes to fade halfway to neutral.
const DefaultHalfLife = 10 * time.Minute

// neutralBelow is how close to zero both dimensions must be to read as
// NEUTRAL.
const neutralBelow = 0.15

// Emotion is the robot's mood as RuntimeContext.character.emotion carries
// it.
type Emotion struct {
	Name       string  `json:"name"`
	Valence    float64 `json:"valence"`
	Confidence float64 `json:"confidence"`
}

// Person is who the robot is talking to.
type Person struct {
	// LooperID identifies the loop member.
	LooperID string `json:"looperId"`
	// Source is how they were identified: VOICE, FACE or USER_OVERRIDE.
	Source string `json:"source"`
	// Confidence is 0..100.
	Confidence float64 `json:"confidence"`
	// Since is when they were set.
	Since time.Time `json:"since"`
}

// Snapshot is the whole state at one moment.
type Snapshot struct {
	Emotion Emotion `json:"emotion"`
	// Person is nil when nobody has been set.
	Person *Person `json:"person,omitempty"`
}

// Options configures a State.
type Options struct {
	// HalfLife is how fast emotions fade; 0 means DefaultHalfLife, and a
	// negative value keeps them forever.
	HalfLife time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// OnChange, if set, is called with the new state after every change,
	// outside the State's lock.
	OnChange func(Snapshot)
}

// State is the robot's social state. It is safe for concurrent use.
type State struct {
	halfLife time.Duration
	now      func() time.Time
	onChange func(Snapshot)

	mu         sync.Mutex
	valence    float64
	confidence float64
	at         time.Time // when valence and confidence were last set
	person     *Person
}

var _ jcp.State = (*State)(nil)

// New returns a neutral state with nobody present.
func New(o Options) *State {
	s := &State{halfLife: o.HalfLife, now: o.Now, onChange: o.OnChange}
	if s.halfLife == 0 {
		s.halfLife = DefaultHalfLife
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.at = s.now()
	return s
}

// SetPresentPerson makes p's person the one the robot talks to.
func (s *State) SetPresentPerson(ctx context.Context, p jcp.SetPresentPerson) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("set present person: %w", err)
	}
	s.mu.Lock()
	s.person = &Person{LooperID: p.LooperID, Source: string(p.Source), Confidence: p.Confidence, Since: s.now()}
	snap := s.snapshotLocked()
	s.mu.Unlock()
	s.changed(snap)
	return nil
}

// ImpactEmotion moves the emotion by e's valence and confidence impacts.
func (s *State) ImpactEmotion(ctx context.Context, e jcp.ImpactEmotion) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("impact emotion: %w", err)
	}
	dv, err := size(e.Valence)
	if err != nil {
		return fmt.Errorf("impact emotion: valence: %w", err)
	}
	dc, err := size(e.Confidence)
	if err != nil {
		return fmt.Errorf("impact emotion: confidence: %w", err)
	}
	s.mu.Lock()
	s.decayLocked()
	s.valence = clamp(s.valence + dv)
	s.confidence = clamp(s.confidence + dc)
	snap := s.snapshotLocked()
	s.mu.Unlock()
	s.changed(snap)
	return nil
}

// Emotion returns the emotion now, faded by the time since it last moved.
func (s *State) Emotion() Emotion {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.decayLocked()
	return s.emotionLocked()
}

// PresentPerson returns who the robot talks to, if anyone was set.
func (s *State) PresentPerson() (Person, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.person == nil {
		return Person{}, false
	}
	return *s.person, true
}

// Snapshot returns the whole state now.
func (s *State) Snapshot() Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.decayLocked()
	return s.snapshotLocked()
}

func (s *State) snapshotLocked() Snapshot {
	snap := Snapshot{Emotion: s.emotionLocked()}
	if s.person != nil {
		p := *s.person
		snap.Person = &p
	}
	return snap
}

func (s *State) emotionLocked() Emotion {
	return Emotion{Name: name(s.valence, s.confidence), Valence: round(s.valence), Confidence: round(s.confidence)}
}

// decayLocked fades the emotion to now.
func (s *State) decayLocked() {
	now := s.now()
	if s.halfLife > 0 {
		f := math.Exp2(-float64(now.Sub(s.at)) / float64(s.halfLife))
		s.valence *= f
		s.confidence *= f
	}
	s.at = now
}

func (s *State) changed(snap Snapshot) {
	if s.onChange != nil {
		s.onChange(snap)
	}
}

func size(i jcp.Impact) (float64, error) {
	switch i {
	case "", jcp.ImpactNone:
		return 0, nil
	case jcp.ImpactLowPos:
		return LowImpact, nil
	case jcp.ImpactMediumPos:
		return MediumImpact, nil
	case jcp.ImpactHighPos:
		return HighImpact, nil
	case jcp.ImpactLowNeg:
		return -LowImpact, nil
	case jcp.ImpactMediumNeg:
		return -MediumImpact, nil
	case jcp.ImpactHighNeg:
		return -HighImpact, nil
	}
	return 0, fmt.Errorf("unknown impact %q", i)
}

func name(v, c float64) string {
	switch {
	case math.Abs(v) < neutralBelow && math.Abs(c) < neutralBelow:
		return Neutral
	case math.Abs(v) >= math.Abs(c) && v > 0:
		return Pleased
	case math.Abs(v) >= math.Abs(c):
		return Displeased
	case c > 0:
		return Confident
	}
	return Insecure
}

func clamp(f float64) float64 { return math.Max(-1, math.Min(1, f)) }

func round(f float64) float64 { return math.Round(f*1000) / 1000 }
