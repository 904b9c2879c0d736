// Package chitchat is the built-in small-talk skill: it answers "how are
// you", "who are you", "how old are you" and the like from MIMs (spec/jibo.md
// §5), whose prompts depend on prompt data (the robot's mood, the time of
// day, its birthday, who is speaking), and "do you like dogs?" with a
// semi-specific response chosen by the category of the thing
// (OI_JBO_Likes_SS_Animal). Its graph is the one §5.3 describes for
// Jibo's chitchat: IntentSplit → ProcessQuery → DoMIM (the AN factory,
// final) → Complete. Another skill can hand it a line to say with a
// SKILL_REDIRECT whose memo is {mim, type: "ScriptedResponse"} or
// {mim, type: "SemiSpecificResponse", value}.
package chitchat

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/builtin/internal/kit"
	"github.com/openjibo/jibod/core/skill/graph"
	"github.com/openjibo/jibod/core/skill/mim"
	"github.com/openjibo/jibod/core/skill/mim/factory"
	"github.com/openjibo/jibod/core/skill/registry"
)

// ManifestID is the skill's registry id; ID is its id on the bus.
const (
	ManifestID = "jibo/chitchat"
	ID         = "jibo.chitchat"
)

// IntentLikes is the intent answered semi-specifically; its slot
// SlotThing is what the user asks about.
const (
	IntentLikes = "do_you_like"
	SlotThing   = "thing"
)

// LikesPrefix is the prefix of the semi-specific "do you like" MIMs:
// LikesPrefix_SS_<Category>, and LikesPrefix alone for a thing of no
// category.
const LikesPrefix = "OI_JBO_Likes"

// Memo types another skill may redirect with (spec/jibo.md §5.1).
const (
	MemoScripted     = "ScriptedResponse"
	MemoSemiSpecific = "SemiSpecificResponse"
)

// scripted maps the skill's intents to the MIM each is answered with.
var scripted = map[string]string{
	"how_are_you":      "HowAreYou",
	"who_are_you":      "WhoAreYou",
	"how_old_are_you":  "HowOldAreYou",
	"favorite_color":   "FavoriteColor",
	"what_do_you_like": "WhatDoYouLike",
	"thank_you":        "ThankYou",
	"good_night":       "GoodNight",
	"are_you_a_robot":  "AreYouARobot",
}

// maxValue bounds the thing talked about, in bytes.
const maxValue = 100

//go:embed locale mims categories.json
var files embed.FS

// Manifest is what the skill declares: it speaks, and some answers move
// the body (a dance for music and birthdays, a droop on a bad day).
func Manifest() *registry.Manifest {
	return &registry.Manifest{
		ID: ManifestID, Version: "1.1.0", Name: "Chitchat",
		Description: "Chats about how I am, who I am, how old I am and what I like.",
		Permissions: []registry.Permission{registry.PermSpeech, registry.PermMotion, registry.PermLED},
		Timeout:     2 * time.Second,
		SafetyLevel: registry.SafetyModerate,
	}
}

// Options configure the skill.
type Options struct {
	// Now is the clock of the prompt data; nil means time.Now.
	Now func() time.Time
	// Birthdate is the robot's birthdate, for prompts about its age when
	// the request's runtime context has none; zero when unknown.
	Birthdate time.Time
	// Rand picks among eligible prompts; nil means random.
	Rand mim.Rand
	// Logger; nil means slog.Default().
	Logger *slog.Logger
}

// Skill is the chitchat skill.
type Skill struct {
	*kit.GraphSkill
	mims      *mim.Set
	cats      *mim.Categories
	now       func() time.Time
	birthdate time.Time
}

var _ skill.Skill = (*Skill)(nil)

