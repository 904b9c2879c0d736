package jcp

import (
	"encoding/json"
	"errors"
	"math"
	"unicode/utf8"

	"github.com/openjibo/jibod/motion"
)

// Validate checks an action built in Go by the rules ParseAction applies to
// one read from the wire, and returns a *FieldError naming the first
// problem by its JSON path. Unlike ParseAction it does not invent missing
// ids: every behaviour needs one.
func (a *Action) Validate() error {
	if a == nil {
		return errors.New("action is nil")
	}
	return a.validate(nil)
}

// validate checks a, keeping what it parses in c unless c is nil.
func (a *Action) validate(c *Checked) error {
	if err := checkString("config.version", a.Version); err != nil {
		return err
	}
	v := validator{ids: map[string]string{}, keep: c}
	return v.behavior("config.jcp", a.Behavior, 1)
}

// validator walks a tree once, tracking ids and the behaviour count.
type validator struct {
	ids   map[string]string // id -> path of its first use
	count int
	keep  *Checked // receives the parsed ESML, views and animations; may be nil
}

// isNil reports whether b is nil or a typed nil pointer.
func isNil(b Behavior) bool {
	switch b := b.(type) {
	case nil:
		return true
	case *SLIM:
		return b == nil
	case *Play:
		return b == nil
	case *Listen:
		return b == nil
	case *Display:
		return b == nil
	case *SequenceBehavior:
		return b == nil
	case *ParallelBehavior:
		return b == nil
	case *SetPresentPerson:
		return b == nil
	case *ImpactEmotion:
		return b == nil
	case *LookAt:
		return b == nil
	case *PlayAnimation:
		return b == nil
	}
	return false
}

// common checks what every behaviour shares and accounts for it.
func (v *validator) common(path string, b Behavior, depth int) error {
	if depth > MaxDepth {
		return fieldErr(path, "nested deeper than %d behaviours", MaxDepth)
	}
	v.count++
	if v.count > MaxBehaviors {
		return fieldErr(path, "more than %d behaviours in one action", MaxBehaviors)
	}
	id := b.BehaviorID()
	switch {
	case id == "":
		return fieldErr(join(path, "id"), "missing")
	case len(id) > MaxIDBytes:
		return fieldErr(join(path, "id"), "is %d bytes, limit %d", len(id), MaxIDBytes)
	case !utf8.ValidString(id):
		return fieldErr(join(path, "id"), "is not valid UTF-8")
	}
	if first, dup := v.ids[id]; dup {
		return fieldErr(join(path, "id"), "duplicate id %q (first used at %s)", id, first)
	}
	v.ids[id] = path
	return nil
}

func (v *validator) behavior(path string, b Behavior, depth int) error {
	if isNil(b) {
		return fieldErr(path, "missing")
	}
	switch b := b.(type) {
	case *Play, *Listen, *Display:
		return fieldErr(join(path, "type"), "%s is only allowed inside a SLIM's config", b.BehaviorType())
	}
	if err := v.common(path, b, depth); err != nil {
		return err
	}
	switch b := b.(type) {
	case *SLIM:
		if err := checkRaw(join(path, "meta"), b.Meta); err != nil {
			return err
		}
		return v.slim(path, b, depth)
	case *SequenceBehavior:
		if err := checkRaw(join(path, "meta"), b.Meta); err != nil {
			return err
		}
		return v.children(path, b.Children, depth)
	case *ParallelBehavior:
		if err := checkRaw(join(path, "meta"), b.Meta); err != nil {
			return err
		}
		return v.children(path, b.Children, depth)
	case *SetPresentPerson:
		return checkSetPresentPerson(path, b)
	case *ImpactEmotion:
		return checkImpactEmotion(path, b)
	case *LookAt:
		return checkLookAt(path, b)
	case *PlayAnimation:
		anim, err := checkPlayAnimation(path, b)
		if err == nil && anim != nil && v.keep != nil {
			v.keep.anims[b] = anim
		}
		return err
	}
	return fieldErr(join(path, "type"), "unknown behaviour type %q", b.BehaviorType())
}

