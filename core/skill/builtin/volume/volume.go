// Package volume is the built-in skill for the robot's master volume:
// "turn it up", "quieter", "set the volume to 7", "what's the volume",
// "mute", "unmute". Volume runs in levels 0 to 10; a change is confirmed
// with a beep and the new level, both played at the new volume. Muting
// says nothing (silence is the answer) and unmuting goes back to the
// level before.
package volume

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/builtin/internal/kit"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
)

// ManifestID is the skill's registry id; ID is its id on the bus.
const (
	ManifestID = "jibo/volume"
	ID         = "jibo.volume"
)

// Intent names, as the locale names them.
const (
	IntentUp     = "volume_up"
	IntentDown   = "volume_down"
	IntentSet    = "volume_set"
	IntentGet    = "volume_get"
	IntentMax    = "volume_max"
	IntentMute   = "mute"
	IntentUnmute = "unmute"
)

// SlotLevel is volume_set's slot.
const SlotLevel = "level"

// Levels is the loudest level; 0 is silent.
const Levels = 10

// DefaultUnmuteLevel is the level "unmute" goes to when the level before
// muting is unknown.
const DefaultUnmuteLevel = 5

// ConfirmSound is the sound effect played with a new level, so the user
// hears how loud it is.
const ConfirmSound = "beep"

//go:embed locale
var files embed.FS

// Manifest is what the skill declares: it speaks, beeps and changes a
// setting of the robot.
func Manifest() *registry.Manifest {
	return &registry.Manifest{
		ID: ManifestID, Version: "1.0.0", Name: "Volume",
		Description:       "Turns my volume up or down, sets it from zero to ten, and turns my sound off.",
		Permissions:       []registry.Permission{registry.PermSpeech, registry.PermSound},
		Timeout:           2 * time.Second,
		SafetyLevel:       registry.SafetyLow,
		SideEffectTags:    []string{"device.volume"},
		IdempotentIntents: []string{IntentSet, IntentGet, IntentMax, IntentMute, IntentUnmute},
	}
}

// Control is the robot's master volume, 0 (silent) to 1 (full).
type Control interface {
	Volume() float64
	SetVolume(ctx context.Context, v float64) error
}

// Options configure the skill.
type Options struct {
	// Control is the volume to drive; nil means the robot has none (the
	// skill says so).
	Control Control
	// Rand picks among phrasings; nil means random.
	Rand func(n int) int
	// Logger; nil means slog.Default().
	Logger *slog.Logger
}

// Skill drives the master volume.
type Skill struct {
	*kit.Skill
	ctl Control

	// mu orders volume changes, so "louder" said twice is two steps, and
	// guards beforeMute.
	mu sync.Mutex
	// beforeMute is the level to unmute to; 0 when unknown.
	beforeMute int
}

var _ skill.Skill = (*Skill)(nil)

// New loads and checks the skill.
func New(opts Options) (*Skill, error) {
	s := &Skill{ctl: opts.Control}
	var err error
	if s.Skill, err = kit.New(Manifest(), files, kit.Options{Rand: opts.Rand, Logger: opts.Logger}, s.launch); err != nil {
		return nil, err
	}
	return s, nil
}

// LevelOf is the level (0..Levels) of a volume.
func LevelOf(v float64) int {
	return int(math.Round(min(max(v, 0), 1) * Levels))
}

