package board

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/device/apa102"
	"github.com/openjibo/jibod/device/ledring"
	"github.com/openjibo/jibod/device/pca9685"
	"github.com/openjibo/jibod/device/sim"
	"github.com/openjibo/jibod/motion"
)

// hwField is a hardware field a driver uses.
type hwField string

const (
	fieldBus     hwField = "bus"
	fieldAddress hwField = "address"
	fieldChannel hwField = "channel"
	fieldPin     hwField = "pin"
)

// driverFields says, per device kind, which drivers exist and which
// hardware fields each requires (required) or accepts (optional).
type driverFields struct{ required, optional []hwField }

var (
	simOnly   = map[string]driverFields{DriverSim: {}}
	ringKinds = map[string]driverFields{DriverSim: {}, DriverAPA102: {required: []hwField{fieldBus}}}
	gpioKinds = map[string]driverFields{DriverSim: {}, DriverGPIO: {required: []hwField{fieldPin}}}
	motorKind = map[string]driverFields{DriverSim: {},
		DriverPCA9685: {required: []hwField{fieldBus, fieldChannel}, optional: []hwField{fieldAddress}}}
)

// Validate checks p and returns a *FieldError naming the first problem by
// its path in the JSON form.
func (p *Profile) Validate() error {
	if p == nil {
		return errors.New("profile is nil")
	}
	if err := checkName(p.Name); err != nil {
		return fieldErr("name", "%v", err)
	}
	if len(p.Description) > MaxDescriptionLen {
		return fieldErr("description", "is %d bytes, limit %d", len(p.Description), MaxDescriptionLen)
	}
	if err := checkDevice("devices.speaker", p.Speaker.Driver, p.Speaker.Hardware, simOnly); err != nil {
		return err
	}
	if p.Speaker.WPM < 0 || p.Speaker.WPM > sim.MaxWPM {
		return fieldErr("devices.speaker.wpm", "%d is outside 0..%d", p.Speaker.WPM, sim.MaxWPM)
	}
	if a := p.AudioOut; a != nil {
		if err := checkDevice("devices.audioOut", a.Driver, a.Hardware, simOnly); err != nil {
			return err
		}
		if err := a.format().Validate(); err != nil {
			return fieldErr("devices.audioOut", "%v", err)
		}
	}
	if d := p.Display; d != nil {
		if err := checkDevice("devices.display", d.Driver, d.Hardware, simOnly); err != nil {
			return err
		}
	}
	if r := p.LEDRing; r != nil {
		if err := checkDevice("devices.ledRing", r.Driver, r.Hardware, ringKinds); err != nil {
			return err
		}
		if r.Pixels < 0 || r.Pixels > sim.MaxPixels || r.Pixels > apa102.MaxPixels {
			return fieldErr("devices.ledRing.pixels", "%d is outside 1..%d", r.Pixels, sim.MaxPixels)
		}
		if r.Brightness < 0 || r.Brightness > 255 {
			return fieldErr("devices.ledRing.brightness", "%d is outside 1..255", r.Brightness)
		}
		if r.Brightness != 0 && r.Driver != DriverAPA102 {
			return fieldErr("devices.ledRing.brightness", "not used by driver %q", r.Driver)
		}
		if r.FPS < 0 || r.FPS > ledring.MaxFPS {
			return fieldErr("devices.ledRing.fps", "%d is outside 1..%d", r.FPS, ledring.MaxFPS)
		}
	}
	pins := map[string]string{} // pin → the field that uses it
	usePin := func(at string, h Hardware) error {
		if h.Pin == "" {
			return nil
		}
		if first, dup := pins[h.Pin]; dup {
			return fieldErr(at+".pin", "pin %s is already used by %s", h.Pin, first)
		}
		pins[h.Pin] = at
		return nil
	}
	if s := p.MotorPower; s != nil {
		if err := checkDevice("devices.motorPower", s.Driver, s.Hardware, gpioKinds); err != nil {
			return err
		}
		if s.ActiveLow && s.Driver != DriverGPIO {
			return fieldErr("devices.motorPower.activeLow", "not used by driver %q", s.Driver)
		}
		if err := usePin("devices.motorPower", s.Hardware); err != nil {
			return err
		}
	}
	if len(p.Buttons) > MaxButtons {
		return fieldErr("devices.buttons", "%d buttons, limit %d", len(p.Buttons), MaxButtons)
	}
	names := map[string]string{}
	for i, b := range p.Buttons {
		at := fmt.Sprintf("devices.buttons[%d]", i)
		if err := checkName(b.Name); err != nil {
			return fieldErr(at+".name", "%v", err)
		}
		if first, dup := names[b.Name]; dup {
			return fieldErr(at+".name", "duplicate button %q (also %s)", b.Name, first)
		}
		names[b.Name] = at
		if err := checkDevice(at, b.Driver, b.Hardware, gpioKinds); err != nil {
			return err
		}
		switch b.Pull {
		case "", "up", "down", "none":
		default:
			return fieldErr(at+".pull", "%q is not one of up, down, none", b.Pull)
		}
		if b.Driver != DriverGPIO && (b.Pull != "" || b.ActiveLow) {
			return fieldErr(at, "pull and activeLow are not used by driver %q", b.Driver)
		}
		if err := usePin(at, b.Hardware); err != nil {
			return err
		}
	}
	if len(p.Motors) > MaxMotors {
		return fieldErr("devices.motors", "%d motors, limit %d", len(p.Motors), MaxMotors)
	}
	seen := map[string]string{}
	outputs := map[string]string{} // bus/address/channel → motor
	for i, m := range p.Motors {
		at := fmt.Sprintf("devices.motors[%d]", i)
		if err := checkMotor(at, m); err != nil {
			return err
		}
		if first, dup := seen[m.Name]; dup {
			return fieldErr(at+".name", "duplicate motor %q (also %s)", m.Name, first)
		}
		seen[m.Name] = at
		if m.Driver == DriverPCA9685 {
			key := fmt.Sprintf("%s/%#x/%d", m.Bus, m.address(), *m.Channel)
			if first, dup := outputs[key]; dup {
				return fieldErr(at+".channel", "channel %d of the PCA9685 at %#x on %s is already used by %s", *m.Channel, m.address(), m.Bus, first)
			}
			outputs[key] = at
		}
	}
	for _, axis := range device.Axes() {
		if _, ok := seen[axis]; !ok {
			return fieldErr("devices.motors", "missing axis %s", axis)
		}
	}
	if err := p.checkListener(); err != nil {
		return err
	}
	return p.checkMotion()
}

