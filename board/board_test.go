package board_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/board"
	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/jcp"
)

// baseProfile is a valid profile as decoded JSON, for tests to break.
func baseProfile() map[string]any {
	motor := func(name string) map[string]any {
		return map[string]any{"name": name, "driver": "sim", "limits": map[string]any{"min": -3.0543, "max": 3.0543}}
	}
	return map[string]any{
		"name":        "test-body",
		"description": "for tests",
		"devices": map[string]any{
			"speaker": map[string]any{"driver": "sim", "wpm": 0},
			"ledRing": map[string]any{"driver": "sim", "pixels": 6},
			"motors":  []any{motor(device.BottomSection), motor(device.MiddleSection), motor(device.TopSection)},
		},
	}
}

func devices(p map[string]any) map[string]any { return p["devices"].(map[string]any) }
func speaker(p map[string]any) map[string]any { return devices(p)["speaker"].(map[string]any) }
func ring(p map[string]any) map[string]any    { return devices(p)["ledRing"].(map[string]any) }
func motor(p map[string]any, i int) map[string]any {
	return devices(p)["motors"].([]any)[i].(map[string]any)
}
func limits(p map[string]any, i int) map[string]any { return motor(p, i)["limits"].(map[string]any) }

func encode(t *testing.T, p map[string]any) []byte {
	t.Helper()
	b, err := json.Marshal(p)
	require.NoError(t, err)
	return b
}

func TestParseProfileValid(t *testing.T) {
	p, err := board.ParseProfile(encode(t, baseProfile()))
	require.NoError(t, err)
	assert.Equal(t, "test-body", p.Name)
	assert.Equal(t, board.SpeakerSpec{Driver: "sim"}, p.Speaker)
	require.NotNil(t, p.LEDRing)
	assert.Equal(t, 6, p.LEDRing.Pixels)
	require.Len(t, p.Motors, 3)
	assert.Equal(t, device.DefaultLimits(), p.Motors[2].Limits(), "velocity and acceleration default to Jibo's")

	// The ring is optional.
	noRing := baseProfile()
	delete(devices(noRing), "ledRing")
	p, err = board.ParseProfile(encode(t, noRing))
	require.NoError(t, err)
	assert.Nil(t, p.LEDRing)
}

