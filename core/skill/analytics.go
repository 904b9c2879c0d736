package skill

import (
	"context"
	"encoding/json"

	"github.com/openjibo/jibod/core/skill/protocol"
)

// TopicAnalytics carries the analytics events of a SKILL_ACTION, as the
// robot forwards them (jibo.md §3.2 step 7): {skill_id, analytics}, the
// analytics object as on the wire with each Skill Entry's last_skill and
// initial_intent set by the robot.
const TopicAnalytics = "jibo.skill.analytics"

// forwardAnalytics publishes a SKILL_ACTION's analytics. A Skill Entry gets
// the launch intent as initial_intent (IntentResponse on a turn of a
// conversation going on) and the skill launched before this one in the
// bus session as last_skill, which only the robot knows ("n/a" when none
// was, as Pegasus reports it).
func (h *Host) forwardAnalytics(ctx context.Context, t turn, intentName string, a protocol.Analytics) {
	h.lastMu.Lock()
	last := h.lastSkill[t.busSession]
	h.lastMu.Unlock()
	if last == "" {
		last = protocol.EntryNA
	}
	out := make(protocol.Analytics, len(a))
	for name, events := range a {
		evs := make([]protocol.AnalyticsEvent, len(events))
		for i, ev := range events {
			evs[i] = ev
			if ev.Event != protocol.EventSkillEntry {
				continue
			}
			p, err := ev.SkillEntry()
			if err != nil {
				h.log.Warn("skill entry analytics unreadable; forwarded as sent", "skill_id", t.skillID, "err", err)
				continue
			}
			p.LastSkill, p.InitialIntent = last, intentName
			if e, err := p.Event(); err == nil {
				e.Extra = ev.Extra
				evs[i] = e
			}
		}
		out[name] = evs
	}
	raw, err := json.Marshal(out)
	if err != nil {
		h.log.Warn("encoding analytics", "skill_id", t.skillID, "err", err)
		return
	}
	m := t.origin.Forward(TopicAnalytics, map[string]any{"skill_id": t.skillID, "analytics": json.RawMessage(raw)})
	if err := h.cfg.Bus.Publish(ctx, m); err != nil {
		h.log.Warn("publishing analytics", "skill_id", t.skillID, "err", err)
	}
}

// launched notes the skill launched last in a bus session.
func (h *Host) launched(busSession, skillID string) {
	h.lastMu.Lock()
	defer h.lastMu.Unlock()
	if len(h.lastSkill) >= maxSessionsTracked {
		clear(h.lastSkill) // bounded: at worst one last_skill is forgotten
	}
	h.lastSkill[busSession] = skillID
}

// maxSessionsTracked bounds the bus sessions whose last skill is kept.
const maxSessionsTracked = 1024
