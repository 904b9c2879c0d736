package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/hub/server"
	"github.com/openjibo/jibod/core/hub/token"
	"github.com/openjibo/jibod/core/hub/wire"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/core/skill/skillhttp"
)

// counter asks "next?" and counts in its session data until it ends.
func counter() *testSkill {
	return &testSkill{id: "test/counter", intents: map[string]string{"count": "count with me"},
		handle: func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
			n := 0
			sd := req.Data.Skill
			if req.Type == protocol.TypeListenUpdate {
				if sd.Session == nil {
					return protocol.NewError(req, "update without a session"), nil
				}
				if err := json.Unmarshal(sd.Session.Data, &n); err != nil {
					return nil, err
				}
			}
			n++
			data, _ := json.Marshal(n)
			sd.Session = &protocol.Session{ID: "s1", NodeID: n, Data: data}
			text := "one"
			if n > 1 {
				text = "two"
			}
			return say(text, n > 1)(context.Background(), &protocol.Request{Header: req.Header,
				Data: &protocol.RequestData{Skill: sd}})
		}}
}

func facts() *testSkill {
	return &testSkill{id: "test/facts", intents: map[string]string{"fact": "tell me a fact"}, handle: say("a fact", true)}
}

func TestSingleTurnBothEncodings(t *testing.T) {
	for _, enc := range []wire.Encoding{wire.JSON, wire.CBOR} {
		t.Run(enc.String(), func(t *testing.T) {
			_, ts := startHub(t, hubOpts{skills: []server.Skill{facts()}})
			r := dial(t, ts, server.PathListenV1, enc, nil)
			r.listenNLU("tid-1", "fact", []string{"launch"}, nil)
			got := r.untilFinal()
			require.Equal(t, []string{"SOS", "EOS", "LISTEN", "SKILL_ACTION"}, types(got))
			for _, m := range got {
				assert.Equal(t, "tid-1", m.TransID)
			}
			assert.False(t, *got[2].Final)
			assert.Equal(t, "test/facts", got[2].Listen.Match.SkillID)
			assert.Equal(t, "a fact", spoken(t, got[3]))
			assert.Equal(t, "test.facts", got[3].Action.Skill.Name(), "skill requests carry the bus id")
			assert.Contains(t, got[3].Timings, "total")
			assert.Contains(t, got[3].Timings, "skill")
		})
	}
}

func TestClientASRUsesIntentEngines(t *testing.T) {
	_, ts := startHub(t, hubOpts{skills: []server.Skill{facts()}})
	r := dial(t, ts, server.PathListen, wire.JSON, nil)
	r.listenASR("tid-a", "please tell me a fact", []string{"launch"}, true, nil)
	got := r.untilFinal()
	require.Equal(t, []string{"SOS", "EOS", "LISTEN", "SKILL_ACTION"}, types(got))
	assert.Equal(t, "fact", got[2].Listen.NLU.IntentName())
	assert.Equal(t, "please tell me a fact", got[2].Listen.ASR.Text)

	r.listenASR("tid-b", "flibbertigibbet", []string{"launch"}, true, nil)
	got = r.untilFinal()
	require.Equal(t, []string{"SOS", "EOS", "LISTEN"}, types(got), "no match: a final LISTEN")
	assert.Nil(t, got[2].Listen.Match)
	assert.Equal(t, json.RawMessage("null"), got[2].Listen.Extra["match"], "match is null")
}

// The session comes back in CONTEXT; the hub keeps nothing (jibo.md §2.5).
func TestMultiTurnListenUpdate(t *testing.T) {
	_, ts := startHub(t, hubOpts{skills: []server.Skill{counter()}})
	r := dial(t, ts, server.PathListen, wire.CBOR, nil)
	r.listenNLU("tid-1", "count", []string{"launch"}, nil)
	got := r.untilFinal()
	require.Equal(t, "one", spoken(t, got[3]))
	stored := got[3].Action.Skill

	// §1.5: skill.id set, hotphrase false, no launch match → LISTEN_UPDATE.
	r.listenASR("tid-2", "whatever", []string{"test/counter/none"}, false, &stored)
	got = r.untilFinal()
	require.Equal(t, []string{"SOS", "EOS", "LISTEN", "SKILL_ACTION"}, types(got))
	assert.False(t, *got[2].Listen.Match.Launch)
	assert.Equal(t, "two", spoken(t, got[3]))
	assert.Equal(t, 2, got[3].Action.Skill.Session.NodeID)

	// A hot phrase with no launch match is not the running skill's.
	r.listenASR("tid-3", "whatever", []string{"launch"}, true, &stored)
	assert.Equal(t, []string{"SOS", "EOS", "LISTEN"}, types(r.untilFinal()))
}

