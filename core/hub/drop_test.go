package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/hub/wire"
	"github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/store"
)

// dropMidTurn is a hub that reads the robot's part of each transaction
// (up to CLIENT_NLU or CLIENT_ASR, or a TRIGGER's CONTEXT), sends SOS and
// then vanishes: its TCP connection closes with no close frame, as when
// the hub is killed, so the robot's read fails with an error wrapping
// io.EOF. The per-turn link's probe closes cleanly and is let go.
func dropMidTurn(h *atomic.Pointer[fakeHub]) func(t *testing.T, c *wire.Conn) {
	return func(t *testing.T, c *wire.Conn) {
		trigger := false
		for {
			r, err := c.ReadRequest(context.Background())
			if err != nil {
				return // the probe, or the robot went away
			}
			switch {
			case r.Type == protocol.TypeTrigger:
				trigger = true
				continue
			case r.Type == protocol.TypeClientNLU, r.Type == protocol.TypeClientASR,
				r.Type == protocol.TypeContext && trigger:
			default:
				continue
			}
			_ = c.WriteResponse(context.Background(), protocol.NewSpeechMark(protocol.TypeSOS, protocol.WithTransID(r.TransID)))
			h.Load().dropTCP(t, c)
			return
		}
	}
}

// A hub that drops the TCP connection mid-transaction (no close frame:
// the read error wraps io.EOF) fails the transaction with ErrLinkDown,
// never a clean end, on both kinds of link; a RemoteSkill answers with
// the offline MIM (an answer turn keeping its session and asking for the
// answer again), the remote fallback declines without failing, and a
// TRIGGER fails with the drop rather than "nothing eligible".
func TestHubDropsTCPMidTurn(t *testing.T) {
	sess := &protocol.Session{ID: "quiz-1", NodeID: 3, Data: json.RawMessage(`{"asked":"colour"}`)}
	tests := []struct {
		name string
		run  func(t *testing.T, r *Remote, host *memHost)
	}{
		{"transaction", func(t *testing.T, r *Remote, _ *memHost) {
			tx, err := r.client.Transact(context.Background(), launchMsgs()...)
			require.NoError(t, err)
			defer tx.Close()
			first, err := tx.Next(context.Background())
			require.NoError(t, err)
			assert.Equal(t, protocol.TypeSOS, first.Type, "what arrived before the drop is delivered")
			_, err = tx.Next(context.Background())
			require.ErrorIs(t, err, ErrLinkDown)
			assert.False(t, Ended(err), "a drop is not the transaction's end")
			assert.Contains(t, err.Error(), "EOF", "the hub vanished: the read hit the end of the stream")
			assert.Contains(t, err.Error(), tx.ID, "the error names the transaction")
		}},
		{"remote skill launch", func(t *testing.T, _ *Remote, host *memHost) {
			resp, err := host.get(t, "openjibo.fact").Handle(context.Background(), launch("openjibo.fact", "fun_fact", nil))
			require.NoError(t, err)
			require.Equal(t, protocol.TypeSkillAction, resp.Type, "the offline MIM, not silence")
			assert.Contains(t, string(resp.Action.Action), "can't reach the cloud right now")
			require.NotNil(t, resp.Action.Final)
			assert.True(t, *resp.Action.Final, "a launch simply ends")
			assert.NoError(t, resp.Validate())
		}},
		{"remote skill answer", func(t *testing.T, _ *Remote, host *memHost) {
			id := "openjibo.trivia"
			upd := protocol.NewListenUpdate(protocol.Context{General: protocol.GeneralData{Lang: "en-US"},
				Skill: protocol.SkillData{ID: &id, Session: sess}}, protocol.NLUResult{}, protocol.ASRResult{Text: "blue", Confidence: 1})
			resp, err := host.get(t, "openjibo.trivia").Handle(context.Background(), upd)
			require.NoError(t, err)
			require.Equal(t, protocol.TypeSkillAction, resp.Type)
			said := string(resp.Action.Action)
			assert.Contains(t, said, "can't reach the cloud right now")
			assert.Contains(t, said, "your answer", "the answer turn's prompt (OfflineAnswerMIM)")
			assert.Contains(t, said, "again", "it asks for the answer again")
			require.NotNil(t, resp.Action.Final)
			assert.False(t, *resp.Action.Final, "the conversation is kept")
			assert.Equal(t, sess, resp.Action.Skill.Session, "the stored session is handed back unchanged")
			assert.NoError(t, resp.Validate())
		}},
		{"remote fallback", func(t *testing.T, r *Remote, _ *memHost) {
			m, err := r.Fallback().Match(context.Background(), []string{"tell me something cool"}, "en-US", session.Session{})
			assert.NoError(t, err, "an unreachable hub is no failure of the stage")
			assert.Nil(t, m, "the stage declines")
		}},
		{"trigger", func(t *testing.T, r *Remote, _ *memHost) {
			err := r.Trigger(context.Background(), protocol.TriggerNewArrival, "")
			require.ErrorIs(t, err, ErrLinkDown)
			assert.NotErrorIs(t, err, ErrNothingEligible)
		}},
	}
	for _, mode := range []LinkMode{Persistent, PerTurn} {
		for _, tt := range tests {
			t.Run(string(mode)+"/"+tt.name, func(t *testing.T) {
				var hp atomic.Pointer[fakeHub]
				h := newFakeHub(t, dropMidTurn(&hp))
				hp.Store(h)
				states := make(chan LinkState, 64)
				c := newTestClient(t, h, mode, wire.CBOR, states)
				waitState(t, states, Up)
				r, host := newTestRemote(t, c)
				tt.run(t, r, host)
			})
		}
	}
}

