package hub

import (
	"context"
	"encoding/binary"
	"net"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/hub/wire"
)

// A hub whose frame header declares 2^62 bytes, followed by two bytes,
// is answered at once: the robot closes the link with 1009 (message too
// big) and reports it down, without waiting for the payload or a missed
// heartbeat (issue 22 item 5).
func TestRobotRefusesDeclaredOversizedFrame(t *testing.T) {
	closed := make(chan websocket.StatusCode, 1)
	var h *fakeHub
	h = newFakeHub(t, func(t *testing.T, c *wire.Conn) {
		v, ok := h.raw.Load(c)
		if !assert.True(t, ok) {
			return
		}
		// An unmasked (hub-to-robot) text frame header, written under the
		// websocket library, which is not writing.
		hdr := []byte{0x81, 127, 0, 0, 0, 0, 0, 0, 0, 0, 'h', 'i'}
		binary.BigEndian.PutUint64(hdr[2:10], 1<<62)
		if _, err := v.(net.Conn).Write(hdr); !assert.NoError(t, err) {
			return
		}
		_, err := c.ReadRequest(context.Background())
		closed <- websocket.CloseStatus(err)
	})
	states := make(chan LinkState, 64)
	c, err := NewClient(Config{URL: h.url(), Logger: quiet, Heartbeat: time.Hour,
		BackoffMin: time.Hour, BackoffMax: time.Hour,
		OnState: func(st LinkState) {
			select {
			case states <- st:
			default:
			}
		}})
	require.NoError(t, err)
	require.NoError(t, c.Start(context.Background()))
	t.Cleanup(func() { assert.NoError(t, c.Close(context.Background())) })

	waitState(t, states, Up)
	down := waitState(t, states, Down)
	assert.ErrorIs(t, down.Err, ErrProtocol)
	assert.Contains(t, down.Err.Error(), "declares")
	select {
	case code := <-closed:
		assert.Equal(t, websocket.StatusMessageTooBig, code)
	case <-time.After(10 * time.Second): // only keeps a broken build from hanging
		t.Fatal("the robot sent no close frame")
	}
}