func TestRedirectAndSecondRedirect(t *testing.T) {
	target := &testSkill{id: "test/target", intents: map[string]string{"target": "go to target"}, handle: say("target here", true)}
	redirector := &testSkill{id: "test/redir", intents: map[string]string{"redir": "redirect me"},
		handle: func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
			return protocol.NewRedirect(req, "test/target", json.RawMessage(`{"from":"redir"}`), req.Data.Skill), nil
		}}
	loop := &testSkill{id: "test/loop", intents: map[string]string{"loop": "loop me"},
		handle: func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
			return protocol.NewRedirect(req, "test/loop", nil, req.Data.Skill), nil
		}}
	_, ts := startHub(t, hubOpts{skills: []server.Skill{target, redirector, loop}})
	r := dial(t, ts, server.PathListen, wire.JSON, nil)
	r.listenNLU("tid-1", "redir", []string{"launch"}, nil)
	got := r.untilFinal()
	require.Equal(t, []string{"SOS", "EOS", "LISTEN", "SKILL_REDIRECT", "SKILL_ACTION"}, types(got))
	assert.Equal(t, "test/target", got[3].Redirect.Match.SkillID)
	assert.JSONEq(t, `{"from":"redir"}`, string(got[3].Redirect.Memo))
	assert.Equal(t, "target here", spoken(t, got[4]))

	r.listenNLU("tid-2", "loop", []string{"launch"}, nil)
	got = r.untilFinal()
	require.Equal(t, []string{"SOS", "EOS", "LISTEN", "SKILL_REDIRECT", "ERROR"}, types(got))
	assert.Equal(t, protocol.HubErrorGeneral, got[4].Error.Code)
	assert.Contains(t, got[4].Error.Message, "after a redirect")
}

// A proactive launch carries the registration's memo unchanged, whatever
// JSON value it is: real proactive launches carry the string "Proactive"
// (jibo.md §2.2, issue 22 item 15).
func TestProactive(t *testing.T) {
	for _, memo := range []string{`{"k":1}`, `"Proactive"`} {
		t.Run(memo, func(t *testing.T) {
			greeter := configured{&testSkill{id: "test/greeter", safety: registry.SafetyModerate, perms: []registry.Permission{registry.PermSpeech, registry.PermProactive},
				conf: &protocol.ManifestSkillConfig{Intents: []protocol.ManifestIntent{}, Proactives: []protocol.ProactiveRegistration{
					{Topics: []string{protocol.TriggerNewArrival}, ContextRules: []protocol.ContextRule{}, Memo: json.RawMessage(memo)}}},
				handle: func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
					if req.Type != protocol.TypeProactiveLaunch || string(req.Data.Result.Memo) != memo {
						return protocol.NewError(req, "want PROACTIVE_LAUNCH with the memo"), nil
					}
					return say("hello", true)(context.Background(), req)
				}}}
			_, ts := startHub(t, hubOpts{skills: []server.Skill{greeter}})
			r := dial(t, ts, server.PathProactiveV1, wire.JSON, nil)
			r.send(protocol.NewTrigger(protocol.TriggerNewArrival, "", protocol.WithTransID("tid-p")))
			r.send(protocol.NewContext(robotContext(nil), protocol.WithTransID("tid-p")))
			got := r.untilFinal()
			require.Equal(t, []string{"PROACTIVE", "SKILL_ACTION"}, types(got))
			assert.Equal(t, "test/greeter", got[0].Proactive.Match.SkillID)
			assert.True(t, *got[0].Proactive.Match.IsProactive)
			assert.Equal(t, "hello", spoken(t, got[1]))

			r.send(protocol.NewTrigger(protocol.TriggerSurprise, "", protocol.WithTransID("tid-q")))
			r.send(protocol.NewContext(robotContext(nil), protocol.WithTransID("tid-q")))
			got = r.untilFinal()
			require.Equal(t, []string{"PROACTIVE"}, types(got), "nothing eligible: PROACTIVE {}")
			assert.Nil(t, got[0].Proactive.Match)
		})
	}
}

