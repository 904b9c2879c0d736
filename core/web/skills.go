package web

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"sync/atomic"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/skill/registry"
)

// maxSamples is how many of an intent's sample phrasings the page shows.
const maxSamples = 3

// skillInfo is one skill as the page lists it.
type skillInfo struct {
	ID          string       `json:"id"`
	Name        string       `json:"name"`
	Version     string       `json:"version,omitempty"`
	Description string       `json:"description,omitempty"`
	Intents     []intentInfo `json:"intents"`
}

// intentInfo is one intent: its engine, whether it is on, and a few of
// the phrasings it was registered with.
type intentInfo struct {
	Name    string   `json:"name"`
	Method  string   `json:"method"`
	Enabled bool     `json:"enabled"`
	Samples []string `json:"samples,omitempty"`
}

var queryN atomic.Uint64

// listSkills lists the installed skills with the intents the intent
// service holds for each (the registrations of the default session).
func (s *Server) listSkills(ctx context.Context) (any, error) {
	bySkill := map[string]*skillInfo{}
	var order []string
	add := func(busID string) *skillInfo {
		if si, ok := bySkill[busID]; ok {
			return si
		}
		si := &skillInfo{ID: busID, Intents: []intentInfo{}}
		bySkill[busID] = si
		order = append(order, busID)
		return si
	}
	if s.cfg.Skills != nil {
		for _, m := range s.cfg.Skills.Skills() {
			si := add(registry.BusID(m.ID))
			si.ID, si.Name, si.Version, si.Description = m.ID, m.Name, m.Version, clip(m.Description, 400)
		}
	}
	ans, err := s.query(ctx, intent.TopicList, map[string]any{})
	if err != nil {
		return nil, err
	}
	list, _ := ans.Data["intents"].([]any)
	for _, e := range list {
		o, _ := e.(map[string]any)
		skillID, _ := o["skill_id"].(string)
		name, _ := o["intent_name"].(string)
		method, _ := o["method"].(string)
		enabled, _ := o["enabled"].(bool)
		if sess, _ := o["session_id"].(string); sess != "" && sess != intent.DefaultSession {
			continue // a conversation's own intents, not the skill's
		}
		if skillID == "" || name == "" {
			continue
		}
		si := add(skillID)
		if si.Name == "" {
			si.Name = skillID
		}
		si.Intents = append(si.Intents, intentInfo{Name: name, Method: method, Enabled: enabled})
	}
	for _, id := range order {
		si := bySkill[id]
		if len(si.Intents) == 0 {
			continue
		}
		samples, err := s.samples(ctx, id)
		if err != nil {
			s.log.Debug("web: no intent samples", "skill_id", id, "err", err)
		}
		for i := range si.Intents {
			si.Intents[i].Samples = samples[si.Intents[i].Name+"\x00"+si.Intents[i].Method]
		}
	}
	out := make([]skillInfo, 0, len(order))
	for _, id := range order {
		out = append(out, *bySkill[id])
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return map[string]any{"skills": out}, nil
}

// samples asks the intent service for a skill's definitions and returns
// the first few phrasings of each intent, keyed by name and method.
func (s *Server) samples(ctx context.Context, busID string) (map[string][]string, error) {
	ans, err := s.query(ctx, intent.TopicDescribe, map[string]any{"skill_id": busID, "session_id": intent.DefaultSession})
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	defs, _ := ans.Data["definitions"].([]any)
	for _, d := range defs {
		o, _ := d.(map[string]any)
		name, _ := o["intent_name"].(string)
		method, _ := o["method"].(string)
		def, _ := o["definition"].(map[string]any)
		key := name + "\x00" + method
		raw, _ := def["samples"].([]any)
		for _, v := range raw {
			if t, ok := v.(string); ok && len(out[key]) < maxSamples {
				out[key] = append(out[key], clip(t, 120))
			}
		}
	}
	return out, nil
}

// query asks the bus topic with data and waits for the answer addressed
// back.
func (s *Server) query(ctx context.Context, topic string, data map[string]any) (bus.Message, error) {
	me := "web-query-" + strconv.FormatUint(queryN.Add(1), 10)
	got := make(chan bus.Message, 1)
	sub, err := s.cfg.Bus.SubscribeAll([]string{topic + ".response"}, func(_ context.Context, m bus.Message) {
		if m.IsFor(me) && len(m.Destinations()) > 0 {
			select {
			case got <- m:
			default:
			}
		}
	}, bus.WithName(me), bus.WithQueue(16, bus.DropNewest))
	if err != nil {
		return bus.Message{}, fmt.Errorf("asking %s: %w", topic, err)
	}
	defer sub.Close()
	q := bus.NewMessage(topic, data)
	q.Context[bus.KeySource] = me
	ctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	if err := s.cfg.Bus.Publish(ctx, q); err != nil {
		return bus.Message{}, fmt.Errorf("asking %s: %w", topic, err)
	}
	select {
	case m := <-got:
		if ok, present := m.Data["ok"].(bool); present && !ok {
			return m, fmt.Errorf("asking %s: %v", topic, m.Data["error"])
		}
		return m, nil
	case <-ctx.Done():
		return bus.Message{}, fmt.Errorf("no answer to %s within %s", topic, queryTimeout)
	}
}
