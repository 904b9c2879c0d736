package mim

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"

	"github.com/openjibo/jibod/jcp"
)

// DialogState is a MIM dialogue's error ladder, kept in a graph skill's
// session as session.data._mim (spec/jibo.md §5.2).
type DialogState struct {
	// NoMatch and NoInput count the no-matches and no-inputs so far.
	NoMatch int `json:"noMatch"`
	NoInput int `json:"noInput"`
	// NoMatchMax and NoInputMax are set when the ladder had no prompt left
	// for the count reached.
	NoMatchMax bool `json:"noMatchMax"`
	NoInputMax bool `json:"noInputMax"`
}

// Config says which prompts the Slimmer chooses from.
type Config struct {
	// Category and SubCategory select prompts.
	Category    Category
	SubCategory SubCategory
	// Index is the escalation level; it selects Errors prompts only.
	Index int
	// State is the dialogue's error ladder; its counts decide whether the
	// gui is shown.
	State DialogState
}

// Entry returns the Config of a MIM's first turn: Entry-Core/Q for a
// question, and for an optional-response that has Q prompts; Entry-Core/AN
// otherwise.
func Entry(m *MIM) Config {
	sub := AN
	if m.Type == Question {
		sub = Q
	}
	if m.Type == OptionalResponse {
		for i := range m.Prompts {
			if m.Prompts[i].Category == EntryCore && m.Prompts[i].SubCategory == Q {
				sub = Q
				break
			}
		}
	}
	return Config{Category: EntryCore, SubCategory: sub}
}

// NoMatchConfig returns the Config for the no-match prompt of the state's
// NoMatch count (Errors/NM at that index).
func NoMatchConfig(s DialogState) Config {
	return Config{Category: Errors, SubCategory: NM, Index: s.NoMatch, State: s}
}

// NoInputConfig returns the Config for the no-input prompt of the state's
// NoInput count (Errors/NI at that index).
func NoInputConfig(s DialogState) Config {
	return Config{Category: Errors, SubCategory: NI, Index: s.NoInput, State: s}
}

// Dropped is a prompt the Slimmer passed over and why.
type Dropped struct {
	// Prompt is the prompt's index in the MIM's prompts.
	Prompt int
	// PromptID is the prompt's prompt_id.
	PromptID string
	// Reason says why ("condition is false", the evaluation error).
	Reason string
}

// Selection is what the Slimmer made of a MIM.
type Selection struct {
	// SLIM is the behaviour to run; nil when an Errors ladder has no prompt
	// left (then State has the matching max flag set).
	SLIM *jcp.SLIM
	// Prompt is the prompt chosen; nil with SLIM.
	Prompt *Prompt
	// ESML is the chosen prompt with its templates resolved.
	ESML string
	// State is the dialogue state after the selection.
	State DialogState
	// Dropped lists the prompts of the category that were not eligible.
	Dropped []Dropped
}

// Rand is a source of random numbers in [0, 1). *rand.Rand of math/rand/v2
// is one.
type Rand interface {
	Float64() float64
}

// globalRand is the default source: math/rand/v2's, safe for concurrent
// use.
type globalRand struct{}

func (globalRand) Float64() float64 { return rand.Float64() }

// Slimmer turns MIMs into SLIMs (spec/jibo.md §5.2). The zero value is
// ready: random choices from math/rand/v2, new behaviour ids from
// jcp.NewID, logs to slog.Default(). It is safe for concurrent use; a Rand
// given to it is only ever called with its lock held.
type Slimmer struct {
	// Rand picks among eligible prompts by weight; nil for math/rand/v2.
	Rand Rand
	// NewID makes behaviour ids; nil for jcp.NewID.
	NewID func() string
	// Logger reports prompts made ineligible by a failing template; nil
	// for slog.Default().
	Logger *slog.Logger

	mu sync.Mutex
}

