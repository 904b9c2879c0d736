package hubserver_test

import (
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/hub/wire"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/internal/hubserver"
	"github.com/openjibo/jibod/jcp"
)

// testSkill is a skill made of a function, with a locale of one intent per
// entry of intents (name → template).
type testSkill struct {
	id      string
	intents map[string]string
	conf    *protocol.ManifestSkillConfig
	timeout time.Duration
	perms   []registry.Permission
	safety  registry.SafetyLevel
	handle  func(ctx context.Context, req *protocol.Request) (*protocol.Response, error)
}

func (s *testSkill) Manifest() *registry.Manifest {
	perms := s.perms
	if perms == nil {
		perms = []registry.Permission{registry.PermSpeech, registry.PermListen}
	}
	safety := s.safety
	if safety == "" {
		safety = registry.SafetyLow
	}
	return &registry.Manifest{ID: s.id, Version: "1.0.0", Name: s.id, Description: "test skill " + s.id,
		Permissions: perms, SafetyLevel: safety, Timeout: s.timeout,
		Limits: registry.Limits{CallsPerMinute: registry.MaxCallsPerMinute}}
}

func (s *testSkill) Locale() fs.FS {
	m := fstest.MapFS{}
	for name, tmpl := range s.intents {
		m["en-us/"+name+".intent"] = &fstest.MapFile{Data: []byte(tmpl + "\n")}
	}
	return m
}

func (s *testSkill) Handle(ctx context.Context, req *protocol.Request) (*protocol.Response, error) {
	return s.handle(ctx, req)
}

// configured adds a hub manifest to a test skill.
type configured struct{ *testSkill }

func (c configured) SkillConfig() protocol.ManifestSkillConfig { return *c.conf }

// say answers with one spoken line; final ends the skill.
func say(text string, final bool) func(context.Context, *protocol.Request) (*protocol.Response, error) {
	return func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
		a, _ := json.Marshal(jcp.NewAction(jcp.Say(text)))
		return protocol.NewSkillAction(req, req.Data.Skill, a, final), nil
	}
}

type hubOpts struct {
	skills   []hubserver.Skill
	http     []hubserver.HTTPSkill
	verifier hubserver.Verifier
	limits   hubserver.Limits
	timeouts hubserver.Timeouts
}

// startHub serves a hub on a loopback httptest server; both stop with
// the test.
func startHub(t *testing.T, o hubOpts) (*hubserver.Server, *httptest.Server) {
	t.Helper()
	hub, err := hubserver.New(hubserver.Config{Skills: o.skills, HTTPSkills: o.http, Verifier: o.verifier,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Limits: o.limits, Timeouts: o.timeouts})
	require.NoError(t, err)
	ts := httptest.NewServer(hub.Handler())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(t, hub.Close(ctx))
		ts.Close()
	})
	return hub, ts
}

// robot is a test client of the hub link.
type robot struct {
	t  *testing.T
	c  *wire.Conn
	ws *websocket.Conn
}

func wsURL(ts *httptest.Server, path string) string {
	return "ws" + strings.TrimPrefix(ts.URL, "http") + path
}

// dial connects to path speaking enc; header may carry Authorization.
func dial(t *testing.T, ts *httptest.Server, path string, enc wire.Encoding, header http.Header) *robot {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, resp, err := websocket.Dial(ctx, wsURL(ts, path), &websocket.DialOptions{
		Subprotocols: wire.Offer(enc), HTTPHeader: header})
	require.NoError(t, err)
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	got, err := wire.Negotiated(ws.Subprotocol())
	require.NoError(t, err)
	require.Equal(t, enc, got)
	r := &robot{t: t, c: wire.NewConn(ws, enc), ws: ws}
	t.Cleanup(func() { _ = ws.CloseNow() })
	return r
}

func (r *robot) send(m *protocol.HubRequest) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	require.NoError(r.t, r.c.WriteRequest(ctx, m))
}

func (r *robot) recv() *protocol.HubResponse {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	m, err := r.c.ReadResponse(ctx)
	require.NoError(r.t, err)
	return m
}

// untilFinal reads the messages of one transaction up to its final one.
func (r *robot) untilFinal() []*protocol.HubResponse {
	r.t.Helper()
	var out []*protocol.HubResponse
	for {
		m := r.recv()
		out = append(out, m)
		if m.Final != nil && *m.Final {
			return out
		}
		require.Less(r.t, len(out), 16, "no final message")
	}
}

func types(ms []*protocol.HubResponse) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Type
	}
	return out
}

func modePtr(m string) *string { return &m }

// robotContext is what a robot reports; skill nil means no cloud skill.
func robotContext(skill *protocol.SkillData) protocol.Context {
	c := protocol.Context{General: protocol.GeneralData{Release: "1.9.2", Lang: "en-US"}}
	if skill != nil {
		c.Skill = *skill
	}
	return c
}

// listenNLU sends one CLIENT_NLU transaction.
func (r *robot) listenNLU(tid, intentName string, rules []string, skill *protocol.SkillData) {
	r.send(protocol.NewListen(protocol.ListenData{Lang: "en-US", Rules: rules, Mode: modePtr(protocol.ModeClientNLU)},
		protocol.WithTransID(tid)))
	r.send(protocol.NewContext(robotContext(skill), protocol.WithTransID(tid)))
	r.send(protocol.NewClientNLU(protocol.NLUFromSlots(intentName, nil, rules), protocol.WithTransID(tid)))
}

// listenASR sends one CLIENT_ASR transaction.
func (r *robot) listenASR(tid, text string, rules []string, hotphrase bool, skill *protocol.SkillData) {
	r.send(protocol.NewListen(protocol.ListenData{Lang: "en-US", Rules: rules, Hotphrase: hotphrase,
		Mode: modePtr(protocol.ModeClientASR)}, protocol.WithTransID(tid)))
	r.send(protocol.NewClientASR(text, protocol.WithTransID(tid)))
	r.send(protocol.NewContext(robotContext(skill), protocol.WithTransID(tid)))
}

// spoken is the text an action's SLIM says.
func spoken(t *testing.T, m *protocol.HubResponse) string {
	t.Helper()
	require.Equal(t, protocol.TypeSkillAction, m.Type)
	a, err := jcp.ParseAction(m.Action.Action)
	require.NoError(t, err)
	var out []string
	jcp.EachSLIM(a.Behavior, func(s *jcp.SLIM) {
		if s.Play != nil {
			out = append(out, s.Play.ESML)
		}
	})
	return strings.Join(out, " ")
}

// newServer serves an already built hub; the test closes the listener.
func newServer(t *testing.T, hub *hubserver.Server) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(hub.Handler())
	t.Cleanup(ts.Close)
	return ts
}

func newHTTPServer(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts
}
