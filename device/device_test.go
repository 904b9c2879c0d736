package device_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/device"
)

func TestParseRGB(t *testing.T) {
	tests := []struct {
		in      string
		want    device.RGB
		wantErr string
	}{
		{in: "#00aaff", want: device.RGB{R: 0x00, G: 0xaa, B: 0xff, A: 0xff}},
		{in: "#00AAFF", want: device.RGB{R: 0x00, G: 0xaa, B: 0xff, A: 0xff}},
		{in: "red", want: device.RGB{R: 0xff, A: 0xff}},
		{in: "Blue", want: device.RGB{B: 0xff, A: 0xff}},
		{in: "off", want: device.RGB{A: 0xff}},
		{in: "", wantErr: `parse colour "": want #rrggbb or one of black, blue,`},
		{in: "#00aaf", wantErr: `parse colour "#00aaf": want #rrggbb`},
		{in: "#00aafg", wantErr: `parse colour "#00aafg": want #rrggbb`},
		{in: "00aaff0", wantErr: `parse colour "00aaff0": want #rrggbb`},
		{in: "chartreuse", wantErr: `parse colour "chartreuse": want #rrggbb`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := device.ParseRGB(tt.in)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestFormatRGBRoundTrip(t *testing.T) {
	for _, name := range device.ColorNames() {
		c, err := device.ParseRGB(name)
		require.NoError(t, err)
		back, err := device.ParseRGB(device.FormatRGB(c))
		require.NoError(t, err)
		assert.Equal(t, c, back, name)
	}
	assert.Equal(t, "#00aaff", device.FormatRGB(device.RGB{G: 0xaa, B: 0xff}))
}

func TestFill(t *testing.T) {
	px := device.Fill(3, device.RGB{R: 1, A: 0xff})
	assert.Equal(t, []device.RGB{{R: 1, A: 0xff}, {R: 1, A: 0xff}, {R: 1, A: 0xff}}, px)
	assert.Empty(t, device.Fill(0, device.RGB{}))
}

func TestAxes(t *testing.T) {
	assert.Equal(t, []string{"bottomSection_r", "middleSection_r", "topSection_r"}, device.Axes())
	for _, a := range device.Axes() {
		assert.True(t, device.IsAxis(a))
	}
	assert.False(t, device.IsAxis("tail_r"))
}

func TestLimitsValidate(t *testing.T) {
	ok := device.DefaultLimits()
	tests := []struct {
		name    string
		mod     func(*device.Limits)
		wantErr string
	}{
		{name: "default", mod: func(*device.Limits) {}},
		{name: "full circle", mod: func(l *device.Limits) { l.Min, l.Max = -math.Pi, math.Pi }},
		{name: "beyond pi", mod: func(l *device.Limits) { l.Max = 3.2 }, wantErr: "outside ±π"},
		{name: "below minus pi", mod: func(l *device.Limits) { l.Min = -4 }, wantErr: "outside ±π"},
		{name: "inverted", mod: func(l *device.Limits) { l.Min, l.Max = 1, -1 }, wantErr: "min must be below max"},
		{name: "empty range", mod: func(l *device.Limits) { l.Min, l.Max = 1, 1 }, wantErr: "min must be below max"},
		{name: "NaN", mod: func(l *device.Limits) { l.Max = math.NaN() }, wantErr: "not a finite number"},
		{name: "zero velocity", mod: func(l *device.Limits) { l.MaxVelocity = 0 }, wantErr: "max velocity 0 rad/s: must be positive"},
		{name: "negative accel", mod: func(l *device.Limits) { l.MaxAcceleration = -1 }, wantErr: "max acceleration -1 rad/s²: must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := ok
			tt.mod(&l)
			err := l.Validate()
			if tt.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

// The axis limit is ±3.0543 rad (spec/jibo.md §6).
func TestLimitsCheck(t *testing.T) {
	l := device.DefaultLimits()
	assert.NoError(t, l.Check(device.TopSection, 3.0543))
	assert.NoError(t, l.Check(device.TopSection, -3.0543))
	for _, bad := range []float64{3.06, -3.06, math.NaN(), math.Inf(1)} {
		err := l.Check(device.TopSection, bad)
		var le *device.LimitError
		require.ErrorAs(t, err, &le, "%v", bad)
		assert.Equal(t, device.TopSection, le.Axis)
		assert.Contains(t, err.Error(), "motor topSection_r: target")
		assert.Contains(t, err.Error(), "outside limits [-3.0543, 3.0543]")
	}
}

func TestInterruptedError(t *testing.T) {
	err := error(&device.InterruptedError{Text: "hello there", Spoken: "hello", Err: context.Canceled})
	assert.True(t, errors.Is(err, context.Canceled))
	assert.Equal(t, `speech interrupted after "hello" of "hello there": context canceled`, err.Error())
}
