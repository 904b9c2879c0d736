package diag

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/pipeline"
	ovos "github.com/openjibo/jibod/core/session"
)

// Recent utterances the shell remembers for `pipeline`.
const (
	maxRecent   = 20
	maxInFlight = 64
)

// lifecycleRecord is one utterance's way through the pipeline.
type lifecycleRecord struct {
	Time      time.Time `json:"time"`
	ID        string    `json:"utterance_id"`
	Utterance string    `json:"utterance"`
	// Outcome is skill:intent when matched, "unmatched", or "error: …".
	Outcome string  `json:"outcome"`
	Stage   string  `json:"stage,omitempty"`
	Ms      float64 `json:"ms"`
	start   time.Time
}

// lifecycles follows utterance lifecycles on the bus by utterance_id and
// keeps the last few that ended.
type lifecycles struct {
	sub *bus.Subscription
	now func() time.Time

	mu     sync.Mutex
	open   map[string]*lifecycleRecord
	order  []string // open ids, oldest first
	recent []lifecycleRecord
}

func newLifecycles(b Bus, now func() time.Time) (*lifecycles, error) {
	l := &lifecycles{now: now, open: map[string]*lifecycleRecord{}}
	sub, err := b.SubscribeAll([]string{pipeline.TopicMatched, pipeline.TopicUnmatched, pipeline.TopicHandlerError, pipeline.TopicHandled},
		l.observe, bus.WithName("shell-lifecycles"), bus.WithQueue(256, bus.DropNewest))
	if err != nil {
		return nil, fmt.Errorf("watching utterances: %w", err)
	}
	l.sub = sub
	return l, nil
}

func (l *lifecycles) observe(_ context.Context, m bus.Message) {
	id := m.ContextString(bus.KeyUtteranceID)
	if id == "" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.open[id]
	if r == nil {
		if len(l.order) >= maxInFlight { // forget the oldest that never ended
			delete(l.open, l.order[0])
			l.order = l.order[1:]
		}
		now := l.now()
		r = &lifecycleRecord{Time: now, ID: id, start: now}
		l.open[id] = r
		l.order = append(l.order, id)
	}
	switch m.Type {
	case pipeline.TopicMatched:
		r.Utterance = m.DataString("utterance")
		r.Outcome = m.DataString("skill_id") + ":" + m.DataString("intent_name")
		r.Stage = m.DataString("pipeline_id")
	case pipeline.TopicUnmatched:
		if us, ok := m.Data["utterances"].([]any); ok && len(us) > 0 {
			r.Utterance = fmt.Sprint(us[0])
		}
		r.Outcome = "unmatched"
	case pipeline.TopicHandlerError:
		r.Outcome = "error: " + clip(m.DataString("exception"), 80)
	case pipeline.TopicHandled:
		if e := m.DataString("error"); e != "" && r.Outcome == "" {
			r.Outcome = "error: " + clip(e, 80)
		}
		r.Ms = float64(l.now().Sub(r.start).Microseconds()) / 1000
		if r.Outcome == "" {
			r.Outcome = "handled"
		}
		delete(l.open, id)
		for i, o := range l.order {
			if o == id {
				l.order = append(l.order[:i], l.order[i+1:]...)
				break
			}
		}
		if len(l.recent) == maxRecent {
			l.recent = l.recent[1:]
		}
		l.recent = append(l.recent, *r)
	}
}

func (l *lifecycles) list() []lifecycleRecord {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]lifecycleRecord(nil), l.recent...)
}

func (l *lifecycles) close() { l.sub.Close() }

func sessionDefaults(stages []string) ovos.Defaults { return ovos.Defaults{Pipeline: stages} }
