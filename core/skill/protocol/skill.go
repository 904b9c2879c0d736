package protocol

import "encoding/json"

// SkillData names the skill a message concerns and carries its session
// (jibo.md §2.2 skill). Cloud skills are stateless: they return the
// updated session in every SKILL_ACTION and the robot sends it back.
type SkillData struct {
	// ID is the skill's id; nil encodes as null, which robots send when no
	// skill is active ({"id": null}).
	ID *string
	// Session is the running skill's state; nil means absent.
	Session *Session
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

// Skill returns SkillData for the skill with the given id and no session.
func Skill(id string) SkillData { return SkillData{ID: &id} }

// Name returns the skill id, or "" when it is null.
func (s SkillData) Name() string {
	if s.ID == nil {
		return ""
	}
	return *s.ID
}

func parseSkillData(raw json.RawMessage) (SkillData, error) {
	var s SkillData
	o, err := readObject(raw)
	if err != nil {
		return s, err
	}
	field(o, "id", &s.ID, parseNullString)
	optField(o, "session", &s.Session, parseSessionPtr)
	s.Extra, err = o.done()
	return s, err
}

// UnmarshalJSON decodes skill data, keeping unknown members in Extra.
func (s *SkillData) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, s, parseSkillData)
}

// MarshalJSON encodes skill data, re-emitting Extra.
func (s SkillData) MarshalJSON() ([]byte, error) { return s.appendJSON(nil) }

func (s SkillData) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, s.Extra)
	w.nullStr("id", s.ID)
	if s.Session != nil {
		w.obj("session", s.Session)
	}
	return w.close()
}

// Session is a graph skill's state between turns.
type Session struct {
	// ID is the session's uuid.
	ID string
	// NodeID is the graph node the skill is waiting in (wire name "nodeID").
	NodeID int
	// Data is the skill's own session data, verbatim; nil encodes as null.
	Data json.RawMessage
	// Trace lists the nodes visited and the transitions taken.
	Trace []TraceEntry
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

func parseSessionPtr(raw json.RawMessage) (*Session, error) {
	s, err := parseSession(raw)
	return &s, err
}

func parseSession(raw json.RawMessage) (Session, error) {
	var s Session
	o, err := readObject(raw)
	if err != nil {
		return s, err
	}
	field(o, "id", &s.ID, parseString)
	field(o, "nodeID", &s.NodeID, parseInt)
	field(o, "data", &s.Data, parseRaw)
	field(o, "trace", &s.Trace, arrayOf(parseTraceEntry))
	s.Extra, err = o.done()
	return s, err
}

// UnmarshalJSON decodes a session, keeping unknown members in Extra.
func (s *Session) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, s, parseSession)
}

// MarshalJSON encodes a session, re-emitting Extra; nil Trace encodes as [].
func (s Session) MarshalJSON() ([]byte, error) { return s.appendJSON(nil) }

func (s Session) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, s.Extra)
	w.str("id", s.ID)
	w.int("nodeID", int64(s.NodeID))
	w.raw("data", s.Data)
	list(&w, "trace", s.Trace)
	return w.close()
}

// TraceEntry records one visited node and the transition that left it.
type TraceEntry struct {
	// NodeID is the visited node (wire name "nodeID").
	NodeID int
	// Transition is the transition taken out of the node; nil encodes as
	// null (the skill is still in the node).
	Transition *string
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

func parseTraceEntry(raw json.RawMessage) (TraceEntry, error) {
	var t TraceEntry
	o, err := readObject(raw)
	if err != nil {
		return t, err
	}
	if !o.has("nodeID") {
		return t, fieldErr("nodeID", "required")
	}
	field(o, "nodeID", &t.NodeID, parseInt)
	field(o, "transition", &t.Transition, parseNullString)
	t.Extra, err = o.done()
	return t, err
}

// UnmarshalJSON decodes a trace entry, keeping unknown members in Extra.
func (t *TraceEntry) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, t, parseTraceEntry)
}

// MarshalJSON encodes a trace entry, re-emitting Extra.
func (t TraceEntry) MarshalJSON() ([]byte, error) { return t.appendJSON(nil) }

func (t TraceEntry) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, t.Extra)
	w.int("nodeID", int64(t.NodeID))
	w.nullStr("transition", t.Transition)
	return w.close()
}