func TestParseProfileErrors(t *testing.T) {
	tests := []struct {
		name    string
		mod     func(p map[string]any)
		wantErr string
	}{
		{"unknown top-level field", func(p map[string]any) { p["colour"] = "red" }, "colour: unknown field"},
		{"unknown device", func(p map[string]any) { devices(p)["camera"] = map[string]any{} }, "devices.camera: unknown field"},
		{"unknown speaker field", func(p map[string]any) { speaker(p)["volume"] = 1 }, "devices.speaker.volume: unknown field"},
		{"unknown motor field", func(p map[string]any) { motor(p, 1)["offset"] = 0.1 }, "devices.motors[1].offset: unknown field"},
		{"unknown limits field", func(p map[string]any) { limits(p, 0)["mid"] = 0 }, "devices.motors[0].limits.mid: unknown field"},
		{"name missing", func(p map[string]any) { delete(p, "name") }, "name: missing"},
		{"name not string", func(p map[string]any) { p["name"] = 5 }, "name: is a number, want a string"},
		{"name with slash", func(p map[string]any) { p["name"] = "../x" }, `name: "../x" is not a valid name: use a-z, 0-9, '-' and '_', starting with a letter or digit`},
		{"description too long", func(p map[string]any) { p["description"] = strings.Repeat("d", 1025) }, "description: is 1025 bytes, limit 1024"},
		{"devices missing", func(p map[string]any) { delete(p, "devices") }, "devices: missing"},
		{"devices not object", func(p map[string]any) { p["devices"] = []any{} }, "devices: is an array, want an object"},
		{"speaker missing", func(p map[string]any) { delete(devices(p), "speaker") }, "devices.speaker: missing"},
		{"speaker driver missing", func(p map[string]any) { delete(speaker(p), "driver") }, "devices.speaker.driver: missing"},
		{"unknown driver", func(p map[string]any) { speaker(p)["driver"] = "espeak" }, `devices.speaker.driver: unknown driver "espeak" (available: sim)`},
		{"wpm fraction", func(p map[string]any) { speaker(p)["wpm"] = 150.5 }, "devices.speaker.wpm: is 150.5, want a whole number"},
		{"wpm string", func(p map[string]any) { speaker(p)["wpm"] = "fast" }, "devices.speaker.wpm: is a string, want a whole number"},
		{"wpm too fast", func(p map[string]any) { speaker(p)["wpm"] = 5000 }, "devices.speaker.wpm: 5000 is outside 0..1000"},
		{"ring driver", func(p map[string]any) { ring(p)["driver"] = "ws2812" }, `devices.ledRing.driver: unknown driver "ws2812" (available: apa102, sim)`},
		{"apa102 needs a bus", func(p map[string]any) { ring(p)["driver"] = "apa102" }, `devices.ledRing.bus: missing (driver "apa102" needs it)`},
		{"brightness with sim", func(p map[string]any) { ring(p)["brightness"] = 10 }, `devices.ledRing.brightness: not used by driver "sim"`},
		{"fps", func(p map[string]any) { ring(p)["fps"] = 500 }, "devices.ledRing.fps: 500 is outside 1..200"},
		{"ring bus with sim", func(p map[string]any) { ring(p)["bus"] = "SPI0.0" }, `devices.ledRing.bus: not used by driver "sim"`},
		{"ring pixels", func(p map[string]any) { ring(p)["pixels"] = 2000 }, "devices.ledRing.pixels: 2000 is outside 1..1024"},
		{"ring not object", func(p map[string]any) { devices(p)["ledRing"] = true }, "devices.ledRing: is a boolean, want an object"},
		{"motors missing", func(p map[string]any) { delete(devices(p), "motors") }, "devices.motors: missing"},
		{"motors not array", func(p map[string]any) { devices(p)["motors"] = map[string]any{} }, "devices.motors: is an object, want an array"},
		{"motor not object", func(p map[string]any) { devices(p)["motors"].([]any)[2] = "top" }, "devices.motors[2]: is a string, want an object"},
		{"missing axis", func(p map[string]any) {
			devices(p)["motors"] = devices(p)["motors"].([]any)[:2]
		}, "devices.motors: missing axis topSection_r"},
		{"duplicate axis", func(p map[string]any) { motor(p, 2)["name"] = device.BottomSection }, `devices.motors[2].name: duplicate motor "bottomSection_r" (also devices.motors[0])`},
		{"unknown axis", func(p map[string]any) { motor(p, 1)["name"] = "tail_r" }, `devices.motors[1].name: unknown axis "tail_r" (want one of bottomSection_r, middleSection_r, topSection_r)`},
		{"motor driver", func(p map[string]any) { motor(p, 0)["driver"] = "dynamixel" }, `devices.motors[0].driver: unknown driver "dynamixel" (available: pca9685, sim)`},
		{"pca9685 needs a bus", func(p map[string]any) { motor(p, 0)["driver"] = "pca9685" }, `devices.motors[0].bus: missing (driver "pca9685" needs it)`},
		{"servo with sim", func(p map[string]any) { motor(p, 0)["servo"] = map[string]any{} }, `devices.motors[0].servo.minPulseUs: missing`},
		{"motor address with sim", func(p map[string]any) { motor(p, 0)["address"] = 64 }, `devices.motors[0].address: not used by driver "sim"`},
		{"motor channel with sim", func(p map[string]any) { motor(p, 0)["channel"] = 3 }, `devices.motors[0].channel: not used by driver "sim"`},
		{"motor pin with sim", func(p map[string]any) { motor(p, 0)["pin"] = "GPIO17" }, `devices.motors[0].pin: not used by driver "sim"`},
		{"limits missing", func(p map[string]any) { delete(motor(p, 1), "limits") }, "devices.motors[1].limits: missing"},
		{"limit missing", func(p map[string]any) { delete(limits(p, 1), "max") }, "devices.motors[1].limits.max: missing"},
		{"limit not number", func(p map[string]any) { limits(p, 1)["min"] = "-3" }, "devices.motors[1].limits.min: is a string, want a number"},
		{"limit beyond pi", func(p map[string]any) { limits(p, 1)["max"] = 3.5 }, "devices.motors[1].limits.max: 3.5 is outside ±π"},
		{"limit below minus pi", func(p map[string]any) { limits(p, 0)["min"] = -4 }, "devices.motors[0].limits.min: -4 is outside ±π"},
		{"limits inverted", func(p map[string]any) { limits(p, 2)["min"] = 1; limits(p, 2)["max"] = -1 }, "devices.motors[2].limits: min 1 must be below max -1"},
		{"velocity", func(p map[string]any) { motor(p, 0)["maxVelocity"] = -1 }, "devices.motors[0].maxVelocity: -1 is outside 0..100 rad/s"},
		{"acceleration", func(p map[string]any) { motor(p, 0)["maxAcceleration"] = 5000 }, "devices.motors[0].maxAcceleration: 5000 is outside 0..1000 rad/s²"},
		{"listener yaw", func(p map[string]any) { p["listener"] = map[string]any{"yawDeg": 200} }, "listener.yawDeg: 200 is outside ±180"},
		{"listener pitch", func(p map[string]any) { p["listener"] = map[string]any{"pitchDeg": -90} }, "listener.pitchDeg: -90 is outside ±60"},
		{"listener field", func(p map[string]any) { p["listener"] = map[string]any{"rollDeg": 5} }, "listener.rollDeg: unknown field"},
		{"listener kind", func(p map[string]any) { p["listener"] = map[string]any{"yawDeg": "left"} }, "listener.yawDeg: is a string, want a number"},
		{"too many motors", func(p map[string]any) {
			ms := devices(p)["motors"].([]any)
			for len(ms) <= board.MaxMotors {
				ms = append(ms, ms[0])
			}
			devices(p)["motors"] = ms
		}, "devices.motors: 17 motors, limit 16"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := baseProfile()
			tt.mod(p)
			got, err := board.ParseProfile(encode(t, p))
			require.Error(t, err)
			assert.Nil(t, got)
			assert.Equal(t, tt.wantErr, err.Error())
		})
	}
}

