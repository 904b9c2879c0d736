package board_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"periph.io/x/conn/v3/conntest"
	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpiotest"
	"periph.io/x/conn/v3/i2c"
	"periph.io/x/conn/v3/physic"
	"periph.io/x/conn/v3/spi"
	"periph.io/x/conn/v3/spi/spitest"

	"github.com/openjibo/jibod/board"
	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/jcp"
	"github.com/openjibo/jibod/motion"
)

// pcaBus is an I²C bus with a PCA9685 on it: it answers the register reads
// of set-up and records every write.
type pcaBus struct {
	mu     sync.Mutex
	writes [][]byte
	closed bool
}

func (b *pcaBus) String() string                    { return "pca-bus" }
func (b *pcaBus) SetSpeed(f physic.Frequency) error { return nil }
func (b *pcaBus) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	return nil
}
func (b *pcaBus) Tx(addr uint16, w, r []byte) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if addr != 0x40 {
		return fmt.Errorf("no device at %#x", addr)
	}
	if len(r) > 0 {
		switch w[0] {
		case 0x00:
			r[0] = 0x21 // MODE1: awake, auto-increment
		case 0xfe:
			r[0] = 122
		}
		return nil
	}
	b.writes = append(b.writes, append([]byte(nil), w...))
	return nil
}

// channelCounts returns the PWM counts written to channel ch, in order.
func (b *pcaBus) channelCounts(ch int) []int {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []int
	for _, w := range b.writes {
		if len(w) == 5 && w[0] == 0x06+byte(4*ch) {
			out = append(out, int(w[3])|int(w[4])<<8)
		}
	}
	return out
}

type spiPort struct {
	spitest.Playback
	closed bool
}

func (p *spiPort) Close() error {
	p.closed = true
	return nil
}

// fakeBuses are a Raspberry Pi's buses in a test.
type fakeBuses struct {
	i2c   *pcaBus
	spi   *spiPort
	pins  map[string]*gpiotest.Pin
	noI2C bool
}

func newFakeBuses() *fakeBuses {
	return &fakeBuses{
		i2c: &pcaBus{},
		spi: &spiPort{Playback: spitest.Playback{Playback: conntest.Playback{Ops: []conntest.IO{}, DontPanic: true}}},
		pins: map[string]*gpiotest.Pin{
			"GPIO17": {N: "GPIO17", Num: 17},
			"GPIO27": {N: "GPIO27", Num: 27, EdgesChan: make(chan gpio.Level, 1)},
		},
	}
}

func (f *fakeBuses) OpenI2C(name string) (i2c.BusCloser, error) {
	if f.noI2C || name != "/dev/i2c-1" {
		return nil, fmt.Errorf("open I²C bus %q: no such bus", name)
	}
	return f.i2c, nil
}

func (f *fakeBuses) OpenSPI(name string) (spi.PortCloser, error) {
	if name != "SPI0.0" {
		return nil, errors.New("no such port")
	}
	return f.spi, nil
}

func (f *fakeBuses) Pin(name string) (gpio.PinIO, error) {
	if p, ok := f.pins[name]; ok {
		return p, nil
	}
	return nil, fmt.Errorf("no GPIO pin called %q", name)
}

// The Raspberry Pi profile wires a PCA9685, an APA102 ring and GPIOs; the
// body opens them all on the buses it is given, and closes them again.
func TestOpenRaspberryPi(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, err := board.Load("rpi")
		require.NoError(t, err)
		buses := newFakeBuses()
		// The ring accepts any frame.
		buses.spi.Playback.Playback = conntest.Playback{DontPanic: true}
		body, err := board.Open(context.Background(), p, board.Options{Buses: &anyFrames{fakeBuses: buses}})
		require.NoError(t, err)

		results := body.Check(context.Background())
		var summary []string
		for _, r := range results {
			summary = append(summary, fmt.Sprintf("%s %s %s %t", r.Device, r.Driver, r.Where, r.OK))
		}
		assert.Equal(t, []string{
			"speaker sim  true", "audio sim  true", "display sim  true",
			"led apa102 SPI0.0 true", "motor-power gpio GPIO17 true", "button.stop gpio GPIO27 true",
			"motor.bottomSection_r pca9685 /dev/i2c-1 0x40 ch 0 true",
			"motor.middleSection_r pca9685 /dev/i2c-1 0x40 ch 1 true",
			"motor.topSection_r pca9685 /dev/i2c-1 0x40 ch 2 true",
		}, summary)

		// The motion controller powers the servos and homes them: 1500 µs
		// on every channel.
		cfg := body.MotionConfig()
		assert.Equal(t, 200, cfg.Rate)
		ctrl, err := motion.New(cfg)
		require.NoError(t, err)
		require.NoError(t, ctrl.Start(context.Background()))
		assert.True(t, body.Power.On())
		assert.Equal(t, gpio.High, buses.pins["GPIO17"].Read(), "servo power on")
		for ch := range 3 {
			assert.Equal(t, []int{305}, buses.i2c.channelCounts(ch), "channel %d", ch)
		}
		j, err := ctrl.MoveTo(motion.Pose{1, 0, -1}, motion.AllAxes)
		require.NoError(t, err)
		require.NoError(t, j.Wait(context.Background()))
		counts := buses.i2c.channelCounts(0)
		// 1 rad on a 270° servo: 1500 + 1/2.3562·1000 µs = 1924 µs.
		assert.Equal(t, 391, counts[len(counts)-1])
		require.NoError(t, ctrl.Close(context.Background()))
		assert.Equal(t, gpio.Low, buses.pins["GPIO17"].Read(), "servo power off")

		require.NoError(t, body.Close())
		assert.True(t, buses.i2c.closed)
		assert.True(t, buses.spi.closed)
	})
}

