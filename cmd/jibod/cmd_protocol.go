package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/openjibo/jibod/core/skill/mim"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/internal/strictjson"
	"github.com/openjibo/jibod/jcp"
)

const protocolUsage = `Usage:
  jibod protocol check [--quiet] [--as KIND] FILE...

Decodes each file as the Jibo message, JCP action, skill manifest or MIM it
is, validates it, and prints "FILE: KIND ok" and its canonical JSON on one
line. An invalid or unreadable file prints "FILE: error: PATH: PROBLEM" on
standard error; every file is checked, and the exit status is 1 if any
failed. What a file is comes from its content:

  mim_type or prompts          MIM (.mim)
  type LISTEN_LAUNCH, LISTEN_UPDATE, PROACTIVE_LAUNCH
                               skill request
  type SKILL_ACTION            skill response (the hub forwards it unchanged)
  type SKILL_REDIRECT, ERROR   hub-to-robot if data has match (redirect) or
                               no skill (error), else skill response
  type LISTEN                  hub-to-robot if data has nlu or match (the
                               turn's result), else robot-to-hub
  type CONTEXT, TRIGGER, CMD_RESULT, CLIENT_ASR, CLIENT_NLU
                               robot-to-hub
  type SOS, EOS, ASR, NLU, PROACTIVE, COMMAND
                               hub-to-robot
  type JCP, or config.jcp      JCP action
  type SLIM, SEQUENCE, PARALLEL, SET_PRESENT_PERSON, IMPACT_EMOTION, LOOKAT,
       PLAY_ANIMATION (PLAY, LISTEN, DISPLAY: only inside a SLIM)
                               JCP behaviour, checked as the root of an action
                               (as jibod jcp run runs it)
  intents                      skill manifest (jibo.md §2.6)

Flags:
`

// maxCheckBytes bounds a file protocol check reads: the protocol's message
// limit. JCP actions and MIMs have smaller limits of their own, which
// their parsers apply.
const maxCheckBytes = protocol.MaxMessageSize

// checkKind is what a checked file holds.
type checkKind string

// The kinds, named as --as takes them.
const (
	kindSkillRequest  checkKind = "skill-request"
	kindSkillResponse checkKind = "skill-response"
	kindRobotToHub    checkKind = "robot-to-hub"
	kindHubToRobot    checkKind = "hub-to-robot"
	kindJCPAction     checkKind = "jcp-action"
	kindJCPBehaviour  checkKind = "jcp-behaviour"
	kindManifest      checkKind = "manifest"
	kindMIM           checkKind = "mim"
)

var checkKinds = []checkKind{kindSkillRequest, kindSkillResponse, kindRobotToHub, kindHubToRobot,
	kindJCPAction, kindJCPBehaviour, kindManifest, kindMIM}

// checked is a file that passed: what it is, its canonical JSON, and
// members kept that nothing reads.
type checked struct {
	label     string
	canonical []byte
	warnings  []string
	// decoded is the decoded message, manifest or MIM; nil for JCP.
	decoded any
}

// checkError is why a file failed: the JSON path of the bad member (empty
// for the file as a whole) and what is wrong with it.
type checkError struct {
	path    string
	problem string
}

func (e *checkError) Error() string {
	if e.path == "" {
		return e.problem
	}
	return e.path + ": " + e.problem
}

