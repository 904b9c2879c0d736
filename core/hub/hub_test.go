package hub

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/hub/wire"
	"github.com/openjibo/jibod/core/skill/protocol"
)

var quiet = slog.New(slog.DiscardHandler)

// fakeHub is an httptest websocket hub whose every connection runs script.
type fakeHub struct {
	t      *testing.T
	srv    *httptest.Server
	script func(t *testing.T, c *wire.Conn)
	// status, if set, refuses the upgrade with it.
	status atomic.Int32
	tokens chan string
	// paths gets every upgrade's path.
	paths chan string
	// raw maps each connection the hub accepted to its TCP connection,
	// for scripts that drop it (dropTCP).
	raw sync.Map // *wire.Conn → net.Conn
}

// hijackRecorder notes the TCP connection the websocket upgrade takes
// over.
type hijackRecorder struct {
	http.ResponseWriter
	conn net.Conn
}

func (r *hijackRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	hj, ok := r.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("fake hub: the response writer cannot be hijacked")
	}
	c, brw, err := hj.Hijack()
	r.conn = c
	return c, brw, err
}

// dropTCP closes c's TCP connection under the websocket, with no close
// frame: to the robot the hub just vanished, and its read fails with an
// error wrapping io.EOF.
func (h *fakeHub) dropTCP(t *testing.T, c *wire.Conn) {
	v, ok := h.raw.Load(c)
	if assert.True(t, ok, "the fake hub knows the connection") {
		_ = v.(net.Conn).Close()
	}
}

func newFakeHub(t *testing.T, script func(t *testing.T, c *wire.Conn)) *fakeHub {
	return newFakeHubOn(t, script, false)
}

// newFakeHubOn is newFakeHub, serving wss:// with httptest's own
// certificate when withTLS.
func newFakeHubOn(t *testing.T, script func(t *testing.T, c *wire.Conn), withTLS bool) *fakeHub {
	t.Helper()
	h := &fakeHub{t: t, script: script, tokens: make(chan string, 64), paths: make(chan string, 64)}
	if withTLS {
		h.srv = httptest.NewTLSServer(http.HandlerFunc(h.serveHTTP))
	} else {
		h.srv = httptest.NewServer(http.HandlerFunc(h.serveHTTP))
	}
	t.Cleanup(h.srv.Close)
	return h
}

// serveHTTP upgrades a robot's request and runs the script on it.
func (h *fakeHub) serveHTTP(w http.ResponseWriter, r *http.Request) {
	select {
	case h.tokens <- r.Header.Get("Authorization"):
	default:
	}
	select {
	case h.paths <- r.URL.Path:
	default:
	}
	if st := h.status.Load(); st != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(int(st))
		_, _ = io.WriteString(w, `{"error":"token expired","code":"UNAUTHORIZED"}`)
		return
	}
	hr := &hijackRecorder{ResponseWriter: w}
	ws, err := websocket.Accept(hr, r, &websocket.AcceptOptions{Subprotocols: wire.AcceptSubprotocols()})
	if err != nil {
		return
	}
	enc, err := wire.Negotiated(ws.Subprotocol())
	if err != nil {
		_ = ws.CloseNow()
		return
	}
	c := wire.NewConn(ws, enc)
	h.raw.Store(c, hr.conn)
	defer h.raw.Delete(c)
	defer c.CloseNow()
	h.script(h.t, c)
}

func (h *fakeHub) url() string { return "ws" + strings.TrimPrefix(h.srv.URL, "http") }

// Test link timings. Backoff is short, so that reconnecting tests are
// quick. The time limits are long: a hub that answers at once must never
// run out of them, however busy the machine running the tests (a 500 ms
// reply timeout ran out under load, the robot rightly spoke its offline
// prompt, and a test waiting for the hub's action hung). Tests of the
// limits themselves set short ones.
const (
	testConnectTimeout     = 10 * time.Second
	testReplyTimeout       = 20 * time.Second
	testTransactionTimeout = 40 * time.Second
)

// newTestClient starts a client on h with short backoff and long time
// limits.
func newTestClient(t *testing.T, h *fakeHub, mode LinkMode, enc wire.Encoding, states chan LinkState) *Client {
	t.Helper()
	return newTestClientWith(t, h, mode, enc, states, nil)
}

// newTestClientWith is newTestClient with its config changed by change
// first.
func newTestClientWith(t *testing.T, h *fakeHub, mode LinkMode, enc wire.Encoding, states chan LinkState, change func(*Config)) *Client {
	t.Helper()
	cfg := Config{URL: h.url(), Token: func() (string, error) { return "tok", nil }, Encoding: enc, Link: mode,
		ConnectTimeout: testConnectTimeout, ReplyTimeout: testReplyTimeout, TransactionTimeout: testTransactionTimeout,
		BackoffMin: 10 * time.Millisecond, BackoffMax: 50 * time.Millisecond, Logger: quiet,
		OnState: sendState(states)}
	if change != nil {
		change(&cfg)
	}
	c, err := NewClient(cfg)
	require.NoError(t, err)
	require.NoError(t, c.Start(context.Background()))
	t.Cleanup(func() { assert.NoError(t, c.Close(context.Background())) })
	return c
}

