package base

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/jcp"
)

// Redirect hands the turn to another skill (SKILL_REDIRECT, §2.3).
type Redirect struct {
	// SkillID is the skill to launch instead; required.
	SkillID string
	// Memo is handed to the target's LISTEN_LAUNCH; nil for none, else
	// any JSON value.
	Memo json.RawMessage
	// NLU and ASR replace the request's results for the target; nil
	// carries the request's over.
	NLU *protocol.NLUResult
	ASR *protocol.ASRResult
}

// ActionResponse answers req with a SKILL_ACTION running a (validated
// first: an action the robot would refuse is an error here). skill is the
// skill's data with its updated session; final marks its last action.
func ActionResponse(req *protocol.Request, skill protocol.SkillData, a *jcp.Action, final bool) (*protocol.Response, error) {
	if a == nil {
		return nil, errors.New("build SKILL_ACTION: no action")
	}
	if err := a.Validate(); err != nil {
		return nil, fmt.Errorf("build SKILL_ACTION: %w", err)
	}
	raw, err := a.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("build SKILL_ACTION: encoding the action: %w", err)
	}
	return protocol.NewSkillAction(req, skill, raw, final), nil
}

// RedirectResponse answers req with a SKILL_REDIRECT to r.SkillID.
func RedirectResponse(req *protocol.Request, skill protocol.SkillData, r Redirect) (*protocol.Response, error) {
	if r.SkillID == "" {
		return nil, errors.New("build SKILL_REDIRECT: no target skill id")
	}
	if r.Memo != nil && !json.Valid(r.Memo) {
		return nil, fmt.Errorf("build SKILL_REDIRECT to %s: memo is not valid JSON", r.SkillID)
	}
	resp := protocol.NewRedirect(req, r.SkillID, r.Memo, skill)
	if r.NLU != nil {
		resp.Redirect.NLU = r.NLU
	}
	if r.ASR != nil {
		resp.Redirect.ASR = r.ASR
	}
	return resp, nil
}

// ErrorResponse answers req with an ERROR whose message names the skill
// and what failed: "skill NAME: ERR".
func ErrorResponse(req *protocol.Request, name string, err error) *protocol.Response {
	msg := fmt.Sprintf("skill %s: %v", name, err)
	if len(msg) > protocol.MaxStringLen {
		msg = strings.ToValidUTF8(msg[:protocol.MaxStringLen-len("…")], "") + "…"
	}
	return protocol.NewError(req, msg)
}

// Track appends an event to *a under the skill's name, allocating the map
// when it is nil. properties must encode as a JSON object (or be nil, for
// none); protocol.SkillEntryProperties and SkillOfferProperties do.
func Track(a *protocol.Analytics, name, event string, properties any) error {
	if name == "" || event == "" {
		return fmt.Errorf("track event %q for skill %q: skill and event names are required", event, name)
	}
	var raw json.RawMessage
	if properties != nil {
		b, err := json.Marshal(properties)
		if err != nil {
			return fmt.Errorf("track %q: encoding properties: %w", event, err)
		}
		if !isObjectOrNull(b) {
			return fmt.Errorf("track %q: properties must encode as a JSON object, got %s", event, clip(string(b)))
		}
		raw = b
	}
	if *a == nil {
		*a = protocol.Analytics{}
	}
	(*a)[name] = append((*a)[name], protocol.AnalyticsEvent{Event: event, Properties: raw})
	return nil
}

// SkillEntry returns the Skill Entry properties GraphSkill reports for req
// (§2.4): initial_intent "n/a", domain "", was_hey_jibo_launch and
// user_initiated true for a LISTEN_LAUNCH, last_skill "n/a" (the robot
// overwrites initial_intent and last_skill).
func SkillEntry(req *protocol.Request) protocol.SkillEntryProperties {
	launch := req != nil && req.Type == protocol.TypeListenLaunch
	return protocol.SkillEntryProperties{InitialIntent: protocol.EntryNA, WasHeyJiboLaunch: launch, UserInitiated: launch,
		LastSkill: protocol.EntryNA}
}

func isObjectOrNull(raw json.RawMessage) bool {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return false
	}
	if v == nil {
		return true
	}
	_, ok := v.(map[string]any)
	return ok
}
