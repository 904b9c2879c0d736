package sim

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/openjibo/jibod/device"
)

// MaxAxisNameLen bounds a simulated motor's name.
const MaxAxisNameLen = 64

// MotorOptions configures a simulated motor.
type MotorOptions struct {
	// Axis names the motor, e.g. device.TopSection. Required.
	Axis string
	// Limits bound the motor; the zero value means device.DefaultLimits().
	Limits device.Limits
	// Observer, if set, receives "move" and "enable" events.
	Observer device.Observer
	// Logger receives debug logs; nil discards them.
	Logger *slog.Logger
	// Now is the clock the motor moves by; nil means time.Now.
	Now func() time.Time
}

// Motor is a simulated rotary axis. It starts enabled at centre (0 rad, or
// the nearest limit when 0 lies outside them).
//
// Motion model: SetAngle starts a move and returns at once, like a servo
// command (the motion control loop sends one per tick; see package motion). The axis then turns toward the target at Limits.MaxVelocity;
// Angle works out where it is from the clock when it is read, so a Motor
// runs no goroutine. Acceleration is not modelled here: trajectories that
// respect MaxAcceleration are the motion control loop's job.
type Motor struct {
	name string
	// device is the events' Device, "motor." and the name: made once,
	// as the motor reports at the control loop's tick rate.
	device string
	lim    device.Limits
	obs    device.Observer
	log    *slog.Logger
	now    func() time.Time

	mu      sync.Mutex
	from    float64   // angle when the current move began
	to      float64   // target of the current move
	start   time.Time // when the current move began
	enabled bool
	closed  bool
}

var _ device.Motor = (*Motor)(nil)

// NewMotor returns a motor configured by o.
func NewMotor(o MotorOptions) (*Motor, error) {
	if o.Axis == "" || len(o.Axis) > MaxAxisNameLen {
		return nil, fmt.Errorf("sim motor: axis name %q: want 1..%d bytes", o.Axis, MaxAxisNameLen)
	}
	lim := o.Limits
	if lim == (device.Limits{}) {
		lim = device.DefaultLimits()
	}
	if err := lim.Validate(); err != nil {
		return nil, fmt.Errorf("sim motor %s: %w", o.Axis, err)
	}
	now := o.Now
	if now == nil {
		now = time.Now
	}
	home := math.Min(math.Max(0, lim.Min), lim.Max)
	return &Motor{
		name:    o.Axis,
		device:  "motor." + o.Axis,
		lim:     lim,
		obs:     o.Observer,
		log:     loggerOrDiscard(o.Logger),
		now:     now,
		from:    home,
		to:      home,
		start:   now(),
		enabled: true,
	}, nil
}

// Name returns the axis name.
func (m *Motor) Name() string { return m.name }

// Limits returns the axis limits.
func (m *Motor) Limits() device.Limits { return m.lim }

// SetAngle starts a move to rad from wherever the axis is now. A target
// outside the limits returns a *device.LimitError and changes nothing.
func (m *Motor) SetAngle(ctx context.Context, rad float64) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sim motor %s: set angle: %w", m.name, err)
	}
	if err := m.lim.Check(m.name, rad); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.usable(); err != nil {
		return fmt.Errorf("sim motor %s: set angle: %w", m.name, err)
	}
	t := m.now()
	from := m.position(t)
	m.from, m.to, m.start = from, rad, t
	// The motion control loop calls SetAngle at its tick rate: report and
	// log only when someone listens, so that an unobserved motor allocates
	// nothing per call.
	if m.obs != nil {
		secs := math.Abs(rad-from) / m.lim.MaxVelocity
		m.emit(t, "move", map[string]any{"from": from, "to": rad, "seconds": secs})
	}
	if m.log.Enabled(ctx, slog.LevelDebug) {
		m.log.Debug("sim motor: move", "axis", m.name, "from", from, "to", rad)
	}
	return nil
}

// Angle returns where the axis is now.
func (m *Motor) Angle() float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.position(m.now())
}

// Target returns the angle the axis is moving to (or holding).
func (m *Motor) Target() float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.to
}

// Enable powers the motor on or off. Powering off stops the axis where it
// is; a move needs a new SetAngle after powering on again.
func (m *Motor) Enable(ctx context.Context, on bool) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sim motor %s: enable: %w", m.name, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return fmt.Errorf("sim motor %s: enable: %w", m.name, device.ErrClosed)
	}
	t := m.now()
	pos := m.position(t)
	m.from, m.to, m.start = pos, pos, t
	if m.enabled != on {
		m.enabled = on
		m.emit(t, "enable", map[string]any{"on": on, "angle": pos})
	}
	return nil
}

// Enabled reports whether the motor is powered.
func (m *Motor) Enabled() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.enabled
}

// Check reports whether the motor answers: nil unless it is closed.
func (m *Motor) Check(ctx context.Context) error {
	return check(ctx, "sim motor "+m.name, &m.mu, &m.closed)
}

// Close stops the axis where it is and makes further calls fail with
// device.ErrClosed. Closing twice is harmless.
func (m *Motor) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.closed {
		t := m.now()
		pos := m.position(t)
		m.from, m.to, m.start = pos, pos, t
		m.closed = true
	}
	return nil
}

func (m *Motor) usable() error {
	switch {
	case m.closed:
		return device.ErrClosed
	case !m.enabled:
		return device.ErrDisabled
	}
	return nil
}

// position is where the axis is at t; the caller holds m.mu.
func (m *Motor) position(t time.Time) float64 {
	dist := m.to - m.from
	travelled := t.Sub(m.start).Seconds() * m.lim.MaxVelocity
	if travelled <= 0 {
		return m.from
	}
	if travelled >= math.Abs(dist) {
		return m.to
	}
	return m.from + math.Copysign(travelled, dist)
}

func (m *Motor) emit(t time.Time, kind string, values map[string]any) {
	if m.obs != nil {
		m.obs(device.Event{Time: t, Device: m.device, Kind: kind, Values: values})
	}
}
