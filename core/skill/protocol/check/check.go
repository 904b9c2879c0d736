// Package check validates a file as the Jibo message, JCP action, skill
// manifest or MIM it is, and gives its canonical JSON: what `jibod
// protocol check` prints. What a file is comes from its content:
//
//	mim_type or prompts          MIM (.mim)
//	type LISTEN_LAUNCH, LISTEN_UPDATE, PROACTIVE_LAUNCH
//	                             skill request
//	type SKILL_ACTION            skill response (the hub forwards it unchanged)
//	type SKILL_REDIRECT, ERROR   hub-to-robot if data has match (redirect) or
//	                             no skill (error), else skill response
//	type LISTEN                  hub-to-robot if data has nlu or match (the
//	                             turn's result), else robot-to-hub
//	type CONTEXT, TRIGGER, CMD_RESULT, CLIENT_ASR, CLIENT_NLU
//	                             robot-to-hub
//	type SOS, EOS, ASR, NLU, PROACTIVE, COMMAND
//	                             hub-to-robot
//	type JCP, or config.jcp      JCP action
//	type SLIM, SEQUENCE, PARALLEL, SET_PRESENT_PERSON, IMPACT_EMOTION, LOOKAT,
//	     PLAY_ANIMATION          JCP behaviour, checked as the root of an action
//	intents                      skill manifest (jibo.md §2.6)
//
// A JCP action's canonical JSON is the executor's reading of it with every
// member the executor does not read kept in place and reported; the
// others' is their decoder's, unknown members kept in Extra.
package check

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/openjibo/jibod/core/skill/mim"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/internal/strictjson"
	"github.com/openjibo/jibod/jcp"
)

// MaxBytes bounds a file File reads: the protocol's message
// limit. JCP actions and MIMs have smaller limits of their own, which
// their parsers apply.
const MaxBytes = protocol.MaxMessageSize

// Kind is what a checked file holds.
type Kind string

// The kinds, named as `jibod protocol check --as` takes them.
const (
	SkillRequest  Kind = "skill-request"
	SkillResponse Kind = "skill-response"
	RobotToHub    Kind = "robot-to-hub"
	HubToRobot    Kind = "hub-to-robot"
	JCPAction     Kind = "jcp-action"
	JCPBehaviour  Kind = "jcp-behaviour"
	Manifest      Kind = "manifest"
	MIM           Kind = "mim"
)

// Kinds are every kind, in the order KindList names them.
var Kinds = []Kind{SkillRequest, SkillResponse, RobotToHub, HubToRobot,
	JCPAction, JCPBehaviour, Manifest, MIM}

// Result is a file that passed: what it is, its canonical JSON, and
// members kept that nothing reads.
type Result struct {
	// Label says what the file is: "skill request LISTEN_LAUNCH".
	Label string
	// Canonical is the document as the runtime reads it, as compact JSON.
	Canonical []byte
	// Warnings are the members kept that nothing reads.
	Warnings []string
	// Decoded is the decoded message, manifest or MIM; nil for JCP.
	Decoded any
}

// Error is why a file failed: the JSON path of the bad member (empty
// for the file as a whole) and what is wrong with it.
type Error struct {
	Path    string
	Problem string
}

func (e *Error) Error() string {
	if e.Path == "" {
		return e.Problem
	}
	return e.Path + ": " + e.Problem
}

// KindList names the kinds, comma-separated.
func KindList() string {
	names := make([]string, len(Kinds))
	for i, k := range Kinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

// checkFile reads and checks one file; kind "" means recognise it.
func File(file string, kind Kind) (*Result, error) {
	data, err := ReadLimited(file, MaxBytes)
	if err != nil {
		return nil, err
	}
	return Data(data, filepath.Base(file), kind)
}

// ReadLimited reads file whole, refusing one over limit bytes; its
// errors are *Error, worded for people.
func ReadLimited(file string, limit int) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, &Error{Problem: fmt.Sprintf("cannot read: %v", err)}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return nil, &Error{Problem: fmt.Sprintf("cannot read: %v", err)}
	}
	if len(data) > limit {
		return nil, &Error{Problem: fmt.Sprintf("file is over %d bytes", limit)}
	}
	return data, nil
}

