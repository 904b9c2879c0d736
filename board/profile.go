// Package board describes robot bodies as data and builds them: a profile
// names which driver sits behind each device (and, for hardware drivers,
// on which bus, address or pin), and Open turns a profile into a Body of
// working devices.
//
// Profiles are JSON. The format, field by field, is documented in
// README.md next to this file; embedded profiles live in profiles/ (sim,
// and rpi for a Raspberry Pi with a PCA9685 servo board, an APA102 ring and
// GPIO). Hardware is reached through periph.io; tests hand Open recorded
// buses instead (Options.Buses).
package board

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/internal/strictjson"
)

//go:embed profiles/*.json
var embedded embed.FS

// Limits on profiles.
const (
	// MaxProfileBytes bounds a profile file.
	MaxProfileBytes = 64 << 10
	// MaxNameLen bounds a profile name, and a button name.
	MaxNameLen = 64
	// MaxDescriptionLen bounds a profile description, and any other string
	// in a profile.
	MaxDescriptionLen = 1024
	// MaxMotors bounds the motors in a profile.
	MaxMotors = 16
	// MaxButtons bounds the buttons in a profile.
	MaxButtons = 16
	// MaxMotorVelocity bounds a motor's maxVelocity, in rad/s.
	MaxMotorVelocity = 100.0
	// MaxMotorAcceleration bounds a motor's maxAcceleration, in rad/s².
	MaxMotorAcceleration = 1000.0
	// MaxTimeoutMs bounds the motion timeouts, in milliseconds.
	MaxTimeoutMs = 10000
)

// Driver names.
const (
	// DriverSim is the simulated driver, available for every device.
	DriverSim = "sim"
	// DriverPCA9685 drives motors as servos on a PCA9685 over I²C.
	DriverPCA9685 = "pca9685"
	// DriverAPA102 drives the LED ring over SPI.
	DriverAPA102 = "apa102"
	// DriverGPIO drives the motor power switch and buttons.
	DriverGPIO = "gpio"
)

// DefaultPCA9685Address is a PCA9685's I²C address when none is given.
const DefaultPCA9685Address = 0x40

// Profile describes a body.
type Profile struct {
	// Name identifies the profile: 1..MaxNameLen of a-z, 0-9, '-' and '_',
	// starting with a letter or digit.
	Name string
	// Description says what the body is, for people.
	Description string
	// Speaker is the voice. Required.
	Speaker SpeakerSpec
	// AudioOut is the speaker as a PCM sink, for sound effects; nil when
	// absent.
	AudioOut *AudioOutSpec
	// Display is the screen; nil when the body has none.
	Display *DisplaySpec
	// LEDRing is the light ring; nil when the body has none.
	LEDRing *LEDRingSpec
	// MotorPower switches the motors' power; nil when there is no switch.
	MotorPower *SwitchSpec
	// Buttons are push buttons on the body.
	Buttons []ButtonSpec
	// Motors are the axes; every one of device.Axes() exactly once.
	Motors []MotorSpec
	// Motion configures the control loop.
	Motion MotionSpec
	// Listener is where the robot's people usually are, for a board that
	// cannot hear where a voice comes from: the robot turns there when it
	// wakes and as it starts to speak.
	Listener ListenerSpec
}

// ListenerSpec is a direction from the robot's base, in degrees: yaw to
// the left of straight ahead (negative: right), pitch above level.
type ListenerSpec struct {
	YawDeg, PitchDeg float64
}

// Listener limits, in degrees.
const (
	MaxListenerYawDeg   = 180
	MaxListenerPitchDeg = 60
)

// Hardware locates a device driven by a hardware driver. The "sim" driver
// uses none of it.
type Hardware struct {
	// Bus names the bus, e.g. "/dev/i2c-1" or "SPI0.0".
	Bus string
	// Address is the device's bus address (I²C: 0..127); nil when absent.
	Address *int
	// Channel is the output on a multi-channel device (PCA9685: 0..15);
	// nil when absent.
	Channel *int
	// Pin names a GPIO pin, e.g. "GPIO17".
	Pin string
}

