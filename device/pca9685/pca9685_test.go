package pca9685_test

import (
	"context"
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"periph.io/x/conn/v3/i2c/i2ctest"

	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/device/pca9685"
)

const addr = 0x40

// setupTrace is the bus traffic of setting a PCA9685 up for servos:
// periph's reset, output mode, auto-increment and 50 Hz (prescaler 122,
// so 49.6 Hz), then our read-back of the prescaler.
func setupTrace() []i2ctest.IO {
	return []i2ctest.IO{
		{Addr: addr, W: []byte{0xfa, 0, 0, 0, 0}},      // all channels off
		{Addr: addr, W: []byte{0x01, 0x04}},            // MODE2: totem pole
		{Addr: addr, W: []byte{0x00, 0x01}},            // MODE1: all-call
		{Addr: addr, W: []byte{0x00}, R: []byte{0x01}}, // read MODE1
		{Addr: addr, W: []byte{0x00, 0x21}},            // wake, auto-increment
		{Addr: addr, W: []byte{0x00}, R: []byte{0x21}}, // read MODE1
		{Addr: addr, W: []byte{0x00, 0x31}},            // sleep to set the prescaler
		{Addr: addr, W: []byte{0xfe, 122}},             // prescaler
		{Addr: addr, W: []byte{0x00, 0x21}},            // wake
		{Addr: addr, W: []byte{0x00, 0xa1}},            // restart
		{Addr: addr, W: []byte{0xfe}, R: []byte{122}},  // read the prescaler back
	}
}

// pwm is the write that sets channel ch to n counts.
func pwm(ch int, n uint16) i2ctest.IO {
	return i2ctest.IO{Addr: addr, W: []byte{0x06 + byte(4*ch), 0, 0, byte(n), byte(n >> 8)}}
}

// hobby is a 180° hobby servo on channel 3: 500 µs at -90°, 2500 µs at +90°.
func hobby() pca9685.ServoConfig {
	return pca9685.ServoConfig{
		Axis: device.TopSection, Channel: 3,
		Limits:   device.Limits{Min: -math.Pi / 2, Max: math.Pi / 2, MaxVelocity: 10, MaxAcceleration: 30},
		MinPulse: 500 * time.Microsecond, MaxPulse: 2500 * time.Microsecond,
		MinAngle: -math.Pi / 2, MaxAngle: math.Pi / 2,
	}
}

func newChip(t *testing.T, ops ...i2ctest.IO) (*pca9685.Chip, *i2ctest.Playback) {
	t.Helper()
	bus := &i2ctest.Playback{Ops: append(setupTrace(), ops...), DontPanic: true}
	chip, err := pca9685.NewChip(context.Background(), bus, addr)
	require.NoError(t, err)
	return chip, bus
}

// Replays the exact bus traffic of setting up the chip and moving a servo.
// The counts are worked out in floating point, so they are the same on
// 32-bit ARM (make test runs this test under qemu-arm): there, periph's
// own ServoGroup.SetAngle overflowed and sent the minimum pulse for 180°.
func TestServoTrace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// At 49.6 Hz a count is 4.92 µs: 1500 µs is 305 counts.
		chip, bus := newChip(t,
			pwm(3, 305), // enable: home, 0 rad
			pwm(3, 508), // +90°: 2500 µs
			pwm(3, 102), // -90°: 500 µs
			pwm(3, 203), // -45°: 1000 µs
			i2ctest.IO{Addr: addr, W: []byte{0x15, 0x10}}, // disable: channel 3 full off
		)
		assert.InDelta(t, 49.62, chip.Frequency(), 0.01)
		s, err := chip.NewServo(hobby(), nil)
		require.NoError(t, err)
		ctx := context.Background()
		assert.ErrorIs(t, s.SetAngle(ctx, 0), device.ErrDisabled, "disabled until enabled")
		require.NoError(t, s.Enable(ctx, true))
		for _, a := range []float64{math.Pi / 2, math.Pi / 2, -math.Pi / 2, -math.Pi / 4, -math.Pi/4 + 1e-4} {
			require.NoError(t, s.SetAngle(ctx, a))
		}
		assert.InDelta(t, -math.Pi/4+1e-4, s.Angle(), 1e-12, "a change too small for a count is not sent")
		require.NoError(t, s.Enable(ctx, false))
		require.NoError(t, bus.Close(), "every expected write happened")
	})
}

