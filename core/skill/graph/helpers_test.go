package graph_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/graph"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/jcp"
)

const skillName = "timer"

func robotContext(skill string) protocol.Context {
	return protocol.Context{
		General: protocol.GeneralData{AccountID: "acct-1", RobotID: "Maple-Otter-Lantern-Quiet", Lang: "en-US", Release: "1.9.2"},
		Skill:   protocol.Skill(skill),
	}
}

// launch is a LISTEN_LAUNCH for skill with the given intent and text.
func launch(skill, intent, text string) *protocol.Request {
	return protocol.NewListenLaunch(robotContext(skill), protocol.NLUFromSlots(intent, nil, nil),
		protocol.ASRResult{Text: text, Confidence: 0.9}, nil)
}

// update is a LISTEN_UPDATE continuing session with an answer.
func update(skill string, session *protocol.Session, intent string, slots map[string]string, text string) *protocol.Request {
	c := robotContext(skill)
	c.Skill.Session = session
	return protocol.NewListenUpdate(c, protocol.NLUFromSlots(intent, slots, nil), protocol.ASRResult{Text: text, Confidence: 0.9})
}

// newData prepares turn data for req.
func newData(t testing.TB, req *protocol.Request) *graph.Data {
	t.Helper()
	d, err := graph.NewData(req, skillName, nil)
	require.NoError(t, err)
	return d
}

// question is a node asking esml and leaving by "Success" when the answer
// has an intent, "NoMatch" when not.
func question(name, esml string) *graph.JCPNode {
	return graph.JCP(name,
		func(context.Context, *graph.Data) (*jcp.Action, error) {
			return jcp.NewAction(jcp.Question(esml, "test/answer")), nil
		},
		func(_ context.Context, d *graph.Data) (graph.ExitResult, error) {
			if d.NLU().IntentName() != "" {
				return graph.ExitResult{Transition: "Success", Result: d.Result}, nil
			}
			return graph.ExitResult{Transition: "NoMatch", Result: d.Result}, nil
		},
		"Success", "NoMatch")
}

// say is a node announcing esml, then leaving by "Done".
func say(name, esml string) *graph.JCPNode {
	return graph.JCP(name, func(context.Context, *graph.Data) (*jcp.Action, error) {
		return jcp.NewAction(jcp.Say(esml)), nil
	}, nil, "Done")
}

// trace renders a session trace as the spec writes it: "[id,transition]".
func trace(s *protocol.Session) []string {
	out := []string{}
	for _, e := range s.Trace {
		t := "null"
		if e.Transition != nil {
			t = *e.Transition
		}
		out = append(out, "["+strconv.Itoa(e.NodeID)+","+t+"]")
	}
	return out
}

// esmlOf returns the ESML of every PLAY in a, in order.
func esmlOf(t testing.TB, raw json.RawMessage) []string {
	t.Helper()
	a, err := jcp.ParseAction(raw)
	require.NoError(t, err)
	var out []string
	jcp.EachSLIM(a.Behavior, func(s *jcp.SLIM) {
		if s.Play != nil {
			out = append(out, s.Play.ESML)
		}
	})
	return out
}