// SpeakerSpec configures the voice.
type SpeakerSpec struct {
	// Driver is DriverSim.
	Driver string
	// WPM is the sim speaker's rate in words per minute; 0 speaks instantly.
	WPM int
	Hardware
}

// AudioOutSpec configures the PCM output.
type AudioOutSpec struct {
	// Driver is DriverSim.
	Driver string
	// SampleRate (Hz) and Channels; 0 means 16000 and 1.
	SampleRate, Channels int
	Hardware
}

// DisplaySpec configures the screen.
type DisplaySpec struct {
	// Driver is DriverSim.
	Driver string
	Hardware
}

// LEDRingSpec configures the light ring.
type LEDRingSpec struct {
	// Driver is DriverSim or DriverAPA102.
	Driver string
	// Pixels is the number of LEDs; 0 means 12.
	Pixels int
	// Brightness (apa102) scales colours, 1..255; 0 means 255.
	Brightness int
	// FPS is the animation frame rate; 0 means ledring.DefaultFPS.
	FPS int
	Hardware
}

// SwitchSpec configures an on/off output.
type SwitchSpec struct {
	// Driver is DriverSim or DriverGPIO.
	Driver string
	// ActiveLow drives the pin low for on (gpio).
	ActiveLow bool
	Hardware
}

// ButtonSpec configures a push button.
type ButtonSpec struct {
	// Name identifies the button, like a profile name.
	Name string
	// Driver is DriverSim or DriverGPIO.
	Driver string
	// ActiveLow reads a low level as pressed (gpio).
	ActiveLow bool
	// Pull is "up", "down", "none" or "" (leave as it is) (gpio).
	Pull string
	Hardware
}

// MotorSpec configures one axis.
type MotorSpec struct {
	// Name is the axis, one of device.Axes().
	Name string
	// Driver is DriverSim or DriverPCA9685.
	Driver string
	// Min and Max bound the angle in radians, within ±π.
	Min, Max float64
	// MaxVelocity (rad/s) and MaxAcceleration (rad/s²); 0 means Jibo's
	// device.MaxVelocity and device.MaxAcceleration.
	MaxVelocity, MaxAcceleration float64
	// Servo calibrates a pca9685 servo; nil for sim.
	Servo *ServoSpec
	Hardware
}

// ServoSpec calibrates a servo: the pulse widths at two angles.
type ServoSpec struct {
	// MinPulseUs and MaxPulseUs are the pulses, in µs, at MinAngle and
	// MaxAngle (radians).
	MinPulseUs, MaxPulseUs int
	MinAngle, MaxAngle     float64
	// Home is the angle the servo is taken to be at on power-up.
	Home float64
}

// MotionSpec configures the motion control loop; zero values mean the
// motion package's defaults.
type MotionSpec struct {
	// RateHz is the loop rate.
	RateHz int
	// CommandTimeoutMs, LateRestMs and StallTimeoutMs are the deadman,
	// late-tick and watchdog timings.
	CommandTimeoutMs, LateRestMs, StallTimeoutMs int
	// Home is the pose to home to, by axis name; absent axes home to 0.
	Home map[string]float64
}

// Limits returns the spec's limits with defaults filled in.
func (m MotorSpec) Limits() device.Limits {
	l := device.Limits{Min: m.Min, Max: m.Max, MaxVelocity: m.MaxVelocity, MaxAcceleration: m.MaxAcceleration}
	if l.MaxVelocity == 0 {
		l.MaxVelocity = device.MaxVelocity
	}
	if l.MaxAcceleration == 0 {
		l.MaxAcceleration = device.MaxAcceleration
	}
	return l
}

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// FieldError reports a bad part of a profile by its JSON path, e.g.
// "devices.motors[1].limits.max: 3.5 is outside ±π".
type FieldError struct {
	// Path locates the bad value.
	Path string
	// Reason says what is wrong with it.
	Reason string
}

// Error reports the path and the reason.
func (e *FieldError) Error() string { return e.Path + ": " + e.Reason }

