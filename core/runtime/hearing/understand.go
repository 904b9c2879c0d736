package hearing

import (
	"context"
	"errors"
	"strconv"

	"github.com/openjibo/jibod/audio/eval"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/core/skill/builtin/timer"
	"github.com/openjibo/jibod/core/skill/builtin/volume"
)

// Understander scores the eval's commands (eval.Understander): it
// matches a command through the robot's intent bands,
// surest first, as `jibod intents match` does.
type Understander struct {
	Intents *intent.Stack
	Lang    string
}

// Understand claims text as the robot would; ok is false when nothing
// matches.
func (u *Understander) Understand(ctx context.Context, text string) (eval.Meaning, bool, error) {
	if u.Intents == nil {
		return eval.Meaning{}, false, errors.New("no intent stack")
	}
	m, _, _, err := u.Intents.Claim(ctx, intent.Query{Hypotheses: intent.Texts(text), Lang: u.Lang, Session: session.Empty()})
	if err != nil {
		return eval.Meaning{}, false, err
	}
	if m == nil {
		return eval.Meaning{}, false, nil
	}
	return readSlots(eval.Meaning{Intent: m.SkillID + ":" + m.IntentName, Slots: m.Slots}), true, nil
}

// slotReaders read a slot as the skill consuming it does, so the eval
// scores what the robot would do rather than the words: the timer's
// length through the timer's own parser ("two minute" and "two minutes"
// are both 2m0s), the volume level through the volume skill's ("seven"
// and "7" are both 7). Only these two are normalised; every other slot
// is compared as text. A value its reader refuses stays text too.
var slotReaders = map[string]map[string]func(string) (string, bool){
	timer.ID + ":" + timer.IntentSet: {timer.SlotDuration: func(v string) (string, bool) {
		d, err := timer.ParseDuration(v)
		return d.String(), err == nil
	}},
	volume.ID + ":" + volume.IntentSet: {volume.SlotLevel: func(v string) (string, bool) {
		n, err := volume.ParseLevel(v)
		return strconv.Itoa(n), err == nil
	}},
}

// readSlots fills m.Read with the values slotReaders read from its slots.
func readSlots(m eval.Meaning) eval.Meaning {
	for slot, read := range slotReaders[m.Intent] {
		v, ok := m.Slots[slot]
		if !ok {
			continue
		}
		if r, ok := read(v); ok {
			if m.Read == nil {
				m.Read = map[string]string{}
			}
			m.Read[slot] = r
		}
	}
	return m
}
