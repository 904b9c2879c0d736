package wire

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestBadFramesMeter(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	t.Run("reports a burst, then one a second with a count of the rest", func(t *testing.T) {
		b := NewBadFrames()
		for i := range BadFrameReportBurst {
			assert.Equal(t, Verdict{Report: true}, b.Bad(t0, true), "frame %d", i)
		}
		assert.Equal(t, Verdict{}, b.Bad(t0, true), "over the burst: counted only")
		assert.Equal(t, Verdict{}, b.Bad(t0.Add(500*time.Millisecond), true))
		assert.Equal(t, Verdict{Report: true, Unreported: 2}, b.Bad(t0.Add(time.Second), true))
		assert.Equal(t, Verdict{}, b.Bad(t0.Add(time.Second), true))
	})
	t.Run("closes past the tolerance burst", func(t *testing.T) {
		b := NewBadFrames()
		for i := range BadFrameCloseBurst {
			assert.False(t, b.Bad(t0, true).Close, "frame %d", i)
		}
		v := b.Bad(t0, true)
		assert.True(t, v.Close)
		assert.Contains(t, v.Reason, "too many bad frames: 101")
		assert.LessOrEqual(t, len(v.Reason), 123, "fits a close frame")
	})
	t.Run("the tolerance refills over time", func(t *testing.T) {
		b := NewBadFrames()
		now := t0
		// BadFrameCloseRate a second for a minute after the burst: never closed.
		for i := range BadFrameCloseBurst + 60*int(BadFrameCloseRate) {
			if i >= BadFrameCloseBurst && i%int(BadFrameCloseRate) == 0 {
				now = now.Add(time.Second)
			}
			assert.False(t, b.Bad(now, true).Close, "frame %d", i)
		}
	})
	t.Run("frames that are not the peer's fault never close", func(t *testing.T) {
		b := NewBadFrames()
		for range 10 * BadFrameCloseBurst {
			assert.False(t, b.Bad(t0, false).Close)
		}
	})
	t.Run("a clock going back refills nothing", func(t *testing.T) {
		b := NewBadFrames()
		for range BadFrameReportBurst {
			b.Bad(t0, true)
		}
		assert.False(t, b.Bad(t0.Add(-time.Hour), true).Report)
		assert.False(t, b.Bad(t0, true).Report)
	})
}
