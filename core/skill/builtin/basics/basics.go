// Package basics is the robot's first built-in skill: it answers greetings
// and tells the time, each with a spoken JCP action.
package basics

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"time"

	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/jcp"
)

// ManifestID is the skill's manifest id; ID is its id on the bus.
const (
	ManifestID = "jibo/basics"
	ID         = "jibo.basics"
)

// Intent names, as the locale's .intent files name them.
const (
	IntentGreet   = "greet"
	IntentTimeNow = "time_now"
)

//go:embed locale
var files embed.FS

// Skill answers greetings and "what time is it".
type Skill struct {
	locale  fs.FS
	dialogs map[string]*skill.Dialogs // lowercase lang tag → dialogs
	now     func() time.Time
}

// Options configure the skill.
type Options struct {
	// Now is the clock; nil means time.Now (local time zone).
	Now func() time.Time
	// Rand picks among phrasings; nil means random.
	Rand func(n int) int
}

var _ skill.Skill = (*Skill)(nil)

// New loads and checks the skill's locale.
func New(opts Options) (*Skill, error) {
	loc, err := fs.Sub(files, "locale")
	if err != nil {
		return nil, fmt.Errorf("basics skill: %w", err)
	}
	l, err := intent.LoadLocale(loc, ".")
	if err != nil {
		return nil, fmt.Errorf("basics skill: loading locale: %w", err)
	}
	s := &Skill{locale: loc, dialogs: map[string]*skill.Dialogs{}, now: opts.Now}
	if s.now == nil {
		s.now = time.Now
	}
	for tag, lang := range l.Langs {
		d, err := skill.NewDialogs(lang, opts.Rand)
		if err != nil {
			return nil, fmt.Errorf("basics skill: %w", err)
		}
		s.dialogs[tag] = d
	}
	return s, nil
}

// Manifest describes the skill.
func (s *Skill) Manifest() *skill.Manifest {
	return &skill.Manifest{ID: ManifestID, Name: "Basics", Version: "1.0.0",
		Description: "Answers greetings and tells the time.",
		Permissions: []registry.Permission{registry.PermSpeech}, SafetyLevel: registry.SafetyLow}
}

// Locale is the skill's locale tree.
func (s *Skill) Locale() fs.FS { return s.locale }

// Handle answers one request.
func (s *Skill) Handle(ctx context.Context, req *protocol.Request) (*protocol.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if req.Type != protocol.TypeListenLaunch {
		return protocol.NewError(req, fmt.Sprintf("%s handles LISTEN_LAUNCH only, not %s", ID, req.Type)), nil
	}
	lang, _ := intent.NormalizeLang(req.Data.General.Lang)
	d, ok := s.dialogs[lang]
	if !ok {
		return protocol.NewError(req, fmt.Sprintf("%s does not speak %q", ID, req.Data.General.Lang)), nil
	}
	var text string
	var err error
	switch in := req.Data.Result.NLU.IntentName(); in {
	case IntentGreet:
		text, err = d.Render(IntentGreet, nil)
	case IntentTimeNow:
		text, err = d.Render(IntentTimeNow, map[string]string{"time": s.now().Format("3:04 PM")})
	default:
		return protocol.NewError(req, fmt.Sprintf("%s has no intent %q", ID, in)), nil
	}
	if err != nil {
		return protocol.NewError(req, err.Error()), nil
	}
	action, err := skill.ActionJSON(jcp.NewAction(jcp.Say(text)))
	if err != nil {
		return nil, err
	}
	return protocol.NewSkillAction(req, protocol.Skill(ID), action, true), nil
}
