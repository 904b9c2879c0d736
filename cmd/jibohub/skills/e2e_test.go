// End-to-end tests of jibohub's skills behind the hub, over real loopback
// websockets, as a robot speaks to it.
package skills_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/cmd/jibohub/skills/fact"
	"github.com/openjibo/jibod/cmd/jibohub/skills/greeter"
	"github.com/openjibo/jibod/cmd/jibohub/skills/trivia"
	"github.com/openjibo/jibod/core/hub/wire"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/internal/hubserver"
	"github.com/openjibo/jibod/jcp"
)

const seed = 7

func startHub(tb testing.TB, timeouts hubserver.Timeouts) *httptest.Server {
	tb.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	f, err := fact.New(fact.Options{Seed: seed, Logger: log})
	require.NoError(tb, err)
	tr, err := trivia.New(trivia.Options{Seed: seed, Logger: log})
	require.NoError(tb, err)
	g, err := greeter.New(greeter.Options{Logger: log})
	require.NoError(tb, err)
	hub, err := hubserver.New(hubserver.Config{Skills: []hubserver.Skill{f, tr, g}, Logger: log, Timeouts: timeouts})
	require.NoError(tb, err)
	ts := httptest.NewServer(hub.Handler())
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(tb, hub.Close(ctx))
		ts.Close()
	})
	return ts
}

type robot struct {
	tb testing.TB
	c  *wire.Conn
}

func dial(tb testing.TB, ts *httptest.Server, path string, enc wire.Encoding) *robot {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http")+path,
		&websocket.DialOptions{Subprotocols: wire.Offer(enc)})
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = ws.CloseNow() })
	return &robot{tb: tb, c: wire.NewConn(ws, enc)}
}

func (r *robot) send(ms ...*protocol.HubRequest) {
	for _, m := range ms {
		require.NoError(r.tb, r.c.WriteRequest(context.Background(), m))
	}
}

func (r *robot) untilFinal() []*protocol.HubResponse {
	r.tb.Helper()
	var out []*protocol.HubResponse
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		m, err := r.c.ReadResponse(ctx)
		cancel()
		require.NoError(r.tb, err)
		out = append(out, m)
		if m.Final != nil && *m.Final {
			return out
		}
	}
}

func types(ms []*protocol.HubResponse) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Type
	}
	return out
}

func mode(s string) *string { return &s }

func general() protocol.Context {
	return protocol.Context{General: protocol.GeneralData{Release: "1.9.2"}}
}

// asr is one CLIENT_ASR transaction; skill is the stored skill or nil.
func (r *robot) asr(text string, rules []string, hotphrase bool, skill *protocol.SkillData) []*protocol.HubResponse {
	tid := protocol.NewTransID()
	c := general()
	if skill != nil {
		c.Skill = *skill
	}
	r.send(protocol.NewListen(protocol.ListenData{Lang: "en-US", Hotphrase: hotphrase, Rules: rules,
		Mode: mode(protocol.ModeClientASR)}, protocol.WithTransID(tid)),
		protocol.NewContext(c, protocol.WithTransID(tid)),
		protocol.NewClientASR(text, protocol.WithTransID(tid)))
	return r.untilFinal()
}

// said is what an action says, and the contexts its question listens with.
func said(tb testing.TB, m *protocol.HubResponse) (string, []string) {
	tb.Helper()
	require.Equal(tb, protocol.TypeSkillAction, m.Type, "%+v", m.Error)
	if string(m.Action.Action) == "" || string(m.Action.Action) == "null" {
		return "", nil
	}
	a, err := jcp.ParseAction(m.Action.Action)
	require.NoError(tb, err)
	var text []string
	var listen []string
	jcp.EachSLIM(a.Behavior, func(s *jcp.SLIM) {
		if s.Play != nil {
			text = append(text, s.Play.ESML)
		}
		if s.Listen != nil {
			listen = s.Listen.Contexts
		}
	})
	return strings.Join(text, " "), listen
}

