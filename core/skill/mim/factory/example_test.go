package factory_test

import (
	"context"
	"fmt"

	"github.com/openjibo/jibod/core/skill/graph"
	"github.com/openjibo/jibod/core/skill/mim"
	"github.com/openjibo/jibod/core/skill/mim/factory"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/jcp"
)

// A question with its no-match ladder, run as a graph skill: the launch
// asks, garbage gets the first no-match prompt.
func ExampleQN() {
	q, err := mim.Parse([]byte(`{"mim_type": "question", "rule_name": "timer/duration", "prompts": [
		{"prompt_category": "Entry-Core", "prompt_sub_category": "Q", "prompt": "For how long?"},
		{"prompt_category": "Errors", "prompt_sub_category": "NM", "index": 1, "prompt": "How many minutes?"}]}`), "HowLong.mim")
	if err != nil {
		fmt.Println(err)
		return
	}
	g, err := factory.QN("how-long", factory.Options{MIMs: factory.MIMs(q)})
	if err != nil {
		fmt.Println(err)
		return
	}
	skill, err := graph.NewSkill("timer", g, graph.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	rc := protocol.Context{
		General: protocol.GeneralData{AccountID: "acct", RobotID: "Maple-Otter-Lantern-Quiet"},
		Skill:   protocol.Skill("timer"),
	}
	say := func(resp *protocol.Response) {
		a, _ := jcp.ParseAction(resp.Action.Action)
		slim := a.Behavior.(*jcp.SLIM)
		fmt.Println(slim.Play.ESML, slim.Listen.Contexts)
	}

	resp, _ := skill.Handle(context.Background(), protocol.NewListenLaunch(rc, protocol.NLUFromSlots("set_timer", nil, nil),
		protocol.ASRResult{Text: "set a timer"}, nil))
	say(resp)

	rc.Skill.Session = resp.Action.Skill.Session
	resp, _ = skill.Handle(context.Background(), protocol.NewListenUpdate(rc, protocol.NLUFromSlots("", nil, nil),
		protocol.ASRResult{Text: "blue"}))
	say(resp)
	fmt.Println(string(resp.Action.Skill.Session.Data))
	// Output:
	// For how long? [timer/duration]
	// How many minutes? [timer/duration]
	// {"_mim":{"noMatch":1,"noInput":0,"noMatchMax":false,"noInputMax":false}}
}
