package jcp

import "encoding/json"

// The wire structs fix the canonical field order: id, type, the behaviour's
// own fields in the order Jibo's builders wrote them, then meta. Optional
// fields that are absent are left out.

// MarshalJSON writes the action envelope in canonical form. An empty
// Version is written as Version.
func (a *Action) MarshalJSON() ([]byte, error) {
	v := a.Version
	if v == "" {
		v = Version
	}
	type config struct {
		Version string   `json:"version"`
		JCP     Behavior `json:"jcp"`
	}
	return json.Marshal(struct {
		Type   string `json:"type"`
		Config config `json:"config"`
	}{ActionType, config{v, a.Behavior}})
}

// MarshalJSON writes the SLIM in canonical form.
func (s *SLIM) MarshalJSON() ([]byte, error) {
	type config struct {
		Play    *Play    `json:"play,omitempty"`
		Listen  *Listen  `json:"listen,omitempty"`
		Display *Display `json:"display,omitempty"`
	}
	type options struct {
		DisplayMode DisplayMode `json:"displayMode,omitempty"`
	}
	var opts *options
	if s.Options != nil {
		opts = &options{s.Options.DisplayMode}
	}
	return json.Marshal(struct {
		ID      string          `json:"id"`
		Type    BehaviorType    `json:"type"`
		Config  config          `json:"config"`
		Options *options        `json:"options,omitempty"`
		Meta    json.RawMessage `json:"meta,omitempty"`
	}{s.ID, TypeSLIM, config{s.Play, s.Listen, s.Display}, opts, s.Meta})
}

// MarshalJSON writes the PLAY in canonical form.
func (p *Play) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		ID             string          `json:"id"`
		Type           BehaviorType    `json:"type"`
		ESML           string          `json:"esml"`
		AutoRuleConfig json.RawMessage `json:"autoRuleConfig,omitempty"`
		SpeakOptions   json.RawMessage `json:"speakOptions,omitempty"`
		Meta           json.RawMessage `json:"meta,omitempty"`
	}{p.ID, TypePlay, p.ESML, p.AutoRuleConfig, p.SpeakOptions, p.Meta})
}

// MarshalJSON writes the LISTEN in canonical form.
func (l *Listen) MarshalJSON() ([]byte, error) {
	contexts := l.Contexts
	if contexts == nil {
		contexts = []string{}
	}
	return json.Marshal(struct {
		ID       string          `json:"id"`
		Type     BehaviorType    `json:"type"`
		Contexts []string        `json:"contexts"`
		Intents  json.RawMessage `json:"intents,omitempty"`
		Meta     json.RawMessage `json:"meta,omitempty"`
	}{l.ID, TypeListen, contexts, l.Intents, l.Meta})
}

// MarshalJSON writes the DISPLAY in canonical form.
func (d *Display) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		ID          string          `json:"id"`
		Type        BehaviorType    `json:"type"`
		Name        string          `json:"name,omitempty"`
		View        json.RawMessage `json:"view,omitempty"`
		Layer       *int            `json:"layer,omitempty"`
		Visible     *bool           `json:"visible,omitempty"`
		KeepDisplay *bool           `json:"keepDisplay,omitempty"`
		OnCancel    json.RawMessage `json:"onCancel,omitempty"`
		Overlay     Overlay         `json:"overlay,omitempty"`
		Meta        json.RawMessage `json:"meta,omitempty"`
	}{d.ID, TypeDisplay, d.Name, d.View, d.Layer, d.Visible, d.KeepDisplay, d.OnCancel, d.Overlay, d.Meta})
}

// MarshalJSON writes the SEQUENCE in canonical form.
func (s *SequenceBehavior) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		ID       string          `json:"id"`
		Type     BehaviorType    `json:"type"`
		Children []Behavior      `json:"children"`
		Meta     json.RawMessage `json:"meta,omitempty"`
	}{s.ID, TypeSequence, nonNil(s.Children), s.Meta})
}

// MarshalJSON writes the PARALLEL in canonical form; succeedOnFirst is
// always written, as Jibo's builder did.
func (p *ParallelBehavior) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		ID             string          `json:"id"`
		Type           BehaviorType    `json:"type"`
		Children       []Behavior      `json:"children"`
		SucceedOnFirst bool            `json:"succeedOnFirst"`
		Meta           json.RawMessage `json:"meta,omitempty"`
	}{p.ID, TypeParallel, nonNil(p.Children), p.SucceedOnFirst, p.Meta})
}