// launch answers one LISTEN_LAUNCH.
func (s *Skill) launch(ctx context.Context, req *protocol.Request) (*protocol.Response, error) {
	lang := kit.Lang(req)
	sd := protocol.Skill(ID)
	say := func(dialog string, values map[string]string) (*protocol.Response, error) {
		text, err := s.Render(lang, dialog, values)
		if err != nil {
			return nil, err
		}
		return kit.Say(req, sd, text)
	}
	if s.ctl == nil {
		return say("no_volume", nil)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	level := LevelOf(s.ctl.Volume())
	nlu := req.Data.Result.NLU
	// "Much louder", "way too loud": how far up or down, as said.
	step := 1
	if a := req.Data.Result.ASR; a != nil {
		if st, ok := Relative(a.Text); ok {
			step = max(st, -st)
		}
	}
	var to int
	switch in := nlu.IntentName(); in {
	case IntentGet:
		if level == 0 {
			return say("muted_now", nil)
		}
		return say("current", map[string]string{"level": strconv.Itoa(level)})
	case IntentUp:
		if level == Levels {
			return say("at_max", nil)
		}
		to = min(level+step, Levels)
	case IntentMax:
		if level == Levels {
			return say("at_max", nil)
		}
		to = Levels
	case IntentDown:
		to = max(level-step, 0)
	case IntentSet:
		text, _ := nlu.Entities[SlotLevel].(string)
		if Muting(text) {
			// "Set the volume to mute": muting, which unmuting undoes.
			to = 0
			break
		}
		l, err := ParseLevel(text)
		if step, ok := Relative(text); err != nil && ok {
			// "Turn the volume down a bit": a change, not a level.
			if step > 0 && level == Levels {
				return say("at_max", nil)
			}
			l, err = min(max(level+step, 0), Levels), nil
		}
		if err != nil {
			return say("bad_level", nil)
		}
		to = l
	case IntentMute:
		to = 0
	case IntentUnmute:
		to = level
		if to == 0 {
			to = s.beforeMute
		}
		if to == 0 {
			to = DefaultUnmuteLevel
		}
	default:
		return nil, fmt.Errorf("no intent %q", in)
	}
	if err := s.ctl.SetVolume(ctx, float64(to)/Levels); err != nil {
		return nil, fmt.Errorf("setting the volume to %d: %w", to, err)
	}
	if to == 0 {
		if level > 0 {
			s.beforeMute = level
		}
		// Muted: silence is the answer.
		return protocol.NewSkillEnd(req, sd), nil
	}
	text, err := s.Render(lang, "level", map[string]string{"level": strconv.Itoa(to)})
	if err != nil {
		return nil, err
	}
	return kit.Say(req, sd, "<sfx name='"+ConfirmSound+"'/>"+text)
}

// ErrBadLevel is returned by ParseLevel for what is not a level 0..10.
var ErrBadLevel = errors.New("not a volume level from 0 to 10")

var levelWords = map[string]int{
	"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
	"nine": 9, "ten": 10, "max": 10, "maximum": 10, "full": 10, "min": 0, "minimum": 0, "half": 5,
}

// mutingWords are what a level slot may hold that means silence rather
// than a level: the skill mutes for them, as for "mute".
var mutingWords = map[string]bool{"mute": true, "muted": true, "silent": true, "off": true}

// Muting reports whether a volume_set level is said as muting ("mute",
// "to mute", "on mute", "silent", "off") rather than as a level.
func Muting(text string) bool {
	if len(text) > maxLevelText {
		return false
	}
	t := strings.ToLower(strings.TrimSpace(text))
	for _, p := range []string{"to ", "on ", "at "} {
		t = strings.TrimPrefix(t, p)
	}
	return mutingWords[strings.TrimSpace(t)]
}

// maxLevelText bounds the text ParseLevel reads.
const maxLevelText = 64

// ParseLevel reads a spoken level: "7", "seven", "max", "half", or a
// percentage ("70 percent", "70%"), rounded to a level.
func ParseLevel(text string) (int, error) {
	if len(text) > maxLevelText {
		return 0, fmt.Errorf("%w: %d bytes, limit %d", ErrBadLevel, len(text), maxLevelText)
	}
	t := strings.ToLower(strings.TrimSpace(text))
	percent := false
	for _, suffix := range []string{" percent", "%", " per cent"} {
		if strings.HasSuffix(t, suffix) {
			t, percent = strings.TrimSpace(strings.TrimSuffix(t, suffix)), true
		}
	}
	t = strings.TrimPrefix(t, "level ")
	n, ok := levelWords[t]
	if !ok {
		v, err := strconv.Atoi(t)
		if err != nil {
			return 0, fmt.Errorf("%q: %w", text, ErrBadLevel)
		}
		n = v
	}
	if percent {
		if n < 0 || n > 100 {
			return 0, fmt.Errorf("%q: %w", text, ErrBadLevel)
		}
		n = int(math.Round(float64(n) / 10))
	}
	if n < 0 || n > Levels {
		return 0, fmt.Errorf("%q: %w", text, ErrBadLevel)
	}
	return n, nil
}