// anyFrames hands out an SPI port that takes every frame.
type anyFrames struct{ *fakeBuses }

func (a *anyFrames) OpenSPI(name string) (spi.PortCloser, error) {
	if _, err := a.fakeBuses.OpenSPI(name); err != nil {
		return nil, err
	}
	return &recordPort{spitest.Record{}, a.spi}, nil
}

type recordPort struct {
	spitest.Record
	owner *spiPort
}

func (r *recordPort) Close() error { return r.owner.Close() }

// In the field, board check opens each device on its own: a missing I²C
// bus fails the three servos and nothing else.
func TestProbeReportsEachDevice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, err := board.Load("rpi")
		require.NoError(t, err)
		buses := newFakeBuses()
		buses.noI2C = true
		results, err := board.Probe(context.Background(), p, board.Options{Buses: &anyFrames{fakeBuses: buses}})
		require.Error(t, err)
		assert.Contains(t, err.Error(), `open motor.bottomSection_r: open I²C bus "/dev/i2c-1": no such bus`)
		require.Len(t, results, 9)
		for _, r := range results {
			wantOK := r.Driver != board.DriverPCA9685
			assert.Equal(t, wantOK, r.OK, "%s: %s", r.Device, r.Error)
		}
		assert.Equal(t, "motor.topSection_r", results[8].Device)
		assert.Contains(t, results[8].Error, "no such bus")
	})
}

