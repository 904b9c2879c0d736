package loadgen

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"strings"

	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/base"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/internal/memfs"
	"github.com/openjibo/jibod/jcp"
)

// skillWords name the load's skills and make their phrases: "load check
// alfa" is the first skill's, "load check alfa alfa" the 27th's.
var skillWords = []string{"alfa", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
	"india", "juliett", "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo",
	"sierra", "tango", "uniform", "victor", "whiskey", "xray", "yankee", "zulu"}

// MaxSkills is how many skills Skills makes at most. Each is allowed
// registry.MaxCallsPerMinute calls in any minute: together they take
// 38,400 utterances a minute without a refusal, 640 a second sustained,
// or a faster load for as long as that lasts.
const MaxSkills = 64

// skillName is the k-th load skill's name, one or two words.
func skillName(k int) []string {
	n := len(skillWords)
	if k < n {
		return []string{skillWords[k]}
	}
	return []string{skillWords[k%n], skillWords[k/n-1]}
}

// intentCheck is each load skill's one intent.
const intentCheck = "check"

// Skills returns n skills made for the load and the lines that reach them,
// one each ("load check alfa", …). A skill answers its line in words
// alone, through the robot's host, invoker, executor and body as any skill
// does. Each declares the most calls a minute a manifest may
// (registry.MaxCallsPerMinute): the robot meters every skill's calls, and
// its built-in skills, at the default, refuse a load after a couple of
// seconds, apologising aloud for each refusal, which sets the pace
// instead.
func Skills(n int, log *slog.Logger) ([]skill.Skill, []string, error) {
	if n < 1 || n > MaxSkills {
		return nil, nil, fmt.Errorf("loadgen: %d skills: want 1..%d", n, MaxSkills)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var skills []skill.Skill
	var lines []string
	for k := range n {
		s, line, err := newLoadSkill(skillName(k), log)
		if err != nil {
			return nil, nil, err
		}
		skills = append(skills, s)
		lines = append(lines, line)
	}
	return skills, lines, nil
}

// loadSkill is one of the load's skills.
type loadSkill struct {
	*base.Skill
	m      *registry.Manifest
	locale fs.FS
}

func newLoadSkill(name []string, log *slog.Logger) (*loadSkill, string, error) {
	word := strings.Join(name, " ")
	id := "load." + strings.Join(name, "-")
	line := "load check " + word
	m := &registry.Manifest{ID: "load/" + strings.Join(name, "-"), Name: "Load " + word, Version: "1.0.0",
		Description: "Answers " + line + " in words, for load measurements.",
		Permissions: []registry.Permission{registry.PermSpeech},
		SafetyLevel: registry.SafetyLow,
		Limits:      registry.Limits{CallsPerMinute: registry.MaxCallsPerMinute}}
	answer := jcp.NewAction(jcp.Say("Checked " + word + "."))
	locale := memfs.New()
	if err := locale.File("en-us/"+intentCheck+".intent", []byte(line+"\n")); err != nil {
		return nil, "", fmt.Errorf("loadgen: skill %s: %w", id, err)
	}
	s := &loadSkill{m: m, locale: locale}
	var err error
	s.Skill, err = base.New(id, func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
		if in := req.Data.Result.NLU.IntentName(); in != intentCheck {
			return nil, fmt.Errorf("has no intent %q", in)
		}
		return base.ActionResponse(req, protocol.Skill(id), answer, true)
	}, base.Options{Logger: log})
	if err != nil {
		return nil, "", fmt.Errorf("loadgen: skill %s: %w", id, err)
	}
	return s, line, nil
}

var _ skill.Skill = (*loadSkill)(nil)

// Manifest declares the skill.
func (s *loadSkill) Manifest() *registry.Manifest { return s.m }

// Locale is its one intent.
func (s *loadSkill) Locale() fs.FS { return s.locale }
