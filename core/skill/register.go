package skill

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/intent"
)

// DefaultRegisterTimeout bounds waiting for the intent service to confirm a
// skill's registrations.
const DefaultRegisterTimeout = 5 * time.Second

var vocabRef = regexp.MustCompile(`<([a-z_][a-z0-9_]*)>`)

// Register announces every skill's intents and entities from its locale on
// the registration topics (INTENT-4), as any skill would, then asks
// ovos.intent.list which of them the engines accepted. Since the intent
// service answers in the order it receives messages, the answer covers all
// the registrations. An intent that was refused is an error naming it (the
// service logs why, REG-08).
func (h *Host) Register(ctx context.Context) error {
	for _, m := range h.Skills() {
		s, _ := h.skill(m.ID)
		if err := h.register(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

func (h *Host) register(ctx context.Context, s Skill) error {
	id := s.Manifest().ID
	fsys := s.Locale()
	if fsys == nil {
		return nil
	}
	loc, err := intent.LoadLocale(fsys, ".")
	if err != nil {
		return fmt.Errorf("skill %s: loading locale: %w", id, err)
	}
	want := map[string]bool{}
	origin := bus.NewMessage("jibo.skill.register", nil)
	origin.Context[bus.KeySource] = id
	origin.Context[bus.KeySkillID] = id // REG-03
	for _, tag := range loc.Languages() {
		lang := loc.Langs[tag]
		for _, name := range lang.Names(intent.RoleEntity) {
			r := lang.Resource(intent.RoleEntity, name)
			if err := h.cfg.Bus.Publish(ctx, origin.Forward(intent.TopicRegisterEntity, map[string]any{
				"skill_id": id, "entity_name": name, "lang": tag, "samples": lineTexts(r.Lines)})); err != nil {
				return fmt.Errorf("skill %s: registering entity %s: %w", id, name, err)
			}
		}
		for _, def := range loc.TemplateIntents("", id) {
			if def.Lang != tag {
				continue
			}
			samples, err := inlineVocab(def.Samples, def.Vocab)
			if err != nil {
				return fmt.Errorf("skill %s: intent %s (%s): %w", id, def.IntentName, tag, err)
			}
			data := map[string]any{"skill_id": id, "intent_name": def.IntentName, "lang": tag, "samples": samples}
			if len(def.Blacklist) > 0 {
				data["blacklist"] = def.Blacklist
			}
			if len(def.RequiredSlots) > 0 {
				data["required_slots"] = def.RequiredSlots
			}
			if len(def.SlotTypes) > 0 {
				data["slot_types"] = def.SlotTypes
			}
			if len(def.SlotBlacklist) > 0 {
				sb := map[string]any{}
				for k, v := range def.SlotBlacklist {
					sb[k] = v
				}
				data["slot_blacklist"] = sb
			}
			if err := h.cfg.Bus.Publish(ctx, origin.Forward(intent.TopicRegisterTemplate, data)); err != nil {
				return fmt.Errorf("skill %s: registering intent %s: %w", id, def.IntentName, err)
			}
			want[def.IntentName+"/"+tag] = true
		}
	}
	if len(want) == 0 {
		return nil
	}
	got, err := h.listIntents(ctx, id)
	if err != nil {
		return fmt.Errorf("skill %s: confirming registration: %w", id, err)
	}
	for k := range got {
		delete(want, k)
	}
	if len(want) > 0 {
		var missing []string
		for k := range want {
			missing = append(missing, k)
		}
		sort.Strings(missing)
		return fmt.Errorf("skill %s: intents refused by the intent service (see its log): %s", id, strings.Join(missing, ", "))
	}
	h.log.Info("skill registered", "skill_id", id, "intents", len(got))
	return nil
}

// listIntents asks ovos.intent.list for a skill's intents (REG-12).
func (h *Host) listIntents(ctx context.Context, skillID string) (map[string]bool, error) {
	ctx, cancel := context.WithTimeout(ctx, DefaultRegisterTimeout)
	defer cancel()
	me := "skill-host-" + skillID
	answers := make(chan bus.Message, 1)
	sub, err := h.cfg.Bus.Subscribe(intent.TopicList+".response", func(_ context.Context, m bus.Message) {
		if m.IsFor(me) && len(m.Destinations()) > 0 {
			select {
			case answers <- m:
			default:
			}
		}
	})
	if err != nil {
		return nil, err
	}
	defer sub.Close()
	q := bus.NewMessage(intent.TopicList, map[string]any{"skill_id": skillID})
	q.Context[bus.KeySource] = me
	if err := h.cfg.Bus.Publish(ctx, q); err != nil {
		return nil, err
	}
	select {
	case m := <-answers:
		got := map[string]bool{}
		list, _ := m.Data["intents"].([]any)
		for _, e := range list {
			if o, ok := e.(map[string]any); ok {
				got[fmt.Sprint(o["intent_name"], "/", o["lang"])] = true
			}
		}
		return got, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("no answer to %s: %w", intent.TopicList, ctx.Err())
	}
}

// inlineVocab replaces each <name> with the vocabulary's sample set as a
// group, the first step of the expansion algorithm (§3.2): the broadcast
// carries self-contained templates, as engines never see <name> (GRM-06).
func inlineVocab(templates []string, vocab map[string][]string) ([]string, error) {
	sets := map[string]string{}
	var firstErr error
	out := make([]string, 0, len(templates))
	for _, t := range templates {
		r := vocabRef.ReplaceAllStringFunc(t, func(ref string) string {
			name := ref[1 : len(ref)-1]
			if g, ok := sets[name]; ok {
				return g
			}
			var all []string
			for _, v := range vocab[name] {
				samples, _, err := intent.Expand(v, vocab, intent.ExpandOptions{})
				if err != nil && firstErr == nil {
					firstErr = fmt.Errorf("vocabulary <%s>: %w", name, err)
				}
				all = append(all, samples...)
			}
			if len(all) == 0 {
				if firstErr == nil {
					firstErr = fmt.Errorf("vocabulary <%s> is not defined", name)
				}
				return ref
			}
			g := "(" + strings.Join(all, "|") + ")"
			sets[name] = g
			return g
		})
		out = append(out, r)
	}
	return out, firstErr
}

func lineTexts(lines []intent.Line) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.Text
	}
	return out
}
