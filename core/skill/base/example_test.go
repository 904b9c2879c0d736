package base_test

import (
	"context"
	"fmt"

	"github.com/openjibo/jibod/core/skill/base"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/jcp"
)

// A one-shot skill: the handler sees only requests that passed GraphSkill's
// checks, and whatever goes wrong inside it reaches the robot as an ERROR.
func Example() {
	skill, err := base.New("clock", func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
		if req.Data.Result.NLU.IntentName() != "time_now" {
			return nil, fmt.Errorf("no answer for intent %q", req.Data.Result.NLU.IntentName())
		}
		return base.ActionResponse(req, req.Data.Skill, jcp.NewAction(jcp.Say("It's noon.")), true)
	}, base.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	robot := protocol.Context{
		General: protocol.GeneralData{AccountID: "acct-1", RobotID: "Maple-Otter-Lantern-Quiet", Lang: "en-US", Release: "1.9.2"},
		Skill:   protocol.Skill("clock"),
	}
	for _, intent := range []string{"time_now", "date_today"} {
		req := protocol.NewListenLaunch(robot, protocol.NLUFromSlots(intent, nil, nil), protocol.ASRResult{Text: "…", Confidence: 1}, nil)
		resp, err := skill.Handle(context.Background(), req)
		if err != nil {
			fmt.Println(err)
			return
		}
		if resp.Type == protocol.TypeError {
			fmt.Println(resp.Type, resp.Error.Message)
			continue
		}
		fmt.Println(resp.Type, *resp.Action.Final)
	}
	// Output:
	// SKILL_ACTION true
	// ERROR skill clock: handling LISTEN_LAUNCH: no answer for intent "date_today"
}
