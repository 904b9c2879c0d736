// Package kit is what the built-in skills share: how one is built from its
// manifest, embedded locale and handler (Skill, GraphSkill), the locale
// and its dialogs, and the short spoken answers most of their turns end
// with.
package kit

import (
	"fmt"
	"io/fs"
	"sync/atomic"

	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/base"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/jcp"
)

// Locale is a skill's locale tree (<lang>/… with .intent, .voc, .entity and
// .dialog files) with its dialogs expanded once, at load time, so a broken
// dialog fails when the skill is built rather than mid-conversation.
type Locale struct {
	fsys    fs.FS
	dialogs map[string]*skill.Dialogs // normalised lang tag → dialogs
	intents map[string]bool           // intent names, any language
	// loaded is the tree as read and checked, until the skill's first
	// registration takes it (TakeLoaded).
	loaded atomic.Pointer[intent.Locale]
}

// LoadLocale reads and checks the locale tree at the root of fsys. rnd
// picks among a dialog's phrasings; nil means random. The intents' sample
// sets are not enumerated (intent.LoadLocaleUnexpanded): the robot only
// registers the templates, and enumerating them was most of its start-up
// time.
func LoadLocale(fsys fs.FS, rnd func(n int) int) (*Locale, error) {
	loc, err := intent.LoadLocaleUnexpanded(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("loading locale: %w", err)
	}
	l := &Locale{fsys: fsys, dialogs: map[string]*skill.Dialogs{}, intents: map[string]bool{}}
	for tag, lang := range loc.Langs {
		for _, in := range lang.Names(intent.RoleIntent) {
			l.intents[in] = true
		}
		d, err := skill.NewDialogs(lang, rnd)
		if err != nil {
			return nil, fmt.Errorf("loading dialogs of %s: %w", tag, err)
		}
		l.dialogs[tag] = d
	}
	l.loaded.Store(loc)
	return l, nil
}

// TakeLoaded returns the locale tree as LoadLocale read and checked it,
// once; later calls return nil. Registering the skill's intents reads the
// tree, and taking it spares reading and checking the files again at
// start-up, without keeping the tree (every template expanded) for the
// robot's lifetime.
func (l *Locale) TakeLoaded() *intent.Locale { return l.loaded.Swap(nil) }

// HasIntent reports whether some language defines the intent.
func (l *Locale) HasIntent(name string) bool { return l.intents[name] }

// FS returns the locale tree, for skill.Skill's Locale.
func (l *Locale) FS() fs.FS { return l.fsys }

// Dialogs returns the dialogs of a language ("en-US" and "en-us" alike).
func (l *Locale) Dialogs(lang string) (*skill.Dialogs, error) {
	tag, err := intent.NormalizeLang(lang)
	if err != nil {
		return nil, fmt.Errorf("language %q: %w", lang, err)
	}
	d, ok := l.dialogs[tag]
	if !ok {
		return nil, fmt.Errorf("does not speak %q", lang)
	}
	return d, nil
}

// Render renders dialog name in lang with values.
func (l *Locale) Render(lang, name string, values map[string]string) (string, error) {
	d, err := l.Dialogs(lang)
	if err != nil {
		return "", err
	}
	return d.Render(name, values)
}

// Say answers req with one spoken line as the skill's last action.
func Say(req *protocol.Request, sd protocol.SkillData, esml string) (*protocol.Response, error) {
	return base.ActionResponse(req, sd, jcp.NewAction(jcp.Say(esml)), true)
}

// Lang is the language of a request.
func Lang(req *protocol.Request) string {
	if req == nil || req.Data == nil {
		return ""
	}
	return req.Data.General.Lang
}

// SayFeeling answers req with a SKILL_ACTION that nudges the robot's
// emotion by valence (IMPACT_EMOTION, spec/jibo.md §3.1), then speaks
// esml, and ends the skill.
func SayFeeling(req *protocol.Request, sd protocol.SkillData, esml string, valence jcp.Impact) (*protocol.Response, error) {
	feel := &jcp.ImpactEmotion{Base: jcp.Base{ID: jcp.NewID()}, Valence: valence}
	return base.ActionResponse(req, sd, jcp.NewAction(jcp.Sequence(feel, jcp.Say(esml))), true)
}
