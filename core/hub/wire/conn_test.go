package wire

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/coder/websocket"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// echoHub is a minimal hub: it negotiates the encoding, and answers every
// robot message with an EOS carrying its transID, or a GENERAL ERROR for a
// bad frame, until the link closes. The errors it read are kept.
type echoHub struct {
	mu   sync.Mutex
	encs []Encoding
	errs []error
	done chan struct{}
}

func (h *echoHub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer close(h.done)
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: AcceptSubprotocols()})
	if err != nil {
		return
	}
	enc, err := Negotiated(ws.Subprotocol())
	if err != nil {
		ws.Close(websocket.StatusProtocolError, err.Error())
		return
	}
	c := NewConn(ws, enc)
	defer c.CloseNow()
	h.mu.Lock()
	h.encs = append(h.encs, enc)
	h.mu.Unlock()
	ctx := r.Context()
	for {
		req, err := c.ReadRequest(ctx)
		if err != nil {
			h.mu.Lock()
			h.errs = append(h.errs, err)
			h.mu.Unlock()
			var fe *FrameError
			switch {
			case errors.As(err, &fe) && !fe.Fatal():
				_ = c.WriteResponse(ctx, protocol.NewHubError(fe.Code(), fe.Error(), protocol.WithTransID(fe.TransID)))
				continue
			case errors.Is(err, ErrAudio):
				_ = c.WriteResponse(ctx, protocol.NewHubError(protocol.HubErrorASR, "no audio ASR here"))
				continue
			}
			return
		}
		final := true
		eos := protocol.NewSpeechMark(protocol.TypeEOS, protocol.WithTransID(req.TransID))
		eos.Final = &final
		if err := c.WriteResponse(ctx, eos); err != nil {
			return
		}
	}
}

func startHub(t *testing.T) (*echoHub, string) {
	t.Helper()
	h := &echoHub{done: make(chan struct{})}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return h, "ws" + strings.TrimPrefix(srv.URL, "http")
}

func dial(t *testing.T, url string, offer []string) *Conn {
	t.Helper()
	ws, _, err := websocket.Dial(context.Background(), url, &websocket.DialOptions{Subprotocols: offer})
	require.NoError(t, err)
	enc, err := Negotiated(ws.Subprotocol())
	require.NoError(t, err)
	c := NewConn(ws, enc)
	t.Cleanup(func() { c.CloseNow() })
	return c
}

func TestSubprotocolNegotiation(t *testing.T) {
	tests := []struct {
		name  string
		offer []string
		want  Encoding
	}{
		{"both offered gets cbor", Offer(CBOR), CBOR},
		{"json only", Offer(JSON), JSON},
		{"nothing offered (a real robot) gets json", nil, JSON},
		{"unknown offered gets json", []string{"jibo.msgpack.v1"}, JSON},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, url := startHub(t)
			c := dial(t, url, tt.offer)
			assert.Equal(t, tt.want, c.Encoding())
			ctx := context.Background()
			require.NoError(t, c.WriteRequest(ctx, protocol.NewClientASR("hello", protocol.WithTransID("tid-a"))))
			resp, err := c.ReadResponse(ctx)
			require.NoError(t, err)
			assert.Equal(t, protocol.TypeEOS, resp.Type)
			assert.Equal(t, "tid-a", resp.TransID)
			require.NoError(t, c.Close(websocket.StatusNormalClosure, ""))
			<-h.done
			assert.Equal(t, []Encoding{tt.want}, h.encs)
		})
	}
}

// A bad frame is answered with ERROR GENERAL naming the transaction and
// the link stays up; audio on a JSON link is reported as ErrAudio.
func TestConnBadFrameKeepsLink(t *testing.T) {
	h, url := startHub(t)
	c := dial(t, url, nil)
	ctx := context.Background()
	ws := c.Websocket()
	require.NoError(t, ws.Write(ctx, websocket.MessageText, []byte(`{"type":"HELLO","msgID":"mid-1","transID":"tid-x","data":{}}`)))
	resp, err := c.ReadResponse(ctx)
	require.NoError(t, err)
	require.Equal(t, protocol.TypeError, resp.Type)
	assert.Equal(t, "tid-x", resp.TransID)
	assert.Equal(t, protocol.HubErrorGeneral, resp.Error.Code)
	assert.Contains(t, resp.Error.Message, `unknown robot-to-hub message type "HELLO"`)

	require.NoError(t, ws.Write(ctx, websocket.MessageBinary, []byte("OggS")))
	resp, err = c.ReadResponse(ctx)
	require.NoError(t, err)
	assert.Equal(t, protocol.HubErrorASR, resp.Error.Code)
	require.NoError(t, c.WriteRequest(ctx, protocol.NewClientASR("still here", protocol.WithTransID("tid-y"))))
	resp, err = c.ReadResponse(ctx)
	require.NoError(t, err)
	assert.Equal(t, "tid-y", resp.TransID)
	require.NoError(t, c.Close(websocket.StatusNormalClosure, ""))
	<-h.done
	require.Len(t, h.errs, 3)
	assert.ErrorIs(t, h.errs[1], ErrAudio)
}

// A frame over MaxFrameSize closes the link with 1009 and the reader gets
// a fatal FrameError.
func TestConnOversizedFrameCloses(t *testing.T) {
	for _, enc := range []Encoding{JSON, CBOR} {
		t.Run(enc.String(), func(t *testing.T) {
			h, url := startHub(t)
			c := dial(t, url, Offer(enc))
			require.Equal(t, enc, c.Encoding())
			ctx := context.Background()
			typ := websocket.MessageText
			if enc == CBOR {
				typ = websocket.MessageBinary
			}
			// The robot-side library does not bound writes; the hub's read
			// limit does.
			err := c.Websocket().Write(ctx, typ, make([]byte, MaxFrameSize+1))
			if err == nil {
				_, err = c.ReadResponse(ctx)
			}
			require.Error(t, err)
			assert.Equal(t, websocket.StatusMessageTooBig, websocket.CloseStatus(err), "%v", err)
			<-h.done
			require.Len(t, h.errs, 1)
			var fe *FrameError
			require.ErrorAs(t, h.errs[0], &fe)
			assert.True(t, fe.Fatal())
			assert.Equal(t, FrameOversized, fe.Problem)
			assert.ErrorIs(t, fe, protocol.ErrLimit)
		})
	}
}

// Writes from many goroutines arrive whole.
func TestConnConcurrentWriters(t *testing.T) {
	for _, enc := range []Encoding{JSON, CBOR} {
		t.Run(enc.String(), func(t *testing.T) {
			_, url := startHub(t)
			c := dial(t, url, Offer(enc))
			ctx := context.Background()
			const n = 64
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					assert.NoError(t, c.WriteRequest(ctx, protocol.NewClientASR(strings.Repeat("x", i*100), protocol.WithTransID(fmt.Sprintf("tid-%d", i)))))
				})
			}
			seen := map[string]bool{}
			for range n {
				resp, err := c.ReadResponse(ctx)
				require.NoError(t, err)
				seen[resp.TransID] = true
			}
			wg.Wait()
			assert.Len(t, seen, n)
		})
	}
}

func TestConnPing(t *testing.T) {
	h, url := startHub(t)
	c := dial(t, url, nil)
	ctx, cancel := context.WithCancel(context.Background())
	readerDone := make(chan error, 1)
	go func() {
		_, err := c.ReadResponse(ctx)
		readerDone <- err
	}()
	require.NoError(t, c.Ping(ctx))
	cancel()
	require.Error(t, <-readerDone)
	<-h.done
}
