package jcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/openjibo/jibod/internal/strictjson"
)

// ParseAction decodes and validates a JCP action.
//
// The envelope is read leniently, as Nimbus did: "type" may be missing
// (if present it must be "JCP"), "config.version" may be missing (it then
// reads as Version), and unknown envelope fields are ignored.
//
// Behaviours are read strictly. A member given twice anywhere, text that is
// not UTF-8, an unknown behaviour type, a missing or
// wrongly typed required field, an empty children list, a duplicate id, a
// bad enum value, malformed ESML or a value beyond the package limits
// rejects the whole action with a *FieldError naming the JSON path. Unknown
// fields inside behaviours are ignored. A behaviour without an id gets a
// fresh one (see NewID): the community cloud omits ids and real robots
// accepted that.
func ParseAction(data []byte) (*Action, error) {
	a, err := parseAction(data)
	if err != nil {
		return nil, fmt.Errorf("parse JCP action: %w", err)
	}
	return a, nil
}

// UnmarshalJSON parses data with ParseAction, so an Action embedded in a
// larger message is checked just as strictly.
func (a *Action) UnmarshalJSON(data []byte) error {
	p, err := ParseAction(data)
	if err != nil {
		return err
	}
	*a = *p
	return nil
}

// ParseActionOrBehavior reads a JCP action, or a bare behaviour (an
// object whose "type" is a behaviour's, such as {"type": "SLIM", …}) as the
// root of one, as a MIM's SLIM or a skill's jcp member is often written
// without its envelope. bare says which it read. Everything ParseAction
// checks is checked; errors in a bare behaviour name paths from the
// behaviour ("config.play.esml"), not from an envelope it did not have. An
// object whose type is neither "JCP" nor a behaviour's is refused, naming
// what is wanted.
func ParseActionOrBehavior(data []byte) (a *Action, bare bool, err error) {
	typ, typed := topType(data)
	switch {
	case len(data) > MaxActionBytes, !typed, typ == ActionType:
		a, err = ParseAction(data)
		return a, false, err
	case !IsBehaviorType(typ):
		return nil, false, fmt.Errorf("parse JCP action: %w", fieldErr("type",
			"is %q: want %q (an action, {\"type\":\"JCP\",\"config\":{\"jcp\":…}}) or a behaviour type (%s)",
			typ, ActionType, behaviorTypeList()))
	}
	if err := checkStrict(data); err != nil {
		return nil, true, fmt.Errorf("parse JCP behaviour: %w", err)
	}

	var p parser
	b, err := p.behavior(bytes.TrimSpace(data), "", 1)
	if err != nil {
		return nil, true, fmt.Errorf("parse JCP behaviour: %w", err)
	}
	a = &Action{Version: Version, Behavior: b}
	if err := a.Validate(); err != nil {
		var fe *FieldError
		if errors.As(err, &fe) { // Validate names paths from an envelope this behaviour did not have
			fe.Path = strings.TrimPrefix(strings.TrimPrefix(fe.Path, "config.jcp"), ".")
		}
		return nil, true, fmt.Errorf("parse JCP behaviour: %w", err)
	}
	return a, true, nil
}

// topType is the string "type" member of an object, when it has one.
func topType(data []byte) (string, bool) {
	var top struct {
		Type *string `json:"type"`
	}
	if json.Unmarshal(data, &top) != nil || top.Type == nil {
		return "", false
	}
	return *top.Type, true
}

// behaviorTypes are the types a behaviour may have, in the order errors
// list them.
var behaviorTypes = []BehaviorType{TypeSLIM, TypeSequence, TypeParallel, TypeSetPresentPerson, TypeImpactEmotion,
	TypeLookAt, TypePlayAnimation, TypePlay, TypeListen, TypeDisplay}

// IsBehaviorType reports whether typ is the type of a behaviour (SLIM,
// SEQUENCE, …), as opposed to "JCP", an action's.
func IsBehaviorType(typ string) bool { return slices.Contains(behaviorTypes, BehaviorType(typ)) }

func behaviorTypeList() string {
	names := make([]string, len(behaviorTypes))
	for i, t := range behaviorTypes {
		names[i] = string(t)
	}
	return strings.Join(names, ", ")
}

