// Package attention keeps track of where the person the robot talks to is
// and turns the robot toward them when it wakes ("hey jibo", a wake
// button, the console's "hey jibo"). The JCP executor asks it where the
// listener is at the start of each turn (jcp.Attention), so the robot
// speaks facing them.
//
// Where the listener is: a board with a microphone array says where the
// wake word came from in the wake event (see Direction of arrival below);
// on a board without one the direction is the board profile's configured
// listener direction, for a robot that sits facing its people.
//
// Direction of arrival: a jibo.audio.wake message may carry
//
//	"doa": {"yaw_deg": <number>, "pitch_deg": <number>}
//
// in its data, in the robot's frame: yaw 0 is straight ahead, positive to
// the left, within ±180; pitch 0 is level, positive up, within ±60. A
// wake without it (or with one out of range, which is logged) turns to the
// last known direction.
package attention

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/motion"
)

// TopicWake is the wake event the audio listener publishes (audio/listen
// TopicWake), and the console and shell publish for a typed "hey jibo".
const TopicWake = "jibo.audio.wake"

// Limits of a direction.
const (
	// MaxYawDeg bounds a direction's yaw either way.
	MaxYawDeg = 180
	// MaxPitchDeg bounds a direction's pitch either way.
	MaxPitchDeg = 60
	// DefaultDistance is how far away the listener is taken to be, in
	// metres: far enough that the head's offset from the base matters
	// little.
	DefaultDistance = 1.2
)

// Direction is where someone is, seen from the robot's base.
type Direction struct {
	// YawDeg is to the left of straight ahead (negative: right), in
	// degrees.
	YawDeg float64
	// PitchDeg is above level (negative: below), in degrees.
	PitchDeg float64
}

// Validate reports a direction outside the limits, or not finite.
func (d Direction) Validate() error {
	switch {
	case math.IsNaN(d.YawDeg) || math.IsInf(d.YawDeg, 0) || math.Abs(d.YawDeg) > MaxYawDeg:
		return fmt.Errorf("yaw %g°: want -%d..%d", d.YawDeg, MaxYawDeg, MaxYawDeg)
	case math.IsNaN(d.PitchDeg) || math.IsInf(d.PitchDeg, 0) || math.Abs(d.PitchDeg) > MaxPitchDeg:
		return fmt.Errorf("pitch %g°: want -%d..%d", d.PitchDeg, MaxPitchDeg, MaxPitchDeg)
	}
	return nil
}

// target is the point DefaultDistance away in direction d, as a look-at
// target.
func (d Direction) target() motion.Target {
	yaw, pitch := d.YawDeg*math.Pi/180, d.PitchDeg*math.Pi/180
	p := [3]float64{
		DefaultDistance * math.Cos(pitch) * math.Cos(yaw),
		DefaultDistance * math.Cos(pitch) * math.Sin(yaw),
		motion.HeadHeight + DefaultDistance*math.Sin(pitch),
	}
	return motion.Target{Position: &p}
}

// Motion turns the body; *motion.Controller is one.
type Motion interface {
	LookAt(t motion.Target, o motion.LookOptions) (*motion.Job, error)
}

// Config configures an Attention.
type Config struct {
	// Bus carries the wake events. Required.
	Bus *bus.Bus
	// Motion turns the body toward the listener; nil only remembers
	// where they are.
	Motion Motion
	// Listener is where the listener is until a wake says otherwise: the
	// board's configured direction.
	Listener Direction
	// Logger; nil means slog.Default().
	Logger *slog.Logger
}

// Attention knows where the listener is and faces them on wake. It
// implements jcp.Attention.
type Attention struct {
	cfg Config
	log *slog.Logger

	mu       sync.Mutex
	listener Direction
	sub      *bus.Subscription
}

// New checks cfg and returns an Attention; Start follows the wake events.
func New(cfg Config) (*Attention, error) {
	if cfg.Bus == nil {
		return nil, errors.New("attention: no bus")
	}
	if err := cfg.Listener.Validate(); err != nil {
		return nil, fmt.Errorf("attention: listener direction: %w", err)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Attention{cfg: cfg, log: log.With("component", "attention"), listener: cfg.Listener}, nil
}

// Start subscribes to the wake events; Close ends it.
func (a *Attention) Start() error {
	sub, err := a.cfg.Bus.Subscribe(TopicWake, a.onWake, bus.WithName("attention"), bus.WithQueue(64, bus.DropOldest))
	if err != nil {
		return fmt.Errorf("attention: %w", err)
	}
	a.mu.Lock()
	a.sub = sub
	a.mu.Unlock()
	return nil
}

// Close stops following the wake events.
func (a *Attention) Close() {
	a.mu.Lock()
	sub := a.sub
	a.sub = nil
	a.mu.Unlock()
	if sub != nil {
		sub.Close()
	}
}

// Listener is where to look to face the listener: always known, since a
// board without a microphone array has a configured direction.
func (a *Attention) Listener() (motion.Target, bool) {
	return a.Direction().target(), true
}

// Direction is where the listener is taken to be now.
func (a *Attention) Direction() Direction {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.listener
}

// onWake turns toward the wake's direction of arrival, or the last known
// direction.
func (a *Attention) onWake(_ context.Context, m bus.Message) {
	d, found, err := directionOf(m.Data)
	a.mu.Lock()
	switch {
	case err != nil:
		a.log.Warn("wake direction of arrival ignored", "err", err, "source", m.DataString("source"))
	case found:
		a.listener = d
	}
	d = a.listener
	a.mu.Unlock()
	if a.cfg.Motion == nil {
		return
	}
	if _, err := a.cfg.Motion.LookAt(d.target(), motion.LookOptions{}); err != nil {
		a.log.Info("turning toward the listener", "err", err)
		return
	}
	a.log.Debug("turning toward the listener", "yaw_deg", d.YawDeg, "pitch_deg", d.PitchDeg)
}

// directionOf reads a wake's "doa" object; found is false without one.
func directionOf(data map[string]any) (Direction, bool, error) {
	raw, ok := data["doa"]
	if !ok {
		return Direction{}, false, nil
	}
	obj, ok := raw.(map[string]any)
	if !ok {
		return Direction{}, false, fmt.Errorf("doa is %T, want an object", raw)
	}
	num := func(k string) (float64, error) {
		switch v := obj[k].(type) {
		case float64:
			return v, nil
		case int64:
			return float64(v), nil
		case int:
			return float64(v), nil
		case nil:
			return 0, fmt.Errorf("doa.%s: missing", k)
		default:
			return 0, fmt.Errorf("doa.%s is %T, want a number", k, v)
		}
	}
	var d Direction
	var err error
	if d.YawDeg, err = num("yaw_deg"); err != nil {
		return Direction{}, false, err
	}
	if _, has := obj["pitch_deg"]; has {
		if d.PitchDeg, err = num("pitch_deg"); err != nil {
			return Direction{}, false, err
		}
	}
	if err := d.Validate(); err != nil {
		return Direction{}, false, fmt.Errorf("doa: %w", err)
	}
	return d, true, nil
}
