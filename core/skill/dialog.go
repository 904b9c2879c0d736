package skill

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/openjibo/jibod/core/intent"
)

// ErrNoDialog marks a dialog a skill does not have in the language asked
// for (or a language it has no dialogs in).
var ErrNoDialog = errors.New("no such dialog")

// ErrDialogSlot marks a render missing a value for a slot of the dialog.
var ErrDialogSlot = errors.New("dialog slot without a value")

// Dialogs renders a skill's .dialog resources for one language: a random
// line, a random expansion of it, its slots filled by the caller (GRM-13).
type Dialogs struct {
	tag     string              // the language's tag, for errors
	choices map[string][]phrase // dialog name → expanded phrases
	rnd     func(n int) int
}

// phrase is one expansion of a dialog line and the slots it names.
type phrase struct {
	text  string
	slots []string
}

// NewDialogs takes every .dialog of lang, expanded by the loader
// (intent.ExpandDialogLine), so a broken dialog fails at load time rather
// than mid-conversation. rnd picks an index in [0, n); nil means
// math/rand/v2.
func NewDialogs(lang *intent.Language, rnd func(n int) int) (*Dialogs, error) {
	if rnd == nil {
		rnd = rand.IntN
	}
	// Only the expanded phrases are kept: holding the language would keep
	// its templates' expansions, which nothing reads after loading.
	d := &Dialogs{tag: lang.Tag, choices: map[string][]phrase{}, rnd: rnd}
	for _, name := range lang.Names(intent.RoleDialog) {
		r := lang.Resource(intent.RoleDialog, name)
		if len(r.Samples) == 0 {
			return nil, fmt.Errorf("dialog %s: no phrase", r.Path)
		}
		all := make([]phrase, 0, len(r.Samples))
		for _, p := range r.Samples {
			all = append(all, phrase{text: p, slots: intent.DialogSlots(p)})
		}
		d.choices[name] = all
	}
	return d, nil
}

// Has reports whether the language has dialog name.
func (d *Dialogs) Has(name string) bool { return len(d.choices[name]) > 0 }

// Render picks a phrase of dialog name among those whose every slot has a
// value, and fills its slots (GRM-13: an unfilled phrase never reaches
// speech); values are put in as written, never read as slots themselves.
// Real skills' dialogs mix lines naming different slots ("{time}", "It's
// {time} in {location}"), so a line needing a value not given is passed
// over. A missing dialog is an error wrapping ErrNoDialog; no phrase with
// all its values an error wrapping ErrDialogSlot.
func (d *Dialogs) Render(name string, values map[string]string) (string, error) {
	ok, err := d.fillable(name, values)
	if err != nil {
		return "", err
	}
	return fill(ok[d.rnd(len(ok))], values), nil
}

// fillable returns the phrases of dialog name whose slots all have values.
func (d *Dialogs) fillable(name string, values map[string]string) ([]string, error) {
	phrases, ok := d.choices[name]
	if !ok || len(phrases) == 0 {
		return nil, fmt.Errorf("%w: %q in %s", ErrNoDialog, name, d.tag)
	}
	var out []string
	var missing []string
	for _, p := range phrases {
		full := true
		for _, s := range p.slots {
			if values[s] == "" {
				full = false
				missing = append(missing, s)
			}
		}
		if full {
			out = append(out, p.text)
		}
	}
	if len(out) == 0 {
		slices.Sort(missing)
		missing = slices.Compact(missing)
		return nil, fmt.Errorf("dialog %q: slot {%s}: %w", name, strings.Join(missing, "}, {"), ErrDialogSlot)
	}
	return out, nil
}

// RenderOther is Render avoiding last: when the dialog has another phrase,
// the one picked reads differently from last, so a line said again and
// again is varied (Jibo's no-match prompts never repeat back to back).
func (d *Dialogs) RenderOther(name string, values map[string]string, last string) (string, error) {
	ok, err := d.fillable(name, values)
	if err != nil {
		return "", err
	}
	var fresh []string
	for _, p := range ok {
		if f := fill(p, values); f != last {
			fresh = append(fresh, f)
		}
	}
	if len(fresh) == 0 {
		return last, nil
	}
	return fresh[d.rnd(len(fresh))], nil
}

// fill puts values in p's slots at once, so a value is never read as a
// slot itself (GRM-13).
func fill(p string, values map[string]string) string {
	if len(values) == 0 {
		return p
	}
	pairs := make([]string, 0, 2*len(values))
	for k, v := range values {
		pairs = append(pairs, "{"+k+"}", v)
	}
	return strings.NewReplacer(pairs...).Replace(p)

}

// LocaleDialogs are a skill's dialogs in every language of its locale.
type LocaleDialogs struct {
	langs map[string]*Dialogs // normalised tag → dialogs
}

// NewLocaleDialogs expands the dialogs of every language of loc (see
// NewDialogs).
func NewLocaleDialogs(loc *intent.Locale, rnd func(n int) int) (*LocaleDialogs, error) {
	l := &LocaleDialogs{langs: map[string]*Dialogs{}}
	for _, tag := range loc.Languages() {
		d, err := NewDialogs(loc.Langs[tag], rnd)
		if err != nil {
			return nil, fmt.Errorf("dialogs of %s: %w", tag, err)
		}
		l.langs[tag] = d
	}
	return l, nil
}

// For returns the dialogs of lang ("en-US" and "en-us" alike): the
// locale's language with that tag, else the first (by tag) with the same
// primary language, so an en-GB turn speaks a skill's en-us lines. A
// language the skill has nothing in is an error wrapping ErrNoDialog.
func (l *LocaleDialogs) For(lang string) (*Dialogs, error) {
	tag, err := intent.NormalizeLang(lang)
	if err != nil {
		return nil, fmt.Errorf("%w: language %q: %w", ErrNoDialog, lang, err)
	}
	if d, ok := l.langs[tag]; ok {
		return d, nil
	}
	primary, _, _ := strings.Cut(tag, "-")
	tags := make([]string, 0, len(l.langs))
	for t := range l.langs {
		tags = append(tags, t)
	}
	slices.Sort(tags)
	for _, t := range tags {
		if p, _, _ := strings.Cut(t, "-"); p == primary {
			return l.langs[t], nil
		}
	}
	return nil, fmt.Errorf("%w: no dialogs in %s (the skill has %s)", ErrNoDialog, tag, strings.Join(tags, ", "))
}

// Render renders dialog name in lang with values (see Dialogs.Render).
func (l *LocaleDialogs) Render(lang, name string, values map[string]string) (string, error) {
	d, err := l.For(lang)
	if err != nil {
		return "", err
	}
	return d.Render(name, values)
}