func TestParseProfileBadJSON(t *testing.T) {
	tests := []struct {
		name, in, wantErr string
	}{
		{"syntax", `{"name":`, "invalid JSON"},
		// Two readers must not see two boards (issue 22 item 9).
		{"field twice", `{"name":"a","devices":{"speaker":{"driver":"sim","driver":"pwm"}}}`, `invalid JSON: devices.speaker.driver: member given twice ("driver")`},
		{"not UTF-8", "{\"name\":\"caf\xe9\"}", "invalid JSON: name: invalid UTF-8"},
		{"trailing", `{"name":"a"} {}`, "invalid JSON: trailing data after the profile"},
		{"not object", `[]`, "profile is an array, want an object"},
		{"too big", `{"description":"` + strings.Repeat("x", board.MaxProfileBytes) + `"}`, "profile is more than 65536 bytes"},
		{"number too big", `{"name":"a","devices":{"speaker":{"driver":"sim","wpm":1e99}}}`, "devices.speaker.wpm: is 1e99, want a whole number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := board.ParseProfile([]byte(tt.in))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

// The embedded sim profile describes Jibo's body (spec/jibo.md §6).
func TestLoadSim(t *testing.T) {
	assert.Contains(t, board.Names(), "sim")
	p, err := board.Load("sim")
	require.NoError(t, err)
	assert.Equal(t, "sim", p.Name)
	assert.Equal(t, 150, p.Speaker.WPM)
	require.NotNil(t, p.LEDRing)
	assert.Equal(t, 12, p.LEDRing.Pixels)
	for i, axis := range device.Axes() {
		assert.Equal(t, axis, p.Motors[i].Name)
		assert.Equal(t, device.DefaultLimits(), p.Motors[i].Limits())
	}
}

func TestLoadErrors(t *testing.T) {
	_, err := board.Load("../profiles/sim")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `load board profile "../profiles/sim": "../profiles/sim" is not a valid name`)

	_, err = board.Load("pi4")
	require.Error(t, err)
	assert.Equal(t, `load board profile "pi4": no such profile (have: rpi, sim)`, err.Error())
}

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	require.NoError(t, os.WriteFile(good, encode(t, baseProfile()), 0o600))
	p, err := board.LoadFile(good)
	require.NoError(t, err)
	assert.Equal(t, "test-body", p.Name)

	bad := baseProfile()
	limits(bad, 1)["max"] = 3.5
	badPath := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(badPath, encode(t, bad), 0o600))
	_, err = board.LoadFile(badPath)
	require.Error(t, err)
	assert.Equal(t, "load board profile "+badPath+": devices.motors[1].limits.max: 3.5 is outside ±π", err.Error())
	var fe *board.FieldError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "devices.motors[1].limits.max", fe.Path)

	huge := filepath.Join(dir, "huge.json")
	require.NoError(t, os.WriteFile(huge, []byte(strings.Repeat(" ", board.MaxProfileBytes+10)), 0o600))
	_, err = board.LoadFile(huge)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "profile is more than 65536 bytes")

	_, err = board.LoadFile(filepath.Join(dir, "missing.json"))
	require.ErrorIs(t, err, os.ErrNotExist)
}

