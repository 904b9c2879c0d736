package protocol

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// Built-in analytics event names (jibo.md §2.4). The wire values are these
// strings, not SKILL_ENTRY/SKILL_OFFER.
const (
	EventSkillEntry = "Skill Entry"
	EventSkillOffer = "Skill Offer"
)

// EntryNA is what a Skill Entry's initial_intent and last_skill say when
// there is none: "n/a", as Pegasus sends (jibo.md §2.4), never "".
const EntryNA = "n/a"

// Modalities of a Skill Offer answer.
const (
	ModalitySpeech = "speech"
	ModalityTouch  = "touch"
	ModalityNA     = "n/a"
)

// Analytics maps a skill name to the events it reports.
type Analytics map[string][]AnalyticsEvent

// AnalyticsEvent is one reported event.
type AnalyticsEvent struct {
	// Event is the event name, e.g. EventSkillEntry.
	Event string
	// Properties are the event's properties, verbatim; nil means absent.
	// SkillEntry and SkillOffer decode the built-in ones.
	Properties json.RawMessage
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

func parseAnalytics(raw json.RawMessage) (Analytics, error) {
	m, err := mapOf(arrayOf(parseAnalyticsEvent))(raw)
	return Analytics(m), err
}

// UnmarshalJSON decodes analytics.
func (a *Analytics) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, a, parseAnalytics)
}

// MarshalJSON encodes analytics with skills in sorted order; a nil event
// list encodes as [].
func (a Analytics) MarshalJSON() ([]byte, error) { return a.appendJSON(nil) }

func (a Analytics) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, nil)
	for _, skill := range slices.Sorted(maps.Keys(a)) {
		list(&w, skill, a[skill])
	}
	return w.close()
}

func parseAnalyticsEvent(raw json.RawMessage) (AnalyticsEvent, error) {
	var e AnalyticsEvent
	o, err := readObject(raw)
	if err != nil {
		return e, err
	}
	field(o, "event", &e.Event, parseString)
	field(o, "properties", &e.Properties, parseRaw)
	e.Extra, err = o.done()
	return e, err
}

// UnmarshalJSON decodes an event, keeping unknown members in Extra.
func (e *AnalyticsEvent) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, e, parseAnalyticsEvent)
}

// MarshalJSON encodes an event, re-emitting Extra.
func (e AnalyticsEvent) MarshalJSON() ([]byte, error) { return e.appendJSON(nil) }

func (e AnalyticsEvent) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, e.Extra)
	w.str("event", e.Event)
	w.optRaw("properties", e.Properties)
	return w.close()
}

// SkillEntry decodes the properties of a Skill Entry event.
func (e AnalyticsEvent) SkillEntry() (SkillEntryProperties, error) {
	if e.Event != EventSkillEntry {
		return SkillEntryProperties{}, fmt.Errorf("decode %q properties: event is %q", EventSkillEntry, truncate(e.Event))
	}
	return parseProperties(e.Properties, parseSkillEntry)
}

// SkillOffer decodes the properties of a Skill Offer event.
func (e AnalyticsEvent) SkillOffer() (SkillOfferProperties, error) {
	if e.Event != EventSkillOffer {
		return SkillOfferProperties{}, fmt.Errorf("decode %q properties: event is %q", EventSkillOffer, truncate(e.Event))
	}
	return parseProperties(e.Properties, parseSkillOffer)
}

// parseProperties checks event properties a peer or a caller supplied
// before parsing them.
func parseProperties[T any](raw json.RawMessage, parse parser[T]) (T, error) {
	var zero T
	if kindOf(raw) != '{' {
		return zero, fieldErr("properties", "want object")
	}
	raw, err := entry(raw)
	if err != nil {
		return zero, fmt.Errorf("properties: %w", err)
	}
	v, err := parse(raw)
	if err != nil {
		return zero, at("properties", err)
	}
	return v, nil
}

