package board

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/i2c"

	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/device/apa102"
	devgpio "github.com/openjibo/jibod/device/gpio"
	"github.com/openjibo/jibod/device/ledring"
	"github.com/openjibo/jibod/device/pca9685"
	"github.com/openjibo/jibod/device/sfx"
	"github.com/openjibo/jibod/device/sim"
	"github.com/openjibo/jibod/jcp"
	"github.com/openjibo/jibod/motion"
)

// A body's voice and ring are handed to the JCP executor as they are: the
// device interfaces satisfy the executor's.
var (
	_ jcp.Voice     = device.Voice(nil)
	_ jcp.Lights    = device.LEDRing(nil)
	_ motion.Lights = (*ledring.Animator)(nil)
)

// Options configures Open.
type Options struct {
	// Logger receives the devices' logs; nil means slog.Default().
	Logger *slog.Logger
	// Observer, if set, receives every device event.
	Observer device.Observer
	// Buses opens hardware buses and pins; nil means PeriphBuses.
	Buses Buses
	// MotorsElsewhere leaves out the motors and their power switch: the
	// motion control loop's own process opens them (OpenMotors), and
	// MotionConfig gives their limits instead.
	MotorsElsewhere bool
	// motorsOnly opens the motors and their power switch alone.
	motorsOnly bool
}

// Body is an opened set of devices.
type Body struct {
	// Profile is the profile the body was built from.
	Profile *Profile
	// Voice speaks.
	Voice device.Voice
	// Ring is the light ring, animated (a *ledring.Animator over the
	// driver); nil when the profile has none.
	Ring device.LEDRing
	// Lights is Ring as an animator; nil when there is no ring.
	Lights *ledring.Animator
	// Motors holds the axes by name (device.BottomSection, ...).
	Motors map[string]device.Motor
	// Power switches the motors' power; nil when there is no switch.
	Power device.Switch
	// Buttons are the body's buttons.
	Buttons []device.Button
	// Display is the screen; nil when there is none.
	Display device.Display
	// AudioOut is the PCM speaker; nil when there is none.
	AudioOut device.PCMSink
	// Sounds plays sound effects on AudioOut; nil without it.
	Sounds *sfx.Player

	log     *slog.Logger
	devices []opened    // in opening order, for Check and Close
	closers []io.Closer // buses, closed after the devices
}

// opened is one device of the body; dev is nil when it failed to open
// (Probe only).
type opened struct {
	name, driver, where string
	dev                 any
	err                 error
}

// checker is a device that can test that it answers.
type checker interface {
	Check(ctx context.Context) error
}

// Open validates p and builds its devices. If any device fails to open,
// those already opened are closed and an error names the failing one.
func Open(ctx context.Context, p *Profile, o Options) (*Body, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("open board: %w", err)
	}
	b := newBody(p, o)
	if err := b.open(ctx, o, false); err != nil {
		if cerr := b.Close(); cerr != nil {
			b.log.Warn("board: close devices after failed open", "profile", p.Name, "error", cerr)
		}
		return nil, fmt.Errorf("open board %q: %w", p.Name, err)
	}
	b.log.Debug("board: opened", "profile", p.Name, "devices", len(b.devices))
	return b, nil
}

// Probe opens every device of p on its own, checks those that opened, and
// closes them again: what `jibod board check` reports in the field, where
// one missing device must not hide the state of the others.
func Probe(ctx context.Context, p *Profile, o Options) ([]CheckResult, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("probe board: %w", err)
	}
	b := newBody(p, o)
	errs := []error{b.open(ctx, o, true)}
	for _, d := range b.devices {
		errs = append(errs, d.err)
	}
	results := b.Check(ctx)
	errs = append(errs, b.Close())
	return results, errors.Join(errs...)
}

func newBody(p *Profile, o Options) *Body {
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Body{Profile: p, Motors: map[string]device.Motor{}, log: log}
}

// opener builds the body's devices, sharing buses and chips.
type opener struct {
	b      *Body
	o      Options
	buses  Buses
	i2c    map[string]i2c.BusCloser
	chips  map[string]*pca9685.Chip
	keepOn bool // record failures and go on (Probe)
}

// add records a device, or its failure; it returns err unless keepOn.
func (op *opener) add(name, driver, where string, dev any, err error) error {
	if err != nil {
		err = fmt.Errorf("open %s: %w", name, err)
		if !op.keepOn {
			return err
		}
		op.b.devices = append(op.b.devices, opened{name: name, driver: driver, where: where, err: err})
		return nil
	}
	op.b.devices = append(op.b.devices, opened{name: name, driver: driver, where: where, dev: dev})
	return nil
}

