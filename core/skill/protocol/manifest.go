package protocol

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// Match rules of a manifest intent's entity condition (EntityConfig).
const (
	EntityMatchExact = "EXACT"
	EntityMatchNot   = "NOT"
)

// Context fields a proactive context rule usually tests (proactive
// ContextField); the typings allow any field name.
const (
	ContextFocusedPerson              = "FOCUSED_PERSON"
	ContextNumPeoplePresent           = "NUM_PEOPLE_PRESENT"
	ContextNumIdentifiedPeoplePresent = "NUM_IDENTIFIED_PEOPLE_PRESENT"
	ContextPersonIDs                  = "PERSON_IDS"
	ContextPartOfDay                  = "PART_OF_DAY"
	ContextDayOfWeek                  = "DAY_OF_WEEK"
	ContextTriggerSource              = "TRIGGER_SOURCE"
)

// contextMatchRules are the values of a context rule's matchRule
// (proactive ContextMatchRule).
var contextMatchRules = []string{
	"EXACT", "NOT", "CONTAINS_ALL", "CONTAINS_ANY", "NOT_CONTAIN", "GREATER_THAN", "LESS_THAN", "CONTAINED_IN",
}

// ihMatchRules are the values of an interaction-history rule's matchRule
// (proactive IHMatchMethod); settingsMatchRules those of a settings rule.
var (
	ihMatchRules       = []string{"EXACT", "NOT", "GREATER_THAN", "LESS_THAN"}
	settingsMatchRules = []string{"EXACT", "NOT"}
	ihQueryTypes       = []string{"LastEvent", "Count"}
	// timeUnits are the units of a TimePeriod [n, unit].
	timeUnits = []string{"msec", "sec", "min", "minute", "minutes", "hour", "hours", "day", "days"}
)