// A multi-turn game across transactions, the session travelling in
// CONTEXT; JSON and CBOR.
func TestTriviaGame(t *testing.T) {
	order := trivia.Order(seed, trivia.DefaultQuestion)
	for _, enc := range []wire.Encoding{wire.JSON, wire.CBOR} {
		t.Run(enc.String(), func(t *testing.T) {
			ts := startHub(t, hubserver.Timeouts{})
			r := dial(t, ts, hubserver.PathListenV1, enc)
			got := r.asr("let's play trivia", []string{"launch", "globals/global_commands_launch"}, true, nil)
			require.Equal(t, []string{"SOS", "EOS", "LISTEN", "SKILL_ACTION"}, types(got))
			assert.Equal(t, trivia.ID, got[2].Listen.Match.SkillID)
			text, listen := said(t, got[3])
			assert.Contains(t, text, "I'll ask you 3 questions")
			assert.Contains(t, text, "Question 1. "+trivia.Bank[order[0]].Text)
			assert.Equal(t, []string{trivia.RuleAnswer}, listen)
			skill := got[3].Action.Skill

			// Right answer, in a sentence.
			got = r.asr("i think the answer is "+trivia.Bank[order[0]].Accepts[0], listen, false, &skill)
			require.Equal(t, []string{"SOS", "EOS", "LISTEN", "SKILL_ACTION"}, types(got))
			assert.Equal(t, "answer", got[2].Listen.NLU.IntentName())
			text, listen = said(t, got[3])
			assert.Regexp(t, `^(That's right!|Correct!) Question 2\. `, text)
			skill = got[3].Action.Skill

			// Wrong answer.
			got = r.asr("banana", listen, false, &skill)
			text, listen = said(t, got[3])
			assert.Contains(t, text, "Not quite. The answer was "+trivia.Bank[order[1]].Answer)
			assert.Contains(t, text, "Question 3.")
			skill = got[3].Action.Skill

			// Last answer: the score, and the skill is done.
			got = r.asr(trivia.Bank[order[2]].Accepts[0], listen, false, &skill)
			text, listen = said(t, got[3])
			assert.Contains(t, text, "You got 2 out of 3.")
			assert.Nil(t, listen)
			assert.True(t, *got[3].Action.Final)
		})
	}
}

func TestTriviaStop(t *testing.T) {
	ts := startHub(t, hubserver.Timeouts{})
	r := dial(t, ts, hubserver.PathListen, wire.JSON)
	got := r.asr("play trivia", []string{"launch"}, true, nil)
	_, listen := said(t, got[3])
	skill := got[3].Action.Skill
	got = r.asr("stop", listen, false, &skill)
	text, _ := said(t, got[3])
	assert.Equal(t, "Okay, we'll stop there. You got 0 out of 3.", text)
}

func TestFactClientNLU(t *testing.T) {
	ts := startHub(t, hubserver.Timeouts{})
	r := dial(t, ts, hubserver.PathListen, wire.CBOR)
	tid := protocol.NewTransID()
	r.send(protocol.NewListen(protocol.ListenData{Lang: "en-US", Rules: []string{"launch"}, Mode: mode(protocol.ModeClientNLU)}, protocol.WithTransID(tid)),
		protocol.NewClientNLU(protocol.NLUFromSlots(fact.IntentFunFact, nil, []string{"launch"}), protocol.WithTransID(tid)),
		protocol.NewContext(general(), protocol.WithTransID(tid)))
	got := r.untilFinal()
	require.Equal(t, []string{"SOS", "EOS", "LISTEN", "SKILL_ACTION"}, types(got))
	text, _ := said(t, got[3])
	assert.NotEmpty(t, text)
	assert.True(t, *got[3].Action.Final)
}

// PROACTIVE on a trigger; "yes" redirects to trivia.
func TestGreeterRedirectsToTrivia(t *testing.T) {
	order := trivia.Order(seed, trivia.DefaultQuestion)
	ts := startHub(t, hubserver.Timeouts{})
	p := dial(t, ts, hubserver.PathProactive, wire.JSON)
	tid := protocol.NewTransID()
	p.send(protocol.NewTrigger(protocol.TriggerNewArrival, "", protocol.WithTransID(tid)),
		protocol.NewContext(general(), protocol.WithTransID(tid)))
	got := p.untilFinal()
	require.Equal(t, []string{"PROACTIVE", "SKILL_ACTION"}, types(got))
	assert.Equal(t, greeter.ID, got[0].Proactive.Match.SkillID)
	text, listen := said(t, got[1])
	assert.Equal(t, "Hi there, welcome back! Do you want to play trivia?", text)
	assert.Equal(t, []string{"globals/yes_no"}, listen)

	r := dial(t, ts, hubserver.PathListen, wire.JSON)
	skill := got[1].Action.Skill
	got = r.asr("yes please", listen, false, &skill)
	require.Equal(t, []string{"SOS", "EOS", "LISTEN", "SKILL_REDIRECT", "SKILL_ACTION"}, types(got))
	assert.Equal(t, trivia.ID, got[3].Redirect.Match.SkillID)
	text, _ = said(t, got[4])
	assert.Contains(t, text, "Question 1. "+trivia.Bank[order[0]].Text)

	// "no" ends politely.
	tid = protocol.NewTransID()
	p.send(protocol.NewTrigger(protocol.TriggerSurprise, "", protocol.WithTransID(tid)),
		protocol.NewContext(general(), protocol.WithTransID(tid)))
	got = p.untilFinal()
	text, listen = said(t, got[1])
	assert.Equal(t, "Hey, I have an idea. Do you want to play trivia?", text)
	skill = got[1].Action.Skill
	got = r.asr("no", listen, false, &skill)
	text, _ = said(t, got[3])
	assert.Equal(t, "Okay, maybe later.", text)
}