// checkStrict refuses a member given twice anywhere (two parsers could
// read different behaviours) or text that is not UTF-8, naming the path.
func checkStrict(data []byte) error {
	if err := strictjson.Check(data); err != nil {
		var sj *strictjson.Error
		var se *json.SyntaxError
		switch {
		case errors.As(err, &sj):
			return fieldErr(sj.Path, "%s", sj.Problem())
		case errors.As(err, &se):
			return fmt.Errorf("invalid JSON at byte %d: %w", se.Offset, err)
		}
		return fmt.Errorf("invalid JSON: %w", err)
	}
	return nil
}

func parseAction(data []byte) (*Action, error) {
	if len(data) > MaxActionBytes {
		return nil, fmt.Errorf("action is %d bytes, limit %d", len(data), MaxActionBytes)
	}
	if err := checkStrict(data); err != nil {
		return nil, err
	}
	data = bytes.TrimSpace(data)
	if k := kindOf(data); k != kindObject {
		return nil, fmt.Errorf("action is %s, want an object", k)
	}
	env, err := decodeObject(data, "")
	if err != nil {
		return nil, err
	}
	if t, ok, err := env.str("type", false); err != nil {
		return nil, err
	} else if ok && t != ActionType {
		return nil, fieldErr("type", "is %q, want %q", t, ActionType)
	}
	cfg, _, err := env.object("config", true)
	if err != nil {
		return nil, err
	}
	a := &Action{Version: Version}
	if v, ok, err := cfg.str("version", false); err != nil {
		return nil, err
	} else if ok {
		a.Version = v
	}
	root, ok := cfg.lookup("jcp")
	if !ok {
		return nil, fieldErr("config.jcp", "missing")
	}
	var p parser
	if a.Behavior, err = p.behavior(root, "config.jcp", 1); err != nil {
		return nil, err
	}
	if err := a.Validate(); err != nil {
		return nil, err
	}
	return a, nil
}

// parser reads behaviours, counting them so that a huge action is refused
// before all of it is decoded.
type parser struct {
	count int
}

// enter accounts for one more behaviour at path and depth.
func (p *parser) enter(path string, depth int) error {
	if depth > MaxDepth {
		return fieldErr(path, "nested deeper than %d behaviours", MaxDepth)
	}
	p.count++
	if p.count > MaxBehaviors {
		return fieldErr(path, "more than %d behaviours in one action", MaxBehaviors)
	}
	return nil
}

// base reads the fields every behaviour has.
func (p *parser) base(o object) (Base, error) {
	id, _, err := o.str("id", false)
	if err != nil {
		return Base{}, err
	}
	if id == "" {
		id = NewID()
	}
	meta, err := o.raw("meta")
	return Base{ID: id, Meta: meta}, err
}

func (p *parser) behavior(raw json.RawMessage, path string, depth int) (Behavior, error) {
	if err := p.enter(path, depth); err != nil {
		return nil, err
	}
	o, err := decodeObject(raw, path)
	if err != nil {
		return nil, err
	}
	typ, _, err := o.str("type", true)
	if err != nil {
		return nil, err
	}
	base, err := p.base(o)
	if err != nil {
		return nil, err
	}
	switch BehaviorType(typ) {
	case TypeSLIM:
		return p.slim(o, base, depth)
	case TypeSequence:
		children, err := p.children(o, depth)
		if err != nil {
			return nil, err
		}
		return &SequenceBehavior{Base: base, Children: children}, nil
	case TypeParallel:
		children, err := p.children(o, depth)
		if err != nil {
			return nil, err
		}
		first, _, err := o.boolean("succeedOnFirst")
		if err != nil {
			return nil, err
		}
		return &ParallelBehavior{Base: base, Children: children, SucceedOnFirst: first}, nil
	case TypeSetPresentPerson:
		return p.setPresentPerson(o, base)
	case TypeImpactEmotion:
		valence, _, err := o.str("valence", false)
		if err != nil {
			return nil, err
		}
		confidence, _, err := o.str("confidence", false)
		if err != nil {
			return nil, err
		}
		return &ImpactEmotion{Base: base, Valence: Impact(valence), Confidence: Impact(confidence)}, nil
	case TypeLookAt:
		return p.lookAt(o, base)
	case TypePlayAnimation:
		return p.playAnimation(o, base)
	case TypePlay, TypeListen, TypeDisplay:
		return nil, fieldErr(o.at("type"), "%s is only allowed inside a SLIM's config", typ)
	}
	return nil, fieldErr(o.at("type"), "unknown behaviour type %q", typ)
}

