package web

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/intent"
)

var queryN atomic.Uint64

// listSkills answers the page's skills panel with the installed skills'
// manifests and what the intent service holds: its registrations, and
// each registered skill's definitions (the sample phrasings). The page's
// script puts them together.
func (s *Server) listSkills(ctx context.Context) (any, error) {
	skills := []map[string]string{}
	if s.cfg.Skills != nil {
		for _, m := range s.cfg.Skills.Skills() {
			skills = append(skills, map[string]string{"id": m.ID, "bus_id": m.BusID(), "name": m.Name,
				"version": m.Version, "description": m.Description})
		}
	}
	ans, err := s.query(ctx, intent.TopicList, map[string]any{})
	if err != nil {
		return nil, err
	}
	list, _ := ans.Data["intents"].([]any)
	defs := map[string]any{}
	for _, e := range list {
		o, _ := e.(map[string]any)
		id, _ := o["skill_id"].(string)
		if _, done := defs[id]; done || id == "" {
			continue
		}
		defs[id] = nil // asked once, answered or not
		if d, err := s.query(ctx, intent.TopicDescribe, map[string]any{"skill_id": id, "session_id": intent.DefaultSession}); err == nil {
			defs[id] = d.Data["definitions"]
		}
	}
	return map[string]any{"skills": skills, "intents": list, "definitions": defs}, nil
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
