package ledring

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/device/sim"
)

// A frame of a playing program, from drawing it to the ring taking it,
// allocates nothing: an idle robot plays light programs for minutes and its
// heap stays as it is.
func TestFrameAllocatesNothing(t *testing.T) {
	ring, err := sim.NewLEDRing(sim.LEDRingOptions{})
	require.NoError(t, err)
	var events int
	a, err := New(Options{Ring: ring, Observer: func(device.Event) { events++ }})
	require.NoError(t, err)
	defer a.Close()

	start := time.Now()
	fade := Program{Name: "fade", Keys: []Key{{Color: device.RGB{B: 0xff}}, {At: time.Second, Color: device.RGB{R: 0xff}, Fade: true}}, Period: 2 * time.Second}
	for _, p := range []Program{fade, PatternProgram(PatternThinking, 0), PatternProgram(PatternSpeaking, 0)} {
		require.NoError(t, p.Validate())
		// The layer is put on the stack without waking the frame goroutine,
		// so that only the frames drawn here run.
		a.mu.Lock()
		a.stack = append(a.stack[:0], &layer{prog: p, start: start, ended: make(chan struct{})})
		a.mu.Unlock()
		at := start
		allocs := testing.AllocsPerRun(200, func() {
			at = at.Add(20 * time.Millisecond)
			a.mu.Lock()
			a.drawTop(at)
			a.mu.Unlock()
		})
		assert.Zero(t, allocs, p.Name)
	}
	a.mu.Lock()
	a.stack = a.stack[:0]
	a.mu.Unlock()
	assert.NotEqual(t, device.Fill(ring.Len(), device.RGB{A: 0xff}), ring.Pixels(), "the frames reached the ring")
	assert.Zero(t, events, "frames are not reported")
}
