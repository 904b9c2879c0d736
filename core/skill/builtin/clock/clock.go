// Package clock is the built-in skill that tells the time and the date,
// read from an injected clock in the robot's time zone and spoken the way
// people say them: "It's 3:05 PM.", "Today is Tuesday, November 22nd.".
package clock

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/builtin/internal/kit"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
)

// ManifestID is the skill's registry id; ID is its id on the bus.
const (
	ManifestID = "jibo/clock"
	ID         = "jibo.clock"
)

// Intent names, as the locale's .intent files name them. The follow-ups
// ("and the date?") match only right after the clock answered (context
// ContextAsked).
const (
	IntentTime         = "time_now"
	IntentDate         = "date_today"
	IntentTimeFollowUp = "time_followup"
	IntentDateFollowUp = "date_followup"
)

// ContextAsked is the clock's context key, live for FollowUpTurns
// utterances (and at most FollowUpTime) after it told the time or the
// date: the follow-ups require it (CONTEXT-1).
const (
	ContextAsked  = "asked"
	FollowUpTurns = 2
	FollowUpTime  = 2 * time.Minute
)

//go:embed locale
var files embed.FS

// Manifest is what the skill declares: it only speaks.
func Manifest() *registry.Manifest {
	return &registry.Manifest{
		ID: ManifestID, Version: "1.0.0", Name: "Clock",
		Description:       "Tells the time and the date.",
		Permissions:       []registry.Permission{registry.PermSpeech},
		Timeout:           2 * time.Second,
		SafetyLevel:       registry.SafetyLow,
		IdempotentIntents: []string{IntentTime, IntentDate, IntentTimeFollowUp, IntentDateFollowUp},
	}
}

// Options configure the skill.
type Options struct {
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Zone is the robot's time zone; nil means the zone of Now's times.
	Zone *time.Location
	// Rand picks among phrasings; nil means random.
	Rand func(n int) int
	// Logger; nil means slog.Default().
	Logger *slog.Logger
}

// Skill tells the time and the date.
type Skill struct {
	*kit.Skill
	now  func() time.Time
	zone *time.Location
}

var _ skill.Skill = (*Skill)(nil)

// New loads and checks the skill.
func New(opts Options) (*Skill, error) {
	s := &Skill{now: opts.Now, zone: opts.Zone}
	if s.now == nil {
		s.now = time.Now
	}
	var err error
	follow := []string{ContextAsked}
	if s.Skill, err = kit.New(Manifest(), files, kit.Options{Rand: opts.Rand, Logger: opts.Logger,
		RequiredContext: map[string][]string{IntentTimeFollowUp: follow, IntentDateFollowUp: follow}}, s.launch); err != nil {
		return nil, err
	}
	return s, nil
}

// launch answers one LISTEN_LAUNCH.
func (s *Skill) launch(ctx context.Context, req *protocol.Request) (*protocol.Response, error) {
	now := s.now()
	if s.zone != nil {
		now = now.In(s.zone)
	}
	lang := kit.Lang(req)
	var text string
	var err error
	switch in := req.Data.Result.NLU.IntentName(); in {
	case IntentTime, IntentTimeFollowUp:
		text, err = s.Render(lang, IntentTime, map[string]string{"time": SpokenTime(now)})
	case IntentDate, IntentDateFollowUp:
		text, err = s.Render(lang, IntentDate, map[string]string{"date": SpokenDate(now)})
	default:
		return nil, fmt.Errorf("no intent %q", in)
	}
	if err != nil {
		return nil, err
	}
	// "And the date?" now means the date; outside a conversation turn
	// (no session to carry it) there is nothing to follow up.
	if err := skill.SetContext(ctx, skill.ContextWrite{Key: ContextAsked, Turns: FollowUpTurns, TTL: FollowUpTime}); err != nil &&
		!errors.Is(err, skill.ErrNoTurn) {
		return nil, err
	}
	return kit.Say(req, protocol.Skill(ID), text)
}

// SpokenTime says a time of day on the 12-hour clock as people read it:
// "3:05 PM", "noon", "midnight".
func SpokenTime(t time.Time) string {
	switch {
	case t.Hour() == 12 && t.Minute() == 0:
		return "noon"
	case t.Hour() == 0 && t.Minute() == 0:
		return "midnight"
	}
	return t.Format("3:04 PM")
}

// SpokenDate says a date with its weekday and an ordinal day: "Tuesday,
// November 22nd".
func SpokenDate(t time.Time) string {
	return fmt.Sprintf("%s, %s %d%s", t.Weekday(), t.Month(), t.Day(), ordinalSuffix(t.Day()))
}

// ordinalSuffix is the English suffix of day n: 1st, 2nd, 3rd, 4th, 11th,
// 12th, 13th, 21st, 22nd, 23rd.
func ordinalSuffix(n int) string {
	if n%100 >= 11 && n%100 <= 13 {
		return "th"
	}
	switch n % 10 {
	case 1:
		return "st"
	case 2:
		return "nd"
	case 3:
		return "rd"
	}
	return "th"
}
