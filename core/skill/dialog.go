package skill

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/openjibo/jibod/core/intent"
)

// Dialogs renders a skill's .dialog resources for one language: a random
// line, a random expansion of it, its slots filled by the caller (GRM-13).
type Dialogs struct {
	lang    *intent.Language
	choices map[string][]string // dialog name → expanded phrases
	slots   map[string][]string // dialog name → slot names
	rnd     func(n int) int
}

// NewDialogs expands every .dialog of lang once, up front, so a broken
// dialog fails at load time rather than mid-conversation. rnd picks an index
// in [0, n); nil means math/rand/v2.
func NewDialogs(lang *intent.Language, rnd func(n int) int) (*Dialogs, error) {
	if rnd == nil {
		rnd = rand.IntN
	}
	d := &Dialogs{lang: lang, choices: map[string][]string{}, slots: map[string][]string{}, rnd: rnd}
	vocab := lang.Vocab()
	for _, name := range lang.Names(intent.RoleDialog) {
		r := lang.Resource(intent.RoleDialog, name)
		var all []string
		for _, l := range r.Lines {
			samples, _, err := intent.Expand(l.Text, vocab, intent.ExpandOptions{})
			if err != nil {
				return nil, fmt.Errorf("dialog %s line %d: %w", r.Path, l.Number, err)
			}
			all = append(all, samples...)
		}
		d.choices[name] = all
		d.slots[name] = r.Slots
	}
	return d, nil
}

// Render picks a phrase of dialog name and fills its slots. Every slot the
// dialog declares must be given (GRM-13: an unfilled phrase never reaches
// speech).
func (d *Dialogs) Render(name string, values map[string]string) (string, error) {
	phrases, ok := d.choices[name]
	if !ok || len(phrases) == 0 {
		return "", fmt.Errorf("no dialog %q in %s", name, d.lang.Tag)
	}
	for _, s := range d.slots[name] {
		if values[s] == "" {
			return "", fmt.Errorf("dialog %q: slot {%s} has no value", name, s)
		}
	}
	return fill(phrases[d.rnd(len(phrases))], values), nil
}

// RenderOther is Render avoiding last: when the dialog has another phrase,
// the one picked reads differently from last, so a line said again and
// again is varied (Jibo's no-match prompts never repeat back to back).
func (d *Dialogs) RenderOther(name string, values map[string]string, last string) (string, error) {
	if _, err := d.Render(name, values); err != nil {
		return "", err
	}
	var fresh []string
	for _, p := range d.choices[name] {
		if f := fill(p, values); f != last {
			fresh = append(fresh, f)
		}
	}
	if len(fresh) == 0 {
		return last, nil
	}
	return fresh[d.rnd(len(fresh))], nil
}

func fill(p string, values map[string]string) string {
	for k, v := range values {
		p = strings.ReplaceAll(p, "{"+k+"}", v)
	}
	return p
}