// SkillEntryProperties are the properties of a Skill Entry event. The
// robot overwrites LastSkill and InitialIntent before forwarding.
type SkillEntryProperties struct {
	// InitialIntent is "initial_intent"; graph skills send EntryNA.
	InitialIntent string
	// Domain is "domain".
	Domain string
	// WasHeyJiboLaunch is "was_hey_jibo_launch".
	WasHeyJiboLaunch bool
	// UserInitiated is "user_initiated".
	UserInitiated bool
	// LastSkill is "last_skill": the skill launched before, EntryNA when
	// there was none.
	LastSkill string
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

// Event wraps the properties in a Skill Entry event.
func (p SkillEntryProperties) Event() (AnalyticsEvent, error) {
	b, err := p.MarshalJSON()
	if err != nil {
		return AnalyticsEvent{}, fmt.Errorf("encode %q properties: %w", EventSkillEntry, err)
	}
	return AnalyticsEvent{Event: EventSkillEntry, Properties: b}, nil
}

func parseSkillEntry(raw json.RawMessage) (SkillEntryProperties, error) {
	var p SkillEntryProperties
	o, err := readObject(raw)
	if err != nil {
		return p, err
	}
	field(o, "initial_intent", &p.InitialIntent, parseString)
	field(o, "domain", &p.Domain, parseString)
	field(o, "was_hey_jibo_launch", &p.WasHeyJiboLaunch, parseBool)
	field(o, "user_initiated", &p.UserInitiated, parseBool)
	field(o, "last_skill", &p.LastSkill, parseString)
	p.Extra, err = o.done()
	return p, err
}

// UnmarshalJSON decodes Skill Entry properties, keeping unknown members in
// Extra.
func (p *SkillEntryProperties) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, p, parseSkillEntry)
}

// MarshalJSON encodes Skill Entry properties, re-emitting Extra.
func (p SkillEntryProperties) MarshalJSON() ([]byte, error) { return p.appendJSON(nil) }

func (p SkillEntryProperties) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, p.Extra)
	w.str("initial_intent", p.InitialIntent)
	w.str("domain", p.Domain)
	w.bool("was_hey_jibo_launch", p.WasHeyJiboLaunch)
	w.bool("user_initiated", p.UserInitiated)
	w.str("last_skill", p.LastSkill)
	return w.close()
}

// SkillOfferProperties are the properties of a Skill Offer event.
type SkillOfferProperties struct {
	// UserResponse is "user_response".
	UserResponse string
	// Modality is "modality": ModalitySpeech, ModalityTouch or ModalityNA.
	Modality string
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

// Event wraps the properties in a Skill Offer event.
func (p SkillOfferProperties) Event() (AnalyticsEvent, error) {
	b, err := p.MarshalJSON()
	if err != nil {
		return AnalyticsEvent{}, fmt.Errorf("encode %q properties: %w", EventSkillOffer, err)
	}
	return AnalyticsEvent{Event: EventSkillOffer, Properties: b}, nil
}

func parseSkillOffer(raw json.RawMessage) (SkillOfferProperties, error) {
	var p SkillOfferProperties
	o, err := readObject(raw)
	if err != nil {
		return p, err
	}
	field(o, "user_response", &p.UserResponse, parseString)
	field(o, "modality", &p.Modality, parseString)
	p.Extra, err = o.done()
	return p, err
}

// UnmarshalJSON decodes Skill Offer properties, keeping unknown members in
// Extra.
func (p *SkillOfferProperties) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, p, parseSkillOffer)
}

// MarshalJSON encodes Skill Offer properties, re-emitting Extra.
func (p SkillOfferProperties) MarshalJSON() ([]byte, error) { return p.appendJSON(nil) }

func (p SkillOfferProperties) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, p.Extra)
	w.str("user_response", p.UserResponse)
	w.str("modality", p.Modality)
	return w.close()
}
