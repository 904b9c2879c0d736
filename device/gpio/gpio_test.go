package gpio_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	pgpio "periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpiotest"

	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/device/gpio"
)

type recorder struct {
	mu sync.Mutex
	ev []string
}

func (r *recorder) observe(e device.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := e.Device + " " + e.Kind
	if on, ok := e.Values["on"]; ok {
		if on.(bool) {
			s += " on"
		} else {
			s += " off"
		}
	}
	r.ev = append(r.ev, s)
}

func (r *recorder) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.ev...)
}

// The motor power enable: active high and active low wiring both drive the
// right level.
func TestOutput(t *testing.T) {
	tests := []struct {
		activeLow bool
		off, on   pgpio.Level
	}{{false, pgpio.Low, pgpio.High}, {true, pgpio.High, pgpio.Low}}
	for _, tt := range tests {
		pin := &gpiotest.Pin{N: "GPIO17", Num: 17, L: !tt.off}
		var rec recorder
		out, err := gpio.NewOutput(pin, gpio.OutputOptions{Name: "motor-power", ActiveLow: tt.activeLow, Observer: rec.observe})
		require.NoError(t, err)
		assert.Equal(t, tt.off, pin.Read(), "starts off")
		ctx := context.Background()
		require.NoError(t, out.Set(ctx, true))
		assert.True(t, out.On())
		assert.Equal(t, tt.on, pin.Read())
		require.NoError(t, out.Set(ctx, true))
		require.NoError(t, out.Check(ctx))
		require.NoError(t, out.Close())
		assert.Equal(t, tt.off, pin.Read(), "off when closed")
		assert.ErrorIs(t, out.Set(ctx, true), device.ErrClosed)
		assert.Equal(t, []string{"motor-power set on"}, rec.list())
	}
	_, err := gpio.NewOutput(nil, gpio.OutputOptions{})
	assert.Error(t, err)
}

// A button to ground with a pull-up: presses and releases are reported
// once each, after the contacts settle.
func TestButton(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pin := &gpiotest.Pin{N: "GPIO27", Num: 27, EdgesChan: make(chan pgpio.Level, 4)}
		var rec recorder
		b, err := gpio.NewButton(pin, gpio.ButtonOptions{Name: "stop", ActiveLow: true, Pull: pgpio.PullUp, Observer: rec.observe})
		require.NoError(t, err)
		assert.Equal(t, "stop", b.Name())
		assert.False(t, b.Pressed(), "pull-up: released")

		pin.EdgesChan <- pgpio.Low
		time.Sleep(50 * time.Millisecond)
		assert.True(t, b.Pressed())
		pin.EdgesChan <- pgpio.High
		time.Sleep(50 * time.Millisecond)
		assert.False(t, b.Pressed())
		// A bounce that ends where it started reports nothing.
		pin.EdgesChan <- pgpio.Low
		pin.EdgesChan <- pgpio.High
		time.Sleep(100 * time.Millisecond)
		require.NoError(t, b.Close())
		assert.Equal(t, []string{"button.stop press", "button.stop release"}, rec.list())
	})
}

func TestButtonErrors(t *testing.T) {
	_, err := gpio.NewButton(nil, gpio.ButtonOptions{})
	assert.Error(t, err)
	// gpiotest refuses edge detection without an edge channel, as a pin
	// without interrupts would.
	_, err = gpio.NewButton(&gpiotest.Pin{N: "GPIO5"}, gpio.ButtonOptions{Name: "x"})
	assert.ErrorContains(t, err, "gpio button x on GPIO5(0)")
	_, err = gpio.NewButton(&gpiotest.Pin{N: "GPIO5", EdgesChan: make(chan pgpio.Level)}, gpio.ButtonOptions{Debounce: 2 * time.Second})
	assert.ErrorContains(t, err, "debounce 2s outside")
}
