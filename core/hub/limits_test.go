package hub

import (
	"context"
	"encoding/binary"
	"log/slog"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/hub/wire"
	"github.com/openjibo/jibod/core/skill/protocol"
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
		OnState: sendState(states)})
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

// countingHandler counts log records at WARN and above.
type countingHandler struct{ warn atomic.Int64 }

func (h *countingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *countingHandler) Handle(_ context.Context, r slog.Record) error {
	if r.Level >= slog.LevelWarn {
		h.warn.Add(1)
	}
	return nil
}
func (h *countingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *countingHandler) WithGroup(string) slog.Handler      { return h }

// A hub interleaving good frames with garbage is not let off by the good
// ones: its bad frames are logged within the report rate only, and the
// robot closes the link with CloseBadFrame once they pass the tolerance
// (issue 22 item 6). The robot's clock stands still, so no token comes
// back during the flood.
func TestRobotClosesALinkFloodedWithBadFrames(t *testing.T) {
	closed := make(chan error, 1)
	h := newFakeHub(t, func(t *testing.T, c *wire.Conn) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() { // owned: ends when the robot closes or the script returns
			_, err := c.ReadRequest(ctx)
			closed <- err
			cancel()
		}()
		good := protocol.NewSpeechMark(protocol.TypeSOS, protocol.WithTransID("tid-nobody"))
		for range 5 * wire.BadFrameCloseBurst {
			if c.WriteResponse(ctx, good) != nil ||
				c.Websocket().Write(ctx, websocket.MessageText, []byte(`{"type":`)) != nil {
				return
			}
		}
		<-ctx.Done()
	})
	logs := &countingHandler{}
	states := make(chan LinkState, 64)
	frozen := time.Unix(1_700_000_000, 0)
	c, err := NewClient(Config{URL: h.url(), Logger: slog.New(logs), Heartbeat: time.Hour,
		BackoffMin: time.Hour, BackoffMax: time.Hour, Now: func() time.Time { return frozen },
		OnState: sendState(states)})
	require.NoError(t, err)
	require.NoError(t, c.Start(context.Background()))
	t.Cleanup(func() { assert.NoError(t, c.Close(context.Background())) })

	waitState(t, states, Up)
	down := waitState(t, states, Down)
	assert.ErrorIs(t, down.Err, ErrProtocol)
	assert.Contains(t, down.Err.Error(), "too many bad frames")
	select {
	case err := <-closed:
		assert.Equal(t, wire.CloseBadFrame, websocket.CloseStatus(err), "closed for bad frames: %v", err)
	case <-time.After(10 * time.Second): // only keeps a broken build from hanging
		t.Fatal("the robot never closed the link")
	}
	// The report burst, a summary line, the close and the link going down.
	assert.LessOrEqual(t, logs.warn.Load(), int64(wire.BadFrameReportBurst+4))
}