// The hub routes an answer said again to the running skill (the remote
// fallback named it in CONTEXT) and vanishes before the skill's action.
// The host sends the proxy the LISTEN_UPDATE of a continued conversation
// naming the handed-over transaction, and the proxy hands back the
// session CONTEXT carried (also when the host's copy went meanwhile), in
// a non-final action speaking the answer turn's offline prompt: the
// conversation survives for the next retry.
func TestHubDropsTCPBeforeAContinuedSkillAnswers(t *testing.T) {
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	sess := &protocol.Session{ID: "t-1", NodeID: 4, Data: json.RawMessage(`{"q":2}`)}
	for _, tc := range []struct {
		mode LinkMode
		sent *protocol.Session // what the host's LISTEN_UPDATE carries
	}{{Persistent, sess}, {PerTurn, sess}, {Persistent, nil}} {
		mode := tc.mode
		t.Run(fmt.Sprintf("%s/host-kept-session=%v", mode, tc.sent != nil), func(t *testing.T) {
			var hp atomic.Pointer[fakeHub]
			h := newFakeHub(t, func(t *testing.T, c *wire.Conn) {
				msgs := readTurn(t, c, protocol.TypeClientASR)
				if len(msgs) < 3 {
					return // the per-turn link's probe
				}
				tid, sk := msgs[0].TransID, msgs[1].Context.Skill
				if !assert.NotNil(t, sk.ID, "CONTEXT names the running skill") {
					return
				}
				launch := false
				nlu := protocol.NLUResult{Entities: map[string]any{}}
				asr := protocol.ASRResult{Text: msgs[2].ClientASR.Text, Confidence: 1}
				_ = c.WriteResponse(context.Background(), protocol.NewListenResult(&nlu, &asr,
					&protocol.MatchData{SkillID: *sk.ID, Launch: &launch}, false, protocol.WithTransID(tid)))
				hp.Load().dropTCP(t, c)
			})
			hp.Store(h)
			states := make(chan LinkState, 64)
			c := newTestClient(t, h, mode, wire.JSON, states)
			waitState(t, states, Up)
			id := "openjibo.trivia"
			kept := skill.NewMemoryState()
			require.NoError(t, kept.PutConversation(store.Conversation{BusSession: session.DefaultID, SkillID: id,
				Skill: protocol.SkillData{ID: &id, Session: sess}, UpdatedAt: now.Add(-time.Minute)}))
			host := &memHost{skills: map[string]skill.Skill{}}
			r, err := NewRemote(RemoteConfig{Client: c, Host: host, Conversations: kept, Logger: quiet,
				Now: func() time.Time { return now }})
			require.NoError(t, err)
			require.NoError(t, r.Apply(context.Background(), testCatalog()))

			m, err := r.Fallback().Match(context.Background(), []string{"blue"}, "en-US", session.Session{})
			require.NoError(t, err)
			require.NotNil(t, m)
			require.Equal(t, id, m.SkillID)
			require.True(t, m.Continues)
			resp, err := host.get(t, id).Handle(context.Background(), update(id, m, tc.sent))
			require.NoError(t, err)
			require.Equal(t, protocol.TypeSkillAction, resp.Type)
			assert.Contains(t, string(resp.Action.Action), "your answer", "the answer turn's offline prompt")
			require.NotNil(t, resp.Action.Final)
			assert.False(t, *resp.Action.Final, "the conversation goes on")
			assert.Equal(t, id, resp.Action.Skill.Name(), "kept under the proxy's id")
			assert.Equal(t, sess, resp.Action.Skill.Session, "the session CONTEXT carried is handed back")
		})
	}
}

