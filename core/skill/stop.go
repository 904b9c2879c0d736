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

// run is one action in flight: how to cancel it, and the utterance whose
// lifecycle started it ("" outside one).
type run struct {
	cancel    context.CancelCauseFunc
	utterance string
}

// track registers a running action so a stop can cancel it; utterance is
// the id of the lifecycle it answers, "" for none.
func (h *Host) track(ctx context.Context, sessionID, skillID, utterance string) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	k := runKey{sessionID, skillID}
	h.runMu.Lock()
	h.nextRun++
	n := h.nextRun
	if h.running[k] == nil {
		h.running[k] = map[int]run{}
	}
	h.running[k][n] = run{cancel: cancel, utterance: utterance}
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
// The actions of lifecycle except ("" for none) go on: a stop never cuts
// the answer to the utterance that asked for it.
func (h *Host) stopRunning(sessionID, skillID, except string) {
	h.runMu.Lock()
	defer h.runMu.Unlock()
	for k, runs := range h.running {
		if k.session == sessionID && (skillID == "" || k.skill == skillID) {
			for _, r := range runs {
				if except == "" || r.utterance != except {
					r.cancel(errStopped)
				}
			}
		}
	}
}

// Running reports whether any skill has an action running in bus session
// sessionID: something a stop would end, a ringing timer among them.
func (h *Host) Running(sessionID string) bool {
	h.runMu.Lock()
	defer h.runMu.Unlock()
	for k := range h.running {
		if k.session == sessionID {
			return true
		}
	}
	return false
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
		// The global stop's own word after it (the stop plugin's
		// Match.After) belongs to the utterance that asked for the stop.
		utterance, _ := m.Context[bus.KeyUtteranceID].(string)
		h.stopRunning(s.ID(), "", utterance)
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
