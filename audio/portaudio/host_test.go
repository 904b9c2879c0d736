package portaudio

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/audio"
)

func TestSelect(t *testing.T) {
	usb2 := DeviceInfo{Index: 5, Name: "USB PnP Sound Device: Audio (hw:2,0)", InputChannels: 1, DefaultRate: 16000}
	devs := []DeviceInfo{hdmi, analog, usbMic}
	for _, tc := range []struct {
		name     string
		devs     []DeviceInfo
		selector string
		input    bool
		want     string // device name, or
		err      string // part of the error
	}{
		{"default input", devs, "", true, usbMic.Name, ""},
		{"default output", devs, "", false, hdmi.Name, ""},
		{"by index", devs, "1", true, analog.Name, ""},
		{"index of an output-only device", devs, "0", true, "", "no input device with index 0"},
		{"exact name, any case", devs, strings.ToUpper(analog.Name), true, analog.Name, ""},
		{"unique part of a name", devs, "alc892", true, analog.Name, ""},
		{"part matching two", append(devs, usb2), "USB PnP", true, "", "matches 2 input devices"},
		{"exact name wins over parts", append(devs, DeviceInfo{Index: 9, Name: "pulse", InputChannels: 2},
			DeviceInfo{Index: 10, Name: "pulse monitor", InputChannels: 2}), "pulse", true, "pulse", ""},
		{"unknown name lists the choices", devs, "webcam", true, "", `no input device named "webcam"; choose one of`},
		{"no default", []DeviceInfo{analog}, "", true, "", "no default input device"},
		{"no devices at all", nil, "", true, "", "no input devices present"},
		{"output only devices for capture", []DeviceInfo{hdmi}, "", true, "", "no input devices present"},
		{"selector too long", devs, strings.Repeat("x", MaxSelectorLen+1), true, "", "exceeds the 256-byte limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Select(tc.devs, tc.selector, tc.input)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				if !strings.Contains(tc.err, "limit") {
					assert.ErrorIs(t, err, ErrNoDevice)
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, d.Name)
		})
	}
}

func TestBackendListsCaptureDevicesByName(t *testing.T) {
	f := newFake(hdmi, analog, usbMic)
	h := NewHost(f, nil)
	b := h.Backend(SourceOptions{})
	assert.True(t, b.Live, "a device can vanish and return: the opener must reopen it")
	devs, err := b.Devices(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []audio.Device{
		{ID: analog.Name, Name: "ALSA device #1", Channels: 2, SampleRate: 44100},
		{ID: usbMic.Name, Name: "ALSA device #2", Default: true, Channels: 2, SampleRate: 48000},
	}, devs)
	assert.Equal(t, 1, f.inits)
	assert.Equal(t, 1, f.terms, "a listing gives the library back")
}

func TestHostListsDevicesPresentNow(t *testing.T) {
	f := newFake(analog)
	h := NewHost(f, nil)
	ctx := context.Background()
	devs, err := h.Devices(ctx)
	require.NoError(t, err)
	require.Len(t, devs, 1)
	f.plug(usbMic)
	devs, err = h.Devices(ctx)
	require.NoError(t, err)
	assert.Len(t, devs, 2, "the library restarts per listing, so a new device shows")

	f.initErr = errors.New("no ALSA")
	_, err = h.Devices(ctx)
	assert.ErrorContains(t, err, "starting PortAudio: no ALSA")

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = h.Devices(cancelled)
	assert.ErrorIs(t, err, context.Canceled)
}

func TestCheckALSAConfig(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("ALSA is Linux only")
	}
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "alsa.conf"), []byte("# test\n"), 0o644))
	for _, tc := range []struct {
		name      string
		dir, path string
		err       string
	}{
		{"ALSA_CONFIG_DIR with alsa.conf", dir, "", ""},
		{"ALSA_CONFIG_DIR without", t.TempDir(), "", "install Debian's libasound2-data"},
		{"ALSA_CONFIG_PATH, first file counts", "", filepath.Join(dir, "alsa.conf") + ":/nonexistent", ""},
		{"ALSA_CONFIG_PATH missing file", "", "/nonexistent/alsa.conf", "/nonexistent/alsa.conf not readable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("ALSA_CONFIG_DIR", tc.dir)
			t.Setenv("ALSA_CONFIG_PATH", tc.path)
			err := checkALSAConfig()
			if tc.err == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, tc.err)
		})
	}
}
