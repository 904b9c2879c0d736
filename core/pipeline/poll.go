package pipeline

import (
	"context"
	"fmt"
	"time"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/session"
)

// DefaultPollWindow is the collection window of the stop, converse and
// fallback polls (STOP-03, CONV-06, FALLBACK-1 §6.1 recommend 0.5 s).
const DefaultPollWindow = 500 * time.Millisecond

// maxPongs bounds the answers one poll keeps; more are dropped.
const maxPongs = 256

// poll collects the answers to one round's ping: messages on topic whose
// utterance_id is the round's (PIPE-02) and whose session is the round's.
type poll struct {
	sub *bus.Subscription
	ch  chan bus.Message
}

// openPoll subscribes before the ping goes out, so no answer is missed.
func openPoll(b *bus.Bus, topic string, r Round) (*poll, error) {
	uid := r.Entry.ContextString(bus.KeyUtteranceID)
	sid := r.Session.ID()
	p := &poll{ch: make(chan bus.Message, maxPongs)}
	sub, err := b.Subscribe(topic, func(_ context.Context, m bus.Message) {
		if m.ContextString(bus.KeyUtteranceID) != uid || sessionIDOf(m) != sid {
			return // an answer to another round never decides this one
		}
		select {
		case p.ch <- m:
		default:
		}
	}, bus.WithName("poll "+topic), bus.WithQueue(maxPongs, bus.DropNewest))
	if err != nil {
		return nil, fmt.Errorf("subscribing to %s: %w", topic, err)
	}
	p.sub = sub
	return p, nil
}

func (p *poll) close() { p.sub.Close() }

// collect reads answers until the window closes, ctx ends or done reports
// that the outcome is decided.
func (p *poll) collect(ctx context.Context, window time.Duration, take func(bus.Message) (done bool)) {
	t := time.NewTimer(window)
	defer t.Stop()
	for {
		select {
		case m := <-p.ch:
			if take(m) {
				return
			}
		case <-t.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// pong is a validated poll answer.
type pong struct {
	skillID   string
	canHandle bool
	errorCode string
}

// readPong applies the answer rules shared by STOP-04, CONV-06 and
// FALLBACK-1 §6.1: data.skill_id a non-empty string equal to the emitter's
// context.skill_id (REG-03), can_handle a real boolean (never coerced). A
// pong that fails them cannot claim.
func readPong(m bus.Message) (pong, bool) {
	id, _ := m.Data["skill_id"].(string)
	if id == "" || m.ContextString(bus.KeySkillID) != id {
		return pong{}, false
	}
	ch, ok := m.Data["can_handle"].(bool)
	if !ok {
		return pong{skillID: id}, true // counts as "cannot handle"
	}
	code, _ := m.Data["error_code"].(string)
	return pong{skillID: id, canHandle: ch, errorCode: code}, true
}

// roundFor builds a Round when a RoundPlugin is called through plain Match:
// the entry is synthesised from the session, with no utterance_id to
// correlate answers by, so polls still work but are not correlated.
func roundFor(utterances []string, lang string, s session.Session) Round {
	m := bus.NewMessage(TopicHandle, map[string]any{"utterances": utterances, "lang": lang})
	m.Context[bus.KeySession] = s.Map()
	return Round{Utterances: utterances, Lang: lang, Session: s, Entry: m}
}

// nowSeconds is unix seconds as a float, the clock of activated_at and
// expires_at.
func nowSeconds(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }
