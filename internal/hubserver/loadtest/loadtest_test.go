package loadtest

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/openjibo/jibod/core/hub/wire"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeHub answers each CLIENT_NLU turn as jibohub does for intent
// "fun_fact" (SOS, EOS, LISTEN match, final SKILL_ACTION); "missing" gets
// LISTEN match null, "broken" ERROR SKILL_NOT_FOUND, and "hangup" closes
// the link mid-turn.
type fakeHub struct{ token string }

func (h fakeHub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.token != "" && r.Header.Get("Authorization") != "Bearer "+h.token {
		http.Error(w, `{"error":"bad token","code":"UNAUTHORIZED"}`, http.StatusUnauthorized)
		return
	}
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: wire.AcceptSubprotocols()})
	if err != nil {
		return
	}
	enc, _ := wire.Negotiated(ws.Subprotocol())
	c := wire.NewConn(ws, enc)
	defer c.CloseNow()
	ctx := r.Context()
	for {
		req, err := c.ReadRequest(ctx)
		if err != nil {
			return
		}
		if req.Type != protocol.TypeClientNLU {
			continue
		}
		tid := protocol.WithTransID(req.TransID)
		intent := *req.ClientNLU.Intent
		var out []*protocol.HubResponse
		switch intent {
		case "hangup":
			return
		case "metered":
			out = []*protocol.HubResponse{protocol.NewHubError(protocol.HubErrorGeneral,
				"skill openjibo/fact: over its calls_per_minute limit: 600 calls in the last minute, limit 600", tid)}
		case "broken":
			out = []*protocol.HubResponse{protocol.NewHubError(protocol.HubErrorSkillNotFound, "no such skill", tid)}
		case "missing":
			out = []*protocol.HubResponse{protocol.NewListenResult(req.ClientNLU, nil, nil, true, tid)}
		default:
			id := "openjibo/fact"
			action := &protocol.SkillActionData{Skill: protocol.SkillData{ID: &id}, Action: []byte(`{"type":"JCP","config":{"version":"2.0","jcp":{"type":"SLIM","config":{"play":{"esml":"fact"}}}}}`)}
			out = []*protocol.HubResponse{
				protocol.NewSpeechMark(protocol.TypeSOS, tid), protocol.NewSpeechMark(protocol.TypeEOS, tid),
				protocol.NewListenResult(req.ClientNLU, nil, &protocol.MatchData{SkillID: "openjibo/fact"}, false, tid),
				protocol.NewHubSkillAction(action, tid),
			}
		}
		final := true
		out[len(out)-1].Final = &final
		for _, m := range out {
			if err := c.WriteResponse(ctx, m); err != nil {
				return // the robot went away; the counts show any loss
			}
		}
	}
}

func startFake(t *testing.T, tok string) string {
	t.Helper()
	srv := httptest.NewServer(fakeHub{token: tok})
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http") + "/v1/listen"
}

func TestRunCounts(t *testing.T) {
	for _, enc := range []wire.Encoding{wire.JSON, wire.CBOR} {
		t.Run(enc.String(), func(t *testing.T) {
			url := startFake(t, "secret")
			rep, err := Run(context.Background(), Config{URL: url, Token: "secret", Encoding: enc, Robots: 20, MaxTurns: 20})
			require.NoError(t, err)
			assert.Equal(t, 20, rep.Connected)
			assert.Zero(t, rep.ConnectFailures)
			assert.Equal(t, 400, rep.Turns)
			assert.Equal(t, 1600, rep.Messages, "SOS, EOS, LISTEN, SKILL_ACTION per turn")
			assert.Empty(t, rep.Errors)
			assert.Zero(t, rep.LinksLost)
			assert.Equal(t, enc, rep.Negotiated)
			assert.Positive(t, rep.P50)
			assert.LessOrEqual(t, rep.P50, rep.P99)
			assert.LessOrEqual(t, rep.P99, rep.Max)

			var out bytes.Buffer
			require.NoError(t, rep.Write(&out))
			assert.Contains(t, out.String(), "robots    20 connected of 20")
			assert.Contains(t, out.String(), "turns     400 in")
			assert.Contains(t, out.String(), "errors    none")
		})
	}
}