func (v *validator) children(path string, children []Behavior, depth int) error {
	cp := join(path, "children")
	if len(children) == 0 {
		return fieldErr(cp, "must not be empty")
	}
	for i, c := range children {
		if err := v.behavior(index(cp, i), c, depth+1); err != nil {
			return err
		}
	}
	return nil
}

func (v *validator) slim(path string, s *SLIM, depth int) error {
	cfg := join(path, "config")
	if s.Play == nil && s.Listen == nil && s.Display == nil {
		return fieldErr(cfg, "needs at least one of play, listen or display")
	}
	if s.Play != nil {
		p := join(cfg, "play")
		if err := v.common(p, s.Play, depth+1); err != nil {
			return err
		}
		doc, err := checkPlay(p, s.Play)
		if err != nil {
			return err
		}
		if v.keep != nil {
			v.keep.esml[s.Play] = doc
		}
	}
	if s.Listen != nil {
		p := join(cfg, "listen")
		if err := v.common(p, s.Listen, depth+1); err != nil {
			return err
		}
		if err := checkListen(p, s.Listen); err != nil {
			return err
		}
	}
	if s.Display != nil {
		p := join(cfg, "display")
		if err := v.common(p, s.Display, depth+1); err != nil {
			return err
		}
		view, err := checkDisplay(p, s.Display)
		if err != nil {
			return err
		}
		if v.keep != nil {
			v.keep.views[s.Display] = view
		}
	}
	if s.Options != nil {
		switch m := s.Options.DisplayMode; m {
		case "", DisplayStartOnPlay, DisplayStartOnListen:
		default:
			return fieldErr(join(path, "options.displayMode"), "%q is not one of %s, %s", m, DisplayStartOnPlay, DisplayStartOnListen)
		}
	}
	return nil
}

// checkPlay checks a PLAY and returns its parsed ESML.
func checkPlay(path string, p *Play) (*ESML, error) {
	ep := join(path, "esml")
	if len(p.ESML) > MaxESMLBytes {
		return nil, fieldErr(ep, "is %d bytes, limit %d", len(p.ESML), MaxESMLBytes)
	}
	doc, err := ParseESML(p.ESML)
	if err != nil {
		return nil, fieldErr(ep, "%v", err)
	}
	if err := checkRaw(join(path, "autoRuleConfig"), p.AutoRuleConfig, kindObject, kindBool); err != nil {
		return nil, err
	}
	if err := checkRaw(join(path, "speakOptions"), p.SpeakOptions, kindObject); err != nil {
		return nil, err
	}
	return doc, checkRaw(join(path, "meta"), p.Meta)
}

func checkListen(path string, l *Listen) error {
	cp := join(path, "contexts")
	switch n := len(l.Contexts); {
	case n == 0:
		return fieldErr(cp, "must not be empty")
	case n > MaxContexts:
		return fieldErr(cp, "%d contexts, limit %d", n, MaxContexts)
	}
	for i, c := range l.Contexts {
		if c == "" {
			return fieldErr(index(cp, i), "must not be empty")
		}
		if err := checkString(index(cp, i), c); err != nil {
			return err
		}
	}
	if err := checkRaw(join(path, "intents"), l.Intents, kindArray); err != nil {
		return err
	}
	return checkRaw(join(path, "meta"), l.Meta)
}

// checkDisplay checks a DISPLAY and returns its parsed view.
func checkDisplay(path string, d *Display) (View, error) {
	if err := checkString(join(path, "name"), d.Name); err != nil {
		return View{}, err
	}
	if d.View == nil {
		return View{}, fieldErr(join(path, "view"), "missing")
	}
	if err := checkRaw(join(path, "view"), d.View, kindObject); err != nil {
		return View{}, err
	}
	view, err := ParseView(d.View)
	if err != nil {
		return View{}, fieldErr(join(path, "view"), "%v", err)
	}
	if d.Layer != nil && (*d.Layer < 0 || *d.Layer > MaxDisplayLayer) {
		return View{}, fieldErr(join(path, "layer"), "%d is outside 0..%d", *d.Layer, MaxDisplayLayer)
	}
	if err := checkRaw(join(path, "onCancel"), d.OnCancel, kindArray); err != nil {
		return View{}, err
	}
	switch d.Overlay {
	case "", OverlayDim, OverlayClear:
	default:
		return View{}, fieldErr(join(path, "overlay"), "%q is not one of %s, %s", d.Overlay, OverlayDim, OverlayClear)
	}
	return view, checkRaw(join(path, "meta"), d.Meta)
}