func (a *AudioOutSpec) format() device.PCMFormat {
	f := device.PCMFormat{SampleRate: a.SampleRate, Channels: a.Channels}
	if f.SampleRate == 0 {
		f.SampleRate = 16000
	}
	if f.Channels == 0 {
		f.Channels = 1
	}
	return f
}

func (m MotorSpec) address() int {
	if m.Address == nil {
		return DefaultPCA9685Address
	}
	return *m.Address
}

func (p *Profile) checkListener() error {
	l := p.Listener
	if math.IsNaN(l.YawDeg) || math.Abs(l.YawDeg) > MaxListenerYawDeg {
		return fieldErr("listener.yawDeg", "%g is outside ±%d", l.YawDeg, MaxListenerYawDeg)
	}
	if math.IsNaN(l.PitchDeg) || math.Abs(l.PitchDeg) > MaxListenerPitchDeg {
		return fieldErr("listener.pitchDeg", "%g is outside ±%d", l.PitchDeg, MaxListenerPitchDeg)
	}
	return nil
}

func (p *Profile) checkMotion() error {
	m := p.Motion
	if m.RateHz != 0 && (m.RateHz < motion.MinRate || m.RateHz > motion.MaxRate) {
		return fieldErr("motion.rateHz", "%d is outside %d..%d", m.RateHz, motion.MinRate, motion.MaxRate)
	}
	for _, f := range []struct {
		key string
		v   int
	}{{"commandTimeoutMs", m.CommandTimeoutMs}, {"lateRestMs", m.LateRestMs}, {"stallTimeoutMs", m.StallTimeoutMs}} {
		if f.v < 0 || f.v > MaxTimeoutMs {
			return fieldErr("motion."+f.key, "%d is outside 0..%d", f.v, MaxTimeoutMs)
		}
	}
	for _, axis := range device.Axes() {
		h, ok := m.Home[axis]
		if !ok {
			continue
		}
		for _, ms := range p.Motors {
			if ms.Name == axis {
				if err := ms.Limits().Check(axis, h); err != nil {
					return fieldErr("motion.home."+axis, "%v", err)
				}
			}
		}
	}
	for k := range m.Home {
		if !device.IsAxis(k) {
			return fieldErr("motion.home."+k, "unknown axis (want one of %s)", strings.Join(device.Axes(), ", "))
		}
	}
	return nil
}

