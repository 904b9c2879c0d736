package intent

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/openjibo/jibod/core/bus"
)

// TopicSkillRegister is the type of the message every registration
// broadcast of RegistrationMessages is derived from; it is never published.
const TopicSkillRegister = "jibo.skill.register"

// RegistrationMessages returns the INTENT-4 broadcasts that register a
// skill's locale, as any skill sends them: per language, sorted, an
// ovos.entity.register per .entity (REG-01), then an
// ovos.intent.register.template per .intent (REG-06) with its paired
// .blacklist, .required, typed slots and slot-paired .blacklist. Each
// carries context.source and context.skill_id set to skillID (REG-03) and
// no session, so it registers in the "default" scope (REG-04). Vocabulary
// references are inlined as groups of the vocabulary's sample set, the
// first step of §3.2, so every payload stands alone: engines never see
// <name> (GRM-06).
func RegistrationMessages(loc *Locale, skillID string) ([]bus.Message, error) {
	if err := validID("skill_id", skillID, false); err != nil {
		return nil, fmt.Errorf("building registrations: %w", err)
	}
	origin := bus.NewMessage(TopicSkillRegister, nil)
	origin.Context[bus.KeySource] = skillID
	origin.Context[bus.KeySkillID] = skillID
	var out []bus.Message
	for _, tag := range loc.Languages() {
		lang := loc.Langs[tag]
		in := newInliner(lang)
		for _, name := range lang.Names(RoleEntity) {
			r := lang.Resource(RoleEntity, name)
			samples, err := in.inline(lineTexts(r.Lines))
			if err != nil {
				return nil, fmt.Errorf("building registrations: entity %s: %w", r.Path, err)
			}
			out = append(out, origin.Forward(TopicRegisterEntity, map[string]any{
				"skill_id": skillID, "entity_name": name, "lang": tag, "samples": samples}))
		}
		for _, name := range lang.Names(RoleIntent) {
			def, _ := lang.TemplateIntent("", skillID, name)
			data, err := in.payload(def)
			if err != nil {
				return nil, fmt.Errorf("building registrations: intent %s: %w", lang.Resource(RoleIntent, name).Path, err)
			}
			out = append(out, origin.Forward(TopicRegisterTemplate, data))
		}
	}
	return out, nil
}

// inliner replaces <name> references with the vocabulary's sample set,
// expanding each vocabulary once.
type inliner struct {
	ex   *expander
	sets map[string]string
}

func newInliner(lang *Language) *inliner {
	return &inliner{ex: newExpander(lang.Vocab(), DefaultMaxSamples), sets: map[string]string{}}
}

// payload builds the REG-06 payload of def.
func (in *inliner) payload(def TemplateIntent) (map[string]any, error) {
	samples, err := in.inline(def.Samples)
	if err != nil {
		return nil, err
	}
	data := map[string]any{"skill_id": def.SkillID, "intent_name": def.IntentName, "lang": def.Lang, "samples": samples}
	if len(def.Blacklist) > 0 {
		if data["blacklist"], err = in.inline(def.Blacklist); err != nil {
			return nil, err
		}
	}
	if len(def.RequiredSlots) > 0 {
		data["required_slots"] = slices.Clone(def.RequiredSlots)
	}
	if len(def.SlotTypes) > 0 {
		types := map[string]any{}
		for k, v := range def.SlotTypes {
			types[k] = v
		}
		data["slot_types"] = types
	}
	if len(def.SlotBlacklist) > 0 {
		sb := map[string]any{}
		for _, slot := range slices.Sorted(maps.Keys(def.SlotBlacklist)) {
			values, err := in.inline(def.SlotBlacklist[slot])
			if err != nil {
				return nil, err
			}
			sb[slot] = values
		}
		data["slot_blacklist"] = sb
	}
	return data, nil
}

// inline rewrites each template's <name> references.
func (in *inliner) inline(templates []string) ([]string, error) {
	out := make([]string, len(templates))
	for i, t := range templates {
		var b strings.Builder
		rest := t
		for {
			open := strings.IndexByte(rest, '<')
			if open < 0 {
				b.WriteString(rest)
				break
			}
			end := strings.IndexByte(rest[open:], '>')
			if end < 0 {
				b.WriteString(rest) // malformed; the engine reports it
				break
			}
			name := rest[open+1 : open+end]
			group, err := in.group(name)
			if err != nil {
				return nil, fmt.Errorf("template %q: %w", t, err)
			}
			b.WriteString(rest[:open])
			b.WriteString(group)
			rest = rest[open+end+1:]
		}
		out[i] = b.String()
	}
	return out, nil
}