// mortalHub is a fake hub on a fixed loopback address that can be killed
// and started again there, as jibohub SIGKILLed and restarted: killed,
// its listener and every TCP connection close with no close frame (an
// open turn's read fails with io.EOF) and new connections are refused.
type mortalHub struct {
	*fakeHub
	addr string

	mu     sync.Mutex
	dead   bool
	srv    *http.Server
	served chan struct{} // closed when srv.Serve returned
	conns  []net.Conn    // accepted while alive, for kill
	// scripts counts the handlers running, so kill can wait for them.
	scripts sync.WaitGroup
}

func newMortalHub(t *testing.T, script func(t *testing.T, c *wire.Conn)) *mortalHub {
	t.Helper()
	h := &mortalHub{fakeHub: &fakeHub{t: t, script: script, tokens: make(chan string, 64), paths: make(chan string, 64)},
		addr: "127.0.0.1:0"}
	h.start(t)
	t.Cleanup(h.kill)
	return h
}

func (h *mortalHub) url() string { return "ws://" + h.addr }

// start serves on the hub's address (a free one the first time).
func (h *mortalHub) start(t *testing.T) {
	t.Helper()
	ln, err := net.Listen("tcp", h.addr)
	require.NoError(t, err, "the hub's address is free again")
	srv := &http.Server{Handler: http.HandlerFunc(h.serveHTTP), ErrorLog: log.New(io.Discard, "", 0)}
	served := make(chan struct{})
	h.mu.Lock()
	h.addr, h.dead, h.srv, h.served, h.conns = ln.Addr().String(), false, srv, served, nil
	h.mu.Unlock()
	go func() { // owned: kill closes the server and waits
		defer close(served)
		_ = srv.Serve(mortalListener{ln, h})
	}()
}

// kill ends the hub and waits for its goroutines; a dead hub stays dead.
func (h *mortalHub) kill() {
	h.mu.Lock()
	if h.dead {
		h.mu.Unlock()
		return
	}
	h.dead = true
	srv, served, conns := h.srv, h.served, h.conns
	h.mu.Unlock()
	_ = srv.Close()
	for _, c := range conns { // the hijacked websockets, which Close leaves
		_ = c.Close()
	}
	<-served
	h.scripts.Wait()
}

func (h *mortalHub) serveHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	if h.dead { // its connection is closed already
		h.mu.Unlock()
		return
	}
	h.scripts.Add(1)
	h.mu.Unlock()
	defer h.scripts.Done()
	h.fakeHub.serveHTTP(w, r)
}

// mortalListener notes every connection, for kill.
type mortalListener struct {
	net.Listener
	h *mortalHub
}

func (l mortalListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		l.h.mu.Lock()
		dead := l.h.dead
		if !dead {
			l.h.conns = append(l.h.conns, c)
		}
		l.h.mu.Unlock()
		if !dead {
			return c, nil
		}
		_ = c.Close()
	}
}

// stateLog keeps every state the link reports, so a test can wait for
// one after another without a full buffer dropping any.
type stateLog struct {
	mu      sync.Mutex
	states  []LinkState
	changed chan struct{} // closed at the next state
}

func newStateLog() *stateLog { return &stateLog{changed: make(chan struct{})} }

func (s *stateLog) add(st LinkState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.states = append(s.states, st)
	close(s.changed)
	s.changed = make(chan struct{})
}

// wait returns the first state with status reported at or after index
// from, and the index after it.
func (s *stateLog) wait(t *testing.T, from int, status LinkStatus) (LinkState, int) {
	t.Helper()
	deadline := time.After(10 * time.Second) // only keeps a broken build from hanging
	for {
		s.mu.Lock()
		for i := from; i < len(s.states); i++ {
			if s.states[i].Status == status {
				st := s.states[i]
				s.mu.Unlock()
				return st, i + 1
			}
		}
		from = len(s.states)
		changed := s.changed
		s.mu.Unlock()
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("link never became %s", status)
		}
	}
}