func checkName(name string) error {
	if name == "" || len(name) > MaxNameLen {
		return fmt.Errorf("name must be 1..%d bytes", MaxNameLen)
	}
	for i, c := range name {
		ok := ('a' <= c && c <= 'z') || ('0' <= c && c <= '9') || (i > 0 && (c == '-' || c == '_'))
		if !ok {
			return fmt.Errorf("%q is not a valid name: use a-z, 0-9, '-' and '_', starting with a letter or digit", name)
		}
	}
	return nil
}

// checkDevice checks a device's driver against the drivers its kind has,
// and its hardware fields against what that driver uses.
func checkDevice(at, driver string, hw Hardware, kinds map[string]driverFields) error {
	fields, ok := kinds[driver]
	if !ok {
		if driver == "" {
			return fieldErr(at+".driver", "missing")
		}
		var have []string
		for d := range kinds {
			have = append(have, d)
		}
		slices.Sort(have)
		return fieldErr(at+".driver", "unknown driver %q (available: %s)", driver, strings.Join(have, ", "))
	}
	given := map[hwField]bool{fieldBus: hw.Bus != "", fieldAddress: hw.Address != nil, fieldChannel: hw.Channel != nil, fieldPin: hw.Pin != ""}
	for _, f := range []hwField{fieldBus, fieldAddress, fieldChannel, fieldPin} {
		switch {
		case slices.Contains(fields.required, f) && !given[f]:
			return fieldErr(at+"."+string(f), "missing (driver %q needs it)", driver)
		case given[f] && !slices.Contains(fields.required, f) && !slices.Contains(fields.optional, f):
			return fieldErr(at+"."+string(f), "not used by driver %q", driver)
		}
	}
	if len(hw.Bus) > MaxNameLen {
		return fieldErr(at+".bus", "is %d bytes, limit %d", len(hw.Bus), MaxNameLen)
	}
	if len(hw.Pin) > MaxNameLen || strings.ContainsAny(hw.Pin, " \t\n/") {
		return fieldErr(at+".pin", "%q is not a pin name such as GPIO17", hw.Pin)
	}
	if hw.Address != nil && (*hw.Address < 0 || *hw.Address > 0x7f) {
		return fieldErr(at+".address", "%d is outside 0..127 (a 7-bit I²C address)", *hw.Address)
	}
	if hw.Channel != nil && (*hw.Channel < 0 || *hw.Channel >= pca9685.Channels) {
		return fieldErr(at+".channel", "%d is outside 0..%d", *hw.Channel, pca9685.Channels-1)
	}
	return nil
}

func checkMotor(at string, m MotorSpec) error {
	if m.Name == "" {
		return fieldErr(at+".name", "missing")
	}
	if !device.IsAxis(m.Name) {
		return fieldErr(at+".name", "unknown axis %q (want one of %s)", m.Name, strings.Join(device.Axes(), ", "))
	}
	if err := checkDevice(at, m.Driver, m.Hardware, motorKind); err != nil {
		return err
	}
	for _, f := range []struct {
		key string
		v   float64
	}{{"limits.min", m.Min}, {"limits.max", m.Max}} {
		if math.IsNaN(f.v) || f.v < -math.Pi || f.v > math.Pi {
			return fieldErr(at+"."+f.key, "%g is outside ±π", f.v)
		}
	}
	if m.Min >= m.Max {
		return fieldErr(at+".limits", "min %g must be below max %g", m.Min, m.Max)
	}
	if v := m.MaxVelocity; math.IsNaN(v) || v < 0 || v > MaxMotorVelocity {
		return fieldErr(at+".maxVelocity", "%g is outside 0..%g rad/s", v, MaxMotorVelocity)
	}
	if a := m.MaxAcceleration; math.IsNaN(a) || a < 0 || a > MaxMotorAcceleration {
		return fieldErr(at+".maxAcceleration", "%g is outside 0..%g rad/s²", a, MaxMotorAcceleration)
	}
	switch {
	case m.Driver == DriverPCA9685 && m.Servo == nil:
		return fieldErr(at+".servo", "missing (driver %q needs the servo's calibration)", m.Driver)
	case m.Driver != DriverPCA9685 && m.Servo != nil:
		return fieldErr(at+".servo", "not used by driver %q", m.Driver)
	case m.Servo != nil:
		if _, err := m.servoConfig(); err != nil {
			return fieldErr(at+".servo", "%v", err)
		}
	}
	return nil
}