// Bad skills: invalid JCP, a panic, an ERROR, a slow one.
func TestBadSkills(t *testing.T) {
	skills := []server.Skill{
		&testSkill{id: "test/badjcp", intents: map[string]string{"badjcp": "bad jcp"},
			handle: func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
				return protocol.NewSkillAction(req, req.Data.Skill, json.RawMessage(`{"type":"JCP","config":{"version":"2.0","jcp":{"type":"NOPE"}}}`), true), nil
			}},
		&testSkill{id: "test/panic", intents: map[string]string{"panic": "panic now"},
			handle: func(context.Context, *protocol.Request) (*protocol.Response, error) { panic("boom") }},
		&testSkill{id: "test/err", intents: map[string]string{"err": "fail now"},
			handle: func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
				return protocol.NewError(req, "cannot do that"), nil
			}},
		&testSkill{id: "test/slow", intents: map[string]string{"slow": "be slow"}, timeout: 100 * time.Millisecond,
			handle: func(ctx context.Context, _ *protocol.Request) (*protocol.Response, error) {
				<-ctx.Done()
				return nil, ctx.Err()
			}},
	}
	_, ts := startHub(t, hubOpts{skills: skills})
	r := dial(t, ts, server.PathListen, wire.JSON, nil)
	for _, tc := range []struct{ intent, code, contains string }{
		{"badjcp", protocol.HubErrorGeneral, "invalid response"},
		{"panic", protocol.HubErrorGeneral, "panicked"},
		{"err", protocol.HubErrorGeneral, "cannot do that"},
		{"slow", protocol.HubErrorTimeoutSkill, "timed out"},
	} {
		t.Run(tc.intent, func(t *testing.T) {
			r.listenNLU("tid-"+tc.intent, tc.intent, []string{"launch"}, nil)
			got := r.untilFinal()
			last := got[len(got)-1]
			require.Equal(t, protocol.TypeError, last.Type)
			assert.Equal(t, tc.code, last.Error.Code)
			assert.Contains(t, last.Error.Message, tc.contains)
		})
	}
	// The link still works.
	r.listenNLU("tid-after", "err", []string{"launch"}, nil)
	assert.Equal(t, protocol.TypeError, r.untilFinal()[3].Type)
}

// Wrong message order and unknown transactions: ERROR GENERAL naming the
// problem; the connection stays up.
func TestWrongOrder(t *testing.T) {
	_, ts := startHub(t, hubOpts{skills: []server.Skill{facts()}})
	r := dial(t, ts, server.PathListen, wire.JSON, nil)
	lis := func(tid string) *protocol.HubRequest {
		return protocol.NewListen(protocol.ListenData{Lang: "en-US", Rules: []string{"launch"},
			Mode: modePtr(protocol.ModeClientNLU)}, protocol.WithTransID(tid))
	}
	ctxMsg := func(tid string) *protocol.HubRequest {
		return protocol.NewContext(robotContext(nil), protocol.WithTransID(tid))
	}
	cases := []struct {
		name     string
		msgs     []*protocol.HubRequest
		contains string
	}{
		{"CLIENT_NLU before LISTEN", []*protocol.HubRequest{protocol.NewClientNLU(protocol.NLUFromSlots("fact", nil, nil), protocol.WithTransID("tid-x1"))}, "no open transaction"},
		{"second LISTEN", []*protocol.HubRequest{lis("tid-x2"), lis("tid-x2")}, "second LISTEN"},
		{"CONTEXT twice", []*protocol.HubRequest{lis("tid-x3"), ctxMsg("tid-x3"), ctxMsg("tid-x3")}, "second CONTEXT"},
		{"CLIENT_ASR in CLIENT_NLU mode", []*protocol.HubRequest{lis("tid-x4"), protocol.NewClientASR("hi", protocol.WithTransID("tid-x4"))}, "CLIENT_ASR in transaction"},
		{"TRIGGER on listen", []*protocol.HubRequest{protocol.NewTrigger(protocol.TriggerSurprise, "", protocol.WithTransID("tid-x5"))}, "not taken on /listen"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, m := range tc.msgs {
				r.send(m)
			}
			got := r.untilFinal()
			last := got[len(got)-1]
			require.Equal(t, protocol.TypeError, last.Type)
			assert.Equal(t, protocol.HubErrorGeneral, last.Error.Code)
			assert.Contains(t, last.Error.Message, tc.contains)
		})
	}
	r.listenNLU("tid-ok", "fact", []string{"launch"}, nil)
	assert.Equal(t, "a fact", spoken(t, r.untilFinal()[3]))
}