// ManifestSkillConfig is a skill's manifest as the hub reads it (jibo.md
// §2.6, skill/config ManifestSkillConfig): the intents that launch it and
// the proactive situations it offers itself for.
//
// Validate requires an id and an intents list (possibly empty) of
// non-empty names, no two alike in name and entity conditions; entity
// conditions with a name, a string, number
// or boolean value and matchRule EXACT or NOT; proactive registrations
// with topics and contextRules, each rule with its matchRule from the
// typings' enumeration and a value; interaction-history rules whose query
// is a definition or the name of one in IHQueries; and the manifest
// limits (MaxManifestIntents …).
type ManifestSkillConfig struct {
	// ID is the skill's id ("name of skill" in the typings).
	ID string
	// Intents are the intents that launch the skill; nil encodes as [].
	Intents []ManifestIntent
	// Proactives are the situations the skill offers itself for; nil
	// means absent.
	Proactives []ProactiveRegistration
	// IHQueries are named interaction-history query definitions used by
	// the proactives' IHRules; nil means absent.
	IHQueries map[string]IHQueryDefinition
	// OnRobot is true for a skill that runs on the robot; nil means absent.
	OnRobot *bool
	// BasePath is the skill's path under the hub's base URL
	// (baseURL/basePath/v1/main); empty means absent.
	BasePath string
	// Settings is the skill's settings view ({"view": …}) for the
	// companion app, verbatim; nil means absent.
	Settings json.RawMessage
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

// ManifestIntent is one intent that launches a skill.
type ManifestIntent struct {
	// Name is the NLU intent name.
	Name string
	// Entities are conditions on the turn's entities; nil means absent.
	Entities []EntityConfig
	// Memo is handed to the skill's LISTEN_LAUNCH, verbatim; nil means
	// absent.
	Memo json.RawMessage
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

// EntityConfig is a condition on one entity of a turn.
type EntityConfig struct {
	// Name is the entity's name.
	Name string
	// Value is the expected value: a string, a json.Number or a bool; nil
	// means absent, which Validate refuses.
	Value any
	// MatchRule is EntityMatchExact or EntityMatchNot.
	MatchRule string
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

// ProactiveRegistration is one situation a skill offers itself for
// proactively (proactive ProactiveRegistration).
type ProactiveRegistration struct {
	// Memo is handed to the skill's PROACTIVE_LAUNCH, verbatim; nil means
	// absent.
	Memo json.RawMessage
	// Topics are topical tags; nil encodes as [].
	Topics []string
	// ContextRules filter on the robot's context; nil encodes as [].
	ContextRules []ContextRule
	// IHRules filter on the interaction history; nil means absent.
	IHRules []IHRule
	// SettingsRules filter on the skill settings; nil means absent.
	SettingsRules []SettingsRule
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

// ContextRule is a condition on one field of the robot's context.
type ContextRule struct {
	// Field is the context field, usually one of the Context constants.
	Field string
	// MatchRule is EXACT, NOT, CONTAINS_ALL, CONTAINS_ANY, NOT_CONTAIN,
	// GREATER_THAN, LESS_THAN or CONTAINED_IN.
	MatchRule string
	// Value is what the field is compared with, verbatim (any JSON); nil
	// means absent, which Validate refuses.
	Value json.RawMessage
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

// IHRule is a condition on the interaction history (proactive IHRule):
// run a query, optionally transform or pick a property of its result, and
// compare it with Value.
type IHRule struct {
	// QueryID names a query of the manifest's IHQueries; empty when Query
	// is set instead.
	QueryID string
	// Query is an inline query definition; nil when QueryID is set.
	Query *IHQueryDefinition
	// Transform is "TimeSince" or empty (absent).
	Transform string
	// CheckProperty is a property path of the result to compare, such as
	// "payload.someKey"; empty means absent.
	CheckProperty string
	// MatchRule is EXACT, NOT, GREATER_THAN or LESS_THAN.
	MatchRule string
	// Value is a time period [n, "unit"], a number, a string or null,
	// verbatim; nil means absent, which Validate refuses.
	Value json.RawMessage
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

// IHQueryDefinition is a query of the interaction history.
type IHQueryDefinition struct {
	// Type is "LastEvent" or "Count".
	Type string
	// QueryRules are the query's rules, verbatim (an array).
	QueryRules json.RawMessage
	// PersonIDs is "PresentPeople" or empty (absent).
	PersonIDs string
	// StartTimeOffset and EndTimeOffset are a time period [n, "unit"] or
	// "SinceWaking", verbatim; nil means absent.
	StartTimeOffset json.RawMessage
	EndTimeOffset   json.RawMessage
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

// SettingsRule is a condition on one of a skill's settings.
type SettingsRule struct {
	// Skill is the skill whose settings hold Key.
	Skill string
	// Key is the setting.
	Key string
	// MatchRule is EXACT or NOT.
	MatchRule string
	// Value is what the setting is compared with, verbatim; nil means
	// absent, which Validate refuses.
	Value json.RawMessage
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

// DecodeManifest decodes and validates one JSON skill manifest, checking
// the package limits first and keeping every member it does not model.
// Errors name the offending member's JSON path.
func DecodeManifest(data []byte) (*ManifestSkillConfig, error) {
	return decodeChecked(data, "decode skill manifest", parseManifest, (*ManifestSkillConfig).Validate)
}

func parseManifest(raw json.RawMessage) (ManifestSkillConfig, error) {
	var m ManifestSkillConfig
	o, err := readObject(raw)
	if err != nil {
		return m, err
	}
	field(o, "id", &m.ID, parseString)
	field(o, "intents", &m.Intents, arrayOf(parseManifestIntent))
	optField(o, "proactives", &m.Proactives, arrayOf(parseProactiveRegistration))
	optField(o, "IHQueries", &m.IHQueries, mapOf(parseIHQueryDefinition))
	optField(o, "onRobot", &m.OnRobot, parseBoolPtr)
	optField(o, "basePath", &m.BasePath, parseString)
	optField(o, "settings", &m.Settings, parseRaw)
	m.Extra, err = o.done()
	return m, err
}

// UnmarshalJSON decodes a manifest without validating it, keeping unknown
// members in Extra. DecodeManifest also checks limits and validates.
func (m *ManifestSkillConfig) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, m, parseManifest)
}

// MarshalJSON encodes a manifest, re-emitting Extra.
func (m ManifestSkillConfig) MarshalJSON() ([]byte, error) { return m.appendJSON(nil) }

func (m ManifestSkillConfig) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, m.Extra)
	w.str("id", m.ID)
	list(&w, "intents", m.Intents)
	if m.Proactives != nil {
		list(&w, "proactives", m.Proactives)
	}
	if m.IHQueries != nil {
		w.obj("IHQueries", queryMap(m.IHQueries))
	}
	optBool(&w, "onRobot", m.OnRobot)
	w.optStr("basePath", m.BasePath)
	w.optRaw("settings", m.Settings)
	return w.close()
}

// queryMap writes IHQueries with names in sorted order.
type queryMap map[string]IHQueryDefinition

func (q queryMap) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, nil)
	for _, k := range slices.Sorted(maps.Keys(q)) {
		w.obj(k, q[k])
	}
	return w.close()
}

func parseManifestIntent(raw json.RawMessage) (ManifestIntent, error) {
	var in ManifestIntent
	o, err := readObject(raw)
	if err != nil {
		return in, err
	}
	field(o, "name", &in.Name, parseString)
	optField(o, "entities", &in.Entities, arrayOf(parseEntityConfig))
	optField(o, "memo", &in.Memo, parseRaw)
	in.Extra, err = o.done()
	return in, err
}

// UnmarshalJSON decodes a manifest intent, keeping unknown members in
// Extra.
func (in *ManifestIntent) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, in, parseManifestIntent)
}