// fieldErr is not inlined: it runs on error paths only, and inlining would
// copy its body into each of its many callers.
//
//go:noinline
func fieldErr(path, format string, args ...any) *FieldError {
	return &FieldError{Path: path, Reason: fmt.Sprintf(format, args...)}
}

// Names returns the names of the embedded profiles, sorted.
func Names() []string {
	entries, err := fs.ReadDir(embedded, "profiles")
	if err != nil {
		// The directory is compiled in; failing to read it is a build bug.
		panic(fmt.Sprintf("board: read embedded profiles: %v", err))
	}
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".json"); ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// Load returns the embedded profile called name.
func Load(name string) (*Profile, error) {
	if err := checkName(name); err != nil {
		return nil, fmt.Errorf("load board profile %q: %w", name, err)
	}
	data, err := embedded.ReadFile(path.Join("profiles", name+".json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("load board profile %q: no such profile (have: %s)", name, strings.Join(Names(), ", "))
	}
	if err != nil {
		return nil, fmt.Errorf("load board profile %q: %w", name, err)
	}
	p, err := ParseProfile(data)
	if err != nil {
		return nil, fmt.Errorf("load board profile %q: %w", name, err)
	}
	return p, nil
}

// LoadFile reads and parses the profile at file.
func LoadFile(file string) (*Profile, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("load board profile: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxProfileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("load board profile %s: %w", file, err)
	}
	p, err := ParseProfile(data)
	if err != nil {
		return nil, fmt.Errorf("load board profile %s: %w", file, err)
	}
	return p, nil
}

// LoadAny loads an embedded profile by name, or a profile file when ref
// contains a '/' or a '.'.
func LoadAny(ref string) (*Profile, error) {
	if strings.ContainsAny(ref, "/.") {
		return LoadFile(ref)
	}
	return Load(ref)
}

// ParseProfile decodes and validates a profile. Decoding is strict: an
// unknown field, a wrongly typed value, trailing data or any rule of
// Validate broken is an error naming the field; nothing is returned then.
func ParseProfile(data []byte) (*Profile, error) {
	if len(data) > MaxProfileBytes {
		return nil, fmt.Errorf("profile is more than %d bytes", MaxProfileBytes)
	}
	// A field given twice or text that is not UTF-8 is refused: two
	// readers must not see two boards.
	if err := strictjson.CheckMembers(data); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("invalid JSON: trailing data after the profile")
	}
	root, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("profile is %s, want an object", kindOf(v))
	}
	p, err := decodeProfile(node{fields: root})
	if err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}

