package volume

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/settings"
)

type gainStage struct{ g float64 }

func (s *gainStage) Gain() float64           { return s.g }
func (s *gainStage) SetGain(g float64) error { s.g = g; return nil }

// The volume maps to gain on a 40 dB scale, 0 being silence, and reads
// back as it was set.
func TestMasterScale(t *testing.T) {
	g := &gainStage{g: 1}
	c := Master(g)
	tests := []struct{ volume, gain float64 }{
		{1, 1}, {0.5, 0.1}, {0.1, math.Pow(10, -1.8)}, {0, 0},
	}
	for _, tt := range tests {
		require.NoError(t, c.SetVolume(context.Background(), tt.volume))
		assert.InDelta(t, tt.gain, g.g, 1e-12, "volume %v", tt.volume)
		assert.InDelta(t, tt.volume, c.Volume(), 1e-12, "volume %v reads back", tt.volume)
	}
	assert.Zero(t, Level(math.Pow(10, -3)), "below the scale reads as silent")
}

// A kept volume is written to the settings file and is where the next
// start begins; without a file the default is.
func TestKeptVolume(t *testing.T) {
	assert.Equal(t, Default, Saved(nil))
	path := filepath.Join(t.TempDir(), "settings.json")
	f, err := settings.Open(path)
	require.NoError(t, err)
	assert.Equal(t, Default, Saved(f))
	g := &gainStage{}
	require.NoError(t, Kept(Master(g), f, nil).SetVolume(context.Background(), 0.3))
	again, err := settings.Open(path)
	require.NoError(t, err)
	assert.InDelta(t, 0.3, Saved(again), 1e-12)
	assert.Equal(t, Master(g), Kept(Master(g), nil, nil), "no file: nothing kept")
}