// checkData checks one document; name is the file's base name (a MIM's
// default id).
func Data(data []byte, name string, kind Kind) (*Result, error) {
	if err := syntaxError(data); err != nil {
		return nil, err
	}
	var se *strictjson.Error
	if err := strictjson.Check(data); errors.As(err, &se) {
		return nil, &Error{Path: se.Path, Problem: se.Problem()}
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil || top == nil {
		return nil, &Error{Problem: "want a JSON object"}
	}
	if kind == "" {
		var err error
		if kind, err = recognise(top); err != nil {
			return nil, err
		}
	}
	switch kind {
	case SkillRequest:
		r, err := protocol.DecodeRequest(data)
		if err != nil {
			return nil, protocolError(err)
		}
		return canonical("skill request "+r.Type, r)
	case SkillResponse:
		r, err := protocol.DecodeResponse(data)
		if err != nil {
			return nil, protocolError(err)
		}
		if r.Action != nil {
			if err := checkEmbeddedAction(r.Action.Action); err != nil {
				return nil, err
			}
		}
		return canonical("skill response "+r.Type, r)
	case RobotToHub:
		r, err := protocol.DecodeHubRequest(data)
		if err != nil {
			return nil, protocolError(err)
		}
		return canonical("robot-to-hub "+r.Type, r)
	case HubToRobot:
		r, err := protocol.DecodeHubResponse(data)
		if err != nil {
			return nil, protocolError(err)
		}
		if r.Action != nil {
			if err := checkEmbeddedAction(r.Action.Action); err != nil {
				return nil, err
			}
		}
		return canonical("hub-to-robot "+r.Type, r)
	case Manifest:
		m, err := protocol.DecodeManifest(data)
		if err != nil {
			return nil, protocolError(err)
		}
		return canonical("skill manifest", m)
	case JCPAction:
		return checkAction(data)
	case JCPBehaviour:
		return checkBehaviour(data)
	case MIM:
		m, err := mim.Parse(data, name)
		if err != nil {
			return nil, mimError(err)
		}
		return canonical("MIM "+string(m.Type), m)
	}
	return nil, &Error{Problem: fmt.Sprintf("unknown kind %q", kind)}
}

// syntaxError reports where a document is not JSON, by line and column.
func syntaxError(data []byte) error {
	if json.Valid(data) {
		return nil
	}
	var v any
	err := json.Unmarshal(data, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		// The offset counts the offending byte; lineCol wants the bytes
		// before it.
		line, col := lineCol(data, se.Offset-1)
		return &Error{Problem: fmt.Sprintf("line %d, column %d: %v", line, col, se)}
	}
	if err == nil {
		err = errors.New("invalid JSON")
	}
	return &Error{Problem: err.Error()}
}

// recognise tells what a document is from its members, as the package
// documentation lists.
func recognise(top map[string]json.RawMessage) (Kind, error) {
	if _, ok := top["mim_type"]; ok {
		return MIM, nil
	}
	if _, ok := top["prompts"]; ok {
		return MIM, nil
	}
	if raw, ok := top["type"]; ok {
		var typ string
		if err := json.Unmarshal(raw, &typ); err != nil {
			return "", &Error{Path: "type", Problem: "want string"}
		}
		data := objectMembers(top["data"])
		switch typ {
		case protocol.TypeListenLaunch, protocol.TypeListenUpdate, protocol.TypeProactiveLaunch:
			return SkillRequest, nil
		case protocol.TypeSkillAction:
			return SkillResponse, nil
		case protocol.TypeSkillRedirect:
			if _, ok := data["match"]; ok {
				return HubToRobot, nil
			}
			return SkillResponse, nil
		case protocol.TypeError:
			if _, ok := data["skill"]; ok {
				return SkillResponse, nil
			}
			return HubToRobot, nil
		case protocol.TypeListen:
			_, nlu := data["nlu"]
			_, match := data["match"]
			if nlu || match {
				return HubToRobot, nil
			}
			return RobotToHub, nil
		case protocol.TypeContext, protocol.TypeTrigger, protocol.TypeCmdResult,
			protocol.TypeClientASR, protocol.TypeClientNLU:
			return RobotToHub, nil
		case protocol.TypeSOS, protocol.TypeEOS, protocol.TypeASR, protocol.TypeNLU,
			protocol.TypeProactive, protocol.TypeCommand:
			return HubToRobot, nil
		case jcp.ActionType:
			return JCPAction, nil
		}
		if jcp.IsBehaviorType(typ) {
			return JCPBehaviour, nil
		}
		return "", &Error{Path: "type", Problem: fmt.Sprintf(
			"unknown type %q: want a skill or hub message type, %q, or a JCP behaviour type", truncateQuoted(typ), jcp.ActionType)}
	}
	if _, ok := objectMembers(top["config"])["jcp"]; ok {
		return JCPAction, nil
	}
	if _, ok := top["intents"]; ok {
		return Manifest, nil
	}
	return "", &Error{Problem: "not a Jibo message (no type), JCP action (no type or config.jcp), " +
		"skill manifest (no intents) or MIM (no mim_type or prompts)"}
}

func truncateQuoted(s string) string {
	const limit = 64
	if len(s) > limit {
		return s[:limit] + "…"
	}
	return s
}

// objectMembers returns the members of raw when it is an object, else nil.
func objectMembers(raw json.RawMessage) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

// canonical encodes a decoded value as compact JSON with markup left
// unescaped.
func canonical(label string, v any) (*Result, error) {
	out, err := protocol.EncodeJSON(v)
	if err != nil {
		return nil, &Error{Problem: err.Error()}
	}
	return &Result{Label: label, Canonical: out, Decoded: v}, nil
}

// protocolError takes the member path out of a protocol decoding error.
func protocolError(err error) error {
	var fe *protocol.FieldError
	if errors.As(err, &fe) {
		return &Error{Path: fe.Path, Problem: fe.Problem}
	}
	if inner := errors.Unwrap(err); inner != nil {
		err = inner
	}
	return &Error{Problem: err.Error()}
}

// jcpError takes the member path out of a JCP parsing error and places it
// under prefix.
func jcpError(err error, prefix string) error {
	var fe *jcp.FieldError
	if errors.As(err, &fe) {
		return &Error{Path: joinPath(prefix, fe.Path), Problem: fe.Reason}
	}
	if inner := errors.Unwrap(err); inner != nil {
		err = inner
	}
	return &Error{Path: prefix, Problem: err.Error()}
}

// mimError takes the member path out of a MIM parsing error.
func mimError(err error) error {
	var me *mim.Error
	if !errors.As(err, &me) {
		return &Error{Problem: err.Error()}
	}
	path := me.Field
	if me.Prompt >= 0 {
		path = joinPath(fmt.Sprintf("prompts[%d]", me.Prompt), me.Field)
	}
	problem := me.Reason
	if me.Column > 0 {
		problem = fmt.Sprintf("column %d: %s", me.Column, me.Reason)
	}
	return &Error{Path: path, Problem: problem}
}

func joinPath(prefix, path string) string {
	switch {
	case prefix == "":
		return path
	case path == "":
		return prefix
	case strings.HasPrefix(path, "["):
		return prefix + path
	}
	return prefix + "." + path
}

// checkEmbeddedAction runs the JCP parser over a SKILL_ACTION's action,
// which the protocol keeps verbatim, so a bad action is caught where the
// robot would refuse it. A null action (the skill is done) is fine.
func checkEmbeddedAction(action json.RawMessage) error {
	if action == nil || bytes.Equal(bytes.TrimSpace(action), []byte("null")) {
		return nil
	}
	if _, err := jcp.ParseAction(action); err != nil {
		return jcpError(err, "data.action")
	}
	return nil
}

// checkAction checks a JCP action. Its canonical JSON is the executor's
// reading of it (ids filled in, type and version written) with every
// member the executor does not read kept where it was and reported.
func checkAction(data []byte) (*Result, error) {
	a, err := jcp.ParseAction(data)
	if err != nil {
		return nil, jcpError(err, "")
	}
	out, err := json.Marshal(a)
	if err != nil {
		return nil, &Error{Problem: err.Error()}
	}
	return keepUnread("JCP action "+string(a.Behavior.BehaviorType()), out, data)
}

// checkBehaviour checks a bare behaviour as the root of an action, as
// `jibod jcp run` reads it, and prints it back without the envelope.
func checkBehaviour(data []byte) (*Result, error) {
	a, _, err := jcp.ParseActionOrBehavior(data)
	if err != nil {
		return nil, jcpError(err, "")
	}
	out, err := a.Behavior.MarshalJSON()
	if err != nil {
		return nil, &Error{Problem: err.Error()}
	}
	return keepUnread("JCP behaviour "+string(a.Behavior.BehaviorType()), out, data)
}

// keepUnread adds to canon the members of input it lacks, at the same
// places, and reports each as a warning.
func keepUnread(label string, canon, input []byte) (*Result, error) {
	c, err := parseTree(canon)
	if err != nil {
		return nil, &Error{Problem: err.Error()}
	}
	in, err := parseTree(input)
	if err != nil {
		return nil, &Error{Problem: err.Error()}
	}
	res := &Result{Label: label}
	graft(c, in, "", func(path string) {
		res.Warnings = append(res.Warnings, path+": not read by the JCP executor; kept")
	})
	var b bytes.Buffer
	if err := c.write(&b); err != nil {
		return nil, &Error{Problem: err.Error()}
	}
	res.Canonical = b.Bytes()
	return res, nil
}

// tree is a JSON value that keeps its members' order.
type tree struct {
	kind   byte // '{', '[' or 0 for a scalar
	keys   []string
	items  []*tree // members (parallel to keys) or elements
	scalar any     // string, json.Number, bool or nil
}

func parseTree(data []byte) (*tree, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return readTree(dec)
}

func readTree(dec *json.Decoder) (*tree, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return &tree{scalar: tok}, nil
	}
	t := &tree{kind: byte(d)}
	for dec.More() {
		if t.kind == '{' {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			t.keys = append(t.keys, k.(string))
		}
		v, err := readTree(dec)
		if err != nil {
			return nil, err
		}
		t.items = append(t.items, v)
	}
	if _, err := dec.Token(); err != nil { // the closing delimiter
		return nil, err
	}
	return t, nil
}

