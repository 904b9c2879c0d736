// Package board describes robot bodies as data and builds them: a profile
// names which driver sits behind each device (and, for hardware drivers,
// on which bus, address or pin), and Open turns a profile into a Body of
// working devices.
//
// Profiles are JSON. The format, field by field, is documented in
// README.md next to this file; embedded profiles live in profiles/.
// Only the "sim" driver exists so far. The hardware fields (bus, address,
// channel, pin) are part of the format now so that PCA9685 servo, APA102
// LED and GPIO drivers can be added without changing it; until then a
// profile that uses them is rejected.
package board

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/device/sim"
)

//go:embed profiles/*.json
var embedded embed.FS

// Limits on profiles.
const (
	// MaxProfileBytes bounds a profile file.
	MaxProfileBytes = 64 << 10
	// MaxNameLen bounds a profile name.
	MaxNameLen = 64
	// MaxDescriptionLen bounds a profile description, and any other string
	// in a profile.
	MaxDescriptionLen = 1024
	// MaxMotors bounds the motors in a profile.
	MaxMotors = 16
	// MaxMotorVelocity bounds a motor's maxVelocity, in rad/s.
	MaxMotorVelocity = 100.0
	// MaxMotorAcceleration bounds a motor's maxAcceleration, in rad/s².
	MaxMotorAcceleration = 1000.0
)

// DriverSim is the simulated driver, available for every device.
const DriverSim = "sim"

// Profile describes a body.
type Profile struct {
	// Name identifies the profile: 1..MaxNameLen of a-z, 0-9, '-' and '_',
	// starting with a letter or digit.
	Name string
	// Description says what the body is, for people.
	Description string
	// Speaker is the voice. Required.
	Speaker SpeakerSpec
	// LEDRing is the light ring; nil when the body has none.
	LEDRing *LEDRingSpec
	// Motors are the axes; every one of device.Axes() exactly once.
	Motors []MotorSpec
}

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

// LEDRingSpec configures the light ring.
type LEDRingSpec struct {
	// Driver is DriverSim.
	Driver string
	// Pixels is the number of LEDs; 0 means sim.DefaultPixels.
	Pixels int
	Hardware
}

