package graph_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/openjibo/jibod/core/skill/graph"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/jcp"
)

// A two-turn conversation: the skill asks a question, the robot listens,
// and the user's answer comes back as a LISTEN_UPDATE carrying the session
// the skill returned. The graph:
//
//	AskColour --Answered--> Reply --Done--> (exit Success)
//	AskColour --Unsure----> (exit NoAnswer)
func Example() {
	ask := graph.JCP("AskColour",
		// Enter: ask, and listen with the NLU rule "colours/favourite".
		func(context.Context, *graph.Data) (*jcp.Action, error) {
			return jcp.NewAction(jcp.Question("What's your favourite colour?", "colours/favourite")), nil
		},
		// Exit, on the next turn: read the answer.
		func(_ context.Context, d *graph.Data) (graph.ExitResult, error) {
			colour, _ := d.NLU().Entities["colour"].(string)
			if colour == "" {
				return graph.ExitResult{Transition: "Unsure"}, nil
			}
			// Session data travels with the session to later turns.
			if err := d.Set("colour", colour); err != nil {
				return graph.ExitResult{}, err
			}
			return graph.ExitResult{Transition: "Answered", Result: colour}, nil
		},
		"Answered", "Unsure")
	reply := graph.JCP("Reply", func(_ context.Context, d *graph.Data) (*jcp.Action, error) {
		return jcp.NewAction(jcp.Say(fmt.Sprintf("I like %s too.", d.Result))), nil
	}, nil, "Done").Final()

	g := graph.New("colours", "Success", "NoAnswer")
	if err := g.AddNode(ask, graph.To("Answered", reply), graph.ToExit("Unsure", "NoAnswer")); err != nil {
		fmt.Println(err)
		return
	}
	_ = g.AddNode(reply, graph.ToExit("Done", "Success")) // errors come back from Finalize too
	skill, err := graph.NewSkill("colours", g, graph.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}

	robot := protocol.Context{
		General: protocol.GeneralData{AccountID: "acct-1", RobotID: "Maple-Otter-Lantern-Quiet", Lang: "en-US", Release: "1.9.2"},
		Skill:   protocol.Skill("colours"),
	}
	show := func(resp *protocol.Response) {
		if resp.Type != protocol.TypeSkillAction {
			fmt.Println(resp.Type, resp.Error.Message)
			return
		}
		a := resp.Action
		action, err := jcp.ParseAction(a.Action)
		if err != nil {
			fmt.Println(err)
			return
		}
		slim := action.Behavior.(*jcp.SLIM)
		fmt.Printf("say %q listen=%v final=%v\n", slim.Play.ESML, slim.Listen != nil, *a.Final)
		tr, _ := json.Marshal(a.Skill.Session.Trace)
		fmt.Printf("  session nodeID=%d data=%s trace=%s\n", a.Skill.Session.NodeID, a.Skill.Session.Data, tr)
	}

	// Turn 1: "let's talk about colours" launches the skill.
	launch := protocol.NewListenLaunch(robot, protocol.NLUFromSlots("talk_colours", nil, nil),
		protocol.ASRResult{Text: "let's talk about colours", Confidence: 0.9}, nil)
	resp, err := skill.Handle(context.Background(), launch)
	if err != nil {
		fmt.Println(err)
		return
	}
	show(resp)

	// Turn 2: the answer, with the session the skill returned.
	robot.Skill.Session = resp.Action.Skill.Session
	answer := protocol.NewListenUpdate(robot, protocol.NLUFromSlots("colour", map[string]string{"colour": "green"}, nil),
		protocol.ASRResult{Text: "green", Confidence: 0.8})
	if resp, err = skill.Handle(context.Background(), answer); err != nil {
		fmt.Println(err)
		return
	}
	show(resp)

	// The graph, for Graphviz (jibod skills graph colours).
	_ = graph.WriteDOT(os.Stdout, skill.Graph())
	// Output:
	// say "What's your favourite colour?" listen=true final=false
	//   session nodeID=0 data={} trace=[{"nodeID":0,"transition":null}]
	// say "I like green too." listen=false final=true
	//   session nodeID=1 data={"colour":"green"} trace=[{"nodeID":0,"transition":"Answered"},{"nodeID":1,"transition":null}]
	// digraph "colours" {
	// 	label="colours";
	// 	labelloc=t;
	// 	rankdir=LR;
	// 	fontname="Helvetica";
	// 	node [shape=box, style="rounded,filled", fontname="Helvetica"];
	// 	edge [fontname="Helvetica", fontsize=10];
	// 	n0 [label="0: AskColour", fillcolor="#b7e4c7"];
	// 	n1 [label="1: Reply", fillcolor="#dbe9f6"];
	// 	x0 [label="Success", shape=doublecircle, fillcolor="#f4cccc"];
	// 	x1 [label="NoAnswer", shape=doublecircle, fillcolor="#f4cccc"];
	// 	n0 -> n1 [label="Answered"];
	// 	n0 -> x1 [label="Unsure"];
	// 	n1 -> x0 [label="Done"];
	// }
}