func (b *Body) open(ctx context.Context, o Options, keepOn bool) error {
	op := &opener{b: b, o: o, buses: o.Buses, i2c: map[string]i2c.BusCloser{}, chips: map[string]*pca9685.Chip{}, keepOn: keepOn}
	if op.buses == nil {
		op.buses = &PeriphBuses{}
	}
	steps := []func(context.Context) error{op.speaker, op.audio, op.display, op.ring, op.power, op.buttons, op.motors}
	switch {
	case o.MotorsElsewhere:
		steps = []func(context.Context) error{op.speaker, op.audio, op.display, op.ring, op.buttons}
	case o.motorsOnly:
		steps = []func(context.Context) error{op.power, op.motors}
	}
	var errs []error
	for _, step := range steps {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := step(ctx); err != nil {
			if !keepOn {
				return err
			}
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (op *opener) speaker(context.Context) error {
	spk, err := sim.NewSpeaker(sim.SpeakerOptions{WPM: op.b.Profile.Speaker.WPM, Observer: op.o.Observer, Logger: op.b.log})
	if err == nil {
		op.b.Voice = spk
	}
	return op.add(sim.SpeakerName, DriverSim, "", spk, err)
}

func (op *opener) audio(context.Context) error {
	a := op.b.Profile.AudioOut
	if a == nil {
		return nil
	}
	sink, err := sim.NewPCMSink(sim.PCMSinkOptions{Format: a.format(), Observer: op.o.Observer, Logger: op.b.log})
	if err == nil {
		op.b.AudioOut = sink
		op.b.Sounds, err = sfx.NewPlayer(sink, nil)
	}
	return op.add(sim.AudioOutName, a.Driver, "", sink, err)
}

func (op *opener) display(context.Context) error {
	if op.b.Profile.Display == nil {
		return nil
	}
	d := sim.NewDisplay(sim.DisplayOptions{Observer: op.o.Observer, Logger: op.b.log})
	op.b.Display = d
	return op.add(sim.DisplayName, DriverSim, "", d, nil)
}

func (op *opener) ring(context.Context) error {
	r := op.b.Profile.LEDRing
	if r == nil {
		return nil
	}
	pixels := r.Pixels
	if pixels == 0 {
		pixels = sim.DefaultPixels
	}
	// The driver reports nothing itself: the animator above it reports
	// sets and programs, not every frame.
	var raw device.LEDRing
	var where string
	var err error
	switch r.Driver {
	case DriverAPA102:
		where = r.Bus
		port, perr := op.buses.OpenSPI(r.Bus)
		if perr != nil {
			err = perr
			break
		}
		op.b.closers = append(op.b.closers, port)
		raw, err = apa102.New(port, apa102.Options{Pixels: pixels, Brightness: uint8(r.Brightness)})
	default:
		raw, err = sim.NewLEDRing(sim.LEDRingOptions{Pixels: pixels, Logger: op.b.log})
	}
	if err != nil {
		return op.add(ledring.Name, r.Driver, where, nil, err)
	}
	// The driver is closed after the animator that draws on it.
	anim, err := ledring.New(ledring.Options{Ring: raw, FPS: r.FPS, Observer: op.o.Observer, Logger: op.b.log})
	if err != nil {
		_ = raw.(io.Closer).Close()
		return op.add(ledring.Name, r.Driver, where, nil, err)
	}
	op.b.closers = append([]io.Closer{raw.(io.Closer)}, op.b.closers...)
	op.b.Ring, op.b.Lights = anim, anim
	return op.add(ledring.Name, r.Driver, where, anim, nil)
}

func (op *opener) pin(name string) (gpio.PinIO, error) { return op.buses.Pin(name) }

func (op *opener) power(context.Context) error {
	s := op.b.Profile.MotorPower
	if s == nil {
		return nil
	}
	const name = "motor-power"
	if s.Driver != DriverGPIO {
		sw := sim.NewSwitch(sim.SwitchOptions{Name: name, Observer: op.o.Observer})
		op.b.Power = sw
		return op.add(name, s.Driver, "", sw, nil)
	}
	pin, err := op.pin(s.Pin)
	var out *devgpio.Output
	if err == nil {
		out, err = devgpio.NewOutput(pin, devgpio.OutputOptions{Name: name, ActiveLow: s.ActiveLow, Observer: op.o.Observer})
	}
	if err == nil {
		op.b.Power = out
	}
	return op.add(name, s.Driver, s.Pin, out, err)
}

func (op *opener) buttons(context.Context) error {
	for _, spec := range op.b.Profile.Buttons {
		name := "button." + spec.Name
		if spec.Driver != DriverGPIO {
			btn := sim.NewButton(sim.ButtonOptions{Name: spec.Name, Observer: op.o.Observer})
			op.b.Buttons = append(op.b.Buttons, btn)
			if err := op.add(name, spec.Driver, "", btn, nil); err != nil {
				return err
			}
			continue
		}
		pin, err := op.pin(spec.Pin)
		var btn *devgpio.Button
		if err == nil {
			btn, err = devgpio.NewButton(pin, devgpio.ButtonOptions{Name: spec.Name, ActiveLow: spec.ActiveLow, Pull: pull(spec.Pull), Observer: op.o.Observer})
		}
		if err == nil {
			op.b.Buttons = append(op.b.Buttons, btn)
		}
		if err := op.add(name, spec.Driver, spec.Pin, btn, err); err != nil {
			return err
		}
	}
	return nil
}

func pull(s string) gpio.Pull {
	switch s {
	case "up":
		return gpio.PullUp
	case "down":
		return gpio.PullDown
	case "none":
		return gpio.Float
	}
	return gpio.PullNoChange
}

func (op *opener) motors(ctx context.Context) error {
	for _, m := range op.b.Profile.Motors {
		name := "motor." + m.Name
		if m.Driver != DriverPCA9685 {
			// Simulated motors report nothing themselves: the motion
			// controller, which commands them every tick, reports moves.
			motor, err := sim.NewMotor(sim.MotorOptions{Axis: m.Name, Limits: m.Limits(), Logger: op.b.log})
			if err == nil {
				op.b.Motors[m.Name] = motor
			}
			if err := op.add(name, m.Driver, "", motor, err); err != nil {
				return err
			}
			continue
		}
		where := fmt.Sprintf("%s 0x%02x ch %d", m.Bus, m.address(), *m.Channel)
		servo, err := op.servo(ctx, m)
		if err == nil {
			op.b.Motors[m.Name] = servo
		}
		if err := op.add(name, m.Driver, where, servo, err); err != nil {
			return err
		}
	}
	return nil
}

// servo opens a pca9685 servo, sharing the bus and chip with the others.
func (op *opener) servo(ctx context.Context, m MotorSpec) (*pca9685.Servo, error) {
	cfg, err := m.servoConfig()
	if err != nil {
		return nil, err
	}
	bus, ok := op.i2c[m.Bus]
	if !ok {
		if bus, err = op.buses.OpenI2C(m.Bus); err != nil {
			return nil, err
		}
		op.i2c[m.Bus] = bus
		op.b.closers = append(op.b.closers, bus)
	}
	key := fmt.Sprintf("%s/%d", m.Bus, m.address())
	chip, ok := op.chips[key]
	if !ok {
		if chip, err = pca9685.NewChip(ctx, bus, uint16(m.address())); err != nil {
			return nil, err
		}
		op.chips[key] = chip
	}
	return chip.NewServo(cfg, op.o.Observer)
}

func (m MotorSpec) servoConfig() (pca9685.ServoConfig, error) {
	s := m.Servo
	cfg := pca9685.ServoConfig{
		Axis: m.Name, Limits: m.Limits(),
		MinPulse: time.Duration(s.MinPulseUs) * time.Microsecond, MaxPulse: time.Duration(s.MaxPulseUs) * time.Microsecond,
		MinAngle: s.MinAngle, MaxAngle: s.MaxAngle, Home: s.Home,
	}
	if m.Channel != nil {
		cfg.Channel = *m.Channel
	}
	return cfg, cfg.Validate()
}

// MotionConfig returns the motion controller's configuration for this
// body: its motors in axis order, its power switch and light ring, and the
// profile's loop settings. Add an Observer and a Logger before passing it
// to motion.New.
func (b *Body) MotionConfig() motion.Config {
	m := b.Profile.Motion
	cfg := motion.Config{
		Rate:           m.RateHz,
		CommandTimeout: ms(m.CommandTimeoutMs),
		LateRest:       ms(m.LateRestMs),
		StallTimeout:   ms(m.StallTimeoutMs),
		Logger:         b.log,
	}
	for i, axis := range device.Axes() {
		cfg.Home[i] = m.Home[axis]
		if len(b.Motors) == 0 {
			// Opened by the loop's own process.
			for _, spec := range b.Profile.Motors {
				if spec.Name == axis {
					cfg.Limits[i] = spec.Limits()
				}
			}
			continue
		}
		cfg.Motors = append(cfg.Motors, b.Motors[axis])
	}
	if b.Power != nil {
		cfg.Power = b.Power
	}
	if b.Lights != nil {
		cfg.Lights = b.Lights
	}
	return cfg
}

// ExecutorConfig returns a JCP executor configuration that drives this
// body: its voice, ring, screen and sounds. Add Motion, State, an Observer
// or a Listener before passing it to jcp.NewExecutor.
func (b *Body) ExecutorConfig() jcp.ExecutorConfig {
	cfg := jcp.ExecutorConfig{Voice: b.Voice, Logger: b.log}
	if b.Ring != nil {
		cfg.Lights = b.Ring
	}
	if b.Display != nil {
		cfg.Screen = screen{b.Display}
	}
	if b.Sounds != nil {
		cfg.Sounds = sounds{b.Sounds}
	}
	return cfg
}

// screen adapts a device.Display to the executor's Screen.
type screen struct{ d device.Display }

func (s screen) Show(ctx context.Context, v jcp.DisplayView) error {
	return s.d.Show(ctx, device.View{Name: v.Name, Layer: v.Layer, Kind: v.View.Kind, Text: v.View.Text, Overlay: string(v.Overlay)})
}

func (s screen) Hide(ctx context.Context, layer int, name string) error {
	return s.d.Hide(ctx, layer, name)
}

// sounds adapts the sound player to the executor's Sounds.
type sounds struct{ p *sfx.Player }

func (s sounds) PlaySound(ctx context.Context, kind, name string) error {
	err := s.p.PlaySound(ctx, kind, name)
	if errors.Is(err, sfx.ErrUnknown) {
		return fmt.Errorf("%w: %w", jcp.ErrNoSound, err)
	}
	return err
}

// Close closes every device, then the buses, reporting all that failed.
func (b *Body) Close() error {
	var errs []error
	for _, d := range b.devices {
		if c, ok := d.dev.(io.Closer); ok && d.dev != nil {
			if err := c.Close(); err != nil {
				errs = append(errs, fmt.Errorf("close %s: %w", d.name, err))
			}
		}
	}
	for _, c := range b.closers {
		if err := c.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close: %w", err))
		}
	}
	b.closers = nil
	return errors.Join(errs...)
}

// CheckResult is whether one device answered.
type CheckResult struct {
	// Device names the device as its events do, e.g. "motor.topSection_r".
	Device string `json:"device"`
	// Driver is the profile's driver for it.
	Driver string `json:"driver"`
	// Where locates hardware: a bus, address and channel, or a pin.
	Where string `json:"where,omitempty"`
	// OK is true when the device answered.
	OK bool `json:"ok"`
	// Detail describes what was found, e.g. "12 pixels".
	Detail string `json:"detail,omitempty"`
	// Error says why the device did not answer.
	Error string `json:"error,omitempty"`
}

// Check pings every device and reports, in profile order, which answer.
func (b *Body) Check(ctx context.Context) []CheckResult {
	results := make([]CheckResult, 0, len(b.devices))
	for _, d := range b.devices {
		r := CheckResult{Device: d.name, Driver: d.driver, Where: d.where, OK: true}
		switch c, ok := d.dev.(checker); {
		case d.err != nil:
			r.OK, r.Error = false, d.err.Error()
		case ok:
			if err := c.Check(ctx); err != nil {
				r.OK, r.Error = false, err.Error()
			}
		default:
			r.Detail = "no self-test; present"
		}
		if r.OK {
			r.Detail = describe(d.dev, r.Detail)
		}
		results = append(results, r)
	}
	return results
}

// describe reports what a device that answered looks like now.
func describe(dev any, fallback string) string {
	switch d := dev.(type) {
	case *pca9685.Servo:
		l := d.Limits()
		return fmt.Sprintf("servo at %.4f rad (commanded), %d counts, limits [%g, %g], enabled %t", d.Angle(), d.Counts(d.Angle()), l.Min, l.Max, d.Enabled())
	case device.Motor:
		l := d.Limits()
		return fmt.Sprintf("angle %.4f rad, limits [%g, %g], enabled %t", d.Angle(), l.Min, l.Max, d.Enabled())
	case device.LEDRing:
		return fmt.Sprintf("%d pixels", d.Len())
	case device.Voice:
		return "voice ready"
	case device.PCMSink:
		f := d.Format()
		return fmt.Sprintf("%d Hz × %d channels", f.SampleRate, f.Channels)
	case device.Display:
		return fmt.Sprintf("layers 0..%d", device.MaxDisplayLayer)
	case device.Button:
		if d.Pressed() {
			return "pressed"
		}
		return "released"
	case device.Switch:
		if d.On() {
			return "on"
		}
		return "off"
	}
	return fallback
}