// MarshalJSON encodes a manifest intent, re-emitting Extra.
func (in ManifestIntent) MarshalJSON() ([]byte, error) { return in.appendJSON(nil) }

func (in ManifestIntent) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, in.Extra)
	w.str("name", in.Name)
	if in.Entities != nil {
		list(&w, "entities", in.Entities)
	}
	w.optRaw("memo", in.Memo)
	return w.close()
}

func parseEntityConfig(raw json.RawMessage) (EntityConfig, error) {
	var e EntityConfig
	o, err := readObject(raw)
	if err != nil {
		return e, err
	}
	field(o, "name", &e.Name, parseString)
	field(o, "value", &e.Value, parseScalar)
	field(o, "matchRule", &e.MatchRule, parseString)
	e.Extra, err = o.done()
	return e, err
}

// parseScalar reads a string, number (as json.Number) or boolean.
func parseScalar(raw json.RawMessage) (any, error) {
	switch k := kindOf(raw); {
	case k == '"', k == 't', k == 'f', isNumber(raw):
		return parseAny(raw)
	}
	return nil, fieldErr("", "want string, number or boolean")
}

// UnmarshalJSON decodes an entity condition, keeping unknown members in
// Extra.
func (e *EntityConfig) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, e, parseEntityConfig)
}

// MarshalJSON encodes an entity condition, re-emitting Extra.
func (e EntityConfig) MarshalJSON() ([]byte, error) { return e.appendJSON(nil) }

func (e EntityConfig) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, e.Extra)
	w.str("name", e.Name)
	w.any("value", e.Value)
	w.str("matchRule", e.MatchRule)
	return w.close()
}

func parseProactiveRegistration(raw json.RawMessage) (ProactiveRegistration, error) {
	var p ProactiveRegistration
	o, err := readObject(raw)
	if err != nil {
		return p, err
	}
	optField(o, "memo", &p.Memo, parseRaw)
	field(o, "topics", &p.Topics, arrayOf(parseString))
	field(o, "contextRules", &p.ContextRules, arrayOf(parseContextRule))
	optField(o, "IHRules", &p.IHRules, arrayOf(parseIHRule))
	optField(o, "settingsRules", &p.SettingsRules, arrayOf(parseSettingsRule))
	p.Extra, err = o.done()
	return p, err
}

// UnmarshalJSON decodes a proactive registration, keeping unknown members
// in Extra.
func (p *ProactiveRegistration) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, p, parseProactiveRegistration)
}

// MarshalJSON encodes a proactive registration, re-emitting Extra.
func (p ProactiveRegistration) MarshalJSON() ([]byte, error) { return p.appendJSON(nil) }

func (p ProactiveRegistration) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, p.Extra)
	w.optRaw("memo", p.Memo)
	w.strs("topics", p.Topics)
	list(&w, "contextRules", p.ContextRules)
	if p.IHRules != nil {
		list(&w, "IHRules", p.IHRules)
	}
	if p.SettingsRules != nil {
		list(&w, "settingsRules", p.SettingsRules)
	}
	return w.close()
}

func parseContextRule(raw json.RawMessage) (ContextRule, error) {
	var r ContextRule
	o, err := readObject(raw)
	if err != nil {
		return r, err
	}
	field(o, "field", &r.Field, parseString)
	field(o, "matchRule", &r.MatchRule, parseString)
	field(o, "value", &r.Value, parseRaw)
	r.Extra, err = o.done()
	return r, err
}

