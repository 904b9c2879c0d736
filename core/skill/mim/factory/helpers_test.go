package factory_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/graph"
	"github.com/openjibo/jibod/core/skill/mim"
	"github.com/openjibo/jibod/core/skill/mim/factory"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/jcp"
)

const skillID = "test-skill"

// mims are the mim package's test MIMs.
var mims = os.DirFS("../testdata")

func loadSet(t testing.TB) *mim.Set {
	t.Helper()
	set, err := mim.LoadDir(mims, "mims")
	require.NoError(t, err)
	return set
}

func parseMIM(t testing.TB, name, src string) *mim.MIM {
	t.Helper()
	m, err := mim.Parse([]byte(src), name+".mim")
	require.NoError(t, err)
	return m
}

// slimmer is deterministic: seeded choices, numbered ids.
func slimmer() *mim.Slimmer {
	n := 0
	return &mim.Slimmer{
		Rand:   rand.New(rand.NewPCG(1, 2)),
		NewID:  func() string { n++; return "b" + strconv.Itoa(n) },
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
}

// testNow is 2024-06-03 15:00 UTC, a Monday afternoon.
var testNow = time.Date(2024, 6, 3, 15, 0, 0, 0, time.UTC)

func opts(src factory.MIMSource) factory.Options {
	return factory.Options{MIMs: src, Slimmer: slimmer(), Now: func() time.Time { return testNow }}
}

// robot is the robot's context: Ann and Bob in the loop; speaker as given.
func robot(speaker string) protocol.Context {
	rt := protocol.RuntimeContext{
		Character: protocol.Character{Emotion: protocol.Emotion{Name: "NEUTRAL"}},
		Location:  protocol.Location{City: "Boston"},
		Loop: protocol.Loop{
			Users: []protocol.LooperInfo{
				{FirstName: "Ann", Gender: "female", ID: "u-ann"},
				{FirstName: "Bob", PhoneticName: "Bawb", Gender: "male", ID: "u-bob"},
			},
			Owner: "u-ann",
		},
	}
	if speaker != "" {
		rt.Perception.Speaker = &speaker
	}
	return protocol.Context{
		General: protocol.GeneralData{AccountID: "acct-1", RobotID: "Maple-Otter-Lantern-Quiet", Lang: "en-US", Release: "1.9.2"},
		Runtime: rt,
		Skill:   protocol.Skill(skillID),
	}
}

// said is what one response makes the robot do.
type said struct {
	ESML     []string // every PLAY, in order
	Listen   []string // the last SLIM's LISTEN contexts; nil when it does not listen
	Display  bool     // a SLIM shows a DISPLAY
	Final    bool
	End      bool // the skill ended: action null
	Action   json.RawMessage
	Session  *protocol.Session
	Offers   []protocol.SkillOfferProperties
	Behavior jcp.Behavior
}

// convo drives a graph skill turn by turn, as the robot would.
type convo struct {
	t       *testing.T
	skill   *graph.Skill
	speaker string
	session *protocol.Session
}

func newConvo(t *testing.T, g *graph.Graph, speaker string) *convo {
	t.Helper()
	s, err := graph.NewSkill(skillID, g, graph.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	return &convo{t: t, skill: s, speaker: speaker}
}

// launch sends LISTEN_LAUNCH with an intent and a memo (nil for none).
func (c *convo) launch(memo json.RawMessage) said {
	req := protocol.NewListenLaunch(robot(c.speaker), protocol.NLUFromSlots("start", nil, nil),
		protocol.ASRResult{Text: "start", Confidence: 0.9}, memo)
	return c.send(req)
}

// answer sends LISTEN_UPDATE: intent "" and text "" is silence.
func (c *convo) answer(intent, text string, entities map[string]string) said {
	rc := robot(c.speaker)
	rc.Skill.Session = c.session
	asr := protocol.ASRResult{Text: text}
	if text != "" {
		asr.Confidence = 0.9
	}
	return c.send(protocol.NewListenUpdate(rc, protocol.NLUFromSlots(intent, entities, nil), asr))
}

func (c *convo) send(req *protocol.Request) said {
	c.t.Helper()
	resp, err := c.skill.Handle(context.Background(), req)
	require.NoError(c.t, err)
	require.Nil(c.t, resp.Error, "skill answered ERROR: %+v", resp.Error)
	require.NotNil(c.t, resp.Action, "want a SKILL_ACTION, got %s", resp.Type)
	out := said{Session: resp.Action.Skill.Session, Final: resp.Action.Final != nil && *resp.Action.Final}
	c.session = out.Session
	for _, ev := range resp.Action.Analytics[skillID] {
		if ev.Event == protocol.EventSkillOffer {
			p, err := ev.SkillOffer()
			require.NoError(c.t, err)
			out.Offers = append(out.Offers, p)
		}
	}
	if string(resp.Action.Action) == "null" || resp.Action.Action == nil {
		out.End = true
		return out
	}
	out.Action = resp.Action.Action
	a, err := jcp.ParseAction(resp.Action.Action)
	require.NoError(c.t, err)
	out.Behavior = a.Behavior
	jcp.EachSLIM(a.Behavior, func(x *jcp.SLIM) {
		if x.Play != nil {
			out.ESML = append(out.ESML, x.Play.ESML)
		}
		out.Listen = nil
		if x.Listen != nil {
			out.Listen = x.Listen.Contexts
		}
		out.Display = out.Display || x.Display != nil
	})
	return out
}

// trace renders the session trace as the spec writes it.
func trace(s *protocol.Session) []string {
	out := []string{}
	for _, e := range s.Trace {
		t := "null"
		if e.Transition != nil {
			t = *e.Transition
		}
		out = append(out, fmt.Sprintf("[%d,%s]", e.NodeID, t))
	}
	return out
}

// sessionData decodes one member of the session's data.
func sessionData(t *testing.T, s *protocol.Session, key string, v any) {
	t.Helper()
	var data map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(s.Data, &data))
	raw, ok := data[key]
	require.True(t, ok, "session data has no %s: %s", key, s.Data)
	require.NoError(t, json.Unmarshal(raw, v))
}

func dialogState(t *testing.T, s *protocol.Session) mim.DialogState {
	var st mim.DialogState
	sessionData(t, s, "_mim", &st)
	return st
}

// say is a final announcement node, to show which exit a subgraph took.
func say(esml string) *graph.JCPNode {
	return graph.JCP("say "+esml, func(context.Context, *graph.Data) (*jcp.Action, error) {
		return jcp.NewAction(jcp.Say(esml)), nil
	}, nil, graph.TransitionDone).Final()
}

// withExits puts sub in a parent graph that says which of sub's exits
// was taken: exit X says "exit X".
func withExits(t *testing.T, sub *graph.Graph) *graph.Graph {
	t.Helper()
	g := graph.New("parent", "Done")
	var binds []graph.Bind
	var nodes []*graph.JCPNode
	for _, e := range sub.Exits() {
		n := say("exit " + e)
		nodes = append(nodes, n)
		binds = append(binds, graph.To(e, n))
	}
	require.NoError(t, g.AddSubGraph(sub, binds...))
	for _, n := range nodes {
		require.NoError(t, g.AddNode(n, graph.ToExit(graph.TransitionDone, "Done")))
	}
	require.NoError(t, g.Finalize())
	return g
}

var _ = assert.Equal