// group returns vocabulary name's sample set as template text: the single
// sample as is, or a group of them.
func (in *inliner) group(name string) (string, error) {
	if g, ok := in.sets[name]; ok {
		return g, nil
	}
	if !validName(name) {
		return "", fmt.Errorf("<%s> is not a vocabulary reference (GRM-04)", name)
	}
	samples, err := in.ex.samplesOf(name)
	if err != nil {
		return "", fmt.Errorf("vocabulary <%s>: %w", name, err)
	}
	g := samples[0]
	if len(samples) > 1 {
		g = "(" + strings.Join(samples, "|") + ")"
	}
	in.sets[name] = g
	return g, nil
}

// DefaultConfirmTimeout bounds RegisterLocale's wait for the intent
// service's answer.
const DefaultConfirmTimeout = 5 * time.Second

// RegisterLocale publishes a skill's RegistrationMessages on b, then asks
// ovos.intent.list (REG-12) which of its intents the engines accepted. The
// intent service answers in the order it receives messages, so the answer
// covers every registration. An intent that was refused is an error naming
// it, its language and its file; the service logs why (REG-08). It returns
// how many of the skill's intents are registered. timeout bounds the wait
// (DefaultConfirmTimeout when <= 0).
func RegisterLocale(ctx context.Context, b *bus.Bus, loc *Locale, skillID string, timeout time.Duration) (int, error) {
	return RegisterLocaleExtra(ctx, b, loc, skillID, nil, timeout)
}

// RegisterLocaleExtra is RegisterLocale with extra fields on the REG-06
// payloads of some intents, by intent name: requires_context and
// excludes_context (CTX-11, CTX-12), which no locale file carries.
func RegisterLocaleExtra(ctx context.Context, b *bus.Bus, loc *Locale, skillID string, extra map[string]map[string]any, timeout time.Duration) (int, error) {
	msgs, err := RegistrationMessages(loc, skillID)
	if err != nil {
		return 0, fmt.Errorf("skill %s: %w", skillID, err)
	}
	want := map[string]string{} // "intent/lang" → file
	for _, m := range msgs {
		if m.Type == TopicRegisterTemplate {
			for k, v := range extra[m.DataString("intent_name")] {
				m.Data[k] = v
			}
		}
		if err := b.Publish(ctx, m); err != nil {
			return 0, fmt.Errorf("skill %s: publishing %s: %w", skillID, m.Type, err)
		}
		if m.Type == TopicRegisterTemplate {
			tag := m.DataString("lang")
			name := m.DataString("intent_name")
			want[name+"/"+tag] = loc.Langs[tag].Resource(RoleIntent, name).Path
		}
	}
	if len(want) == 0 {
		return 0, nil
	}
	got, err := listIntents(ctx, b, skillID, timeout)
	if err != nil {
		return 0, fmt.Errorf("skill %s: confirming the registration: %w", skillID, err)
	}
	var refused []string
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if !got[k] {
			refused = append(refused, fmt.Sprintf("%s (%s)", k, want[k]))
		}
	}
	if len(refused) > 0 {
		return len(want) - len(refused), fmt.Errorf("skill %s: intents refused by the intent service (see its log): %s",
			skillID, strings.Join(refused, ", "))
	}
	return len(want), nil
}

// ConfirmDeregistered waits until the intent service lists none of a
// skill's intents, which it does once it has handled the deregistrations
// published before (the service handles its topics in order). Without it a
// removed skill's phrases could still match for a moment after its removal
// was reported.
func ConfirmDeregistered(ctx context.Context, b *bus.Bus, skillID string, timeout time.Duration) error {
	got, err := listIntents(ctx, b, skillID, timeout)
	if err != nil {
		return fmt.Errorf("skill %s: confirming the deregistration: %w", skillID, err)
	}
	if len(got) > 0 {
		return fmt.Errorf("skill %s: the intent service still lists %d of its intents", skillID, len(got))
	}
	return nil
}

// listIntents asks ovos.intent.list for a skill's intents (REG-12) and
// returns them as "intent/lang".
func listIntents(ctx context.Context, b *bus.Bus, skillID string, timeout time.Duration) (map[string]bool, error) {
	if timeout <= 0 {
		timeout = DefaultConfirmTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	me := "skill-host-" + skillID
	answers := make(chan bus.Message, 1)
	sub, err := b.Subscribe(TopicList+".response", func(_ context.Context, m bus.Message) {
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
	q := bus.NewMessage(TopicList, map[string]any{"skill_id": skillID})
	q.Context[bus.KeySource] = me
	if err := b.Publish(ctx, q); err != nil {
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
		return nil, fmt.Errorf("no answer to %s: %w", TopicList, ctx.Err())
	}
}