// UnmarshalJSON decodes a context rule, keeping unknown members in Extra.
func (r *ContextRule) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, r, parseContextRule)
}

// MarshalJSON encodes a context rule, re-emitting Extra.
func (r ContextRule) MarshalJSON() ([]byte, error) { return r.appendJSON(nil) }

func (r ContextRule) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, r.Extra)
	w.str("field", r.Field)
	w.str("matchRule", r.MatchRule)
	w.raw("value", r.Value)
	return w.close()
}

func parseIHRule(raw json.RawMessage) (IHRule, error) {
	var r IHRule
	o, err := readObject(raw)
	if err != nil {
		return r, err
	}
	if q, ok := o.take("query"); ok {
		switch kindOf(q) {
		case '"':
			setField(o, "query", q, &r.QueryID, parseString)
		case '{':
			setField(o, "query", q, &r.Query, nullOr(parseIHQueryDefinition))
		default:
			o.err = fieldErr("query", "want a query name (string) or definition (object)")
		}
	}
	optField(o, "transform", &r.Transform, parseString)
	optField(o, "checkProperty", &r.CheckProperty, parseString)
	field(o, "matchRule", &r.MatchRule, parseString)
	field(o, "value", &r.Value, parseRaw)
	r.Extra, err = o.done()
	return r, err
}

// UnmarshalJSON decodes an interaction-history rule, keeping unknown
// members in Extra.
func (r *IHRule) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, r, parseIHRule)
}

// MarshalJSON encodes an interaction-history rule, re-emitting Extra.
func (r IHRule) MarshalJSON() ([]byte, error) { return r.appendJSON(nil) }

func (r IHRule) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, r.Extra)
	if r.Query != nil {
		w.obj("query", r.Query)
	} else {
		w.str("query", r.QueryID)
	}
	w.optStr("transform", r.Transform)
	w.optStr("checkProperty", r.CheckProperty)
	w.str("matchRule", r.MatchRule)
	w.raw("value", r.Value)
	return w.close()
}

func parseIHQueryDefinition(raw json.RawMessage) (IHQueryDefinition, error) {
	var q IHQueryDefinition
	o, err := readObject(raw)
	if err != nil {
		return q, err
	}
	field(o, "type", &q.Type, parseString)
	field(o, "queryRules", &q.QueryRules, parseRaw)
	optField(o, "personIDs", &q.PersonIDs, parseString)
	optField(o, "startTimeOffset", &q.StartTimeOffset, parseRaw)
	optField(o, "endTimeOffset", &q.EndTimeOffset, parseRaw)
	q.Extra, err = o.done()
	return q, err
}

// UnmarshalJSON decodes a query definition, keeping unknown members in
// Extra.
func (q *IHQueryDefinition) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, q, parseIHQueryDefinition)
}

// MarshalJSON encodes a query definition, re-emitting Extra; nil
// QueryRules encode as [].
func (q IHQueryDefinition) MarshalJSON() ([]byte, error) { return q.appendJSON(nil) }

func (q IHQueryDefinition) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, q.Extra)
	w.str("type", q.Type)
	if q.QueryRules == nil {
		w.key("queryRules")
		w.buf = append(w.buf, "[]"...)
	} else {
		w.raw("queryRules", q.QueryRules)
	}
	w.optStr("personIDs", q.PersonIDs)
	w.optRaw("startTimeOffset", q.StartTimeOffset)
	w.optRaw("endTimeOffset", q.EndTimeOffset)
	return w.close()
}

func parseSettingsRule(raw json.RawMessage) (SettingsRule, error) {
	var r SettingsRule
	o, err := readObject(raw)
	if err != nil {
		return r, err
	}
	field(o, "skill", &r.Skill, parseString)
	field(o, "key", &r.Key, parseString)
	field(o, "matchRule", &r.MatchRule, parseString)
	field(o, "value", &r.Value, parseRaw)
	r.Extra, err = o.done()
	return r, err
}

// UnmarshalJSON decodes a settings rule, keeping unknown members in Extra.
func (r *SettingsRule) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, r, parseSettingsRule)
}

// MarshalJSON encodes a settings rule, re-emitting Extra.
func (r SettingsRule) MarshalJSON() ([]byte, error) { return r.appendJSON(nil) }