// Every recorded exchange (examples/hub, the real robots' JSON shapes) is
// accepted: each transaction, on a websocket of its own as real robots
// open, gets replies of the recorded types in the recorded order. As a
// robot would, a CONTEXT carrying a skill session carries the session the
// hub really sent before, and the answer turn's LISTEN the listen
// contexts of the question really asked (the recorded ones are
// illustrative).
func TestRecordedExchanges(t *testing.T) {
	files, err := filepath.Glob("../../../examples/hub/*.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	ts := startHub(t, hubserver.Timeouts{Context: 200 * time.Millisecond})
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			f, err := os.Open(file)
			require.NoError(t, err)
			defer f.Close()
			recs, err := wire.ReadRecorded(f)
			require.NoError(t, err)
			var stored *protocol.SkillData
			var storedListen []string
			for i := 0; i < len(recs); {
				tid, endpoint := transaction(recs[i])
				var want []string
				var sent []*protocol.HubRequest
				for ; i < len(recs) && recTID(recs[i]) == tid; i++ {
					if recs[i].Dir == wire.DirRobot {
						m := recs[i].Request
						if m.Type == protocol.TypeContext && m.Context.Skill.ID != nil && stored != nil {
							m.Context.Skill = *stored
						}
						if m.Type == protocol.TypeListen && !m.Listen.Hotphrase && storedListen != nil {
							m.Listen.Rules = storedListen
						}
						sent = append(sent, m)
					} else {
						want = append(want, recs[i].Response.Type)
					}
				}
				r := dial(t, ts, endpoint, wire.JSON)
				r.send(sent...)
				got := r.untilFinal()
				require.Equal(t, want, types(got), "transaction %s", tid)
				for _, m := range got {
					assert.Equal(t, tid, m.TransID)
					if m.Type == protocol.TypeSkillAction {
						sd := m.Action.Skill
						stored = &sd
						_, storedListen = said(t, m)
					}
				}
			}
		})
	}
}

func recTID(r wire.Recorded) string {
	if r.Request != nil {
		return r.Request.TransID
	}
	return r.Response.TransID
}

func transaction(r wire.Recorded) (string, string) {
	ep := r.Endpoint
	if ep == "" {
		ep = hubserver.PathListenV1
	}
	return recTID(r), ep
}

// BenchmarkClientNLUFact is one CLIENT_NLU transaction into the
// in-process fact skill over a loopback websocket, from LISTEN to the
// final SKILL_ACTION. A robot may call one skill at most calls_per_minute
// (600) times a minute, so the benchmark takes a fresh link every 500
// transactions, as that many robots would.
func BenchmarkClientNLUFact(b *testing.B) {
	ts := startHub(b, hubserver.Timeouts{})
	for _, enc := range []wire.Encoding{wire.JSON, wire.CBOR} {
		b.Run(enc.String(), func(b *testing.B) {
			var r *robot
			nlu := protocol.NLUFromSlots(fact.IntentFunFact, nil, []string{"launch"})
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				if n%500 == 0 {
					r = dial(b, ts, hubserver.PathListen, enc)
				}
				n++
				tid := protocol.NewTransID()
				r.send(protocol.NewListen(protocol.ListenData{Lang: "en-US", Rules: []string{"launch"}, Mode: mode(protocol.ModeClientNLU)}, protocol.WithTransID(tid)),
					protocol.NewContext(general(), protocol.WithTransID(tid)),
					protocol.NewClientNLU(nlu, protocol.WithTransID(tid)))
				if got := r.untilFinal(); got[len(got)-1].Type != protocol.TypeSkillAction {
					b.Fatalf("got %s", got[len(got)-1].Type)
				}
			}
		})
	}
}
