package graph

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"

	"github.com/openjibo/jibod/core/skill/base"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/internal/strictjson"
	"github.com/openjibo/jibod/jcp"
)

// MaxSessionDataBytes bounds a session's data (its encoded JSON object):
// the robot stores it and sends it back every turn.
const MaxSessionDataBytes = 64 << 10

// Behaviors are supplemental behaviours nodes add during a turn; the
// graph skill wraps the turn's action with them (see Supplement).
type Behaviors struct {
	// Parallel run alongside the action.
	Parallel []jcp.Behavior
	// Sequence run before the action, in order.
	Sequence []jcp.Behavior
}

// Data is what nodes see during one turn (§4): the request's data
// (general, runtime, skill, result), the request itself, a logger, scratch
// space, the turn's analytics and supplemental behaviours, and the
// session's own data, read and written with Get, Set and Delete.
type Data struct {
	// Request is the request being handled; treat it as read-only.
	Request *protocol.Request
	// General is the request's general data.
	General protocol.GeneralData
	// Runtime is a copy of the request's runtime context; OverrideSpeaker
	// changes it for the rest of the turn.
	Runtime protocol.RuntimeContext
	// Skill is the request's skill data, with the session as received.
	Skill protocol.SkillData
	// Result is the input of the node being run: the request's
	// protocol.Result when a turn starts, then what the previous node's
	// Exit returned.
	Result any
	// Log is the skill's logger.
	Log *slog.Logger
	// Local is scratch space for this turn only.
	Local map[string]any
	// Analytics are the events the turn reports (see Track).
	Analytics protocol.Analytics
	// Behaviors are the turn's supplemental behaviours.
	Behaviors Behaviors

	skill   string
	session *protocol.Session
	state   map[string]json.RawMessage
}

// NewData prepares the data for one turn of skill (the skill's name) on
// req, reading the request's session, if any; its data must be a JSON
// object (or null) of at most MaxSessionDataBytes. log nil means
// slog.Default().
func NewData(req *protocol.Request, skill string, log *slog.Logger) (*Data, error) {
	if req == nil || req.Data == nil {
		return nil, fmt.Errorf("graph data for skill %s: request has no data", skill)
	}
	if log == nil {
		log = slog.Default()
	}
	rd := req.Data
	d := &Data{
		Request: req, General: rd.General, Runtime: rd.Runtime, Skill: rd.Skill, Result: rd.Result,
		Log: log, Local: map[string]any{}, skill: skill,
	}
	if s := rd.Skill.Session; s != nil {
		state, err := decodeState(s.Data)
		if err != nil {
			return nil, fmt.Errorf("graph data for skill %s: session %s: %w", skill, s.ID, err)
		}
		c := *s
		c.Trace = slices.Clone(s.Trace)
		d.session, d.state = &c, state
	}
	return d, nil
}

func decodeState(raw json.RawMessage) (map[string]json.RawMessage, error) {
	if len(raw) > MaxSessionDataBytes {
		return nil, fmt.Errorf("%w: %d bytes, limit %d", ErrSessionData, len(raw), MaxSessionDataBytes)
	}
	state := map[string]json.RawMessage{}
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return state, nil
	}
	if trimmed[0] != '{' {
		return nil, fmt.Errorf("%w: data is not a JSON object", ErrSessionData)
	}
	if err := strictjson.Unmarshal(trimmed, &state); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSessionData, err)
	}
	return state, nil
}

// Session returns the session as it stands, its data encoded, or nil
// before Start. The caller gets a copy.
func (d *Data) Session() *protocol.Session {
	if d.session == nil {
		return nil
	}
	c := *d.session
	c.Trace = slices.Clone(d.session.Trace)
	return &c
}

// SessionID returns the session's id, "" before Start.
func (d *Data) SessionID() string {
	if d.session == nil {
		return ""
	}
	return d.session.ID
}