func (p *parser) children(o object, depth int) ([]Behavior, error) {
	items, _, err := o.array("children", true)
	if err != nil {
		return nil, err
	}
	children := make([]Behavior, len(items))
	for i, item := range items {
		if children[i], err = p.behavior(item, index(o.at("children"), i), depth+1); err != nil {
			return nil, err
		}
	}
	return children, nil
}

func (p *parser) slim(o object, base Base, depth int) (*SLIM, error) {
	s := &SLIM{Base: base}
	cfg, _, err := o.object("config", true)
	if err != nil {
		return nil, err
	}
	if part, ok, err := p.part(cfg, "play", TypePlay, depth); err != nil {
		return nil, err
	} else if ok {
		if s.Play, err = p.play(part); err != nil {
			return nil, err
		}
	}
	if part, ok, err := p.part(cfg, "listen", TypeListen, depth); err != nil {
		return nil, err
	} else if ok {
		if s.Listen, err = p.listen(part); err != nil {
			return nil, err
		}
	}
	if part, ok, err := p.part(cfg, "display", TypeDisplay, depth); err != nil {
		return nil, err
	} else if ok {
		if s.Display, err = p.display(part); err != nil {
			return nil, err
		}
	}
	opts, ok, err := o.object("options", false)
	if err != nil {
		return nil, err
	}
	if ok {
		mode, _, err := opts.str("displayMode", false)
		if err != nil {
			return nil, err
		}
		s.Options = &SLIMOptions{DisplayMode: DisplayMode(mode)}
	}
	return s, nil
}

// part reads a SLIM's play, listen or display. Its "type" may be left out
// (the community cloud does) but, if given, must match.
func (p *parser) part(cfg object, key string, want BehaviorType, depth int) (object, bool, error) {
	o, ok, err := cfg.object(key, false)
	if err != nil || !ok {
		return object{}, false, err
	}
	if err := p.enter(o.path, depth+1); err != nil {
		return object{}, false, err
	}
	if typ, ok, err := o.str("type", false); err != nil {
		return object{}, false, err
	} else if ok && BehaviorType(typ) != want {
		return object{}, false, fieldErr(o.at("type"), "is %q, want %q", typ, want)
	}
	return o, true, nil
}

func (p *parser) play(o object) (*Play, error) {
	base, err := p.base(o)
	if err != nil {
		return nil, err
	}
	pl := &Play{Base: base}
	if pl.ESML, _, err = o.str("esml", true); err != nil {
		return nil, err
	}
	if pl.AutoRuleConfig, err = o.raw("autoRuleConfig"); err != nil {
		return nil, err
	}
	if pl.SpeakOptions, err = o.raw("speakOptions"); err != nil {
		return nil, err
	}
	return pl, nil
}

func (p *parser) listen(o object) (*Listen, error) {
	base, err := p.base(o)
	if err != nil {
		return nil, err
	}
	l := &Listen{Base: base}
	items, _, err := o.array("contexts", true)
	if err != nil {
		return nil, err
	}
	if len(items) > MaxContexts {
		return nil, fieldErr(o.at("contexts"), "%d contexts, limit %d", len(items), MaxContexts)
	}
	l.Contexts = make([]string, len(items))
	for i, item := range items {
		if l.Contexts[i], err = decodeString(item, index(o.at("contexts"), i)); err != nil {
			return nil, err
		}
	}
	if l.Intents, err = o.raw("intents"); err != nil {
		return nil, err
	}
	return l, nil
}

func (p *parser) display(o object) (*Display, error) {
	base, err := p.base(o)
	if err != nil {
		return nil, err
	}
	d := &Display{Base: base}
	if d.Name, _, err = o.str("name", false); err != nil {
		return nil, err
	}
	if d.View, err = o.raw("view"); err != nil {
		return nil, err
	}
	if d.Layer, err = o.integer("layer"); err != nil {
		return nil, err
	}
	if v, ok, err := o.boolean("visible"); err != nil {
		return nil, err
	} else if ok {
		d.Visible = &v
	}
	if v, ok, err := o.boolean("keepDisplay"); err != nil {
		return nil, err
	} else if ok {
		d.KeepDisplay = &v
	}
	if d.OnCancel, err = o.raw("onCancel"); err != nil {
		return nil, err
	}
	overlay, _, err := o.str("overlay", false)
	d.Overlay = Overlay(overlay)
	return d, err
}