func checkSetPresentPerson(path string, s *SetPresentPerson) error {
	if s.LooperID == "" {
		return fieldErr(join(path, "looperId"), "missing")
	}
	if err := checkString(join(path, "looperId"), s.LooperID); err != nil {
		return err
	}
	switch s.Source {
	case SourceVoice, SourceFace, SourceUserOverride:
	case "":
		return fieldErr(join(path, "source"), "missing")
	default:
		return fieldErr(join(path, "source"), "%q is not one of %s, %s, %s", s.Source, SourceVoice, SourceFace, SourceUserOverride)
	}
	if c := s.Confidence; math.IsNaN(c) || c < 0 || c > MaxPresentPersonConfidence {
		return fieldErr(join(path, "confidence"), "%g is outside 0..%d", c, MaxPresentPersonConfidence)
	}
	return checkRaw(join(path, "meta"), s.Meta)
}

func checkImpactEmotion(path string, e *ImpactEmotion) error {
	for _, f := range []struct {
		key string
		v   Impact
	}{{"valence", e.Valence}, {"confidence", e.Confidence}} {
		if f.v != "" && !f.v.valid() {
			return fieldErr(join(path, f.key), "%q is not one of %s, %s, %s, %s, %s, %s, %s", f.v,
				ImpactNone, ImpactLowPos, ImpactMediumPos, ImpactHighPos, ImpactLowNeg, ImpactMediumNeg, ImpactHighNeg)
		}
	}
	return checkRaw(join(path, "meta"), e.Meta)
}

func checkLookAt(path string, l *LookAt) error {
	tp := join(path, "target")
	t := l.Target
	set := 0
	for _, given := range []bool{t.Position != nil, t.Angle != nil, t.Camera != nil, t.Entity != nil} {
		if given {
			set++
		}
	}
	if set != 1 {
		return fieldErr(tp, "needs exactly one of position, angleVector, cameraTarget or entityId (got %d)", set)
	}
	finite := func(p string, v, limit float64) error {
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > limit {
			return fieldErr(p, "%g is outside ±%g", v, limit)
		}
		return nil
	}
	switch {
	case t.Position != nil:
		pp := join(tp, "position")
		for _, c := range []struct {
			k string
			v float64
		}{{"x", t.Position.X}, {"y", t.Position.Y}, {"z", t.Position.Z}} {
			if err := finite(join(pp, c.k), c.v, MaxTargetDistance); err != nil {
				return err
			}
		}
	case t.Angle != nil:
		ap := join(tp, "angleVector")
		if err := finite(join(ap, "x"), t.Angle.X, 2*math.Pi); err != nil {
			return err
		}
		if err := finite(join(ap, "y"), t.Angle.Y, math.Pi); err != nil {
			return err
		}
	case t.Camera != nil:
		cp := join(tp, "cameraTarget")
		for _, c := range []struct {
			k string
			v float64
		}{{"x", t.Camera.X}, {"y", t.Camera.Y}} {
			if math.IsNaN(c.v) || c.v < 0 || c.v > MaxCameraCoordinate {
				return fieldErr(join(cp, c.k), "%g is outside 0..%d pixels", c.v, MaxCameraCoordinate)
			}
		}
	case t.Entity != nil:
		ep := join(tp, "entityId")
		if err := checkRaw(ep, t.Entity, kindNumber, kindString); err != nil {
			return err
		}
		if len(t.Entity) > MaxStringBytes {
			return fieldErr(ep, "is %d bytes, limit %d", len(t.Entity), MaxStringBytes)
		}
	}
	if t.Track && t.Entity == nil {
		return fieldErr(join(tp, "track"), "only an entityId target can be tracked")
	}
	if o := l.Options; o != nil {
		switch o.Type {
		case "", LookLevelHead, LookFlushBase:
		default:
			return fieldErr(join(path, "options.type"), "%q is not one of %s, %s", o.Type, LookLevelHead, LookFlushBase)
		}
		if !o.DOFs.valid() {
			return fieldErr(join(path, "options.dofs"), "%q is not one of %s, %s, %s, %s", o.DOFs, DOFBase, DOFEye, DOFBody, DOFAll)
		}
	}
	return checkRaw(join(path, "meta"), l.Meta)
}

