//go:build portaudio

package portaudio

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These run against the real PortAudio: on a machine without a sound card
// (CI, qemu) it lists no devices, and nothing may abort.

func TestSystemListsDevices(t *testing.T) {
	h := NewHost(System(), quiet())
	devs, err := h.Devices(context.Background())
	require.NoError(t, err)
	t.Logf("%d devices", len(devs))
	for _, d := range devs {
		t.Logf("#%d %q host=%s in=%d out=%d rate=%v default-in=%v default-out=%v",
			d.Index, d.Name, d.HostAPI, d.InputChannels, d.OutputChannels, d.DefaultRate, d.DefaultInput, d.DefaultOutput)
		assert.NotEmpty(t, d.Name)
		assert.True(t, d.InputChannels > 0 || d.OutputChannels > 0)
	}
	// Twice: the library is stopped and started again in between.
	again, err := h.Devices(context.Background())
	require.NoError(t, err)
	assert.Len(t, again, len(devs))
}

func TestSystemNoSuchDevice(t *testing.T) {
	h := NewHost(System(), quiet())
	_, err := h.OpenSource(context.Background(), "no such device anywhere", SourceOptions{})
	require.ErrorIs(t, err, ErrNoDevice)
	_, err = h.OpenSink(context.Background(), "no such device anywhere", SinkOptions{})
	require.ErrorIs(t, err, ErrNoDevice)
}

func TestSystemWithoutALSAConfig(t *testing.T) {
	t.Setenv("ALSA_CONFIG_PATH", "")
	t.Setenv("ALSA_CONFIG_DIR", t.TempDir())
	_, err := NewHost(System(), quiet()).Devices(context.Background())
	require.ErrorContains(t, err, "libasound2-data")
}