// sendState returns an OnState that passes each state to states without
// waiting (a full channel drops it); nil states takes none.
func sendState(states chan LinkState) func(LinkState) {
	return func(st LinkState) {
		if states == nil {
			return
		}
		select {
		case states <- st:
		default:
		}
	}
}

// waitState waits for the link to reach status.
func waitState(t *testing.T, states chan LinkState, status LinkStatus) LinkState {
	t.Helper()
	deadline := time.After(10 * time.Second) // only keeps a broken build from hanging
	for {
		select {
		case st := <-states:
			if st.Status == status {
				return st
			}
		case <-deadline:
			t.Fatalf("link never became %s", status)
		}
	}
}

// readTurn reads the robot's messages of one transaction up to and
// including the one of type last.
func readTurn(t *testing.T, c *wire.Conn, last string) []*protocol.HubRequest {
	var out []*protocol.HubRequest
	for {
		r, err := c.ReadRequest(context.Background())
		if err != nil {
			return out
		}
		out = append(out, r)
		if r.Type == last {
			return out
		}
	}
}

func final(v bool) *bool { return &v }

// recv returns the next value on ch; one that never comes fails the test
// (naming what was awaited) instead of hanging it.
func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(time.Minute):
		t.Fatalf("no %s within a minute", what)
		var zero T
		return zero
	}
}

// answer replies to a CLIENT_NLU turn as jibo.md §1.4 shows: SOS, EOS,
// LISTEN with a match, then the skill's action.
func answer(t *testing.T, c *wire.Conn, tid, skillID string, action string) {
	ctx := context.Background()
	intent := "fun_fact"
	nlu := protocol.NLUResult{Intent: &intent, Entities: map[string]any{}, Rules: []string{"launch"}}
	for _, r := range []*protocol.HubResponse{
		protocol.NewSpeechMark(protocol.TypeSOS, protocol.WithTransID(tid)),
		protocol.NewSpeechMark(protocol.TypeEOS, protocol.WithTransID(tid)),
		protocol.NewListenResult(&nlu, nil, &protocol.MatchData{SkillID: skillID}, false, protocol.WithTransID(tid)),
	} {
		if c.WriteResponse(ctx, r) != nil {
			return
		}
	}
	a := protocol.NewHubSkillAction(&protocol.SkillActionData{Skill: protocol.Skill(skillID), Action: json.RawMessage(action),
		Final: final(true)}, protocol.WithTransID(tid))
	a.Final = final(true)
	_ = c.WriteResponse(ctx, a)
}

const sayAction = `{"type":"JCP","config":{"version":"1.0.0","jcp":{"type":"SLIM","config":{"play":{"esml":"Octopuses have three hearts."}}}}}`

func launchMsgs() []*protocol.HubRequest {
	mode := protocol.ModeClientNLU
	intent := "fun_fact"
	return []*protocol.HubRequest{
		protocol.NewListen(protocol.ListenData{Lang: "en-US", Hotphrase: true, Rules: []string{"launch"}, Mode: &mode}),
		protocol.NewContext(protocol.Context{General: protocol.GeneralData{Release: "1.9.2"}}),
		protocol.NewClientNLU(protocol.NLUResult{Intent: &intent, Rules: []string{"launch"}}),
	}
}

func TestTransactionRoundTrip(t *testing.T) {
	for _, mode := range []LinkMode{Persistent, PerTurn} {
		for _, enc := range []wire.Encoding{wire.JSON, wire.CBOR} {
			t.Run(string(mode)+"/"+enc.String(), func(t *testing.T) {
				got := make(chan []*protocol.HubRequest, 4)
				h := newFakeHub(t, func(t *testing.T, c *wire.Conn) {
					for {
						msgs := readTurn(t, c, protocol.TypeClientNLU)
						if len(msgs) == 0 {
							return
						}
						got <- msgs
						answer(t, c, msgs[0].TransID, "openjibo/fact", sayAction)
					}
				})
				states := make(chan LinkState, 64)
				c := newTestClient(t, h, mode, enc, states)
				up := waitState(t, states, Up)
				assert.Equal(t, enc.String(), up.Encoding, "the hub chose the encoding offered first")

				tx, err := c.Transact(context.Background(), launchMsgs()...)
				require.NoError(t, err)
				var types []string
				for {
					r, err := tx.Next(context.Background())
					if errors.Is(err, io.EOF) {
						break
					}
					require.NoError(t, err)
					assert.Equal(t, tx.ID, r.TransID)
					types = append(types, r.Type)
				}
				assert.Equal(t, []string{"SOS", "EOS", "LISTEN", "SKILL_ACTION"}, types)
				sent := recv(t, got, "turn at the hub")
				require.Len(t, sent, 3)
				for _, m := range sent {
					assert.Equal(t, tx.ID, m.TransID, "one transID on every message of the turn")
					assert.True(t, strings.HasPrefix(m.TransID, "tid-"))
				}
			})
		}
	}
}