// commit encodes the session's data, checking its size.
func (d *Data) commit() error {
	if d.session == nil {
		return nil
	}
	raw, err := json.Marshal(d.state) // keys sorted: the same state encodes the same
	if err != nil {
		return fmt.Errorf("%w: encoding: %v", ErrSessionData, err)
	}
	if len(raw) > MaxSessionDataBytes {
		return fmt.Errorf("%w: %d bytes, limit %d", ErrSessionData, len(raw), MaxSessionDataBytes)
	}
	d.session.Data = raw
	return nil
}

// Get decodes the session data member key into v, reporting whether it
// was there.
func (d *Data) Get(key string, v any) (bool, error) {
	raw, ok := d.state[key]
	if !ok {
		return false, nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return true, fmt.Errorf("session data %q: %w", key, err)
	}
	return true, nil
}

// Set stores v, encoded as JSON, as the session data member key; it is
// sent back with the session and read again on the next turn.
func (d *Data) Set(key string, v any) error {
	if key == "" {
		return fmt.Errorf("%w: empty key", ErrSessionData)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("session data %q: %w", key, err)
	}
	if len(raw)+len(key) > MaxSessionDataBytes {
		return fmt.Errorf("%w: %q is %d bytes, limit %d", ErrSessionData, key, len(raw), MaxSessionDataBytes)
	}
	if d.state == nil {
		d.state = map[string]json.RawMessage{}
	}
	d.state[key] = raw
	return nil
}

// Delete removes the session data member key.
func (d *Data) Delete(key string) { delete(d.state, key) }

// NLU returns the turn's NLU result: Result's when Result is a
// protocol.Result (or a pointer to one), else the request's; nil when
// there is none.
func (d *Data) NLU() *protocol.NLUResult {
	if r := d.result(); r != nil {
		return r.NLU
	}
	return d.Request.Data.Result.NLU
}

// ASR returns the turn's ASR result, chosen as NLU chooses.
func (d *Data) ASR() *protocol.ASRResult {
	if r := d.result(); r != nil {
		return r.ASR
	}
	return d.Request.Data.Result.ASR
}

func (d *Data) result() *protocol.Result {
	switch r := d.Result.(type) {
	case protocol.Result:
		return &r
	case *protocol.Result:
		return r
	}
	return nil
}

// Track reports an analytics event under the skill's name (§2.4), e.g.
// protocol.EventSkillOffer with protocol.SkillOfferProperties.
func (d *Data) Track(event string, properties any) error {
	return base.Track(&d.Analytics, d.skill, event, properties)
}

// OverrideSpeaker makes looperID the speaker (runtime.perception.speaker)
// for the rest of the turn; "" clears it (null).
func (d *Data) OverrideSpeaker(looperID string) {
	if looperID == "" {
		d.Runtime.Perception.Speaker = nil
		return
	}
	d.Runtime.Perception.Speaker = &looperID
}

// AddParallelBehavior adds b to run alongside the turn's action.
func (d *Data) AddParallelBehavior(b jcp.Behavior) {
	d.Behaviors.Parallel = append(d.Behaviors.Parallel, b)
}

// AddSequenceBehavior adds b to run before the turn's action.
func (d *Data) AddSequenceBehavior(b jcp.Behavior) {
	d.Behaviors.Sequence = append(d.Behaviors.Sequence, b)
}

// Supplement wraps a's behaviour with b, exactly as GraphSkill does (§4):
// a non-empty Sequence gives SEQUENCE[...Sequence, main]; then a non-empty
// Parallel gives PARALLEL[...Parallel, previous] with succeedOnFirst
// false. a is not changed; with no behaviours it is returned as is.
func Supplement(a *jcp.Action, b Behaviors) *jcp.Action {
	if a == nil || (len(b.Sequence) == 0 && len(b.Parallel) == 0) {
		return a
	}
	root := a.Behavior
	if len(b.Sequence) > 0 {
		root = jcp.Sequence(append(slices.Clone(b.Sequence), root)...)
	}
	if len(b.Parallel) > 0 {
		root = jcp.Parallel(false, append(slices.Clone(b.Parallel), root)...)
	}
	return &jcp.Action{Version: a.Version, Behavior: root}
}