// New loads the skill's MIMs and category list and builds its graph.
func New(opts Options) (*Skill, error) {
	s := &Skill{now: opts.Now, birthdate: opts.Birthdate}
	if s.now == nil {
		s.now = time.Now
	}
	var err error
	s.GraphSkill, err = kit.NewGraph(Manifest(), files, kit.Options{Logger: opts.Logger}, func(log *slog.Logger) (*graph.Graph, error) {
		if err := s.loadMIMs(); err != nil {
			return nil, err
		}
		return s.build(&mim.Slimmer{Rand: opts.Rand, Logger: log})
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// loadMIMs loads the MIMs and the category list, and checks that every
// MIM the skill answers with is there.
func (s *Skill) loadMIMs() error {
	var err error
	if s.mims, err = mim.LoadDir(files, "mims"); err != nil {
		return err
	}
	if s.cats, err = mim.LoadCategories(files, "categories.json"); err != nil {
		return err
	}
	for in, id := range scripted {
		if _, err := s.mims.Get(id); err != nil {
			return fmt.Errorf("intent %s: %w", in, err)
		}
	}
	_, err = s.mims.Get(LikesPrefix)
	return err
}

// MIMs is the skill's set of MIMs.
func (s *Skill) MIMs() *mim.Set { return s.mims }

// Transitions of the skill's own nodes.
const (
	toScripted     = "Scripted"
	toSemiSpecific = "SemiSpecific"
	toFound        = "Found"
	exitDone       = "Done"
)

// query is what IntentSplit makes of a launch.
type query struct {
	mim  string // the MIM id, or the semi-specific prefix
	semi bool   // a semi-specific response, by the category of value
	// value is the thing talked about.
	value string
}

// chosen is what ProcessQuery picked: the MIM to play and the skill's
// prompt data (skill.value, skill.category).
type chosen struct {
	mim  *mim.MIM
	data map[string]any
}

// build assembles the graph (§5.3):
//
//	IntentSplit --Scripted/SemiSpecific--> ProcessQuery --Found--> AN MIM: DoMIM --Success--> Complete
func (s *Skill) build(slimmer *mim.Slimmer) (*graph.Graph, error) {
	split := graph.Func("IntentSplit", []string{toScripted, toSemiSpecific}, nil, s.split)
	process := graph.Func("ProcessQuery", []string{toFound}, nil, s.process)
	do, err := factory.AN("DoMIM", factory.Options{
		MIMs: factory.MIMFunc(func(_ context.Context, d *graph.Data) ([]*mim.MIM, error) {
			c, ok := d.Result.(chosen)
			if !ok {
				return nil, fmt.Errorf("DoMIM: no MIM chosen (got %T)", d.Result)
			}
			return []*mim.MIM{c.mim}, nil
		}),
		PromptData: s.promptData,
		Final:      factory.Final(true),
		Slimmer:    slimmer,
	})
	if err != nil {
		return nil, err
	}
	complete := graph.NoOp("Complete", exitDone)
	g := graph.New("chitchat", exitDone)
	_ = g.AddNode(split, graph.To(toScripted, process), graph.To(toSemiSpecific, process))
	_ = g.AddNode(process, graph.To(toFound, do.Initial()))
	_ = g.AddSubGraph(do, graph.To(factory.Success, complete))
	_ = g.AddNode(complete, graph.ToExit(exitDone, exitDone))
	if err := g.Finalize(); err != nil {
		return nil, err
	}
	return g, nil
}

// memo is a launch memo from a redirecting skill.
type memo struct {
	MIM   string `json:"mim"`
	Type  string `json:"type"`
	Value string `json:"value"`
}

// split reads what to answer: the launch memo, else the intent.
func (s *Skill) split(_ context.Context, d *graph.Data) (graph.ExitResult, error) {
	// Memos may be any JSON value (a proactive launch's "Proactive"):
	// only an object says what to answer.
	if raw := d.Request.Data.Result.Memo; isObject(raw) {
		var m memo
		if err := json.Unmarshal(raw, &m); err != nil {
			return graph.ExitResult{}, fmt.Errorf("launch memo: %w", err)
		}
		switch m.Type {
		case MemoScripted:
			return graph.ExitResult{Transition: toScripted, Result: query{mim: m.MIM}}, nil
		case MemoSemiSpecific:
			return graph.ExitResult{Transition: toSemiSpecific, Result: query{mim: m.MIM, semi: true, value: m.Value}}, nil
		}
		return graph.ExitResult{}, fmt.Errorf("launch memo: type %q: want %s or %s", m.Type, MemoScripted, MemoSemiSpecific)
	}
	nlu := d.NLU()
	in := nlu.IntentName()
	if in == IntentLikes {
		v, _ := nlu.Entities[SlotThing].(string)
		return graph.ExitResult{Transition: toSemiSpecific, Result: query{mim: LikesPrefix, semi: true, value: v}}, nil
	}
	id, ok := scripted[in]
	if !ok {
		return graph.ExitResult{}, fmt.Errorf("no intent %q", in)
	}
	return graph.ExitResult{Transition: toScripted, Result: query{mim: id}}, nil
}

// process picks the MIM: the scripted one, or for a semi-specific query
// the MIM of the thing's category (trying it without a plural "s" too),
// else the prefix's own MIM for things of no category.
func (s *Skill) process(_ context.Context, d *graph.Data) (graph.ExitResult, error) {
	q, ok := d.Result.(query)
	if !ok {
		return graph.ExitResult{}, fmt.Errorf("ProcessQuery: no query (got %T)", d.Result)
	}
	if q.mim == "" || len(q.mim) > mim.MaxStringBytes {
		return graph.ExitResult{}, errors.New("ProcessQuery: no MIM named")
	}
	if !q.semi {
		m, err := s.mims.Get(q.mim)
		if err != nil {
			return graph.ExitResult{}, fmt.Errorf("ProcessQuery: %w", err)
		}
		return graph.ExitResult{Transition: toFound, Result: chosen{mim: m}}, nil
	}
	value := thing(q.value)
	if value == "" {
		return graph.ExitResult{}, errors.New("ProcessQuery: nothing to talk about")
	}
	if len(value) > maxValue {
		return graph.ExitResult{}, fmt.Errorf("ProcessQuery: %q is over %d bytes", value[:maxValue], maxValue)
	}
	candidates := []string{value}
	if strings.HasSuffix(value, "s") {
		candidates = append(candidates, strings.TrimSuffix(value, "s"))
	}
	for _, v := range candidates {
		m, cat, err := mim.SemiSpecific(s.mims, s.cats, q.mim, v)
		if err == nil {
			return graph.ExitResult{Transition: toFound, Result: chosen{mim: m,
				data: map[string]any{"value": value, "category": cat}}}, nil
		}
		if !errors.Is(err, mim.ErrNotFound) {
			return graph.ExitResult{}, fmt.Errorf("ProcessQuery: %w", err)
		}
	}
	m, err := s.mims.Get(q.mim)
	if err != nil {
		return graph.ExitResult{}, fmt.Errorf("ProcessQuery: no category holds %q and %w", value, err)
	}
	return graph.ExitResult{Transition: toFound, Result: chosen{mim: m, data: map[string]any{"value": value}}}, nil
}

// thing is the value talked about, without the article people put
// before it ("the blues" keeps its own: it is listed so).
func thing(v string) string {
	v = strings.Join(strings.Fields(strings.ToLower(v)), " ")
	for _, a := range []string{"a ", "an "} {
		v = strings.TrimPrefix(v, a)
	}
	return v
}

// promptData is what the MIMs' conditions and templates see: the
// request's runtime context at the robot's time, the robot's birthdate
// when the request has none, and the chosen thing.
func (s *Skill) promptData(_ context.Context, d *graph.Data) (mim.PromptData, error) {
	var data map[string]any
	if c, ok := d.Result.(chosen); ok {
		data = c.data
	}
	pd := mim.NewPromptData(d.Runtime, s.now(), data)
	if pd.JiboBirthdate.IsZero() && !s.birthdate.IsZero() {
		pd.JiboBirthdate = s.birthdate
	}
	return pd, nil
}

// isObject reports whether raw is a JSON object.
func isObject(raw json.RawMessage) bool {
	t := bytes.TrimLeft(raw, " \t\r\n")
	return len(t) > 0 && t[0] == '{'
}