func TestHubMisbehaves(t *testing.T) {
	tests := []struct {
		name    string
		script  func(t *testing.T, c *wire.Conn)
		wantErr error
		want    string
	}{
		{"stalls: never replies", func(t *testing.T, c *wire.Conn) {
			readTurn(t, c, protocol.TypeClientNLU)
			_, _ = c.ReadRequest(context.Background()) // until the robot goes
		}, ErrTimeout, "no reply within"},
		{"closes mid-turn", func(t *testing.T, c *wire.Conn) {
			msgs := readTurn(t, c, protocol.TypeClientNLU)
			_ = c.WriteResponse(context.Background(), protocol.NewSpeechMark(protocol.TypeSOS, protocol.WithTransID(msgs[0].TransID)))
			_ = c.Close(websocket.StatusInternalError, "crash")
		}, ErrLinkDown, "dropped"},
		{"unknown message type in the turn", func(t *testing.T, c *wire.Conn) {
			msgs := readTurn(t, c, protocol.TypeClientNLU)
			_ = c.Websocket().Write(context.Background(), websocket.MessageText,
				[]byte(`{"type":"BOGUS","msgID":"mid-1","ts":1,"transID":"`+msgs[0].TransID+`","data":{}}`))
			_, _ = c.ReadRequest(context.Background())
		}, ErrProtocol, "BOGUS"},
		{"malformed JSON", func(t *testing.T, c *wire.Conn) {
			readTurn(t, c, protocol.TypeClientNLU)
			_ = c.Websocket().Write(context.Background(), websocket.MessageText, []byte(`{"type":`))
			_, _ = c.ReadRequest(context.Background())
		}, ErrTimeout, "bad frame"},
		{"oversized frame", func(t *testing.T, c *wire.Conn) {
			readTurn(t, c, protocol.TypeClientNLU)
			_ = c.Websocket().Write(context.Background(), websocket.MessageText, make([]byte, wire.MaxFrameSize+10))
			_, _ = c.ReadRequest(context.Background())
		}, ErrLinkDown, "limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newFakeHub(t, tt.script)
			states := make(chan LinkState, 64)
			c := newTestClientWith(t, h, Persistent, wire.JSON, states, func(cfg *Config) {
				cfg.ReplyTimeout = 500 * time.Millisecond // the stalled hub's turn ends on it
			})
			waitState(t, states, Up)
			tx, err := c.Transact(context.Background(), launchMsgs()...)
			require.NoError(t, err)
			for err == nil {
				_, err = tx.Next(context.Background())
			}
			assert.ErrorIs(t, err, tt.wantErr)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestUnauthorizedGoesDownAndRereadsToken(t *testing.T) {
	h := newFakeHub(t, func(t *testing.T, c *wire.Conn) { _, _ = c.ReadRequest(context.Background()) })
	h.status.Store(http.StatusUnauthorized)
	var reads atomic.Int32
	states := make(chan LinkState, 64)
	c, err := NewClient(Config{URL: h.url(), Logger: quiet, BackoffMin: 5 * time.Millisecond, BackoffMax: 20 * time.Millisecond,
		Token:   func() (string, error) { return "tok-" + string(rune('a'+reads.Add(1)%26)), nil },
		OnState: func(st LinkState) { states <- st }})
	require.NoError(t, err)
	require.NoError(t, c.Start(context.Background()))
	defer c.Close(context.Background())

	down := waitState(t, states, Down)
	assert.ErrorIs(t, down.Err, ErrUnauthorized)
	assert.Contains(t, down.Err.Error(), "token expired", "the hub's reason is shown")
	assert.False(t, down.Retry.IsZero(), "a retry is scheduled")
	assert.False(t, c.Available())
	_, err = c.Transact(context.Background(), launchMsgs()...)
	assert.ErrorIs(t, err, ErrUnavailable, "a turn fails at once while down")

	h.status.Store(0) // the token was renewed
	waitState(t, states, Up)
	assert.GreaterOrEqual(t, reads.Load(), int32(2), "the token is read again for every connection")
	first, second := <-h.tokens, <-h.tokens
	assert.NotEqual(t, first, second)
}

func TestBackoffJitterBounds(t *testing.T) {
	for _, r := range []float64{0, 0.5, 0.999} {
		b := backoff{min: 250 * time.Millisecond, max: 30 * time.Second, rand: func() float64 { return r }}
		step := 250 * time.Millisecond
		for i := 0; i < 12; i++ {
			d := b.next()
			assert.GreaterOrEqual(t, d, step/2, "attempt %d", i)
			assert.LessOrEqual(t, d, step, "attempt %d", i)
			step = min(step*2, 30*time.Second)
		}
		b.reset()
		assert.LessOrEqual(t, b.next(), 250*time.Millisecond, "reset starts again from min")
	}
}
