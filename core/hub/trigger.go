package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/store"
)

// ErrNothingEligible is Trigger's answer when the hub has no proactive
// skill for the trigger (PROACTIVE {}).
var ErrNothingEligible = errors.New("hub: no proactive skill is eligible")

// Trigger asks the hub's /v1/proactive for a proactive skill (TRIGGER
// source for looperID, then CONTEXT). When the hub picks one (PROACTIVE
// {match}), its proxy is launched proactively through the host and takes
// over the transaction, so the skill's SKILL_ACTION runs on the body like
// any proactive launch; a question it asks waits for its answer as usual.
func (r *Remote) Trigger(ctx context.Context, source, looperID string) error {
	if !r.client.Available() {
		return fmt.Errorf("hub trigger %s: %w: %s", source, ErrUnavailable, r.client.State())
	}
	rt := protocol.RuntimeContext{}
	if r.cfg.Runtime != nil {
		rt = r.cfg.Runtime()
	}
	general := protocol.GeneralData{Release: r.cfg.Release, Lang: r.cfg.Lang}
	tx, err := r.client.TransactProactive(ctx,
		protocol.NewTrigger(source, looperID),
		protocol.NewContext(protocol.Context{General: general, Runtime: rt}))
	if err != nil {
		return fmt.Errorf("hub trigger %s: %w", source, err)
	}
	handed := false
	defer func() {
		if !handed {
			tx.Close()
		}
	}()
	for {
		resp, err := tx.Next(ctx)
		if Ended(err) {
			return fmt.Errorf("hub trigger %s: %w", source, ErrNothingEligible)
		}
		if err != nil {
			return fmt.Errorf("hub trigger %s: %w", source, err)
		}
		switch resp.Type {
		case protocol.TypeProactive:
			m := resp.Proactive.Match
			if m == nil {
				r.log.Info("hub trigger: nothing eligible", "source", source)
				return fmt.Errorf("hub trigger %s: %w", source, ErrNothingEligible)
			}
			target := m.SkillID
			if target == "" {
				target = m.CloudSkill
			}
			p := r.proxy(target)
			if p == nil {
				return fmt.Errorf("hub trigger %s: the hub chose %q, which is not in its catalog", source, clip(target))
			}
			memo, err := json.Marshal(map[string]string{SlotTransaction: tx.ID})
			if err != nil {
				return err
			}
			r.client.park(tx)
			handed = true
			r.log.Info("hub proactive launch", "source", source, "skill_id", target)
			if err := r.cfg.Host.Proactive(ctx, store.Timer{SkillID: p.busID(), BusSession: session.DefaultID,
				Lang: r.cfg.Lang, Memo: memo, Label: "hub " + source}); err != nil {
				return fmt.Errorf("hub trigger %s: %w", source, err)
			}
			// By now a question it asked waits for its answer.
			r.log.Info("hub proactive turn done", "source", source, "skill_id", target)
			return nil
		case protocol.TypeError:
			return fmt.Errorf("hub trigger %s: %s (%s)", source, resp.Error.Message, resp.Error.Code)
		}
	}
}