func decodeProfile(root node) (*Profile, error) {
	if err := root.allow("name", "description", "devices", "motion", "listener"); err != nil {
		return nil, err
	}
	p := &Profile{}
	var err error
	if p.Name, _, err = root.str("name", true); err != nil {
		return nil, err
	}
	if p.Description, _, err = root.str("description", false); err != nil {
		return nil, err
	}
	devs, _, err := root.object("devices", true)
	if err != nil {
		return nil, err
	}
	if err := devs.allow("speaker", "audioOut", "display", "ledRing", "motorPower", "buttons", "motors"); err != nil {
		return nil, err
	}

	spk, _, err := devs.object("speaker", true)
	if err != nil {
		return nil, err
	}
	if p.Speaker.Driver, p.Speaker.Hardware, err = decodeDevice(spk, "wpm"); err != nil {
		return nil, err
	}
	if p.Speaker.WPM, _, err = spk.integer("wpm", false); err != nil {
		return nil, err
	}

	if o, ok, err := devs.object("audioOut", false); err != nil {
		return nil, err
	} else if ok {
		p.AudioOut = &AudioOutSpec{}
		if p.AudioOut.Driver, p.AudioOut.Hardware, err = decodeDevice(o, "sampleRate", "channels"); err != nil {
			return nil, err
		}
		if p.AudioOut.SampleRate, _, err = o.integer("sampleRate", false); err != nil {
			return nil, err
		}
		if p.AudioOut.Channels, _, err = o.integer("channels", false); err != nil {
			return nil, err
		}
	}

	if o, ok, err := devs.object("display", false); err != nil {
		return nil, err
	} else if ok {
		p.Display = &DisplaySpec{}
		if p.Display.Driver, p.Display.Hardware, err = decodeDevice(o); err != nil {
			return nil, err
		}
	}

	if ring, ok, err := devs.object("ledRing", false); err != nil {
		return nil, err
	} else if ok {
		p.LEDRing = &LEDRingSpec{}
		if p.LEDRing.Driver, p.LEDRing.Hardware, err = decodeDevice(ring, "pixels", "brightness", "fps"); err != nil {
			return nil, err
		}
		if p.LEDRing.Pixels, _, err = ring.integer("pixels", false); err != nil {
			return nil, err
		}
		if p.LEDRing.Brightness, _, err = ring.integer("brightness", false); err != nil {
			return nil, err
		}
		if p.LEDRing.FPS, _, err = ring.integer("fps", false); err != nil {
			return nil, err
		}
	}

	if o, ok, err := devs.object("motorPower", false); err != nil {
		return nil, err
	} else if ok {
		p.MotorPower = &SwitchSpec{}
		if p.MotorPower.Driver, p.MotorPower.Hardware, err = decodeDevice(o, "activeLow"); err != nil {
			return nil, err
		}
		if p.MotorPower.ActiveLow, err = o.boolean("activeLow"); err != nil {
			return nil, err
		}
	}

	buttons, _, err := devs.array("buttons", false)
	if err != nil {
		return nil, err
	}
	if len(buttons) > MaxButtons {
		return nil, fieldErr(devs.at("buttons"), "%d buttons, limit %d", len(buttons), MaxButtons)
	}
	for i, raw := range buttons {
		at := fmt.Sprintf("%s[%d]", devs.at("buttons"), i)
		fields, ok := raw.(map[string]any)
		if !ok {
			return nil, fieldErr(at, "is %s, want an object", kindOf(raw))
		}
		o := node{path: at, fields: fields}
		var b ButtonSpec
		if b.Driver, b.Hardware, err = decodeDevice(o, "name", "activeLow", "pull"); err != nil {
			return nil, err
		}
		if b.Name, _, err = o.str("name", true); err != nil {
			return nil, err
		}
		if b.ActiveLow, err = o.boolean("activeLow"); err != nil {
			return nil, err
		}
		if b.Pull, _, err = o.str("pull", false); err != nil {
			return nil, err
		}
		p.Buttons = append(p.Buttons, b)
	}

	motors, _, err := devs.array("motors", true)
	if err != nil {
		return nil, err
	}
	if len(motors) > MaxMotors {
		return nil, fieldErr(devs.at("motors"), "%d motors, limit %d", len(motors), MaxMotors)
	}
	for i, raw := range motors {
		m, err := decodeMotor(raw, fmt.Sprintf("%s[%d]", devs.at("motors"), i))
		if err != nil {
			return nil, err
		}
		p.Motors = append(p.Motors, m)
	}

	if mo, ok, err := root.object("motion", false); err != nil {
		return nil, err
	} else if ok {
		if p.Motion, err = decodeMotion(mo); err != nil {
			return nil, err
		}
	}
	if lo, ok, err := root.object("listener", false); err != nil {
		return nil, err
	} else if ok {
		if err := lo.allow("yawDeg", "pitchDeg"); err != nil {
			return nil, err
		}
		if p.Listener.YawDeg, _, err = lo.number("yawDeg", false); err != nil {
			return nil, err
		}
		if p.Listener.PitchDeg, _, err = lo.number("pitchDeg", false); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// decodeDevice reads a device's driver and hardware fields, allowing the
// device's own keys besides.
func decodeDevice(o node, own ...string) (string, Hardware, error) {
	if err := o.allow(append(own, "driver", "bus", "address", "channel", "pin")...); err != nil {
		return "", Hardware{}, err
	}
	driver, _, err := o.str("driver", true)
	if err != nil {
		return "", Hardware{}, err
	}
	var h Hardware
	if h.Bus, _, err = o.str("bus", false); err != nil {
		return "", h, err
	}
	if h.Pin, _, err = o.str("pin", false); err != nil {
		return "", h, err
	}
	if n, ok, err := o.integer("address", false); err != nil {
		return "", h, err
	} else if ok {
		h.Address = &n
	}
	if n, ok, err := o.integer("channel", false); err != nil {
		return "", h, err
	} else if ok {
		h.Channel = &n
	}
	return driver, h, nil
}

func decodeMotor(raw any, at string) (MotorSpec, error) {
	var m MotorSpec
	fields, ok := raw.(map[string]any)
	if !ok {
		return m, fieldErr(at, "is %s, want an object", kindOf(raw))
	}
	o := node{path: at, fields: fields}
	var err error
	if m.Driver, m.Hardware, err = decodeDevice(o, "name", "limits", "maxVelocity", "maxAcceleration", "servo"); err != nil {
		return m, err
	}
	if m.Name, _, err = o.str("name", true); err != nil {
		return m, err
	}
	lim, _, err := o.object("limits", true)
	if err != nil {
		return m, err
	}
	if err := lim.allow("min", "max"); err != nil {
		return m, err
	}
	if m.Min, _, err = lim.number("min", true); err != nil {
		return m, err
	}
	if m.Max, _, err = lim.number("max", true); err != nil {
		return m, err
	}
	if m.MaxVelocity, _, err = o.number("maxVelocity", false); err != nil {
		return m, err
	}
	if m.MaxAcceleration, _, err = o.number("maxAcceleration", false); err != nil {
		return m, err
	}
	if s, ok, err := o.object("servo", false); err != nil {
		return m, err
	} else if ok {
		if err := s.allow("minPulseUs", "maxPulseUs", "minAngle", "maxAngle", "home"); err != nil {
			return m, err
		}
		m.Servo = &ServoSpec{}
		if m.Servo.MinPulseUs, _, err = s.integer("minPulseUs", true); err != nil {
			return m, err
		}
		if m.Servo.MaxPulseUs, _, err = s.integer("maxPulseUs", true); err != nil {
			return m, err
		}
		if m.Servo.MinAngle, _, err = s.number("minAngle", true); err != nil {
			return m, err
		}
		if m.Servo.MaxAngle, _, err = s.number("maxAngle", true); err != nil {
			return m, err
		}
		if m.Servo.Home, _, err = s.number("home", false); err != nil {
			return m, err
		}
	}
	return m, nil
}

func decodeMotion(o node) (MotionSpec, error) {
	var m MotionSpec
	// lateHaltMs is lateRestMs's earlier name; profiles written for it
	// keep working (the threshold is the same, only what a late tick does
	// changed).
	if err := o.allow("rateHz", "commandTimeoutMs", "lateRestMs", "lateHaltMs", "stallTimeoutMs", "home"); err != nil {
		return m, err
	}
	if _, both := o.fields["lateHaltMs"]; both {
		if _, rest := o.fields["lateRestMs"]; rest {
			return m, fieldErr(o.at("lateHaltMs"), "give lateRestMs or its earlier name lateHaltMs, not both")
		}
	}
	var err error
	if m.RateHz, _, err = o.integer("rateHz", false); err != nil {
		return m, err
	}
	if m.CommandTimeoutMs, _, err = o.integer("commandTimeoutMs", false); err != nil {
		return m, err
	}
	if m.LateRestMs, _, err = o.integer("lateRestMs", false); err != nil {
		return m, err
	}
	if _, old := o.fields["lateHaltMs"]; old {
		if m.LateRestMs, _, err = o.integer("lateHaltMs", false); err != nil {
			return m, err
		}
	}
	if m.StallTimeoutMs, _, err = o.integer("stallTimeoutMs", false); err != nil {
		return m, err
	}
	home, ok, err := o.object("home", false)
	if err != nil || !ok {
		return m, err
	}
	m.Home = map[string]float64{}
	keys := make([]string, 0, len(home.fields))
	for k := range home.fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !device.IsAxis(k) {
			return m, fieldErr(home.at(k), "unknown axis (want one of %s)", strings.Join(device.Axes(), ", "))
		}
		if m.Home[k], _, err = home.number(k, true); err != nil {
			return m, err
		}
	}
	return m, nil
}