func (r SettingsRule) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, r.Extra)
	w.str("skill", r.Skill)
	w.str("key", r.Key)
	w.str("matchRule", r.MatchRule)
	w.raw("value", r.Value)
	return w.close()
}

// Validate checks the manifest as the type's documentation says, reporting
// the first problem as a *FieldError with its JSON path.
func (m *ManifestSkillConfig) Validate() error {
	if m.ID == "" {
		return fieldErr("id", "required")
	}
	if err := firstErr(checkLens("id", m.ID, "basePath", m.BasePath), objectOrNull("settings", m.Settings)); err != nil {
		return err
	}
	if m.Intents == nil {
		return fieldErr("intents", "required")
	}
	if len(m.Intents) > MaxManifestIntents {
		return fieldErr("intents", "%d intents, limit %d", len(m.Intents), MaxManifestIntents)
	}
	// One intent may appear several times with different entity
	// conditions (and memos); an exact repeat could never be chosen.
	first := make(map[string]int, len(m.Intents))
	for i := range m.Intents {
		in := &m.Intents[i]
		if err := in.validate(); err != nil {
			return at("intents", at(indexPath("", i), err))
		}
		key := in.matchKey()
		if j, dup := first[key]; dup {
			return fieldErr(indexPath("intents", i), "repeats intents[%d] (intent %q with the same entity conditions)", j, truncate(in.Name))
		}
		first[key] = i
	}
	if len(m.IHQueries) > MaxIHQueries {
		return fieldErr("IHQueries", "%d queries, limit %d", len(m.IHQueries), MaxIHQueries)
	}
	for _, name := range slices.Sorted(maps.Keys(m.IHQueries)) {
		q := m.IHQueries[name]
		if err := firstErr(checkLen("", name), q.validate()); err != nil {
			return at("IHQueries", at(name, err))
		}
	}
	if len(m.Proactives) > MaxProactives {
		return fieldErr("proactives", "%d registrations, limit %d", len(m.Proactives), MaxProactives)
	}
	for i := range m.Proactives {
		if err := m.Proactives[i].validate(m.IHQueries); err != nil {
			return at("proactives", at(indexPath("", i), err))
		}
	}
	return nil
}

// matchKey identifies what the hub matches the intent by: its name and its
// entity conditions in order.
func (in *ManifestIntent) matchKey() string {
	key := strconv.Quote(in.Name)
	for _, e := range in.Entities {
		key += fmt.Sprintf(" %q %T:%v %q", e.Name, e.Value, e.Value, e.MatchRule)
	}
	return key
}

func (in *ManifestIntent) validate() error {
	if in.Name == "" {
		return fieldErr("name", "required")
	}
	if err := checkLen("name", in.Name); err != nil {
		return err
	}
	if len(in.Entities) > MaxIntentEntities {
		return fieldErr("entities", "%d conditions, limit %d", len(in.Entities), MaxIntentEntities)
	}
	for i := range in.Entities {
		if err := in.Entities[i].validate(); err != nil {
			return at("entities", at(indexPath("", i), err))
		}
	}
	return nil
}

func (e *EntityConfig) validate() error {
	if e.Name == "" {
		return fieldErr("name", "required")
	}
	if err := checkLen("name", e.Name); err != nil {
		return err
	}
	switch v := e.Value.(type) {
	case nil:
		return fieldErr("value", "required")
	case string:
		if err := checkLen("value", v); err != nil {
			return err
		}
	case bool, json.Number, float64, int, int64:
	default:
		return fieldErr("value", "want string, number or boolean, got %T", v)
	}
	if e.MatchRule == "" {
		return fieldErr("matchRule", "required")
	}
	return oneOf("matchRule", e.MatchRule, EntityMatchExact, EntityMatchNot)
}

