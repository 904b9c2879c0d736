package wasmskill

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// Request types.
const (
	ListenLaunch    = "LISTEN_LAUNCH"
	ListenUpdate    = "LISTEN_UPDATE"
	ProactiveLaunch = "PROACTIVE_LAUNCH"
)

// Request is a skill request as a handler reads it: the parts most skills
// need, and Raw, the whole Jibo skill request (spec/jibo.md §2.2) for the
// rest.
type Request struct {
	// Type is ListenLaunch, ListenUpdate or ProactiveLaunch.
	Type string
	// SkillID is the skill's id as the robot addresses it.
	SkillID string
	// Lang is the turn's language ("en-US").
	Lang string
	// Intent is the understood intent; "" when there is none (no answer
	// understood, a proactive launch).
	Intent string
	// Entities are the intent's slots by name, verbatim JSON values.
	Entities map[string]json.RawMessage
	// Utterance is what the person said; "" when nothing was heard.
	Utterance string
	// Memo is the launch memo (a timer's, a redirect's), verbatim.
	Memo json.RawMessage
	// Session is what the skill kept with its last answer (Response.Keep),
	// on a LISTEN_UPDATE; nil otherwise.
	Session *Session
	// Emotion is the robot's emotion's name when the request was made.
	Emotion string
	// Speaker is the id of the person the robot attends to; "" for none.
	Speaker string
	// Raw is the request as the robot sent it.
	Raw json.RawMessage

	msgID, transID string
}

// Session is a skill's state between turns.
type Session struct {
	// ID names the conversation.
	ID string `json:"id"`
	// NodeID is the skill's own step number ("nodeID" on the wire).
	NodeID int `json:"nodeID"`
	// Data is what the skill kept, verbatim JSON.
	Data json.RawMessage `json:"data"`
}

// Entity returns a string entity's value, or "" when it is missing or not
// a string.
func (r *Request) Entity(name string) string {
	var s string
	if raw, ok := r.Entities[name]; ok && json.Unmarshal(raw, &s) == nil {
		return s
	}
	return ""
}

// ParseRequest reads a skill request: its type must be one of the request
// types and its data an object; members it does not use, or of other
// types than it expects, are left to Raw.
func ParseRequest(data []byte) (*Request, error) {
	r := &Request{Raw: data}
	sc := &scanner{b: data}
	sc.ws()
	if sc.i >= len(data) || data[sc.i] != '{' {
		return nil, fmt.Errorf("reading the skill request: not a JSON object")
	}
	hasData := false
	err := sc.object(func(key string) (err error) {
		switch key {
		case "type":
			r.Type, err = sc.stringOrNull()
		case "msgID":
			r.msgID, err = sc.stringOrNull()
		case "transID":
			r.transID, err = sc.stringOrNull()
		case "data":
			sc.ws()
			hasData = sc.i < len(data) && data[sc.i] == '{'
			err = sc.objectOrSkip(func(key string) error { return r.readData(sc, key) })
		default:
			_, err = sc.value()
		}
		return err
	})
	if err == nil {
		if sc.ws(); sc.i != len(data) {
			err = sc.fail("data after the request")
		}
	}
	if err != nil {
		return nil, fmt.Errorf("reading the skill request: %w", err)
	}
	if !hasData {
		return nil, fmt.Errorf("reading the skill request: no data")
	}
	switch r.Type {
	case ListenLaunch, ListenUpdate, ProactiveLaunch:
	default:
		return nil, fmt.Errorf("reading the skill request: type %q is not a skill request", r.Type)
	}
	return r, nil
}

// readData reads one member of the request's data.
func (r *Request) readData(sc *scanner, key string) error {
	switch key {
	case "general":
		return sc.objectOrSkip(func(key string) (err error) {
			if key == "lang" {
				r.Lang, err = sc.stringOrNull()
				return err
			}
			_, err = sc.value()
			return err
		})
	case "runtime":
		return sc.objectOrSkip(func(key string) error {
			switch key {
			case "character":
				return sc.objectOrSkip(func(key string) error {
					if key != "emotion" {
						_, err := sc.value()
						return err
					}
					return sc.objectOrSkip(func(key string) (err error) {
						if key == "name" {
							r.Emotion, err = sc.stringOrNull()
							return err
						}
						_, err = sc.value()
						return err
					})
				})
			case "perception":
				return sc.objectOrSkip(func(key string) (err error) {
					if key == "speaker" {
						r.Speaker, err = sc.stringOrNull()
						return err
					}
					_, err = sc.value()
					return err
				})
			}
			_, err := sc.value()
			return err
		})
	case "skill":
		return sc.objectOrSkip(func(key string) (err error) {
			switch key {
			case "id":
				r.SkillID, err = sc.stringOrNull()
			case "session":
				var raw []byte
				if raw, err = sc.value(); err == nil && string(raw) != "null" {
					r.Session = &Session{}
					err = readSession(raw, r.Session)
				}
			default:
				_, err = sc.value()
			}
			return err
		})
	case "result":
		return sc.objectOrSkip(func(key string) (err error) {
			switch key {
			case "nlu":
				err = sc.objectOrSkip(func(key string) (err error) {
					switch key {
					case "intent":
						r.Intent, err = sc.stringOrNull()
					case "entities":
						err = sc.objectOrSkip(func(name string) error {
							v, err := sc.value()
							if err == nil {
								if r.Entities == nil {
									r.Entities = map[string]json.RawMessage{}
								}
								r.Entities[name] = v
							}
							return err
						})
					default:
						_, err = sc.value()
					}
					return err
				})
			case "asr":
				err = sc.objectOrSkip(func(key string) (err error) {
					if key == "text" {
						r.Utterance, err = sc.stringOrNull()
						return err
					}
					_, err = sc.value()
					return err
				})
			case "memo":
				var v []byte
				if v, err = sc.value(); err == nil && string(v) != "null" {
					r.Memo = v
				}
			default:
				_, err = sc.value()
			}
			return err
		})
	}
	_, err := sc.value()
	return err
}

// readSession reads a session's id, nodeID and data.
func readSession(raw []byte, s *Session) error {
	sc := &scanner{b: raw}
	return sc.objectOrSkip(func(key string) (err error) {
		switch key {
		case "id":
			s.ID, err = sc.stringOrNull()
		case "nodeID":
			var v []byte
			if v, err = sc.value(); err == nil {
				if n, perr := strconv.Atoi(string(v)); perr == nil {
					s.NodeID = n
				}
			}
		case "data":
			var v []byte
			if v, err = sc.value(); err == nil && string(v) != "null" {
				s.Data = v
			}
		default:
			_, err = sc.value()
		}
		return err
	})
}
