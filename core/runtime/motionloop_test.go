package runtime

import (
	"context"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/openjibo/jibod/board"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// MeasureLoop reports the loop it ran (board, rate, timer, what moved)
// and refuses an animation the body does not have, naming the ones it has.
func TestMeasureLoop(t *testing.T) {
	tests := []struct {
		name, anim, moving, err string
		goTimers                bool
	}{
		{name: "holding still", goTimers: true},
		{name: "moving", anim: "look-around", moving: "look-around"},
		{name: "no such animation", anim: "moonwalk", err: `--move "moonwalk": no such animation`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prof, err := board.LoadAny("sim")
			require.NoError(t, err)
			rep, err := MeasureLoop(context.Background(), LoopConfig{Profile: prof, Duration: 100 * time.Millisecond,
				Animation: tt.anim, GoTimers: tt.goTimers})
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "sim", rep.Board)
			assert.Equal(t, tt.moving, rep.Moving)
			assert.Positive(t, rep.Rate)
			assert.False(t, rep.Load)
			if tt.goTimers {
				assert.Equal(t, "go", rep.Timer)
			} else {
				assert.Equal(t, "precise", rep.Timer)
			}
		})
	}
}

// With --rest the report says the resident memory when the load ended and
// after the rest; without it, nothing about memory.
func TestLoopReportSaysTheMemoryAtRest(t *testing.T) {
	var b strings.Builder
	rep := &LoopReport{Board: "sim", Rate: 200, Seconds: 30, Load: true, RestSeconds: 20, RSSLoadMB: 310.4, RSSRestMB: 24.2}
	require.NoError(t, rep.WriteText(&b))
	assert.Contains(t, b.String(), "resident memory: 310.4 MB when the load ended, 24.2 MB after 20 s at rest\n")
	b.Reset()
	rep.RSSLoadMB, rep.RSSRestMB = 0, 0
	require.NoError(t, rep.WriteText(&b))
	assert.NotContains(t, b.String(), "resident memory")
	if goruntime.GOOS == "linux" {
		assert.Greater(t, residentBytes(), int64(1<<20), "this process's VmRSS")
	}
}
