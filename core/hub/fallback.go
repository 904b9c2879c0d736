package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
)

// FallbackID is the remote fallback stage's pipeline id.
const FallbackID = "hub-fallback"

// Fallback is the pipeline stage that hands the hub what nothing on the
// robot understood, as CLIENT_ASR. It is available only while the link is
// up (PIPE-13), so an offline robot never waits for it. When the hub
// matches a cloud skill the stage claims the utterance for that skill's
// proxy with the open transaction in SlotTransaction: the hub has already
// called its skill, and the proxy reads the skill's SKILL_ACTION from that
// transaction instead of asking again.
type Fallback struct {
	r *Remote
}

var (
	_ pipeline.Plugin       = (*Fallback)(nil)
	_ pipeline.Availability = (*Fallback)(nil)
)

// Fallback returns the remote fallback stage of r.
func (r *Remote) Fallback() *Fallback { return &Fallback{r: r} }

// ID is FallbackID.
func (f *Fallback) ID() string { return FallbackID }

// Available reports whether the hub link is up.
func (f *Fallback) Available() bool { return f.r.client.Available() }

// Match sends the first utterance to the hub and claims it for the cloud
// skill the hub matched, or declines. When a cloud skill is active in the
// bus session (its conversation kept, see Remote.activeSkill), CONTEXT
// carries its {id, session} and the turn is no hot-phrase turn, as a real
// robot sends it (jibo.md §1.3): a hub that matches no launch intent then
// routes the text to that skill as LISTEN_UPDATE (§1.5). This is how an
// answer whose turn failed while the hub was gone reaches the skill when
// the user says it again.
func (f *Fallback) Match(ctx context.Context, utterances []string, lang string, sess session.Session) (*pipeline.Match, error) {
	if len(utterances) == 0 || !f.Available() {
		return nil, nil
	}
	text := utterances[0]
	mode := protocol.ModeClientASR
	sd, listen, active := f.r.activeSkill(sess.ID())
	rules := append([]string{"launch"}, listen...)
	c := protocol.Context{General: protocol.GeneralData{Release: f.r.cfg.Release, Lang: lang}, Skill: sd}
	if f.r.cfg.Runtime != nil {
		c.Runtime = f.r.cfg.Runtime()
	}
	tx, err := f.r.client.Transact(ctx,
		protocol.NewListen(protocol.ListenData{Lang: lang, Hotphrase: !active, Rules: rules, Mode: &mode}),
		protocol.NewContext(c),
		protocol.NewClientASR(text))
	if err != nil {
		return f.decline(err)
	}
	var running *protocol.SkillData
	if active {
		running = &sd
	}
	m, keep, err := f.read(ctx, tx, running, text, lang)
	if !keep {
		tx.Close()
	}
	if err != nil {
		return f.decline(err)
	}
	return m, nil
}

// decline is no match: an unreachable hub is not the stage's failure (it
// is simply unavailable), anything else counts for its breaker.
func (f *Fallback) decline(err error) (*pipeline.Match, error) {
	if unreachable(err) || errors.Is(err, ErrClosed) {
		f.r.log.Info("remote fallback: hub unreachable", "err", err)
		return nil, nil
	}
	return nil, err
}

// read follows the transaction up to the hub's LISTEN result; running is
// the active skill CONTEXT named, if any.
func (f *Fallback) read(ctx context.Context, tx *Transaction, running *protocol.SkillData, text, lang string) (*pipeline.Match, bool, error) {
	for {
		r, err := tx.Next(ctx)
		if Ended(err) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		switch r.Type {
		case protocol.TypeListen:
			match := r.Listen.Match
			if match == nil || isFinal(r) {
				return nil, false, nil // the hub understood nothing either
			}
			return f.claim(tx, match, running, r.Listen.NLU, text, lang)
		case protocol.TypeError:
			f.r.log.Info("remote fallback: hub error", "code", r.Error.Code, "message", r.Error.Message)
			return nil, false, nil
		case protocol.TypeSkillAction, protocol.TypeSkillRedirect:
			return nil, false, fmt.Errorf("%w: %s before the turn's LISTEN result", ErrProtocol, r.Type)
		}
	}
}

// claim turns the hub's match into the pipeline's. A match of the running
// skill that is no launch continues its conversation: the match says so,
// for the host to send the proxy an update rather than launch it afresh,
// and the transaction notes the session CONTEXT carried, for the proxy to
// hand back if the hub goes before the skill's action arrives.
func (f *Fallback) claim(tx *Transaction, match *protocol.MatchData, running *protocol.SkillData, nlu *protocol.NLUResult, text, lang string) (*pipeline.Match, bool, error) {
	target := match.SkillID
	if target == "" {
		target = match.CloudSkill
	}
	if running != nil && running.Name() == target && (match.Launch == nil || !*match.Launch) {
		tx.continues = running
	}
	slots := map[string]string{}
	intentName := ""
	if nlu != nil {
		intentName = nlu.IntentName()
		for k, v := range nlu.Entities {
			if k == SlotTransaction {
				continue
			}
			if s, ok := v.(string); ok {
				slots[k] = s
			} else if b, err := json.Marshal(v); err == nil {
				slots[k] = string(b)
			}
		}
	}
	m := &pipeline.Match{IntentName: cleanIntent(intentName), Lang: lang, Slots: slots, Utterance: text,
		Confidence: 0.5, Why: "the hub matched " + target}
	if match.OnRobot != nil && *match.OnRobot {
		if err := registry.ParseID(target); err != nil {
			return nil, false, fmt.Errorf("%w: on-robot match %q: %w", ErrProtocol, clip(target), err)
		}
		m.SkillID = registry.BusID(target)
		return m, false, nil
	}
	p := f.r.proxy(target)
	if p == nil {
		f.r.log.Warn("remote fallback: the hub matched a skill missing from its catalog", "skill_id", clip(target))
		f.r.LinkChanged(LinkState{Status: Up}) // fetch the catalog again
		return nil, false, nil
	}
	m.SkillID = p.busID()
	m.Slots[SlotTransaction] = tx.ID
	m.Continues = tx.continues != nil
	f.r.client.park(tx)
	return m, true, nil
}
