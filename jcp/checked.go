package jcp

import (
	"errors"
	"fmt"

	"github.com/openjibo/jibod/motion"
)

// Checked is an action validated once, with what validation parsed on
// the way kept: each PLAY's ESML, each DISPLAY's view and each inline
// animation. Holding a *Checked is the proof that the action is valid, so
// the permission gate and the executor read what it kept instead of
// parsing or validating again. Only Check, ParseChecked and
// ParseCheckedOrBehavior make one.
//
// The action is embedded, so its fields read as the Checked's. It must
// not be modified afterwards: what runs would no longer be what was
// checked.
type Checked struct {
	*Action
	esml  map[*Play]*ESML
	views map[*Display]View
	anims map[*PlayAnimation]*motion.Animation
}

// Check validates an action built in Go (see Action.Validate; the error is
// the same) and returns it checked.
func Check(a *Action) (*Checked, error) {
	if a == nil {
		return nil, errors.New("action is nil")
	}
	c := &Checked{Action: a, esml: map[*Play]*ESML{}, views: map[*Display]View{},
		anims: map[*PlayAnimation]*motion.Animation{}}
	if err := a.validate(c); err != nil {
		return nil, err
	}
	return c, nil
}

// ParseChecked decodes and validates a JCP action as ParseAction does,
// with the same errors, and returns it checked.
func ParseChecked(data []byte) (*Checked, error) {
	c, err := parseAction(data)
	if err != nil {
		return nil, fmt.Errorf("parse JCP action: %w", err)
	}
	return c, nil
}

// UnmarshalJSON parses data with ParseChecked, so a Checked decoded from
// JSON is checked like any other (and the embedded action's own
// UnmarshalJSON cannot change it unchecked).
func (c *Checked) UnmarshalJSON(data []byte) error {
	p, err := ParseChecked(data)
	if err != nil {
		return err
	}
	*c = *p
	return nil
}

// ESML is the parsed ESML of p, a PLAY of the action; false when p is not
// one of its PLAYs.
func (c *Checked) ESML(p *Play) (*ESML, bool) {
	doc, ok := c.esml[p]
	return doc, ok
}

// View is the parsed view of d, a DISPLAY of the action; false when d is
// not one of its DISPLAYs.
func (c *Checked) View(d *Display) (View, bool) {
	v, ok := c.views[d]
	return v, ok
}

// InlineAnimation is the parsed animation data of p, a PLAY_ANIMATION of
// the action; false when p is not one of its behaviours or names its
// animation another way (url, categories, query).
func (c *Checked) InlineAnimation(p *PlayAnimation) (*motion.Animation, bool) {
	a, ok := c.anims[p]
	return a, ok
}