func TestOpenAndCheckSim(t *testing.T) {
	p, err := board.Load("sim")
	require.NoError(t, err)
	body, err := board.Open(context.Background(), p, board.Options{})
	require.NoError(t, err)

	require.NotNil(t, body.Voice)
	require.NotNil(t, body.Ring)
	assert.Equal(t, 12, body.Ring.Len())
	require.Len(t, body.Motors, 3)
	for _, axis := range device.Axes() {
		assert.Equal(t, axis, body.Motors[axis].Name())
	}

	results := body.Check(context.Background())
	assert.Equal(t, []board.CheckResult{
		{Device: "speaker", Driver: "sim", OK: true, Detail: "voice ready"},
		{Device: "audio", Driver: "sim", OK: true, Detail: "16000 Hz × 1 channels"},
		{Device: "display", Driver: "sim", OK: true, Detail: "layers 0..4"},
		{Device: "led", Driver: "sim", OK: true, Detail: "12 pixels"},
		{Device: "motor-power", Driver: "sim", OK: true, Detail: "off"},
		{Device: "motor.bottomSection_r", Driver: "sim", OK: true, Detail: "angle 0.0000 rad, limits [-3.0543, 3.0543], enabled true"},
		{Device: "motor.middleSection_r", Driver: "sim", OK: true, Detail: "angle 0.0000 rad, limits [-3.0543, 3.0543], enabled true"},
		{Device: "motor.topSection_r", Driver: "sim", OK: true, Detail: "angle 0.0000 rad, limits [-3.0543, 3.0543], enabled true"},
	}, results)

	require.NoError(t, body.Close())
	for _, r := range body.Check(context.Background()) {
		assert.False(t, r.OK, r.Device)
		assert.Contains(t, r.Error, "device closed")
	}
	assert.ErrorIs(t, body.Voice.Say(context.Background(), "hi"), device.ErrClosed)
}

func TestOpenErrors(t *testing.T) {
	p, err := board.Load("sim")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = board.Open(ctx, p, board.Options{})
	require.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), `open board "sim"`)

	bad := *p
	bad.Motors = bad.Motors[:2]
	_, err = board.Open(context.Background(), &bad, board.Options{})
	require.Error(t, err)
	assert.Equal(t, "open board: devices.motors: missing axis topSection_r", err.Error())

	_, err = board.Open(context.Background(), nil, board.Options{})
	require.EqualError(t, err, "open board: profile is nil")
}

func TestExecutorConfigWithoutRing(t *testing.T) {
	p, err := board.Load("sim")
	require.NoError(t, err)
	p.LEDRing = nil
	body, err := board.Open(context.Background(), p, board.Options{})
	require.NoError(t, err)
	defer body.Close()
	cfg := body.ExecutorConfig()
	assert.Nil(t, cfg.Lights, "no ring means no lights, not a typed nil")
	assert.NotNil(t, cfg.Voice)
}

// deviceLog records device events as "device kind value".
type deviceLog struct {
	mu  sync.Mutex
	got []string
}

func (l *deviceLog) observe(e device.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := e.Device + " " + e.Kind
	switch {
	case e.Values["color"] != nil:
		s += " " + e.Values["color"].(string)
	case e.Values["text"] != nil:
		s += " " + e.Values["text"].(string)
	}
	l.got = append(l.got, s)
}

func (l *deviceLog) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.got...)
}

// A JCP action run on the sim body: the executor drives the devices and
// the body reports each step. Speech at 150 words per minute runs on the
// bubble's fake clock.
func TestExecutorOverSimBody(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, err := board.Load("sim")
		require.NoError(t, err)
		var log deviceLog
		body, err := board.Open(context.Background(), p, board.Options{Observer: log.observe})
		require.NoError(t, err)
		defer body.Close()

		ex, err := jcp.NewExecutor(body.ExecutorConfig())
		require.NoError(t, err)
		a := jcp.NewAction(jcp.Sequence(
			jcp.Say("Good morning."),
			jcp.Question("<speak><es cat='happy'>Did you sleep well?</es></speak>", "shared/yes_no"),
			jcp.Parallel(false, jcp.Say("One thing."), jcp.Say("Another thing.")),
		))
		res, err := ex.Run(context.Background(), a)
		require.NoError(t, err)
		assert.Equal(t, jcp.StatusSucceeded, res.Status)
		assert.Equal(t, []string{"shared/yes_no"}, res.Listen.Contexts)

		got := log.list()
		require.Len(t, got, 16)
		assert.Equal(t, []string{
			"led set #00aaff", "speaker say Good morning.", "speaker done Good morning.", "led set #000000",
			"led set #00aaff", "speaker say Did you sleep well?", "speaker done Did you sleep well?", "led set #000000",
		}, got[:8])
		// The two parallel lines take turns at the speaker, in either order,
		// each inside its own lighting cue.
		cue := func(text string) []string {
			return []string{"led set #00aaff", "speaker say " + text, "speaker done " + text, "led set #000000"}
		}
		if got[9] == "speaker say One thing." {
			assert.Equal(t, append(cue("One thing."), cue("Another thing.")...), got[8:])
		} else {
			assert.Equal(t, append(cue("Another thing."), cue("One thing.")...), got[8:])
		}
		assert.ElementsMatch(t, []string{"Good morning.", "Did you sleep well?", "One thing.", "Another thing."}, res.Spoken)
	})
}