func TestBadFrames(t *testing.T) {
	_, ts := startHub(t, hubOpts{skills: []server.Skill{facts()}})
	ctx := context.Background()
	t.Run("malformed JSON", func(t *testing.T) {
		r := dial(t, ts, server.PathListen, wire.JSON, nil)
		require.NoError(t, r.ws.Write(ctx, websocket.MessageText, []byte(`{"type":"LISTEN",`)))
		m := r.recv()
		require.Equal(t, protocol.TypeError, m.Type)
		assert.Equal(t, protocol.HubErrorGeneral, m.Error.Code)
		r.listenNLU("tid-ok", "fact", []string{"launch"}, nil)
		assert.Equal(t, "SKILL_ACTION", r.untilFinal()[3].Type, "the link stays up")
	})
	t.Run("unknown type", func(t *testing.T) {
		r := dial(t, ts, server.PathListen, wire.JSON, nil)
		require.NoError(t, r.ws.Write(ctx, websocket.MessageText, []byte(`{"type":"HELLO","msgID":"mid-1","ts":1,"transID":"tid-u","data":{}}`)))
		m := r.recv()
		require.Equal(t, protocol.TypeError, m.Type)
		assert.Contains(t, m.Error.Message, "HELLO")
	})
	t.Run("malformed CBOR", func(t *testing.T) {
		r := dial(t, ts, server.PathListen, wire.CBOR, nil)
		require.NoError(t, r.ws.Write(ctx, websocket.MessageBinary, []byte{0xbf, 0xff, 0x00, 0x13}))
		m := r.recv()
		require.Equal(t, protocol.TypeError, m.Type)
		assert.Equal(t, protocol.HubErrorGeneral, m.Error.Code)
	})
	t.Run("audio after LISTEN", func(t *testing.T) {
		r := dial(t, ts, server.PathListen, wire.JSON, nil)
		r.send(protocol.NewListen(protocol.ListenData{Lang: "en-US", Rules: []string{"launch"}}, protocol.WithTransID("tid-audio")))
		require.NoError(t, r.ws.Write(ctx, websocket.MessageBinary, []byte("OggS")))
		m := r.recv()
		require.Equal(t, protocol.TypeError, m.Type)
		assert.Equal(t, protocol.HubErrorASR, m.Error.Code)
		assert.Equal(t, "tid-audio", m.TransID)
	})
	t.Run("oversized", func(t *testing.T) {
		r := dial(t, ts, server.PathListen, wire.JSON, nil)
		big := `{"type":"CLIENT_ASR","msgID":"m","ts":1,"data":{"text":"` + strings.Repeat("a", wire.MaxFrameSize) + `"}}`
		_ = r.ws.Write(ctx, websocket.MessageText, []byte(big))
		_, _, err := r.ws.Read(ctx)
		assert.Equal(t, websocket.StatusMessageTooBig, websocket.CloseStatus(err))
	})
}

func TestAuth(t *testing.T) {
	now := time.Now()
	key := []byte(strings.Repeat("k", 32))
	iss, err := token.NewIssuer(key, nil)
	require.NoError(t, err)
	old, err := token.NewIssuer(key, func() time.Time { return now.Add(-48 * time.Hour) })
	require.NoError(t, err)
	forger, err := token.NewIssuer([]byte(strings.Repeat("x", 32)), nil)
	require.NoError(t, err)
	good, err := iss.Issue(token.Claims{ID: "acct", FriendlyID: "Fuzzy-Blue-Cat"}, time.Hour)
	require.NoError(t, err)
	expired, err := old.Issue(token.Claims{ID: "acct"}, time.Hour)
	require.NoError(t, err)
	forged, err := forger.Issue(token.Claims{ID: "acct"}, time.Hour)
	require.NoError(t, err)

	var seen protocol.GeneralData
	sk := &testSkill{id: "test/who", intents: map[string]string{"who": "who am i"},
		handle: func(ctx context.Context, req *protocol.Request) (*protocol.Response, error) {
			seen = req.Data.General
			return say("you", true)(ctx, req)
		}}
	_, ts := startHub(t, hubOpts{skills: []server.Skill{sk}, verifier: iss})
	for _, tc := range []struct{ name, header string }{
		{"missing", ""}, {"expired", "Bearer " + expired}, {"forged", "Bearer " + forged}, {"garbage", "Bearer x.y.z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, path := range []string{server.PathListen, wire.CatalogPath} {
				req, _ := http.NewRequest(http.MethodGet, ts.URL+path, nil)
				if tc.header != "" {
					req.Header.Set("Authorization", tc.header)
				}
				req.Header.Set("Connection", "Upgrade")
				req.Header.Set("Upgrade", "websocket")
				resp, err := http.DefaultClient.Do(req)
				require.NoError(t, err)
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, path)
				assert.Contains(t, string(body), `"code":"UNAUTHORIZED"`)
			}
		})
	}
	r := dial(t, ts, server.PathListen, wire.JSON, http.Header{"Authorization": {"Bearer " + good}})
	r.listenNLU("tid-1", "who", []string{"launch"}, nil)
	require.Equal(t, "SKILL_ACTION", r.untilFinal()[3].Type)
	assert.Equal(t, "acct", seen.AccountID)
	assert.Equal(t, "Fuzzy-Blue-Cat", seen.RobotID)
}