func cmdProtocol(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "check" {
		fmt.Fprint(stderr, protocolUsage)
		if len(args) == 0 {
			return usageError{"missing subcommand (want check)"}
		}
		return usageError{fmt.Sprintf("unknown subcommand %q (want check)", args[0])}
	}
	fs := flag.NewFlagSet("protocol check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, protocolUsage); fs.PrintDefaults() }
	quiet := fs.Bool("quiet", false, "print only the FILE: KIND ok lines, not the canonical JSON")
	as := fs.String("as", "", "read every file as this kind instead of recognising it: "+kindList())
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageError{"want at least one file"}
	}
	kind := checkKind(*as)
	if kind != "" && !slices.Contains(checkKinds, kind) {
		return usageError{fmt.Sprintf("--as %q: want one of %s", *as, kindList())}
	}
	failed := 0
	for _, file := range fs.Args() {
		if err := ctx.Err(); err != nil {
			return err
		}
		res, err := checkFile(file, kind)
		if err != nil {
			failed++
			fmt.Fprintf(stderr, "%s: error: %v\n", file, err)
			continue
		}
		for _, w := range res.warnings {
			fmt.Fprintf(stderr, "%s: warning: %s\n", file, w)
		}
		fmt.Fprintf(stdout, "%s: %s ok\n", file, res.label)
		if !*quiet {
			fmt.Fprintf(stdout, "%s\n", res.canonical)
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d files invalid", failed, fs.NArg())
	}
	return nil
}

func kindList() string {
	names := make([]string, len(checkKinds))
	for i, k := range checkKinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

// checkFile reads and checks one file; kind "" means recognise it.
func checkFile(file string, kind checkKind) (*checked, error) {
	data, err := readLimited(file, maxCheckBytes)
	if err != nil {
		return nil, err
	}
	return checkData(data, filepath.Base(file), kind)
}

func readLimited(file string, limit int) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, &checkError{problem: fmt.Sprintf("cannot read: %v", err)}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return nil, &checkError{problem: fmt.Sprintf("cannot read: %v", err)}
	}
	if len(data) > limit {
		return nil, &checkError{problem: fmt.Sprintf("file is over %d bytes", limit)}
	}
	return data, nil
}

// checkData checks one document; name is the file's base name (a MIM's
// default id).
func checkData(data []byte, name string, kind checkKind) (*checked, error) {
	if err := syntaxError(data); err != nil {
		return nil, err
	}
	var se *strictjson.Error
	if err := strictjson.Check(data); errors.As(err, &se) {
		return nil, &checkError{path: se.Path, problem: se.Problem()}
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil || top == nil {
		return nil, &checkError{problem: "want a JSON object"}
	}
	if kind == "" {
		var err error
		if kind, err = recognise(top); err != nil {
			return nil, err
		}
	}
	switch kind {
	case kindSkillRequest:
		r, err := protocol.DecodeRequest(data)
		if err != nil {
			return nil, protocolError(err)
		}
		return canonical("skill request "+r.Type, r)
	case kindSkillResponse:
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
	case kindRobotToHub:
		r, err := protocol.DecodeHubRequest(data)
		if err != nil {
			return nil, protocolError(err)
		}
		return canonical("robot-to-hub "+r.Type, r)
	case kindHubToRobot:
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
	case kindManifest:
		m, err := protocol.DecodeManifest(data)
		if err != nil {
			return nil, protocolError(err)
		}
		return canonical("skill manifest", m)
	case kindJCPAction:
		return checkAction(data)
	case kindJCPBehaviour:
		return checkBehaviour(data)
	case kindMIM:
		m, err := mim.Parse(data, name)
		if err != nil {
			return nil, mimError(err)
		}
		return canonical("MIM "+string(m.Type), m)
	}
	return nil, &checkError{problem: fmt.Sprintf("unknown kind %q", kind)}
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
		// The offset counts the offending byte; lineCol (intents_eval.go)
		// wants the bytes before it.
		line, col := lineCol(data, se.Offset-1)
		return &checkError{problem: fmt.Sprintf("line %d, column %d: %v", line, col, se)}
	}
	if err == nil {
		err = errors.New("invalid JSON")
	}
	return &checkError{problem: err.Error()}
}