func TestRunErrorsByKind(t *testing.T) {
	url := startFake(t, "")
	tests := []struct {
		intent string
		kind   string
		lost   int
	}{
		{"broken", "hub ERROR SKILL_NOT_FOUND", 0},
		{"missing", "no match (LISTEN match null)", 0},
		{"metered", KindRateLimited, 0},
		{"hangup", "link closed", 3},
	}
	for _, tt := range tests {
		t.Run(tt.intent, func(t *testing.T) {
			rep, err := Run(context.Background(), Config{URL: url, Robots: 3, MaxTurns: 4, Intent: tt.intent})
			require.NoError(t, err)
			assert.Zero(t, rep.Turns)
			assert.Equal(t, tt.lost, rep.LinksLost)
			require.Len(t, rep.Errors, 1, "%v", rep.Errors)
			for k, n := range rep.Errors {
				assert.Contains(t, k, tt.kind)
				if tt.lost == 0 {
					assert.Equal(t, 12, n)
				} else {
					assert.Equal(t, 3, n, "a robot whose link broke stops")
				}
			}
			var out bytes.Buffer
			require.NoError(t, rep.Write(&out))
			assert.Contains(t, out.String(), tt.kind)
			if tt.kind == KindRateLimited {
				assert.Equal(t, 12, rep.RateLimited)
				assert.Contains(t, out.String(), "rate limit  12 turns refused over a skill's calls_per_minute")
			} else {
				assert.Zero(t, rep.RateLimited)
				assert.Contains(t, out.String(), "rate limit  no turn refused")
			}
		})
	}
}

func TestRunConnectFailures(t *testing.T) {
	url := startFake(t, "secret")
	rep, err := Run(context.Background(), Config{URL: url, Token: "wrong", Robots: 5, MaxTurns: 1})
	require.NoError(t, err)
	assert.Zero(t, rep.Connected)
	assert.Equal(t, 5, rep.ConnectFailures)
	assert.Equal(t, map[string]int{"HTTP 401": 5}, rep.ConnectErrors)
	var out bytes.Buffer
	require.NoError(t, rep.Write(&out))
	assert.Contains(t, out.String(), "0 connected of 5")
	assert.Contains(t, out.String(), "5 failed: HTTP 401 ×5;")
}

// Paced robots run their turns too (1 ms apart, so the test stays short).
func TestRunPaced(t *testing.T) {
	url := startFake(t, "")
	rep, err := Run(context.Background(), Config{URL: url, Robots: 4, MaxTurns: 3, Interval: time.Millisecond})
	require.NoError(t, err)
	assert.Equal(t, 12, rep.Turns)
	assert.Empty(t, rep.Errors)
}

func TestRunDurationBound(t *testing.T) {
	url := startFake(t, "")
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // a cancelled run ends at once and reports what ran
	rep, err := Run(ctx, Config{URL: url, Robots: 2, Duration: time.Hour})
	require.NoError(t, err)
	assert.Zero(t, rep.Turns)
	assert.Empty(t, rep.Errors)
}

func TestConfigRefused(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		wantErr string
	}{
		{"http url", Config{URL: "http://x/v1/listen", Robots: 1, MaxTurns: 1}, `want ws:// or wss://`},
		{"no robots", Config{URL: "ws://x", MaxTurns: 1}, "robots 0: want 1..100000"},
		{"too many robots", Config{URL: "ws://x", Robots: MaxRobots + 1, MaxTurns: 1}, "robots 100001"},
		{"unbounded", Config{URL: "ws://x", Robots: 1}, "an unbounded load test never ends"},
		{"negative", Config{URL: "ws://x", Robots: 1, MaxTurns: -1}, "must not be negative"},
		{"negative interval", Config{URL: "ws://x", Robots: 1, MaxTurns: 1, Interval: -time.Second}, "must not be negative"},
		{"bad encoding", Config{URL: "ws://x", Robots: 1, MaxTurns: 1, Encoding: 5}, "unknown encoding(5)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Run(context.Background(), tt.cfg)
			require.ErrorContains(t, err, tt.wantErr)
		})
	}
}

func TestPercentile(t *testing.T) {
	ms := func(ns ...int) []time.Duration {
		out := make([]time.Duration, len(ns))
		for i, n := range ns {
			out[i] = time.Duration(n) * time.Millisecond
		}
		return out
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = i + 1
	}
	tests := []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 50, 0},
		{"one", ms(7), 99, 7 * time.Millisecond},
		{"p50 of 1..100", ms(hundred...), 50, 50 * time.Millisecond},
		{"p99 of 1..100", ms(hundred...), 99, 99 * time.Millisecond},
		{"p100 of 1..100", ms(hundred...), 100, 100 * time.Millisecond},
		{"p90 of four", ms(1, 2, 3, 4), 90, 4 * time.Millisecond},
		{"p50 of four", ms(1, 2, 3, 4), 50, 2 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Percentile(tt.sorted, tt.p))
		})
	}
}