func TestNoAuthPlaceholders(t *testing.T) {
	var seen protocol.GeneralData
	sk := &testSkill{id: "test/who", intents: map[string]string{"who": "who am i"},
		handle: func(ctx context.Context, req *protocol.Request) (*protocol.Response, error) {
			seen = req.Data.General
			return say("you", true)(ctx, req)
		}}
	_, ts := startHub(t, hubOpts{skills: []server.Skill{sk}})
	r := dial(t, ts, server.PathListen, wire.JSON, nil)
	r.listenNLU("tid-1", "who", []string{"launch"}, nil)
	r.untilFinal()
	assert.Equal(t, server.PlaceholderAccountID, seen.AccountID)
	assert.Equal(t, server.PlaceholderRobotID, seen.RobotID)
	assert.Equal(t, "1.9.2", seen.Release)
}

func TestTimeoutContext(t *testing.T) {
	_, ts := startHub(t, hubOpts{skills: []server.Skill{facts()}, timeouts: server.Timeouts{Context: 50 * time.Millisecond}})
	r := dial(t, ts, server.PathListen, wire.JSON, nil)
	r.send(protocol.NewListen(protocol.ListenData{Lang: "en-US", Rules: []string{"launch"},
		Mode: modePtr(protocol.ModeClientNLU)}, protocol.WithTransID("tid-t")))
	r.send(protocol.NewClientNLU(protocol.NLUFromSlots("fact", nil, nil), protocol.WithTransID("tid-t")))
	m := r.recv()
	require.Equal(t, protocol.TypeError, m.Type)
	assert.Equal(t, protocol.HubErrorTimeoutContext, m.Error.Code)
}

