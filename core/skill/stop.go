package skill

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/session"
)

// runKey names the running actions of one skill in one bus session.
type runKey struct{ session, skill string }

// errStopped is the cause of an action cancelled by a stop: the handler is
// done, not failed.
var errStopped = errors.New("stopped on request")

// track registers a running action so a stop can cancel it.
func (h *Host) track(ctx context.Context, sessionID, skillID string) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	k := runKey{sessionID, skillID}
	h.runMu.Lock()
	h.nextRun++
	n := h.nextRun
	if h.running[k] == nil {
		h.running[k] = map[int]context.CancelCauseFunc{}
	}
	h.running[k][n] = cancel
	h.runMu.Unlock()
	return ctx, func() {
		h.runMu.Lock()
		delete(h.running[k], n)
		if len(h.running[k]) == 0 {
			delete(h.running, k)
		}
		h.runMu.Unlock()
		cancel(nil)
	}
}

// stopRunning cancels the actions of one skill in a session, or of every
// skill when skillID is empty; the executor then stops speech and motion.
func (h *Host) stopRunning(sessionID, skillID string) {
	h.runMu.Lock()
	defer h.runMu.Unlock()
	for k, runs := range h.running {
		if k.session == sessionID && (skillID == "" || k.skill == skillID) {
			for _, cancel := range runs {
				cancel(errStopped)
			}
		}
	}
}

// StartStop subscribes the host to ovos.stop (stop everything the body does
// for that session, STOP-06) and ovos.stop.ping (answer can_handle: true for
// each skill with an action running in that session, STOP-04). Call the
// returned function to unsubscribe.
func (h *Host) StartStop() (func(), error) {
	sub, err := h.cfg.Bus.SubscribeAll([]string{pipeline.TopicStop, pipeline.TopicStopPing}, h.onStop,
		bus.WithName("skills-stop"), bus.WithQueue(bus.DefaultQueueLen, bus.DropNewest))
	if err != nil {
		return nil, fmt.Errorf("skill host: %w", err)
	}
	return sub.Close, nil
}

func (h *Host) onStop(ctx context.Context, m bus.Message) {
	s, _, err := session.FromMessage(m)
	if err != nil {
		return // malformed carrier: dropped (SES-08)
	}
	if m.Type == pipeline.TopicStop {
		h.stopRunning(s.ID(), "")
		h.forgetAll(s.ID(), "")
		return
	}
	h.runMu.Lock()
	var busy []string
	for k := range h.running {
		if k.session == s.ID() {
			busy = append(busy, k.skill)
		}
	}
	h.runMu.Unlock()
	sort.Strings(busy)
	for _, id := range busy {
		pong := m.Reply(pipeline.TopicStopPong, map[string]any{"skill_id": id, "can_handle": true})
		pong.Context[bus.KeySkillID] = id
		if err := h.cfg.Bus.Publish(ctx, pong); err != nil {
			h.log.Warn("answering stop ping", "skill_id", id, "err", err)
		}
	}
}
