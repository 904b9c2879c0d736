package server_test

import (
	"bufio"
	"context"
	"encoding/binary"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/hub/server"
	"github.com/openjibo/jibod/core/hub/wire"
	"github.com/openjibo/jibod/core/skill/protocol"
)

// upgradeRequest is a robot's websocket upgrade of /listen, written by
// hand (no token: the test hub has auth disabled).
const upgradeRequest = "GET /listen HTTP/1.1\r\nHost: hub\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
	"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"

// maskedHeader is the header of a masked (robot-to-hub) text frame
// declaring n bytes in the 64-bit length form.
func maskedHeader(n uint64) []byte {
	h := []byte{0x81, 0x80 | 127, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4}
	binary.BigEndian.PutUint64(h[2:10], n)
	return h
}

// rawDial opens a TCP connection to ts and writes first; the deadline
// only keeps a broken build from hanging the suite and is far below the
// hub's 90 s idle timer, which must play no part.
func rawDial(t *testing.T, ts *httptest.Server, first []byte) (net.Conn, *bufio.Reader) {
	t.Helper()
	nc, err := net.Dial("tcp", ts.Listener.Addr().String())
	require.NoError(t, err)
	t.Cleanup(func() { _ = nc.Close() })
	require.NoError(t, nc.SetDeadline(time.Now().Add(20*time.Second)))
	_, err = nc.Write(first)
	require.NoError(t, err)
	return nc, bufio.NewReader(nc)
}

// readCloseFrame reads the hub's frames up to its close frame and returns
// the close code.
func readCloseFrame(t *testing.T, br *bufio.Reader) websocket.StatusCode {
	t.Helper()
	for {
		var h [2]byte
		_, err := readFull(br, h[:])
		require.NoError(t, err, "the hub closes the link with a close frame")
		n := int(h[1] & 0x7f)
		switch n {
		case 126:
			var ext [2]byte
			_, err = readFull(br, ext[:])
			n = int(binary.BigEndian.Uint16(ext[:]))
		case 127:
			var ext [8]byte
			_, err = readFull(br, ext[:])
			n = int(binary.BigEndian.Uint64(ext[:]))
		}
		require.NoError(t, err)
		payload := make([]byte, n)
		_, err = readFull(br, payload)
		require.NoError(t, err)
		if h[0]&0x0f == 0x8 {
			require.GreaterOrEqual(t, len(payload), 2, "the close frame has a code")
			return websocket.StatusCode(binary.BigEndian.Uint16(payload))
		}
	}
}

func readFull(br *bufio.Reader, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := br.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// A frame header declaring 2^62 bytes, followed by two bytes of payload,
// is refused as soon as the header is in: the hub closes the link with
// 1009 (message too big) without waiting for the payload or its idle
// timer (issue 22 item 5). The header may come in the same packet as the
// upgrade request, so the HTTP server has buffered it before the upgrade.
func TestDeclaredOversizedFrameClosesAtOnce(t *testing.T) {
	frame := append(maskedHeader(1<<62), 'h', 'i')
	for _, tc := range []struct {
		name     string
		together bool
	}{
		{"header after the upgrade", false},
		{"header in the upgrade's packet", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, ts := startHub(t, hubOpts{skills: []server.Skill{facts()}})
			first := []byte(upgradeRequest)
			if tc.together {
				first = append(first, frame...)
			}
			nc, br := rawDial(t, ts, first)
			resp, err := http.ReadResponse(br, nil)
			require.NoError(t, err)
			require.Equal(t, http.StatusSwitchingProtocols, resp.StatusCode)
			if !tc.together {
				_, err = nc.Write(frame)
				require.NoError(t, err)
			}
			assert.Equal(t, websocket.StatusMessageTooBig, readCloseFrame(t, br))
		})
	}
}

// A message fragmented into frames that each stay under the limit but
// together declare more is refused at the header that crosses it.
func TestDeclaredOversizedFragmentsCloseAtOnce(t *testing.T) {
	_, ts := startHub(t, hubOpts{skills: []server.Skill{facts()}})
	nc, br := rawDial(t, ts, []byte(upgradeRequest))
	resp, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusSwitchingProtocols, resp.StatusCode)
	// A text frame without FIN carrying 4 bytes, then a continuation
	// declaring the rest of the limit and more.
	first := []byte{0x01, 0x80 | 4, 9, 9, 9, 9, 'a', 'b', 'c', 'd'}
	cont := maskedHeader(uint64(wire.MaxFrameSize))
	cont[0] = 0x00
	_, err = nc.Write(append(first, cont...))
	require.NoError(t, err)
	assert.Equal(t, websocket.StatusMessageTooBig, readCloseFrame(t, br))
}

// countingHandler counts log records by level.
type countingHandler struct {
	mu     sync.Mutex
	counts map[slog.Level]int
}

func (h *countingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *countingHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.counts[r.Level]++
	return nil
}
func (h *countingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *countingHandler) WithGroup(string) slog.Handler      { return h }

func (h *countingHandler) count(l slog.Level) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.counts[l]
}

// A flood of bad frames on one link gets a bounded number of ERROR
// replies and log lines, and the link is closed with CloseBadFrame and a
// reason once the robot is over its tolerance (issue 22 item 6). The
// hub's clock stands still, so no token comes back during the flood:
// exactly the report burst is answered, and the frame after the
// tolerance burst closes the link.
func TestBadFrameFloodIsRateLimitedThenClosed(t *testing.T) {
	logs := &countingHandler{counts: map[slog.Level]int{}}
	frozen := time.Unix(1_700_000_000, 0)
	hub, err := server.New(server.Config{Skills: []server.Skill{facts()}, Logger: slog.New(logs),
		Now: func() time.Time { return frozen }})
	require.NoError(t, err)
	ts := newServer(t, hub)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		assert.NoError(t, hub.Close(ctx))
	})

	for _, tc := range []struct {
		name  string
		frame []byte
	}{
		{"malformed JSON", []byte(`{"type":"LISTEN",`)},
		{"messages of no transaction", []byte(`{"type":"CONTEXT","msgID":"mid-1","ts":1,"transID":"tid-none","data":{"general":{},"runtime":{},"skill":{"id":null}}}`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := dial(t, ts, server.PathListen, wire.JSON, nil)
			const flood = 5 * wire.BadFrameCloseBurst
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second) // hang guard only
			defer cancel()
			var wg sync.WaitGroup
			wg.Go(func() {
				for range flood {
					if r.ws.Write(ctx, websocket.MessageText, tc.frame) != nil {
						return // the hub closed the link
					}
				}
			})
			errorsSeen := 0
			var readErr error
			for {
				m, err := r.c.ReadResponse(ctx)
				if err != nil {
					readErr = err
					break
				}
				require.Equal(t, protocol.TypeError, m.Type)
				errorsSeen++
			}
			wg.Wait()
			assert.Equal(t, wire.CloseBadFrame, websocket.CloseStatus(readErr), "closed for bad frames: %v", readErr)
			var ce websocket.CloseError
			if assert.ErrorAs(t, readErr, &ce) {
				assert.Contains(t, ce.Reason, "too many bad frames")
			}
			assert.Equal(t, wire.BadFrameReportBurst, errorsSeen, "only the report burst is answered")
		})
	}
	// Per link: the report burst, one summary line and one close line at
	// most; never one line per frame.
	assert.LessOrEqual(t, logs.count(slog.LevelInfo)+logs.count(slog.LevelWarn), 2*(wire.BadFrameReportBurst+4))
}