// MarshalJSON writes the SET_PRESENT_PERSON in canonical form.
func (s *SetPresentPerson) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		ID         string          `json:"id"`
		Type       BehaviorType    `json:"type"`
		LooperID   string          `json:"looperId"`
		Source     PersonSource    `json:"source"`
		Confidence float64         `json:"confidence"`
		Meta       json.RawMessage `json:"meta,omitempty"`
	}{s.ID, TypeSetPresentPerson, s.LooperID, s.Source, s.Confidence, s.Meta})
}

// MarshalJSON writes the IMPACT_EMOTION in canonical form.
func (e *ImpactEmotion) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		ID         string          `json:"id"`
		Type       BehaviorType    `json:"type"`
		Valence    Impact          `json:"valence,omitempty"`
		Confidence Impact          `json:"confidence,omitempty"`
		Meta       json.RawMessage `json:"meta,omitempty"`
	}{e.ID, TypeImpactEmotion, e.Valence, e.Confidence, e.Meta})
}

func nonNil(bs []Behavior) []Behavior {
	if bs == nil {
		return []Behavior{}
	}
	return bs
}

// MarshalJSON writes the LOOKAT in canonical form.
func (l *LookAt) MarshalJSON() ([]byte, error) {
	type xyz struct {
		X float64 `json:"x"`
		Y float64 `json:"y"`
		Z float64 `json:"z"`
	}
	type xy struct {
		X float64 `json:"x"`
		Y float64 `json:"y"`
	}
	type target struct {
		Position     *xyz            `json:"position,omitempty"`
		AngleVector  *xy             `json:"angleVector,omitempty"`
		CameraTarget *xy             `json:"cameraTarget,omitempty"`
		EntityID     json.RawMessage `json:"entityId,omitempty"`
		Track        bool            `json:"track,omitempty"`
	}
	type options struct {
		Type LookType `json:"type,omitempty"`
		DOFs DOFSet   `json:"dofs,omitempty"`
	}
	t := target{EntityID: l.Target.Entity, Track: l.Target.Track}
	if p := l.Target.Position; p != nil {
		t.Position = &xyz{p.X, p.Y, p.Z}
	}
	if a := l.Target.Angle; a != nil {
		t.AngleVector = &xy{a.X, a.Y}
	}
	if c := l.Target.Camera; c != nil {
		t.CameraTarget = &xy{c.X, c.Y}
	}
	var opts *options
	if l.Options != nil {
		opts = &options{l.Options.Type, l.Options.DOFs}
	}
	return json.Marshal(struct {
		ID      string          `json:"id"`
		Type    BehaviorType    `json:"type"`
		Target  target          `json:"target"`
		Options *options        `json:"options,omitempty"`
		Meta    json.RawMessage `json:"meta,omitempty"`
	}{l.ID, TypeLookAt, t, opts, l.Meta})
}

// MarshalJSON writes the PLAY_ANIMATION in canonical form.
func (p *PlayAnimation) MarshalJSON() ([]byte, error) {
	type animation struct {
		URL        string          `json:"url,omitempty"`
		Data       json.RawMessage `json:"data,omitempty"`
		Query      string          `json:"query,omitempty"`
		Categories []string        `json:"categories,omitempty"`
	}
	type options struct {
		DOFs  DOFSet   `json:"dofs,omitempty"`
		Speed *float64 `json:"speed,omitempty"`
		Loops *int     `json:"loops,omitempty"`
	}
	var opts *options
	if o := p.Options; o != nil {
		opts = &options{o.DOFs, o.Speed, o.Loops}
	}
	a := p.Animation
	return json.Marshal(struct {
		ID        string          `json:"id"`
		Type      BehaviorType    `json:"type"`
		Animation animation       `json:"animation"`
		Options   *options        `json:"options,omitempty"`
		Meta      json.RawMessage `json:"meta,omitempty"`
	}{p.ID, TypePlayAnimation, animation(a), opts, p.Meta})
}