func TestServoCounts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		chip, _ := newChip(t)
		reversed := hobby()
		reversed.MinAngle, reversed.MaxAngle = math.Pi/2, -math.Pi/2
		s, err := chip.NewServo(hobby(), nil)
		require.NoError(t, err)
		r, err := chip.NewServo(reversed, nil)
		require.NoError(t, err)
		tests := []struct {
			rad       float64
			want, rev int
		}{
			{-math.Pi / 2, 102, 508},
			{0, 305, 305},
			{math.Pi / 2, 508, 102},
			{math.Pi / 3, 440, 169},
		}
		for _, tt := range tests {
			assert.Equal(t, tt.want, s.Counts(tt.rad), "%g rad", tt.rad)
			assert.Equal(t, tt.rev, r.Counts(tt.rad), "%g rad reversed", tt.rad)
		}
	})
}

func TestServoConfigErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		chip, _ := newChip(t)
		tests := []struct {
			name string
			mod  func(*pca9685.ServoConfig)
			want string
		}{
			{"channel", func(c *pca9685.ServoConfig) { c.Channel = 16 }, "channel 16 outside 0..15"},
			{"pulses", func(c *pca9685.ServoConfig) { c.MaxPulse = 5 * time.Millisecond }, "pulses 500µs..5ms"},
			{"pulse order", func(c *pca9685.ServoConfig) { c.MinPulse = c.MaxPulse }, "want 100µs <= min < max"},
			{"angles", func(c *pca9685.ServoConfig) { c.MaxAngle = c.MinAngle }, "want two different angles"},
			{"limits beyond", func(c *pca9685.ServoConfig) { c.Limits.Max = 3 }, "go beyond the calibrated range"},
			{"home", func(c *pca9685.ServoConfig) { c.Home = 2 }, "target 2 rad outside limits"},
			{"no axis", func(c *pca9685.ServoConfig) { c.Axis = "" }, "no axis name"},
		}
		for _, tt := range tests {
			cfg := hobby()
			tt.mod(&cfg)
			_, err := chip.NewServo(cfg, nil)
			require.Error(t, err, tt.name)
			assert.Contains(t, err.Error(), tt.want, tt.name)
		}
	})
}

// Check reads MODE1: a chip that answers awake is fine; asleep or silent
// is reported.
func TestServoCheckAndClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		chip, bus := newChip(t,
			i2ctest.IO{Addr: addr, W: []byte{0x00}, R: []byte{0xa1}},
			i2ctest.IO{Addr: addr, W: []byte{0x00}, R: []byte{0xb1}},
			pwm(3, 305),
			i2ctest.IO{Addr: addr, W: []byte{0x15, 0x10}},
		)
		s, err := chip.NewServo(hobby(), nil)
		require.NoError(t, err)
		ctx := context.Background()
		require.NoError(t, s.Check(ctx))
		assert.ErrorContains(t, s.Check(ctx), "asleep (MODE1 0xb1)")
		require.NoError(t, s.Enable(ctx, true))
		require.NoError(t, s.Close())
		require.NoError(t, s.Close(), "closing twice is harmless")
		assert.ErrorIs(t, s.SetAngle(ctx, 0), device.ErrClosed)
		require.NoError(t, bus.Close())
		// Nothing more on the bus: a check now fails with the bus's error.
		assert.Error(t, s.Check(ctx))
	})
}

// A chip that is not there fails set-up with the bus's error.
func TestNewChipNoDevice(t *testing.T) {
	bus := &i2ctest.Playback{DontPanic: true}
	_, err := pca9685.NewChip(context.Background(), bus, addr)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "pca9685 at 0x40: set up")
	_, err = pca9685.NewChip(context.Background(), bus, 0x80)
	assert.ErrorContains(t, err, "not a 7-bit I²C address")
}

// SetAngle on an enabled servo allocates nothing, so the control loop
// stays allocation-free on real hardware too.
func TestSetAngleAllocatesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		chip, err := pca9685.NewChip(context.Background(), &nopBus{ops: setupTrace()}, addr)
		require.NoError(t, err)
		s, err := chip.NewServo(hobby(), nil)
		require.NoError(t, err)
		ctx := context.Background()
		require.NoError(t, s.Enable(ctx, true))
		a := 0.0
		allocs := testing.AllocsPerRun(500, func() {
			a = math.Mod(a+0.01, 1)
			_ = s.SetAngle(ctx, a)
		})
		assert.Zero(t, allocs)
	})
}

// nopBus answers set-up from a trace, then accepts every write.
type nopBus struct {
	i2ctest.Playback
	ops []i2ctest.IO
	n   int
}

func (b *nopBus) Tx(addr uint16, w, r []byte) error {
	if b.n < len(b.ops) {
		copy(r, b.ops[b.n].R)
		b.n++
	}
	return nil
}
