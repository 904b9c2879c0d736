// Package pca9685 drives hobby servos from an NXP PCA9685 16-channel PWM
// controller on I²C, through periph.io, as device.Motors.
//
// periph.io's pca9685 package sets the chip up (reset, totem-pole outputs,
// auto-increment, 50 Hz); angles are mapped to PWM counts here, in
// floating point: periph's ServoGroup.SetAngle does it in int and
// overflows on 32-bit ARM, where 180° came out as the minimum pulse
// (notes/platform.md). Channel updates are written from a buffer the Chip
// owns, so the control loop's calls allocate nothing, and only when the
// count changes, so a still servo costs no bus traffic.
package pca9685

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"periph.io/x/conn/v3/i2c"
	periph "periph.io/x/devices/v3/pca9685"

	"github.com/openjibo/jibod/device"
)

// Chip registers and figures (NXP PCA9685 datasheet).
const (
	regMode1    = 0x00
	regLED0OnL  = 0x06 // LEDn_ON_L is at regLED0OnL + 4n
	regPrescale = 0xFE
	mode1Sleep  = 0x10
	oscillator  = 25e6 // Hz, the internal clock
	counts      = 4096 // PWM steps per period

	// Channels is the number of PWM outputs.
	Channels = 16
	// DefaultAddress is the chip's I²C address with no address pins set.
	DefaultAddress = 0x40
)

// Chip is one PCA9685. Servos on its channels share it; it is safe for
// concurrent use.
type Chip struct {
	dev      *periph.Dev
	i2c      i2c.Dev
	addr     uint16
	perMicro float64 // PWM counts per microsecond of pulse

	mu  sync.Mutex // guards buf and bus writes
	buf [5]byte
}

// NewChip sets up the PCA9685 at addr on bus for servos (50 Hz). periph's
// set-up sleeps about 205 ms and cannot be cancelled; ctx is checked
// before and after.
func NewChip(ctx context.Context, bus i2c.Bus, addr uint16) (*Chip, error) {
	if addr > 0x7f {
		return nil, fmt.Errorf("pca9685: address %#x is not a 7-bit I²C address", addr)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("pca9685 at %#x: %w", addr, err)
	}
	dev, err := periph.NewI2C(bus, addr)
	if err != nil {
		return nil, fmt.Errorf("pca9685 at %#x: set up: %w", addr, err)
	}
	c := &Chip{dev: dev, i2c: i2c.Dev{Bus: bus, Addr: addr}, addr: addr}
	// The frequency the chip really runs at follows from the prescaler
	// periph chose (an integer, so not exactly 50 Hz).
	var pre [1]byte
	if err := c.i2c.Tx([]byte{regPrescale}, pre[:]); err != nil {
		return nil, fmt.Errorf("pca9685 at %#x: read prescaler: %w", addr, err)
	}
	if pre[0] < 3 {
		return nil, fmt.Errorf("pca9685 at %#x: prescaler %d is below the chip's minimum 3", addr, pre[0])
	}
	freq := oscillator / (counts * (float64(pre[0]) + 1))
	c.perMicro = counts * freq / 1e6
	return c, ctx.Err()
}

// Frequency returns the PWM frequency the chip runs at, in Hz.
func (c *Chip) Frequency() float64 { return c.perMicro * 1e6 / counts }

// setCounts sets channel ch to pulse for n of every 4096 counts.
func (c *Chip) setCounts(ch int, n uint16) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	// ON at count 0, OFF at n: LEDn_ON_L, ON_H, OFF_L, OFF_H, written in one
	// auto-incremented transfer.
	c.buf = [5]byte{regLED0OnL + byte(4*ch), 0, 0, byte(n), byte(n >> 8)}
	_, err := c.i2c.Write(c.buf[:])
	return err
}

// off stops the pulses on channel ch: the servo goes limp.
func (c *Chip) off(ch int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dev.SetFullOff(ch)
}

// check reads MODE1 and reports whether the chip answers and is awake.
func (c *Chip) check(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var mode [1]byte
	if err := c.i2c.Tx([]byte{regMode1}, mode[:]); err != nil {
		return fmt.Errorf("pca9685 at %#x: read MODE1: %w", c.addr, err)
	}
	if mode[0]&mode1Sleep != 0 {
		return fmt.Errorf("pca9685 at %#x: asleep (MODE1 %#02x)", c.addr, mode[0])
	}
	return nil
}

// Limits on a servo's calibration.
const (
	// MinPulse and MaxPulse bound the pulse widths a servo may use.
	MinPulse = 100 * time.Microsecond
	MaxPulse = 3000 * time.Microsecond
)

// ServoConfig calibrates one servo: two points of its angle-to-pulse line.
type ServoConfig struct {
	// Axis names the servo, e.g. device.TopSection.
	Axis string
	// Channel is the chip output, 0..15.
	Channel int
	// Limits bound the commands; the angle limits must lie between
	// MinAngle and MaxAngle.
	Limits device.Limits
	// MinPulse and MaxPulse are the pulse widths at MinAngle and MaxAngle.
	MinPulse, MaxPulse time.Duration
	// MinAngle and MaxAngle (radians) are the angles those pulses give;
	// MinAngle > MaxAngle describes a servo mounted the other way round.
	MinAngle, MaxAngle float64
	// Home is the angle the servo is taken to be at before the first
	// command: a hobby servo cannot report where it is.
	Home float64
}

// Servo is one servo on a Chip channel: a device.Motor.
type Servo struct {
	chip *Chip
	cfg  ServoConfig
	obs  device.Observer

	mu      sync.Mutex
	angle   float64
	last    int // last count written; -1 forces a write
	enabled bool
	closed  bool
}

