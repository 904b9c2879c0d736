package runtime

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The measurement window waits for the loop's first tick, however late
// it comes within the bound, and says plainly when the loop never ran.
func TestAwaitTick(t *testing.T) {
	for _, tc := range []struct {
		name    string
		firstAt time.Duration // when the loop first ticks; 0: never
		wantErr string
	}{
		{name: "ticking already", firstAt: time.Nanosecond},
		{name: "first tick late", firstAt: 3 * time.Second},
		{name: "never ran", wantErr: "did not tick within 10s of starting: it never ran"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var ticks atomic.Uint64
				if tc.firstAt > 0 {
					time.AfterFunc(tc.firstAt, func() { ticks.Add(1) })
				}
				start := time.Now()
				err := awaitTick(t.Context(), ticks.Load, 10*time.Millisecond, LoopStartWithin)
				if tc.wantErr != "" {
					require.ErrorContains(t, err, tc.wantErr)
					return
				}
				require.NoError(t, err)
				assert.Positive(t, ticks.Load())
				assert.GreaterOrEqual(t, time.Since(start), tc.firstAt-time.Nanosecond)
			})
		})
	}
}

// A cancelled measurement stops waiting.
func TestAwaitTickCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(time.Second, cancel)
		err := awaitTick(ctx, func() uint64 { return 0 }, 10*time.Millisecond, LoopStartWithin)
		require.ErrorIs(t, err, context.Canceled)
	})
}