// recognise tells what a document is from its members, as protocolUsage
// lists.
func recognise(top map[string]json.RawMessage) (checkKind, error) {
	if _, ok := top["mim_type"]; ok {
		return kindMIM, nil
	}
	if _, ok := top["prompts"]; ok {
		return kindMIM, nil
	}
	if raw, ok := top["type"]; ok {
		var typ string
		if err := json.Unmarshal(raw, &typ); err != nil {
			return "", &checkError{path: "type", problem: "want string"}
		}
		data := objectMembers(top["data"])
		switch typ {
		case protocol.TypeListenLaunch, protocol.TypeListenUpdate, protocol.TypeProactiveLaunch:
			return kindSkillRequest, nil
		case protocol.TypeSkillAction:
			return kindSkillResponse, nil
		case protocol.TypeSkillRedirect:
			if _, ok := data["match"]; ok {
				return kindHubToRobot, nil
			}
			return kindSkillResponse, nil
		case protocol.TypeError:
			if _, ok := data["skill"]; ok {
				return kindSkillResponse, nil
			}
			return kindHubToRobot, nil
		case protocol.TypeListen:
			_, nlu := data["nlu"]
			_, match := data["match"]
			if nlu || match {
				return kindHubToRobot, nil
			}
			return kindRobotToHub, nil
		case protocol.TypeContext, protocol.TypeTrigger, protocol.TypeCmdResult,
			protocol.TypeClientASR, protocol.TypeClientNLU:
			return kindRobotToHub, nil
		case protocol.TypeSOS, protocol.TypeEOS, protocol.TypeASR, protocol.TypeNLU,
			protocol.TypeProactive, protocol.TypeCommand:
			return kindHubToRobot, nil
		case jcp.ActionType:
			return kindJCPAction, nil
		}
		if jcp.IsBehaviorType(typ) {
			return kindJCPBehaviour, nil
		}
		return "", &checkError{path: "type", problem: fmt.Sprintf(
			"unknown type %q: want a skill or hub message type, %q, or a JCP behaviour type", truncateQuoted(typ), jcp.ActionType)}
	}
	if _, ok := objectMembers(top["config"])["jcp"]; ok {
		return kindJCPAction, nil
	}
	if _, ok := top["intents"]; ok {
		return kindManifest, nil
	}
	return "", &checkError{problem: "not a Jibo message (no type), JCP action (no type or config.jcp), " +
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
func canonical(label string, v any) (*checked, error) {
	out, err := protocol.EncodeJSON(v)
	if err != nil {
		return nil, &checkError{problem: err.Error()}
	}
	return &checked{label: label, canonical: out, decoded: v}, nil
}

// protocolError takes the member path out of a protocol decoding error.
func protocolError(err error) error {
	var fe *protocol.FieldError
	if errors.As(err, &fe) {
		return &checkError{path: fe.Path, problem: fe.Problem}
	}
	if inner := errors.Unwrap(err); inner != nil {
		err = inner
	}
	return &checkError{problem: err.Error()}
}

// jcpError takes the member path out of a JCP parsing error and places it
// under prefix.
func jcpError(err error, prefix string) error {
	var fe *jcp.FieldError
	if errors.As(err, &fe) {
		return &checkError{path: joinPath(prefix, fe.Path), problem: fe.Reason}
	}
	if inner := errors.Unwrap(err); inner != nil {
		err = inner
	}
	return &checkError{path: prefix, problem: err.Error()}
}

// mimError takes the member path out of a MIM parsing error.
func mimError(err error) error {
	var me *mim.Error
	if !errors.As(err, &me) {
		return &checkError{problem: err.Error()}
	}
	path := me.Field
	if me.Prompt >= 0 {
		path = joinPath(fmt.Sprintf("prompts[%d]", me.Prompt), me.Field)
	}
	problem := me.Reason
	if me.Column > 0 {
		problem = fmt.Sprintf("column %d: %s", me.Column, me.Reason)
	}
	return &checkError{path: path, problem: problem}
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
func checkAction(data []byte) (*checked, error) {
	a, err := jcp.ParseAction(data)
	if err != nil {
		return nil, jcpError(err, "")
	}
	out, err := json.Marshal(a)
	if err != nil {
		return nil, &checkError{problem: err.Error()}
	}
	return keepUnread("JCP action "+string(a.Behavior.BehaviorType()), out, data)
}

// checkBehaviour checks a bare behaviour as the root of an action, as
// `jibod jcp run` reads it, and prints it back without the envelope.
func checkBehaviour(data []byte) (*checked, error) {
	a, _, err := jcp.ParseActionOrBehavior(data)
	if err != nil {
		return nil, jcpError(err, "")
	}
	out, err := a.Behavior.MarshalJSON()
	if err != nil {
		return nil, &checkError{problem: err.Error()}
	}
	return keepUnread("JCP behaviour "+string(a.Behavior.BehaviorType()), out, data)
}

// keepUnread adds to canon the members of input it lacks, at the same
// places, and reports each as a warning.
func keepUnread(label string, canon, input []byte) (*checked, error) {
	c, err := parseTree(canon)
	if err != nil {
		return nil, &checkError{problem: err.Error()}
	}
	in, err := parseTree(input)
	if err != nil {
		return nil, &checkError{problem: err.Error()}
	}
	res := &checked{label: label}
	graft(c, in, "", func(path string) {
		res.warnings = append(res.warnings, path+": not read by the JCP executor; kept")
	})
	var b bytes.Buffer
	if err := c.write(&b); err != nil {
		return nil, &checkError{problem: err.Error()}
	}
	res.canonical = b.Bytes()
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