var _ device.Motor = (*Servo)(nil)

// NewServo returns the servo cfg describes on chip c. It starts disabled
// (no pulses); Enable starts it at Home. obs, if set, receives "enable"
// events.
func (c *Chip) NewServo(cfg ServoConfig, obs device.Observer) (*Servo, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("pca9685 servo %s: %w", cfg.Axis, err)
	}
	return &Servo{chip: c, cfg: cfg, obs: obs, angle: cfg.Home, last: -1}, nil
}

// Validate reports the first problem with the calibration.
func (cfg ServoConfig) Validate() error {
	if cfg.Axis == "" {
		return errors.New("no axis name")
	}
	if cfg.Channel < 0 || cfg.Channel >= Channels {
		return fmt.Errorf("channel %d outside 0..%d", cfg.Channel, Channels-1)
	}
	if err := cfg.Limits.Validate(); err != nil {
		return err
	}
	if cfg.MinPulse < MinPulse || cfg.MaxPulse > MaxPulse || cfg.MinPulse >= cfg.MaxPulse {
		return fmt.Errorf("pulses %v..%v: want %v <= min < max <= %v", cfg.MinPulse, cfg.MaxPulse, MinPulse, MaxPulse)
	}
	lo, hi := math.Min(cfg.MinAngle, cfg.MaxAngle), math.Max(cfg.MinAngle, cfg.MaxAngle)
	if math.IsNaN(lo) || math.IsNaN(hi) || hi-lo < 1e-3 || lo < -2*math.Pi || hi > 2*math.Pi {
		return fmt.Errorf("angles %g..%g rad: want two different angles within ±2π", cfg.MinAngle, cfg.MaxAngle)
	}
	if cfg.Limits.Min < lo || cfg.Limits.Max > hi {
		return fmt.Errorf("limits [%g, %g] rad go beyond the calibrated range [%g, %g]", cfg.Limits.Min, cfg.Limits.Max, lo, hi)
	}
	return cfg.Limits.Check(cfg.Axis, cfg.Home)
}

// Counts returns the PWM count for angle rad.
func (s *Servo) Counts(rad float64) int {
	c := s.cfg
	f := (rad - c.MinAngle) / (c.MaxAngle - c.MinAngle)
	pulse := float64(c.MinPulse.Microseconds()) + f*float64((c.MaxPulse-c.MinPulse).Microseconds())
	n := math.Round(pulse * s.chip.perMicro)
	return int(math.Max(0, math.Min(counts-1, n)))
}

// Name returns the axis name.
func (s *Servo) Name() string { return s.cfg.Axis }

// Limits returns the servo's limits.
func (s *Servo) Limits() device.Limits { return s.cfg.Limits }

// SetAngle sets the pulse for rad. It writes to the bus only when the
// count changes, and allocates nothing.
func (s *Servo) SetAngle(ctx context.Context, rad float64) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("pca9685 servo %s: set angle: %w", s.cfg.Axis, err)
	}
	if err := s.cfg.Limits.Check(s.cfg.Axis, rad); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return fmt.Errorf("pca9685 servo %s: set angle: %w", s.cfg.Axis, device.ErrClosed)
	case !s.enabled:
		return fmt.Errorf("pca9685 servo %s: set angle: %w", s.cfg.Axis, device.ErrDisabled)
	}
	n := s.Counts(rad)
	if n != s.last {
		if err := s.chip.setCounts(s.cfg.Channel, uint16(n)); err != nil {
			return fmt.Errorf("pca9685 servo %s: set angle: %w", s.cfg.Axis, err)
		}
		s.last = n
	}
	s.angle = rad
	return nil
}

// Angle returns the last commanded angle (Home before the first).
func (s *Servo) Angle() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.angle
}

// Enable starts pulses at the last commanded angle (on) or stops them
// (off: the servo goes limp).
func (s *Servo) Enable(ctx context.Context, on bool) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("pca9685 servo %s: enable: %w", s.cfg.Axis, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("pca9685 servo %s: enable: %w", s.cfg.Axis, device.ErrClosed)
	}
	if on == s.enabled {
		return nil
	}
	var err error
	if on {
		n := s.Counts(s.angle)
		if err = s.chip.setCounts(s.cfg.Channel, uint16(n)); err == nil {
			s.last = n
		}
	} else {
		err = s.chip.off(s.cfg.Channel)
		s.last = -1
	}
	if err != nil {
		return fmt.Errorf("pca9685 servo %s: enable %t: %w", s.cfg.Axis, on, err)
	}
	s.enabled = on
	if s.obs != nil {
		s.obs(device.Event{Time: time.Now(), Device: "motor." + s.cfg.Axis, Kind: "enable",
			Values: map[string]any{"on": on, "angle": s.angle}})
	}
	return nil
}

// Enabled reports whether the servo is getting pulses.
func (s *Servo) Enabled() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.enabled
}

// Check reports whether the chip answers on the bus.
func (s *Servo) Check(ctx context.Context) error {
	if err := s.chip.check(ctx); err != nil {
		return fmt.Errorf("pca9685 servo %s: %w", s.cfg.Axis, err)
	}
	return nil
}

// Close stops the pulses; further calls fail with device.ErrClosed.
func (s *Servo) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if s.enabled {
		s.enabled = false
		if err := s.chip.off(s.cfg.Channel); err != nil {
			return fmt.Errorf("pca9685 servo %s: close: %w", s.cfg.Axis, err)
		}
	}
	return nil
}