// checkPlayAnimation checks a PLAY_ANIMATION and returns its inline
// animation parsed, nil when it names one another way.
func checkPlayAnimation(path string, p *PlayAnimation) (*motion.Animation, error) {
	var anim *motion.Animation
	ap := join(path, "animation")
	a := p.Animation
	set := 0
	for _, given := range []bool{a.URL != "", a.Data != nil, a.Query != "", a.Categories != nil} {
		if given {
			set++
		}
	}
	if set != 1 {
		return nil, fieldErr(ap, "needs exactly one of url, data, query or categories (got %d)", set)
	}
	switch {
	case a.URL != "":
		if err := checkString(join(ap, "url"), a.URL); err != nil {
			return nil, err
		}
	case a.Query != "":
		if err := checkString(join(ap, "query"), a.Query); err != nil {
			return nil, err
		}
	case a.Data != nil:
		if err := checkRaw(join(ap, "data"), a.Data, kindObject); err != nil {
			return nil, err
		}
		var err error
		if anim, err = motion.ParseAnimation(a.Data); err != nil {
			return nil, fieldErr(join(ap, "data"), "%v", err)
		}
	default:
		cp := join(ap, "categories")
		switch n := len(a.Categories); {
		case n == 0:
			return nil, fieldErr(cp, "must not be empty")
		case n > MaxAnimationCategories:
			return nil, fieldErr(cp, "%d categories, limit %d", n, MaxAnimationCategories)
		}
		for i, c := range a.Categories {
			if c == "" {
				return nil, fieldErr(index(cp, i), "must not be empty")
			}
			if err := checkString(index(cp, i), c); err != nil {
				return nil, err
			}
		}
	}
	if o := p.Options; o != nil {
		if !o.DOFs.valid() {
			return nil, fieldErr(join(path, "options.dofs"), "%q is not one of %s, %s, %s, %s", o.DOFs, DOFBase, DOFEye, DOFBody, DOFAll)
		}
		if s := o.Speed; s != nil && (math.IsNaN(*s) || *s < 0.1 || *s > 10) {
			return nil, fieldErr(join(path, "options.speed"), "%g is outside 0.1..10", *s)
		}
		if l := o.Loops; l != nil && (*l < -1 || *l > MaxLoops) {
			return nil, fieldErr(join(path, "options.loops"), "%d: want -1 (until stopped) or 0..%d", *l, MaxLoops)
		}
	}
	return anim, checkRaw(join(path, "meta"), p.Meta)
}

// checkString enforces MaxStringBytes and UTF-8 on a free-form string.
func checkString(path, s string) error {
	if len(s) > MaxStringBytes {
		return fieldErr(path, "is %d bytes, limit %d", len(s), MaxStringBytes)
	}
	if !utf8.ValidString(s) {
		return fieldErr(path, "is not valid UTF-8")
	}
	return nil
}

// checkRaw checks that a raw JSON field, when present, is valid JSON of one
// of the wanted kinds (any kind when none are given).
func checkRaw(path string, raw json.RawMessage, want ...kind) error {
	if raw == nil {
		return nil
	}
	if !json.Valid(raw) {
		return fieldErr(path, "is not valid JSON")
	}
	if len(want) == 0 {
		return nil
	}
	k := kindOf(raw)
	for _, w := range want {
		if k == w {
			return nil
		}
	}
	if len(want) == 1 {
		return fieldErr(path, "is %s, want %s", k, want[0])
	}
	return fieldErr(path, "is %s, want %s", k, joinKinds(want))
}

func joinKinds(ks []kind) string {
	s := ""
	for i, k := range ks {
		switch {
		case i == 0:
		case i == len(ks)-1:
			s += " or "
		default:
			s += ", "
		}
		s += string(k)
	}
	return s
}