func (p *parser) setPresentPerson(o object, base Base) (*SetPresentPerson, error) {
	s := &SetPresentPerson{Base: base}
	var err error
	if s.LooperID, _, err = o.str("looperId", true); err != nil {
		return nil, err
	}
	source, _, err := o.str("source", true)
	if err != nil {
		return nil, err
	}
	s.Source = PersonSource(source)
	if s.Confidence, _, err = o.number("confidence", true); err != nil {
		return nil, err
	}
	return s, nil
}

func (p *parser) lookAt(o object, base Base) (*LookAt, error) {
	l := &LookAt{Base: base}
	t, _, err := o.object("target", true)
	if err != nil {
		return nil, err
	}
	if v, ok, err := t.object("position", false); err != nil {
		return nil, err
	} else if ok {
		var pos Vector3
		if pos.X, _, err = v.number("x", true); err != nil {
			return nil, err
		}
		if pos.Y, _, err = v.number("y", true); err != nil {
			return nil, err
		}
		if pos.Z, _, err = v.number("z", true); err != nil {
			return nil, err
		}
		l.Target.Position = &pos
	}
	for _, f := range []struct {
		key string
		dst **Vector2
	}{{"angleVector", &l.Target.Angle}, {"cameraTarget", &l.Target.Camera}} {
		v, ok, err := t.object(f.key, false)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		var xy Vector2
		if xy.X, _, err = v.number("x", true); err != nil {
			return nil, err
		}
		if xy.Y, _, err = v.number("y", true); err != nil {
			return nil, err
		}
		*f.dst = &xy
	}
	if l.Target.Entity, err = t.raw("entityId"); err != nil {
		return nil, err
	}
	if l.Target.Track, _, err = t.boolean("track"); err != nil {
		return nil, err
	}
	opts, ok, err := o.object("options", false)
	if err != nil {
		return nil, err
	}
	if ok {
		l.Options = &LookAtOptions{}
		typ, _, err := opts.str("type", false)
		if err != nil {
			return nil, err
		}
		dofs, _, err := opts.str("dofs", false)
		if err != nil {
			return nil, err
		}
		l.Options.Type, l.Options.DOFs = LookType(typ), DOFSet(dofs)
	}
	return l, nil
}

func (p *parser) playAnimation(o object, base Base) (*PlayAnimation, error) {
	pa := &PlayAnimation{Base: base}
	a, _, err := o.object("animation", true)
	if err != nil {
		return nil, err
	}
	if pa.Animation.URL, _, err = a.str("url", false); err != nil {
		return nil, err
	}
	if pa.Animation.Data, err = a.raw("data"); err != nil {
		return nil, err
	}
	if pa.Animation.Query, _, err = a.str("query", false); err != nil {
		return nil, err
	}
	if items, ok, err := a.array("categories", false); err != nil {
		return nil, err
	} else if ok {
		if len(items) > MaxAnimationCategories {
			return nil, fieldErr(a.at("categories"), "%d categories, limit %d", len(items), MaxAnimationCategories)
		}
		pa.Animation.Categories = make([]string, len(items))
		for i, item := range items {
			if pa.Animation.Categories[i], err = decodeString(item, index(a.at("categories"), i)); err != nil {
				return nil, err
			}
		}
	}
	opts, ok, err := o.object("options", false)
	if err != nil {
		return nil, err
	}
	if ok {
		pa.Options = &AnimationOptions{}
		dofs, _, err := opts.str("dofs", false)
		if err != nil {
			return nil, err
		}
		pa.Options.DOFs = DOFSet(dofs)
		if v, ok, err := opts.number("speed", false); err != nil {
			return nil, err
		} else if ok {
			pa.Options.Speed = &v
		}
		if pa.Options.Loops, err = opts.integer("loops"); err != nil {
			return nil, err
		}
	}
	return pa, nil
}

// object is a decoded JSON object and its path from the envelope.
type object struct {
	path   string
	fields map[string]json.RawMessage
}

func decodeObject(raw json.RawMessage, path string) (object, error) {
	if k := kindOf(raw); k != kindObject {
		return object{}, fieldErr(path, "is %s, want an object", k)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return object{}, fieldErr(path, "%v", err)
	}
	return object{path: path, fields: fields}, nil
}