func TestHardwareProfileErrors(t *testing.T) {
	pca := func(ch int) map[string]any {
		return map[string]any{"name": device.TopSection, "driver": "pca9685", "bus": "/dev/i2c-1", "channel": ch,
			"limits": map[string]any{"min": -1.5, "max": 1.5},
			"servo":  map[string]any{"minPulseUs": 500, "maxPulseUs": 2500, "minAngle": -1.5708, "maxAngle": 1.5708}}
	}
	tests := []struct {
		name    string
		mod     func(p map[string]any)
		wantErr string
	}{
		{"channel range", func(p map[string]any) { m := pca(16); devices(p)["motors"].([]any)[2] = m }, "devices.motors[2].channel: 16 is outside 0..15"},
		{"address range", func(p map[string]any) {
			m := pca(1)
			m["address"] = 200
			devices(p)["motors"].([]any)[2] = m
		}, "devices.motors[2].address: 200 is outside 0..127 (a 7-bit I²C address)"},
		{"shared channel", func(p map[string]any) {
			m := pca(1)
			m["name"] = device.MiddleSection
			devices(p)["motors"].([]any)[1] = m
			devices(p)["motors"].([]any)[2] = pca(1)
		}, "devices.motors[2].channel: channel 1 of the PCA9685 at 0x40 on /dev/i2c-1 is already used by devices.motors[1]"},
		{"servo missing", func(p map[string]any) {
			m := pca(1)
			delete(m, "servo")
			devices(p)["motors"].([]any)[2] = m
		}, `devices.motors[2].servo: missing (driver "pca9685" needs the servo's calibration)`},
		{"servo range", func(p map[string]any) {
			m := pca(1)
			m["limits"] = map[string]any{"min": -3, "max": 3}
			devices(p)["motors"].([]any)[2] = m
		}, "devices.motors[2].servo: limits [-3, 3] rad go beyond the calibrated range [-1.5708, 1.5708]"},
		{"gpio power needs pin", func(p map[string]any) { devices(p)["motorPower"] = map[string]any{"driver": "gpio"} }, `devices.motorPower.pin: missing (driver "gpio" needs it)`},
		{"pin twice", func(p map[string]any) {
			devices(p)["motorPower"] = map[string]any{"driver": "gpio", "pin": "GPIO5"}
			devices(p)["buttons"] = []any{map[string]any{"name": "stop", "driver": "gpio", "pin": "GPIO5"}}
		}, "devices.buttons[0].pin: pin GPIO5 is already used by devices.motorPower"},
		{"button pull", func(p map[string]any) {
			devices(p)["buttons"] = []any{map[string]any{"name": "stop", "driver": "gpio", "pin": "GPIO5", "pull": "sideways"}}
		}, `devices.buttons[0].pull: "sideways" is not one of up, down, none`},
		{"button names", func(p map[string]any) {
			b := map[string]any{"name": "stop", "driver": "sim"}
			devices(p)["buttons"] = []any{b, b}
		}, `devices.buttons[1].name: duplicate button "stop" (also devices.buttons[0])`},
		{"audio rate", func(p map[string]any) { devices(p)["audioOut"] = map[string]any{"driver": "sim", "sampleRate": 100} }, "devices.audioOut: pcm format: sample rate 100 Hz outside 8000..192000"},
		{"motion rate", func(p map[string]any) { p["motion"] = map[string]any{"rateHz": 5} }, "motion.rateHz: 5 is outside 20..2000"},
		{"motion home", func(p map[string]any) { p["motion"] = map[string]any{"home": map[string]any{"tail_r": 0}} }, "motion.home.tail_r: unknown axis (want one of bottomSection_r, middleSection_r, topSection_r)"},
		{"motion home limit", func(p map[string]any) {
			p["motion"] = map[string]any{"home": map[string]any{device.TopSection: 3.1}}
		}, "motion.home.topSection_r: motor topSection_r: target 3.1 rad outside limits [-3.0543, 3.0543]"},
		{"motion timeout", func(p map[string]any) { p["motion"] = map[string]any{"stallTimeoutMs": -1} }, "motion.stallTimeoutMs: -1 is outside 0..10000"},
		{"late rest under both names", func(p map[string]any) {
			p["motion"] = map[string]any{"lateRestMs": 100, "lateHaltMs": 100}
		}, "motion.lateHaltMs: give lateRestMs or its earlier name lateHaltMs, not both"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := baseProfile()
			tt.mod(p)
			_, err := board.ParseProfile(encode(t, p))
			require.Error(t, err)
			assert.Equal(t, tt.wantErr, err.Error())
		})
	}
}

// A profile written when lateRestMs was called lateHaltMs still loads.
func TestLateHaltMsIsLateRestMs(t *testing.T) {
	p := baseProfile()
	p["motion"] = map[string]any{"lateHaltMs": 120}
	prof, err := board.ParseProfile(encode(t, p))
	require.NoError(t, err)
	assert.Equal(t, 120, prof.Motion.LateRestMs)
}

// The executor configuration reaches the screen and the sound output.
func TestExecutorConfigScreenAndSounds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, err := board.Load("sim")
		require.NoError(t, err)
		p.Speaker.WPM = 0
		var log deviceLog
		body, err := board.Open(context.Background(), p, board.Options{Observer: log.observe})
		require.NoError(t, err)
		defer body.Close()
		cfg := body.ExecutorConfig()
		require.NotNil(t, cfg.Screen)
		require.NotNil(t, cfg.Sounds)
		ex, err := jcp.NewExecutor(cfg)
		require.NoError(t, err)
		a, err := jcp.ParseAction([]byte(`{"type":"JCP","config":{"jcp":{"id":"s","type":"SLIM","config":{
			"play":{"id":"p","esml":"Ding <sfx name='chime'/> dong <sfx name='kazoo'/>"},
			"display":{"id":"d","name":"t","view":{"type":"TEXT","text":"Ding dong"}}}}}}`))
		require.NoError(t, err)
		res, err := ex.Run(context.Background(), a)
		require.NoError(t, err)
		assert.Contains(t, res.Behaviors[2].Note, "no such sound")
		got := log.list()
		assert.Contains(t, got, "display show Ding dong")
		assert.Contains(t, got, "audio play")
		assert.Contains(t, got, "display hide")
	})
}