// sosThenWait answers a turn with SOS only and waits for the robot to go:
// the hub is busy with the turn when it dies.
func sosThenWait(t *testing.T, c *wire.Conn) {
	msgs := readTurn(t, c, protocol.TypeClientNLU)
	if len(msgs) == 0 {
		return // a probe
	}
	_ = c.WriteResponse(context.Background(), protocol.NewSpeechMark(protocol.TypeSOS, protocol.WithTransID(msgs[0].TransID)))
	_, _ = c.ReadRequest(context.Background())
}

// A per-turn link whose hub dies goes Down on its own, saying why and when
// it tries again, whether the hub died between turns (the probe every
// Heartbeat notices, with no turn needed) or under a turn (the dropped
// turn takes the link down; probes are an hour apart, so only the turn
// can have noticed). The shell's status and jibo.hub.link say "down" and
// the remote stages go offline; when the hub is back, so is the link.
func TestPerTurnLinkFollowsTheHub(t *testing.T) {
	tests := []struct {
		name      string
		heartbeat time.Duration
		script    func(t *testing.T, c *wire.Conn)
		// dies runs the robot's side until the hub is dead and returns
		// what the Down state's error must say.
		dies   func(t *testing.T, c *Client, h *mortalHub) []string
		wantIs error
	}{
		{"killed between turns", 20 * time.Millisecond, serveTurns,
			func(t *testing.T, c *Client, h *mortalHub) []string {
				tx, err := c.Transact(context.Background(), launchMsgs()...)
				require.NoError(t, err)
				for err == nil {
					_, err = tx.Next(context.Background())
				}
				require.True(t, Ended(err), "the turn before the hub dies completes: %v", err)
				h.kill()
				return []string{"hub probe", h.url() + EndpointListen}
			}, nil},
		{"killed mid-turn", time.Hour, sosThenWait,
			func(t *testing.T, c *Client, h *mortalHub) []string {
				tx, err := c.Transact(context.Background(), launchMsgs()...)
				require.NoError(t, err)
				defer tx.Close()
				first, err := tx.Next(context.Background())
				require.NoError(t, err)
				require.Equal(t, protocol.TypeSOS, first.Type)
				h.kill()
				_, err = tx.Next(context.Background())
				require.ErrorIs(t, err, ErrLinkDown, "the turn itself fails with the drop")
				return []string{tx.ID, "EOF"}
			}, ErrLinkDown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newMortalHub(t, tt.script)
			states := newStateLog()
			c, err := NewClient(Config{URL: h.url(), Token: func() (string, error) { return "tok", nil }, Link: PerTurn,
				Heartbeat: tt.heartbeat, ConnectTimeout: time.Second, ReplyTimeout: 2 * time.Second,
				BackoffMin: 10 * time.Millisecond, BackoffMax: 50 * time.Millisecond, Logger: quiet, OnState: states.add})
			require.NoError(t, err)
			require.NoError(t, c.Start(context.Background()))
			t.Cleanup(func() { assert.NoError(t, c.Close(context.Background())) })
			_, i := states.wait(t, 0, Up)

			wants := tt.dies(t, c, h)
			down, i := states.wait(t, i, Down)
			require.Error(t, down.Err, "the Down state says why")
			if tt.wantIs != nil {
				assert.ErrorIs(t, down.Err, tt.wantIs)
			}
			for _, w := range wants {
				assert.Contains(t, down.Err.Error(), w)
			}
			assert.False(t, down.Retry.IsZero(), "the next attempt is scheduled")
			assert.Contains(t, down.String(), "down: "+h.url(), "the shell's status")
			assert.Contains(t, down.String(), "retry in")
			msg := down.message()
			assert.Equal(t, "down", msg.Data["state"], TopicLink)
			assert.Contains(t, msg.Data, "error")
			assert.Contains(t, msg.Data, "retry_in_ms")
			assert.False(t, c.Available(), "the remote stages and Wasm skills are offline while the hub is dead")

			h.start(t)
			up, _ := states.wait(t, i, Up)
			assert.NoError(t, up.Err)
			assert.True(t, up.Retry.IsZero())
			assert.Contains(t, up.String(), "up to "+h.url())
			tx, err := c.Transact(context.Background(), launchMsgs()...)
			require.NoError(t, err, "turns reach the hub again")
			defer tx.Close()
			first, err := tx.Next(context.Background())
			require.NoError(t, err)
			assert.Equal(t, protocol.TypeSOS, first.Type)
		})
	}
}
