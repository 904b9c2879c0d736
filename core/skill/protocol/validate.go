package protocol

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/openjibo/jibod/internal/textcheck"
)

// Validation reports the first problem as a *FieldError. Each level checks
// its own members with paths relative to itself and its parent prefixes
// the member name (see at), so a valid message costs no allocations.

// Validate checks what the runtime relies on: a request type, a message
// id, data, the result member the type needs (nlu for LISTEN_LAUNCH and
// LISTEN_UPDATE; asr may be absent, as in a turn the robot understood
// itself with CLIENT_NLU, which jibo.md §1.6 classifies by its NLU or as no
// input), a skill id wherever a session is
// carried or an update is routed, well-formed sessions and traces, ASR
// confidence in [0, 1], a memo that is any JSON value (real skills send
// objects and strings such as "Proactive"), and the package limits.
func (r *Request) Validate() error {
	switch r.Type {
	case TypeListenLaunch, TypeListenUpdate, TypeProactiveLaunch:
	default:
		return fieldErr("type", "unknown request type %q", truncate(r.Type))
	}
	if err := r.Header.validate(); err != nil {
		return err
	}
	if r.Data == nil {
		return fieldErr("data", "required")
	}
	return under("data", r.Data.validate(r.Type))
}

// Validate checks what the runtime relies on: a response type with its
// data and no other, a message id, a skill id and an object-or-null action
// on SKILL_ACTION, well-formed analytics, a target skill on
// SKILL_REDIRECT, a message on ERROR, and the package limits.
func (r *Response) Validate() error {
	if err := r.Header.validate(); err != nil {
		return err
	}
	var err error
	set := countSet(r.Action != nil, r.Redirect != nil, r.Error != nil)
	switch r.Type {
	case TypeSkillAction:
		err = requireData(r.Action, (*SkillActionData).validate)
	case TypeSkillRedirect:
		err = requireData(r.Redirect, (*SkillRedirectData).validate)
	case TypeError:
		err = requireData(r.Error, (*ErrorData).validate)
	default:
		return fieldErr("type", "unknown response type %q", truncate(r.Type))
	}
	return oneData(r.Type, set, err)
}

// Validate checks what every message needs: a type and a message id.
func (e *Envelope) Validate() error {
	if e.Type == "" {
		return fieldErr("type", "required")
	}
	if err := checkLen("type", e.Type); err != nil {
		return err
	}
	return e.Header.validate()
}

func (h *Header) validate() error {
	if h.MsgID == "" {
		return fieldErr("msgID", "required")
	}
	if h.TS < 0 {
		return fieldErr("ts", "must not be negative")
	}
	return checkLens("msgID", h.MsgID, "transID", h.TransID)
}

func (d *RequestData) validate(typ string) error {
	if err := firstErr(
		under("general", d.General.validate()),
		under("runtime", d.Runtime.validate()),
		under("skill", d.Skill.validate()),
	); err != nil {
		return err
	}
	if typ == TypeListenUpdate && d.Skill.Name() == "" {
		return fieldErr("skill.id", "required for %s", typ)
	}
	return under("result", d.Result.validate(typ))
}

func (r *Result) validate(typ string) error {
	if typ == TypeListenLaunch || typ == TypeListenUpdate {
		if r.NLU == nil {
			return fieldErr("nlu", "required for %s", typ)
		}
	}
	return firstErr(
		under("nlu", r.NLU.validate()),
		under("asr", r.ASR.validate()),
		anyValue("memo", r.Memo),
	)
}

func (g *GeneralData) validate() error {
	return checkLens("accountID", g.AccountID, "robotID", g.RobotID, "lang", g.Lang,
		"release", g.Release, "remoteAddress", g.RemoteAddress)
}

func (r *RuntimeContext) validate() error {
	l, loop := &r.Location, &r.Loop
	if err := checkLens(
		"character.emotion.name", r.Character.Emotion.Name,
		"location.city", l.City, "location.state", l.State, "location.stateAbbr", l.StateAbbr,
		"location.country", l.Country, "location.countryCode", l.CountryCode, "location.iso", l.ISO,
		"loop.owner", loop.Owner, "loop.loopId", loop.LoopID,
		"loop.jibo.color", loop.Jibo.Color, "loop.jibo.id", loop.Jibo.ID,
	); err != nil {
		return err
	}
	for i := range loop.Users {
		u := &loop.Users[i]
		if err := checkLens("firstName", u.FirstName, "lastName", u.LastName, "phoneticName", u.PhoneticName,
			"gender", u.Gender, "id", u.ID, "accountId", u.AccountID); err != nil {
			return at("loop.users", at(indexPath("", i), err))
		}
	}
	p := &r.Perception
	if p.Speaker != nil {
		if err := checkLen("perception.speaker", *p.Speaker); err != nil {
			return err
		}
	}
	for i := range p.PeoplePresent {
		if err := checkLens("id", p.PeoplePresent[i].ID, "type", p.PeoplePresent[i].Type); err != nil {
			return at("perception.peoplePresent", at(indexPath("", i), err))
		}
	}
	return nil
}

func (s *SkillData) validate() error {
	if s.ID != nil {
		if err := checkLen("id", *s.ID); err != nil {
			return err
		}
	}
	if s.Session == nil {
		return nil
	}
	if s.Name() == "" {
		return fieldErr("id", "required with a session")
	}
	return under("session", s.Session.validate())
}