// MotorSpec configures one axis.
type MotorSpec struct {
	// Name is the axis, one of device.Axes().
	Name string
	// Driver is DriverSim.
	Driver string
	// Min and Max bound the angle in radians, within ±π.
	Min, Max float64
	// MaxVelocity (rad/s) and MaxAcceleration (rad/s²); 0 means Jibo's
	// device.MaxVelocity and device.MaxAcceleration.
	MaxVelocity, MaxAcceleration float64
	Hardware
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

// ParseProfile decodes and validates a profile. Decoding is strict: an
// unknown field, a wrongly typed value, trailing data or any rule of
// Validate broken is an error naming the field; nothing is returned then.
func ParseProfile(data []byte) (*Profile, error) {
	if len(data) > MaxProfileBytes {
		return nil, fmt.Errorf("profile is more than %d bytes", MaxProfileBytes)
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
	if err := root.allow("name", "description", "devices"); err != nil {
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
	if err := devs.allow("speaker", "ledRing", "motors"); err != nil {
		return nil, err
	}

	spk, _, err := devs.object("speaker", true)
	if err != nil {
		return nil, err
	}
	if err := spk.allow(append(hardwareKeys(), "driver", "wpm")...); err != nil {
		return nil, err
	}
	if p.Speaker.Driver, _, err = spk.str("driver", true); err != nil {
		return nil, err
	}
	if p.Speaker.WPM, _, err = spk.integer("wpm", false); err != nil {
		return nil, err
	}
	if p.Speaker.Hardware, err = decodeHardware(spk); err != nil {
		return nil, err
	}

	if ring, ok, err := devs.object("ledRing", false); err != nil {
		return nil, err
	} else if ok {
		if err := ring.allow(append(hardwareKeys(), "driver", "pixels")...); err != nil {
			return nil, err
		}
		p.LEDRing = &LEDRingSpec{}
		if p.LEDRing.Driver, _, err = ring.str("driver", true); err != nil {
			return nil, err
		}
		if p.LEDRing.Pixels, _, err = ring.integer("pixels", false); err != nil {
			return nil, err
		}
		if p.LEDRing.Hardware, err = decodeHardware(ring); err != nil {
			return nil, err
		}
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
	return p, nil
}

func decodeMotor(raw any, at string) (MotorSpec, error) {
	var m MotorSpec
	fields, ok := raw.(map[string]any)
	if !ok {
		return m, fieldErr(at, "is %s, want an object", kindOf(raw))
	}
	o := node{path: at, fields: fields}
	if err := o.allow(append(hardwareKeys(), "name", "driver", "limits", "maxVelocity", "maxAcceleration")...); err != nil {
		return m, err
	}
	var err error
	if m.Name, _, err = o.str("name", true); err != nil {
		return m, err
	}
	if m.Driver, _, err = o.str("driver", true); err != nil {
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
	m.Hardware, err = decodeHardware(o)
	return m, err
}

func hardwareKeys() []string { return []string{"bus", "address", "channel", "pin"} }

func decodeHardware(o node) (Hardware, error) {
	var h Hardware
	var err error
	if h.Bus, _, err = o.str("bus", false); err != nil {
		return h, err
	}
	if h.Pin, _, err = o.str("pin", false); err != nil {
		return h, err
	}
	if n, ok, err := o.integer("address", false); err != nil {
		return h, err
	} else if ok {
		h.Address = &n
	}
	if n, ok, err := o.integer("channel", false); err != nil {
		return h, err
	} else if ok {
		h.Channel = &n
	}
	return h, nil
}

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
	if err := checkDevice("devices.speaker", p.Speaker.Driver, p.Speaker.Hardware); err != nil {
		return err
	}
	if p.Speaker.WPM < 0 || p.Speaker.WPM > sim.MaxWPM {
		return fieldErr("devices.speaker.wpm", "%d is outside 0..%d", p.Speaker.WPM, sim.MaxWPM)
	}
	if r := p.LEDRing; r != nil {
		if err := checkDevice("devices.ledRing", r.Driver, r.Hardware); err != nil {
			return err
		}
		if r.Pixels < 0 || r.Pixels > sim.MaxPixels {
			return fieldErr("devices.ledRing.pixels", "%d is outside 1..%d", r.Pixels, sim.MaxPixels)
		}
	}
	if len(p.Motors) > MaxMotors {
		return fieldErr("devices.motors", "%d motors, limit %d", len(p.Motors), MaxMotors)
	}
	seen := map[string]string{}
	for i, m := range p.Motors {
		at := fmt.Sprintf("devices.motors[%d]", i)
		if err := checkMotor(at, m); err != nil {
			return err
		}
		if first, dup := seen[m.Name]; dup {
			return fieldErr(at+".name", "duplicate motor %q (also %s)", m.Name, first)
		}
		seen[m.Name] = at
	}
	for _, axis := range device.Axes() {
		if _, ok := seen[axis]; !ok {
			return fieldErr("devices.motors", "missing axis %s", axis)
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

func checkDevice(at, driver string, hw Hardware) error {
	if driver != DriverSim {
		if driver == "" {
			return fieldErr(at+".driver", "missing")
		}
		return fieldErr(at+".driver", "unknown driver %q (available: %s)", driver, DriverSim)
	}
	// The sim driver has no hardware to locate.
	switch {
	case hw.Bus != "":
		return fieldErr(at+".bus", "not used by driver %q", driver)
	case hw.Address != nil:
		return fieldErr(at+".address", "not used by driver %q", driver)
	case hw.Channel != nil:
		return fieldErr(at+".channel", "not used by driver %q", driver)
	case hw.Pin != "":
		return fieldErr(at+".pin", "not used by driver %q", driver)
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
	if err := checkDevice(at, m.Driver, m.Hardware); err != nil {
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
	return nil
}

// node is a decoded JSON object and its path.
type node struct {
	path   string
	fields map[string]any
}

func (n node) at(key string) string {
	if n.path == "" {
		return key
	}
	return n.path + "." + key
}

// allow rejects fields other than keys, naming the first (in sorted order,
// so the message does not depend on map order).
func (n node) allow(keys ...string) error {
	var unknown []string
	for k := range n.fields {
		if !slices.Contains(keys, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return fieldErr(n.at(unknown[0]), "unknown field")
	}
	return nil
}

func (n node) get(key string, required bool) (any, bool, error) {
	v, ok := n.fields[key]
	if !ok || v == nil {
		if required {
			return nil, false, fieldErr(n.at(key), "missing")
		}
		return nil, false, nil
	}
	return v, true, nil
}

func (n node) str(key string, required bool) (string, bool, error) {
	v, ok, err := n.get(key, required)
	if err != nil || !ok {
		return "", false, err
	}
	s, isStr := v.(string)
	if !isStr {
		return "", false, fieldErr(n.at(key), "is %s, want a string", kindOf(v))
	}
	if len(s) > MaxDescriptionLen {
		return "", false, fieldErr(n.at(key), "is %d bytes, limit %d", len(s), MaxDescriptionLen)
	}
	return s, true, nil
}

func (n node) number(key string, required bool) (float64, bool, error) {
	v, ok, err := n.get(key, required)
	if err != nil || !ok {
		return 0, false, err
	}
	num, isNum := v.(json.Number)
	if !isNum {
		return 0, false, fieldErr(n.at(key), "is %s, want a number", kindOf(v))
	}
	f, err := num.Float64()
	if err != nil {
		return 0, false, fieldErr(n.at(key), "%s is out of range", num)
	}
	return f, true, nil
}

func (n node) integer(key string, required bool) (int, bool, error) {
	v, ok, err := n.get(key, required)
	if err != nil || !ok {
		return 0, false, err
	}
	num, isNum := v.(json.Number)
	if !isNum {
		return 0, false, fieldErr(n.at(key), "is %s, want a whole number", kindOf(v))
	}
	i, err := num.Int64()
	if err != nil || i < math.MinInt32 || i > math.MaxInt32 {
		return 0, false, fieldErr(n.at(key), "is %s, want a whole number", num)
	}
	return int(i), true, nil
}

func (n node) object(key string, required bool) (node, bool, error) {
	v, ok, err := n.get(key, required)
	if err != nil || !ok {
		return node{}, false, err
	}
	m, isObj := v.(map[string]any)
	if !isObj {
		return node{}, false, fieldErr(n.at(key), "is %s, want an object", kindOf(v))
	}
	return node{path: n.at(key), fields: m}, true, nil
}

func (n node) array(key string, required bool) ([]any, bool, error) {
	v, ok, err := n.get(key, required)
	if err != nil || !ok {
		return nil, false, err
	}
	a, isArr := v.([]any)
	if !isArr {
		return nil, false, fieldErr(n.at(key), "is %s, want an array", kindOf(v))
	}
	return a, true, nil
}

// kindOf names a decoded JSON value's type for error messages.
func kindOf(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}
