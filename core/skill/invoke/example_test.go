package invoke_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/openjibo/jibod/core/skill/invoke"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/jcp"
)

func Example() {
	dir, _ := os.MkdirTemp("", "runs")
	defer os.RemoveAll(dir)
	runs := filepath.Join(dir, "skill-runs.jsonl")

	mem := invoke.NewLog(0)
	file, err := invoke.OpenFile(runs, invoke.FileOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	iv, err := invoke.New(invoke.Config{Recorder: invoke.Tee(mem, file)})
	if err != nil {
		fmt.Println(err)
		return
	}

	m := &registry.Manifest{ID: "jibo/clock", Version: "1.0.0", Name: "Clock", Description: "Tells the time.",
		Permissions: []registry.Permission{registry.PermSpeech}, SafetyLevel: registry.SafetyLow}
	clock := func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
		action, _ := jcp.NewAction(jcp.Sequence(jcp.Say("It is noon."),
			&jcp.LookAt{Base: jcp.Base{ID: "look"}, Target: jcp.LookTarget{Angle: &jcp.Vector2{X: 0.5}}})).MarshalJSON()
		return protocol.NewSkillAction(req, protocol.Skill("jibo.clock"), action, true), nil
	}
	req := protocol.NewListenLaunch(protocol.Context{Skill: protocol.Skill("jibo.clock")},
		protocol.NLUFromSlots("time_now", nil, nil), protocol.ASRResult{Text: "what time is it", Confidence: 1}, nil)

	reply, err := iv.Call(context.Background(), m, clock, req)
	fmt.Println(invoke.OutcomeOf(err))
	fmt.Println(err)
	fmt.Println(reply.Action == nil)

	_ = iv.Close(context.Background())
	_ = file.Close()
	// Another process, such as `jibod skills runs`, reads the file.
	recs, _ := invoke.ReadFile(runs, invoke.Filter{Skill: "jibo.clock"})
	fmt.Println(len(recs), recs[0].Skill, recs[0].Intent, recs[0].Outcome)
	// Output:
	// denied
	// skill jibo/clock: no "motion" permission: config.jcp.children[1]: LOOKAT turns the body
	// true
	// 1 jibo/clock time_now denied
}
