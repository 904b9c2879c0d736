package diag

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/pipeline"
)

// `stop` stops the robot from the shell, as the head button does: one
// global stop (STOP-06), no technician mode needed.
func TestStopCommand(t *testing.T) {
	r := newRig(t)
	s := r.server(t, nil)
	stops := make(chan bus.Message, 4)
	sub, err := r.bus.Subscribe(pipeline.TopicStop, func(_ context.Context, m bus.Message) { stops <- m })
	require.NoError(t, err)
	defer sub.Close()
	assert.Equal(t, "stopped\n", script(t, s, "stop\n"))
	select {
	case m := <-stops:
		assert.Equal(t, "shell", m.Context[bus.KeySource])
	case <-time.After(10 * time.Second): // a hang guard
		t.Fatal("no ovos.stop")
	}
	assert.Contains(t, script(t, s, "stop now\n"), "error: stop takes no arguments")
	assert.JSONEq(t, `{"stopped":true}`, script(t, s, "stop --json\n"))
}