func (s *Slimmer) float() float64 {
	if s.Rand == nil {
		return globalRand{}.Float64()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Rand.Float64()
}

func (s *Slimmer) id() string {
	if s.NewID == nil {
		return jcp.NewID()
	}
	return s.NewID()
}

func (s *Slimmer) logger() *slog.Logger {
	if s.Logger == nil {
		return slog.Default()
	}
	return s.Logger
}

// candidate is an eligible prompt with its resolved text.
type candidate struct {
	i    int
	esml string
}

// Slim chooses a prompt of m by cfg and turns it into a SLIM: prompts of
// the category and sub-category (and, for Errors, of the index) whose
// condition holds and whose templates resolve, one of them picked at
// random by weight. For an Errors/NM or Errors/NI ladder with nothing
// eligible the Selection has no SLIM and NoMatchMax or NoInputMax set;
// elsewhere that is an error wrapping ErrNoPrompt.
func (s *Slimmer) Slim(m *MIM, cfg Config, data PromptData) (Selection, error) {
	if !m.compiled {
		return Selection{}, fmt.Errorf("MIM %q was not validated: call Validate first", m.MimID())
	}
	sel := Selection{State: cfg.State}
	e := data.env()
	var cands []candidate
	for i := range m.Prompts {
		p := &m.Prompts[i]
		if p.Category != cfg.Category || p.SubCategory != cfg.SubCategory {
			continue
		}
		if cfg.Category == Errors && p.Index != cfg.Index {
			continue
		}
		if p.cond != nil {
			v, err := p.cond.run(e)
			switch {
			case err != nil:
				// As in JavaScript, a condition that throws is false; it is
				// worth a debug line, since it is usually missing data.
				sel.Dropped = append(sel.Dropped, Dropped{i, p.ID, "condition failed: " + err.Error()})
				s.logger().Debug("MIM prompt condition failed", "mim", m.MimID(), "prompt", p.ID, "index", i, "err", err)
				continue
			case !Truthy(v):
				sel.Dropped = append(sel.Dropped, Dropped{i, p.ID, "condition is false"})
				continue
			}
		}
		esml, err := resolve(p.parts, e)
		if err == nil {
			_, err = jcp.ParseESML(esml)
		}
		if err != nil {
			reason := "template failed: " + err.Error()
			sel.Dropped = append(sel.Dropped, Dropped{i, p.ID, reason})
			s.logger().Warn("MIM prompt not eligible", "mim", m.MimID(), "prompt", p.ID, "index", i, "reason", reason)
			continue
		}
		cands = append(cands, candidate{i, esml})
	}
	if len(cands) == 0 {
		if cfg.Category == Errors && cfg.SubCategory == NM {
			sel.State.NoMatchMax = true
			return sel, nil
		}
		if cfg.Category == Errors && cfg.SubCategory == NI {
			sel.State.NoInputMax = true
			return sel, nil
		}
		return sel, fmt.Errorf("MIM %q, %s/%s: %w", m.MimID(), cfg.Category, cfg.SubCategory, ErrNoPrompt)
	}
	c := s.pick(m, cands)
	p := &m.Prompts[c.i]
	sel.Prompt, sel.ESML = p, c.esml
	slim, err := s.build(m, p, c.esml, sel.State)
	if err != nil {
		return Selection{}, err
	}
	sel.SLIM = slim
	return sel, nil
}

// pick chooses a candidate at random by weight.
func (s *Slimmer) pick(m *MIM, cands []candidate) candidate {
	if len(cands) == 1 {
		return cands[0]
	}
	total := 0.0
	for _, c := range cands {
		total += m.Prompts[c.i].EffectiveWeight()
	}
	r := s.float() * total
	for _, c := range cands {
		r -= m.Prompts[c.i].EffectiveWeight()
		if r < 0 {
			return c
		}
	}
	return cands[len(cands)-1] // rounding left r at 0
}

// playMeta is what the Slimmer records on a PLAY.
type playMeta struct {
	PromptID          string      `json:"prompt_id"`
	PromptSubCategory SubCategory `json:"prompt_sub_category"`
	MimID             string      `json:"mim_id"`
	MimType           Type        `json:"mim_type"`
}

// The DISPLAY the Slimmer adds for a MIM's gui (spec/jibo.md §5.2).
const (
	// DisplayName is the DISPLAY's name.
	DisplayName = "PEGASUS_VIEW"
	// ViewName is the SKILL view's name.
	ViewName = "MIM_VIEW"
	// HideViewName names the HIDE_DISPLAY action run when the DISPLAY is
	// cancelled.
	HideViewName = "HIDE_MIM_VIEW"
)

// build makes the SLIM for a chosen prompt.
func (s *Slimmer) build(m *MIM, p *Prompt, esml string, st DialogState) (*jcp.SLIM, error) {
	meta, err := json.Marshal(playMeta{p.ID, p.SubCategory, m.MimID(), m.Type})
	if err != nil {
		return nil, fmt.Errorf("encoding PLAY meta: %w", err)
	}
	play := &jcp.Play{Base: jcp.Base{ID: s.id(), Meta: meta}, ESML: esml}
	switch {
	case len(p.AutoRuleOverride) > 0 && !isNull(p.AutoRuleOverride):
		play.AutoRuleConfig = p.AutoRuleOverride
	case m.ESAutoTagging != nil:
		play.AutoRuleConfig = json.RawMessage(fmt.Sprint(*m.ESAutoTagging))
	}
	slim := &jcp.SLIM{Base: jcp.Base{ID: s.id()}, Play: play}
	if m.Type.Listens() {
		slim.Listen = &jcp.Listen{Base: jcp.Base{ID: s.id()}, Contexts: []string{m.RuleName}}
	}
	if m.HasGUI() && (m.NoMatchesForGUI != nil && st.NoMatch >= *m.NoMatchesForGUI ||
		m.NoInputsForGUI != nil && st.NoInput >= *m.NoInputsForGUI) {
		d, err := s.display(m)
		if err != nil {
			return nil, err
		}
		slim.Display = d
	}
	if err := jcp.NewAction(slim).Validate(); err != nil {
		return nil, fmt.Errorf("MIM %q prompt %q makes an invalid SLIM: %w", m.MimID(), p.ID, err)
	}
	return slim, nil
}

// display is the DISPLAY showing a MIM's gui.
func (s *Slimmer) display(m *MIM) (*jcp.Display, error) {
	view, err := json.Marshal(struct {
		Type    string          `json:"type"`
		Name    string          `json:"name"`
		Context json.RawMessage `json:"context"`
	}{jcp.ViewSkill, ViewName, m.GUI})
	if err != nil {
		return nil, fmt.Errorf("encoding the gui of MIM %q: %w", m.MimID(), err)
	}
	onCancel, _ := json.Marshal([]map[string]string{{"type": "HIDE_DISPLAY", "name": HideViewName}})
	layer, visible, keep := 0, true, false
	return &jcp.Display{
		Base:        jcp.Base{ID: s.id()},
		Name:        DisplayName,
		View:        view,
		Layer:       &layer,
		Visible:     &visible,
		KeepDisplay: &keep,
		OnCancel:    onCancel,
	}, nil
}

// Sequence turns several announcement MIMs into one SEQUENCE of SLIMs,
// each from its Entry-Core/AN prompts. A MIM that is not an announcement is
// an error wrapping ErrNotAnnouncement, and one with no eligible prompt an
// error wrapping ErrNoPrompt.
func (s *Slimmer) Sequence(mims []*MIM, data PromptData) (*jcp.SequenceBehavior, []Selection, error) {
	if len(mims) == 0 {
		return nil, nil, errors.New("a sequence needs at least one MIM")
	}
	for _, m := range mims {
		if m.Type != Announcement {
			return nil, nil, fmt.Errorf("MIM %q is a %s: %w", m.MimID(), m.Type, ErrNotAnnouncement)
		}
	}
	seq := &jcp.SequenceBehavior{Base: jcp.Base{ID: s.id()}}
	sels := make([]Selection, 0, len(mims))
	for _, m := range mims {
		sel, err := s.Slim(m, Config{Category: EntryCore, SubCategory: AN}, data)
		if err != nil {
			return nil, nil, err
		}
		seq.Children = append(seq.Children, sel.SLIM)
		sels = append(sels, sel)
	}
	return seq, sels, nil
}
