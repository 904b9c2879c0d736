package wasmskill

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Response is a skill's answer: an action for the robot to run (Say, Ask,
// Action), the end of the skill's turn (End), or a failure (Fail).
type Response struct {
	kind    string          // "action" or "error"
	action  json.RawMessage // the JCP action; nil for none
	final   bool
	message string // an error's
	session *Session
}

// Say answers by speaking text (plain text; it is escaped for ESML). The
// skill is done.
func Say(text string) *Response {
	return Action(slim(EscapeESML(text), nil), true)
}

// Ask speaks a question and listens for the answer, which comes back as a
// LISTEN_UPDATE understood with the named answer rules
// ("<skill bus id>/<rule>" from the skill's rules folder, or the robot's
// "globals/yes_no"). It needs the "listen" permission.
func Ask(question string, rules ...string) *Response {
	return Action(slim(EscapeESML(question), rules), false)
}

// SayESML answers by speaking ESML as written: sounds, animations and
// pauses need the matching permissions.
func SayESML(esml string) *Response { return Action(slim(esml, nil), true) }

// Action answers with a JCP action ({"type":"JCP","config":{…}}) as
// written; final says the skill is done.
func Action(jcp json.RawMessage, final bool) *Response {
	return &Response{kind: "action", action: jcp, final: final}
}

// End answers with no action: the skill is done and says nothing.
func End() *Response { return &Response{kind: "action", final: true} }

// Fail answers with an ERROR: the robot reports the skill failed, with
// message.
func Fail(message string) *Response { return &Response{kind: "error", message: message} }

// Keep stores data (encoded as JSON) with the answer: the robot hands it
// back in Request.Session with the next LISTEN_UPDATE of this conversation.
func (r *Response) Keep(data any) (*Response, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, fmt.Errorf("keeping session data: %w", err)
	}
	r.session = &Session{ID: newID(), Data: raw}
	return r, nil
}

// EscapeESML makes plain text safe to speak as ESML.
func EscapeESML(text string) string {
	return esmlEscaper.Replace(text)
}

var esmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

func slim(esml string, listen []string) json.RawMessage {
	b := []byte(`{"type":"JCP","config":{"version":"2.0","jcp":{"type":"SLIM","id":`)
	b = appendString(b, newID())
	b = append(b, `,"config":{"play":{"esml":`...)
	b = appendString(b, esml)
	b = append(b, '}')
	if len(listen) > 0 {
		b = append(b, `,"listen":{"contexts":[`...)
		for i, r := range listen {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, r)
		}
		b = append(b, "]}"...)
	}
	return append(b, "}}}}"...)
}

// appendString appends s as a JSON string. It writes the JSON by hand:
// encoding/json's reflection costs about a millisecond per answer in a
// WebAssembly module. <, > and & stay as they are, so ESML reads as
// written; invalid UTF-8 becomes U+FFFD.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\n':
			b = append(b, '\\', 'n')
		case r == '\r':
			b = append(b, '\\', 'r')
		case r == '\t':
			b = append(b, '\\', 't')
		case r < 0x20 || r == 0x2028 || r == 0x2029:
			b = append(b, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return append(b, '"')
}

func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (Go 1.24+); the host provides random_get
	return hex.EncodeToString(b[:])
}

// encode writes the response to req as a Jibo skill response.
func (r *Response) encode(req *Request) ([]byte, error) {
	if r == nil {
		return nil, errors.New("no response")
	}
	b := make([]byte, 0, 256+len(r.action)+len(r.message))
	switch r.kind {
	case "action":
		b = append(b, `{"type":"SKILL_ACTION"`...)
	case "error":
		b = append(b, `{"type":"ERROR"`...)
	default:
		return nil, errors.New("a Response must come from Say, Ask, SayESML, Action, End or Fail")
	}
	b = append(b, `,"msgID":`...)
	b = appendString(b, "mid-"+newID())
	b = append(b, `,"ts":`...)
	b = strconv.AppendInt(b, time.Now().UnixMilli(), 10)
	if req.transID != "" {
		b = append(b, `,"transID":`...)
		b = appendString(b, req.transID)
	}
	b = append(b, `,"data":{"skill":{"id":`...)
	b = appendString(b, req.SkillID)
	if r.session != nil {
		id := r.session.ID
		if req.Session != nil && req.Session.ID != "" {
			id = req.Session.ID
		}
		b = append(b, `,"session":{"id":`...)
		b = appendString(b, id)
		b = append(b, `,"nodeID":`...)
		b = strconv.AppendInt(b, int64(r.session.NodeID), 10)
		b = append(b, `,"data":`...)
		b = append(b, r.session.Data...)
		b = append(b, `,"trace":[]}`...)
	}
	b = append(b, '}')
	if r.kind == "error" {
		b = append(b, `,"message":`...)
		b = appendString(b, r.message)
		return append(b, "}}"...), nil
	}
	b = append(b, `,"action":`...)
	if r.action == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, r.action...)
	}
	b = append(b, `,"final":`...)
	b = strconv.AppendBool(b, r.final)
	return append(b, `,"fireAndForget":false}}`...), nil
}

// encodeSlots writes a dialog's slot values as a JSON object, sorted by
// name; nil for none.
func encodeSlots(slots map[string]string) []byte {
	if len(slots) == 0 {
		return nil
	}
	names := make([]string, 0, len(slots))
	for k := range slots {
		names = append(names, k)
	}
	sort.Strings(names)
	b := []byte{'{'}
	for i, k := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		b = appendString(b, slots[k])
	}
	return append(b, '}')
}