func (t *tree) member(key string) *tree {
	if i := slices.Index(t.keys, key); i >= 0 {
		return t.items[i]
	}
	return nil
}

// graft copies into c the members of in that c lacks, recursing where
// both have an object, or arrays of the same length.
func graft(c, in *tree, path string, kept func(path string)) {
	switch {
	case c.kind == '{' && in.kind == '{':
		for i, k := range in.keys {
			p := joinPath(path, k)
			if cm := c.member(k); cm != nil {
				graft(cm, in.items[i], p, kept)
				continue
			}
			c.keys = append(c.keys, k)
			c.items = append(c.items, in.items[i])
			kept(p)
		}
	case c.kind == '[' && in.kind == '[' && len(c.items) == len(in.items):
		for i := range c.items {
			graft(c.items[i], in.items[i], fmt.Sprintf("%s[%d]", path, i), kept)
		}
	}
}

// write writes t as compact JSON, leaving markup in strings unescaped.
func (t *tree) write(b *bytes.Buffer) error {
	switch t.kind {
	case '{', '[':
		b.WriteByte(t.kind)
		for i, item := range t.items {
			if i > 0 {
				b.WriteByte(',')
			}
			if t.kind == '{' {
				if err := writeScalar(b, t.keys[i]); err != nil {
					return err
				}
				b.WriteByte(':')
			}
			if err := item.write(b); err != nil {
				return err
			}
		}
		if t.kind == '{' {
			b.WriteByte('}')
		} else {
			b.WriteByte(']')
		}
		return nil
	}
	return writeScalar(b, t.scalar)
}

func writeScalar(b *bytes.Buffer, v any) error {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	b.Truncate(b.Len() - 1) // Encode ends with a newline
	return nil
}

// lineCol is the 1-based line and column (in characters) after the first
// off bytes of data.
func lineCol(data []byte, off int64) (int, int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line := bytes.Count(before, []byte{'\n'}) + 1
	col := utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:]) + 1
	return line, col
}