func (o object) at(key string) string { return join(o.path, key) }

// lookup returns the field's value; a JSON null counts as absent, as
// JavaScript senders use null and undefined alike.
func (o object) lookup(key string) (json.RawMessage, bool) {
	raw, ok := o.fields[key]
	if !ok || kindOf(raw) == kindNull {
		return nil, false
	}
	return raw, true
}

// get returns the field's value, or an error when it is required and absent.
func (o object) get(key string, required bool) (json.RawMessage, bool, error) {
	raw, ok := o.lookup(key)
	if !ok && required {
		return nil, false, fieldErr(o.at(key), "missing")
	}
	return raw, ok, nil
}

func (o object) str(key string, required bool) (string, bool, error) {
	raw, ok, err := o.get(key, required)
	if err != nil || !ok {
		return "", false, err
	}
	s, err := decodeString(raw, o.at(key))
	return s, err == nil, err
}

func decodeString(raw json.RawMessage, path string) (string, error) {
	if k := kindOf(raw); k != kindString {
		return "", fieldErr(path, "is %s, want a string", k)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fieldErr(path, "%v", err)
	}
	return s, nil
}

func (o object) boolean(key string) (bool, bool, error) {
	raw, ok := o.lookup(key)
	if !ok {
		return false, false, nil
	}
	if k := kindOf(raw); k != kindBool {
		return false, false, fieldErr(o.at(key), "is %s, want a boolean", k)
	}
	return raw[0] == 't', true, nil
}

func (o object) number(key string, required bool) (float64, bool, error) {
	raw, ok, err := o.get(key, required)
	if err != nil || !ok {
		return 0, false, err
	}
	if k := kindOf(raw); k != kindNumber {
		return 0, false, fieldErr(o.at(key), "is %s, want a number", k)
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil || math.IsInf(f, 0) {
		return 0, false, fieldErr(o.at(key), "%s is out of range", raw)
	}
	return f, true, nil
}

func (o object) integer(key string) (*int, error) {
	f, ok, err := o.number(key, false)
	if err != nil || !ok {
		return nil, err
	}
	if f != math.Trunc(f) || math.Abs(f) > 1<<31 {
		return nil, fieldErr(o.at(key), "is %s, want a whole number", o.fields[key])
	}
	n := int(f)
	return &n, nil
}

func (o object) array(key string, required bool) ([]json.RawMessage, bool, error) {
	raw, ok, err := o.get(key, required)
	if err != nil || !ok {
		return nil, false, err
	}
	if k := kindOf(raw); k != kindArray {
		return nil, false, fieldErr(o.at(key), "is %s, want an array", k)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, false, fieldErr(o.at(key), "%v", err)
	}
	return items, true, nil
}

func (o object) object(key string, required bool) (object, bool, error) {
	raw, ok, err := o.get(key, required)
	if err != nil || !ok {
		return object{}, false, err
	}
	obj, err := decodeObject(raw, o.at(key))
	return obj, err == nil, err
}

// raw returns a field kept as raw JSON (compacted), or nil when absent. Its
// kind is checked by Validate.
func (o object) raw(key string) (json.RawMessage, error) {
	raw, ok := o.lookup(key)
	if !ok {
		return nil, nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, fieldErr(o.at(key), "%v", err)
	}
	return buf.Bytes(), nil
}

// kind is a JSON value's type, named as an error message reads it.
type kind string

const (
	kindObject  kind = "an object"
	kindArray   kind = "an array"
	kindString  kind = "a string"
	kindNumber  kind = "a number"
	kindBool    kind = "a boolean"
	kindNull    kind = "null"
	kindInvalid kind = "not valid JSON"
)

// kindOf classifies a JSON value by its first byte; the value has already
// been checked to be valid JSON.
func kindOf(raw json.RawMessage) kind {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return kindInvalid
	}
	switch c := raw[0]; {
	case c == '{':
		return kindObject
	case c == '[':
		return kindArray
	case c == '"':
		return kindString
	case c == 't' || c == 'f':
		return kindBool
	case c == 'n':
		return kindNull
	case c == '-' || ('0' <= c && c <= '9'):
		return kindNumber
	}
	return kindInvalid
}