func (p *ProactiveRegistration) validate(queries map[string]IHQueryDefinition) error {
	if p.Topics == nil {
		return fieldErr("topics", "required")
	}
	if p.ContextRules == nil {
		return fieldErr("contextRules", "required")
	}
	if err := checkStrings("topics", p.Topics, MaxProactiveRules); err != nil {
		return err
	}
	for _, n := range []struct {
		name string
		len  int
	}{{"contextRules", len(p.ContextRules)}, {"IHRules", len(p.IHRules)}, {"settingsRules", len(p.SettingsRules)}} {
		if n.len > MaxProactiveRules {
			return fieldErr(n.name, "%d rules, limit %d", n.len, MaxProactiveRules)
		}
	}
	for i := range p.ContextRules {
		if err := p.ContextRules[i].validate(); err != nil {
			return at("contextRules", at(indexPath("", i), err))
		}
	}
	for i := range p.IHRules {
		if err := p.IHRules[i].validate(queries); err != nil {
			return at("IHRules", at(indexPath("", i), err))
		}
	}
	for i := range p.SettingsRules {
		if err := p.SettingsRules[i].validate(); err != nil {
			return at("settingsRules", at(indexPath("", i), err))
		}
	}
	return nil
}

func (r *ContextRule) validate() error {
	if r.Field == "" {
		return fieldErr("field", "required")
	}
	return firstErr(checkLen("field", r.Field), rule(r.MatchRule, contextMatchRules), requireValue(r.Value))
}

func (r *IHRule) validate(queries map[string]IHQueryDefinition) error {
	switch {
	case r.Query != nil:
		if err := under("query", r.Query.validate()); err != nil {
			return err
		}
	case r.QueryID == "":
		return fieldErr("query", "required")
	default:
		if _, ok := queries[r.QueryID]; !ok {
			return fieldErr("query", "no query %q in IHQueries", truncate(r.QueryID))
		}
	}
	if r.Transform != "" {
		if err := oneOf("transform", r.Transform, "TimeSince"); err != nil {
			return err
		}
	}
	if err := firstErr(checkLen("checkProperty", r.CheckProperty), rule(r.MatchRule, ihMatchRules), requireValue(r.Value)); err != nil {
		return err
	}
	switch kindOf(r.Value) {
	case '[':
		return under("value", checkTimePeriod(r.Value))
	case '{', 't', 'f':
		return fieldErr("value", "want a time period [n, unit], a number, a string or null")
	}
	return nil
}

func (q *IHQueryDefinition) validate() error {
	if q.Type == "" {
		return fieldErr("type", "required")
	}
	if err := oneOf("type", q.Type, ihQueryTypes...); err != nil {
		return err
	}
	if q.QueryRules == nil {
		return fieldErr("queryRules", "required")
	}
	if kindOf(q.QueryRules) != '[' {
		return fieldErr("queryRules", "want array")
	}
	if q.PersonIDs != "" {
		if err := oneOf("personIDs", q.PersonIDs, "PresentPeople"); err != nil {
			return err
		}
	}
	for _, off := range []struct {
		name string
		raw  json.RawMessage
	}{{"startTimeOffset", q.StartTimeOffset}, {"endTimeOffset", q.EndTimeOffset}} {
		switch kindOf(off.raw) {
		case 0:
		case '[':
			if err := checkTimePeriod(off.raw); err != nil {
				return at(off.name, err)
			}
		case '"':
			s, err := parseString(off.raw)
			if err == nil {
				err = oneOf("", s, "SinceWaking")
			}
			if err != nil {
				return at(off.name, err)
			}
		default:
			return fieldErr(off.name, `want a time period [n, unit] or "SinceWaking"`)
		}
	}
	return nil
}

func (r *SettingsRule) validate() error {
	if r.Skill == "" {
		return fieldErr("skill", "required")
	}
	if r.Key == "" {
		return fieldErr("key", "required")
	}
	return firstErr(checkLens("skill", r.Skill, "key", r.Key), rule(r.MatchRule, settingsMatchRules), requireValue(r.Value))
}

// rule checks a matchRule member against its enumeration.
func rule(v string, allowed []string) error {
	if v == "" {
		return fieldErr("matchRule", "required")
	}
	return oneOf("matchRule", v, allowed...)
}

func requireValue(raw json.RawMessage) error {
	if raw == nil {
		return fieldErr("value", "required")
	}
	return nil
}

// checkTimePeriod checks a time period [n, "unit"] (time TimePeriod).
func checkTimePeriod(raw json.RawMessage) error {
	var parts []json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil || len(parts) != 2 {
		return fieldErr("", "want a time period [n, unit]")
	}
	if _, err := parseFloat(parts[0]); err != nil {
		return at("[0]", err)
	}
	unit, err := parseString(parts[1])
	if err == nil {
		err = oneOf("", unit, timeUnits...)
	}
	if err != nil {
		return at("[1]", err)
	}
	return nil
}