// One robot misbehaves; the other's multi-turn skill is unaffected.
func TestTwoRobotsConcurrently(t *testing.T) {
	_, ts := startHub(t, hubOpts{skills: []server.Skill{counter(), facts()}})
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	wg.Add(2)
	go func() {
		defer wg.Done()
		bad := dial(t, ts, server.PathListen, wire.JSON, nil)
		for i := 0; i < 20; i++ {
			_ = bad.ws.Write(context.Background(), websocket.MessageText, []byte(`{"type":`))
		}
		// The first BadFrameReportBurst are answered; the rest only counted.
		for i := 0; i < wire.BadFrameReportBurst; i++ {
			m, err := bad.c.ReadResponse(context.Background())
			if err != nil || m.Type != protocol.TypeError {
				errs <- errors.New("misbehaving robot did not get ERROR")
				return
			}
		}
	}()
	go func() {
		defer wg.Done()
		ctx := context.Background()
		ws, _, err := websocket.Dial(ctx, wsURL(ts, server.PathListen), &websocket.DialOptions{Subprotocols: wire.Offer(wire.CBOR)})
		if err != nil {
			errs <- err
			return
		}
		defer ws.CloseNow()
		c := wire.NewConn(ws, wire.CBOR)
		for i := 0; i < 10; i++ {
			tid := protocol.NewTransID()
			for _, m := range []*protocol.HubRequest{
				protocol.NewListen(protocol.ListenData{Lang: "en-US", Rules: []string{"launch"}, Mode: modePtr(protocol.ModeClientNLU)}, protocol.WithTransID(tid)),
				protocol.NewContext(robotContext(nil), protocol.WithTransID(tid)),
				protocol.NewClientNLU(protocol.NLUFromSlots("count", nil, []string{"launch"}), protocol.WithTransID(tid)),
			} {
				if err := c.WriteRequest(ctx, m); err != nil {
					errs <- err
					return
				}
			}
			for {
				m, err := c.ReadResponse(ctx)
				if err != nil {
					errs <- err
					return
				}
				if m.Final != nil && *m.Final {
					if m.Type != protocol.TypeSkillAction {
						errs <- errors.New("good robot got " + m.Type)
						return
					}
					break
				}
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// Close while a transaction is open: the robot hears why and the link
// closes with CloseShuttingDown.
func TestCloseWithOpenTransaction(t *testing.T) {
	started := make(chan struct{})
	slow := &testSkill{id: "test/slow", intents: map[string]string{"slow": "be slow"},
		handle: func(ctx context.Context, _ *protocol.Request) (*protocol.Response, error) {
			close(started)
			<-ctx.Done()
			return nil, ctx.Err()
		}}
	hub, err := server.New(server.Config{Skills: []server.Skill{slow}})
	require.NoError(t, err)
	ts := newServer(t, hub)
	r := dial(t, ts, server.PathListen, wire.JSON, nil)
	r.listenNLU("tid-1", "slow", []string{"launch"}, nil)
	<-started
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		done <- hub.Close(ctx)
	}()
	got := r.untilFinal()
	last := got[len(got)-1]
	require.Equal(t, protocol.TypeError, last.Type)
	assert.Contains(t, last.Error.Message, "shutting down")
	_, err = r.c.ReadResponse(context.Background())
	assert.Equal(t, wire.CloseShuttingDown, websocket.CloseStatus(err))
	require.NoError(t, <-done)
}

func TestCatalogAndHealth(t *testing.T) {
	_, ts := startHub(t, hubOpts{skills: []server.Skill{facts(), counter()}})
	resp, err := http.Get(ts.URL + wire.CatalogPath)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	cat, err := wire.DecodeCatalog(body)
	require.NoError(t, err)
	id, ok := cat.SkillForIntent("fact")
	assert.True(t, ok)
	assert.Equal(t, "test/facts", id)
	assert.Contains(t, cat.Skills[1].Locale["en-us"], "fact.intent")

	resp, err = http.Get(ts.URL + server.PathHealth)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}

func TestNewRefusesDuplicateIntents(t *testing.T) {
	a := &testSkill{id: "test/a", intents: map[string]string{"same": "say a"}, handle: say("a", true)}
	b := &testSkill{id: "test/b", intents: map[string]string{"same": "say b"}, handle: say("b", true)}
	_, err := server.New(server.Config{Skills: []server.Skill{a, b}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `intent "same" is also an intent of test/a`)
}

// A skill served over HTTP (skillhttp) is called by the hub end to end,
// with the transaction and robot ids forwarded.
func TestHTTPSkill(t *testing.T) {
	var gotHeader http.Header
	svc := skillhttp.NewHandler(facts(), skillhttp.ServerOptions{})
	hsrv := newHTTPServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotHeader = r.Header.Clone()
		svc.ServeHTTP(w, r)
	}))
	remote := server.HTTPSkill{Manifest: facts().Manifest(), URL: hsrv.URL + skillhttp.Path, Locale: facts().Locale()}
	missing := server.HTTPSkill{Manifest: (&testSkill{id: "test/gone"}).Manifest(), URL: hsrv.URL + "/nowhere",
		Config: protocol.ManifestSkillConfig{Intents: []protocol.ManifestIntent{{Name: "gone"}}}}
	_, ts := startHub(t, hubOpts{http: []server.HTTPSkill{remote, missing}})
	r := dial(t, ts, server.PathListen, wire.JSON, nil)
	r.listenNLU("tid-h", "fact", []string{"launch"}, nil)
	got := r.untilFinal()
	require.Equal(t, []string{"SOS", "EOS", "LISTEN", "SKILL_ACTION"}, types(got))
	assert.Equal(t, "a fact", spoken(t, got[3]))
	assert.Equal(t, "tid-h", gotHeader.Get(skillhttp.HeaderTransID))
	assert.Equal(t, server.PlaceholderRobotID, gotHeader.Get(skillhttp.HeaderRobotID))

	r.listenNLU("tid-g", "gone", []string{"launch"}, nil)
	got = r.untilFinal()
	last := got[len(got)-1]
	require.Equal(t, protocol.TypeError, last.Type)
	assert.Equal(t, protocol.HubErrorSkillNotFound, last.Error.Code)
}

func TestIdleConnectionDropped(t *testing.T) {
	_, ts := startHub(t, hubOpts{skills: []server.Skill{facts()}, timeouts: server.Timeouts{Idle: 50 * time.Millisecond}})
	r := dial(t, ts, server.PathListen, wire.JSON, nil)
	_, err := r.c.ReadResponse(context.Background())
	assert.Equal(t, websocket.StatusNormalClosure, websocket.CloseStatus(err))
}