func (s *Session) validate() error {
	if err := checkLen("id", s.ID); err != nil {
		return err
	}
	if s.NodeID < 0 {
		return fieldErr("nodeID", "must not be negative")
	}
	if len(s.Trace) > MaxTraceLen {
		return fieldErr("trace", "%d entries, limit %d", len(s.Trace), MaxTraceLen)
	}
	for i := range s.Trace {
		if err := s.Trace[i].validate(); err != nil {
			return at("trace", at(indexPath("", i), err))
		}
	}
	return nil
}

func (t *TraceEntry) validate() error {
	if t.NodeID < 0 {
		return fieldErr("nodeID", "must not be negative")
	}
	if t.Transition != nil {
		return checkLen("transition", *t.Transition)
	}
	return nil
}

// validate accepts a nil result (absent).
func (n *NLUResult) validate() error {
	if n == nil {
		return nil
	}
	if n.Intent != nil {
		if err := checkLen("intent", *n.Intent); err != nil {
			return err
		}
	}
	if len(n.Entities) > MaxEntities {
		return fieldErr("entities", "%d entities, limit %d", len(n.Entities), MaxEntities)
	}
	for k := range n.Entities {
		if err := checkLen("entities", k); err != nil {
			return err
		}
	}
	if len(n.Rules) > MaxRules {
		return fieldErr("rules", "%d rules, limit %d", len(n.Rules), MaxRules)
	}
	for i, r := range n.Rules {
		if err := checkLen("", r); err != nil {
			return at("rules", at(indexPath("", i), err))
		}
	}
	if len(n.External) == 0 {
		return nil
	}
	for _, k := range slices.Sorted(maps.Keys(n.External)) {
		ext := n.External[k]
		if err := ext.validate(); err != nil {
			return at("external", at(k, err))
		}
	}
	return nil
}

// validate accepts a nil result (absent).
func (a *ASRResult) validate() error {
	if a == nil {
		return nil
	}
	if err := firstErr(checkUtterance("text", a.Text), checkLens("annotation", a.Annotation, "lang", a.Lang,
		"langConfidence", a.LangConfidence)); err != nil {
		return err
	}
	if !(a.Confidence >= 0 && a.Confidence <= 1) {
		return fieldErr("confidence", "%v outside [0, 1]", a.Confidence)
	}
	return nil
}

func (d *SkillActionData) validate() error {
	if err := under("skill", d.Skill.validate()); err != nil {
		return err
	}
	if d.Skill.Name() == "" {
		return fieldErr("skill.id", "required")
	}
	return firstErr(
		objectOrNull("action", d.Action),
		under("analytics", d.Analytics.validate()),
	)
}

func (a Analytics) validate() error {
	if len(a) == 0 {
		return nil
	}
	for _, skill := range slices.Sorted(maps.Keys(a)) {
		if skill == "" {
			return fieldErr("", "empty skill name")
		}
		if err := checkLen(skill, skill); err != nil {
			return err
		}
		for i := range a[skill] {
			if err := a[skill][i].validate(); err != nil {
				return at(skill, at(indexPath("", i), err))
			}
		}
	}
	return nil
}

func (e *AnalyticsEvent) validate() error {
	if e.Event == "" {
		return fieldErr("event", "required")
	}
	return firstErr(checkLen("event", e.Event), objectOrNull("properties", e.Properties))
}

func (d *SkillRedirectData) validate() error {
	if d.SkillID == "" {
		return fieldErr("skillID", "required")
	}
	return firstErr(
		checkLen("skillID", d.SkillID),
		anyValue("memo", d.Memo),
		under("asr", d.ASR.validate()),
		under("nlu", d.NLU.validate()),
		under("skill", d.Skill.validate()),
	)
}

func (d *ErrorData) validate() error {
	if d.Message == "" {
		return fieldErr("message", "required")
	}
	return firstErr(checkLen("message", d.Message), under("skill", d.Skill.validate()))
}

// checkLen reports a modelled string longer than MaxStringLen.
func checkLen(name, s string) error {
	if len(s) > MaxStringLen {
		return fieldErr(name, "%d bytes, limit %d", len(s), MaxStringLen)
	}
	return nil
}

// checkUtterance checks what a person said (a transcript): within
// MaxStringLen and free of control characters and invalid UTF-8
// (textcheck.Line), which would match and read differently from how
// they look.
func checkUtterance(name, s string) error {
	if err := checkLen(name, s); err != nil {
		return err
	}
	if err := textcheck.Line(s); err != nil {
		return fieldErr(name, "%v", err)
	}
	return nil
}

// checkLens is checkLen over name/value pairs.
func checkLens(pairs ...string) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		if err := checkLen(pairs[i], pairs[i+1]); err != nil {
			return err
		}
	}
	return nil
}

// objectOrNull checks a verbatim member that, when present (non-nil), must
// be a JSON object or null.
func objectOrNull(name string, raw json.RawMessage) error {
	if raw == nil {
		return nil
	}
	if k := kindOf(raw); (k != '{' && k != 'n') || !json.Valid(raw) {
		return fieldErr(name, "want object or null")
	}
	return nil
}

// anyValue checks a verbatim member that, when present (non-nil), may be
// any JSON value.
func anyValue(name string, raw json.RawMessage) error {
	if raw == nil {
		return nil
	}
	if !json.Valid(raw) {
		return fieldErr(name, "want a JSON value")
	}
	return nil
}

// under places a relative error inside member name; nil stays nil.
//
// It is not inlined: its many callers validate input, where a call costs
// nothing that matters, and inlining would copy its body into each.
//
//go:noinline
func under(name string, err error) error {
	if err == nil {
		return nil
	}
	return at(name, err)
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
