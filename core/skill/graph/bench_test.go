package graph_test

import (
	"context"
	"testing"

	"github.com/openjibo/jibod/core/skill/protocol"
)

// BenchmarkSkillTurns measures a whole two-turn conversation through
// GraphSkill: launch (question) and update (answer, announcement), with
// request and response validation, analytics and session encoding.
func BenchmarkSkillTurns(b *testing.B) {
	s := newSkill(b, timerGraph(b))
	ctx := context.Background()
	req := launch(skillName, "set_timer", "set a timer")
	b.ReportAllocs()
	for b.Loop() {
		resp, err := s.Handle(ctx, req)
		if err != nil || resp.Type != protocol.TypeSkillAction {
			b.Fatal(err, resp.Type)
		}
		up := update(skillName, resp.Action.Skill.Session, "set_duration", map[string]string{"minutes": "five"}, "five minutes")
		resp, err = s.Handle(ctx, up)
		if err != nil || resp.Type != protocol.TypeSkillAction {
			b.Fatal(err, resp.Type)
		}
	}
}
