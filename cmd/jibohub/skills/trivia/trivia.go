// Package trivia is jibohub's multi-turn remote skill "openjibo/trivia": "let's
// play trivia" starts a game of Questions questions, each asked with a
// question MIM (QN factory) whose answer the hub understands with the
// skill's answer rule "openjibo.trivia/answer" (owner: the skill's bus id,
// as on the robot, which gets the rule in the hub's catalog and so
// understands answers itself); the skill says whether the
// answer was right, asks the next one and ends with the score. "stop" ends
// the game early; two silences give up. The hub keeps nothing between
// turns: the question order, the current question and the score live in
// the session data the robot sends back.
package trivia

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/openjibo/jibod/cmd/jibohub/skills/internal/cloud"
	"github.com/openjibo/jibod/core/skill/graph"
	"github.com/openjibo/jibod/core/skill/mim"
	"github.com/openjibo/jibod/core/skill/mim/factory"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/jcp"
)

// Names the hub and tests rely on.
const (
	ID           = "openjibo/trivia"
	IntentPlay   = "play_trivia"
	RuleAnswer   = "openjibo.trivia/answer" // "<bus id>/<rule>"
	IntentAnswer = "answer"
	// IntentSaidPrefix starts the name of an answer said alone:
	// "said_mars" is "mars".
	IntentSaidPrefix = "said_"
	IntentStop       = "end_game"
	EntityAnswer     = "answer"
	DefaultQuestion  = 3
)

//go:embed locale rules mims
var files embed.FS

// Question is one trivia question and the answers it accepts (normalised:
// lower case, no articles).
type Question struct {
	Text    string
	Answer  string   // as spoken when the answer was wrong
	Accepts []string // normalised answers counted right
}

// Bank is every question the game asks from.
var Bank = []Question{
	{"What is the largest planet in our solar system?", "Jupiter", []string{"jupiter"}},
	{"How many legs does a spider have?", "eight", []string{"eight", "8"}},
	{"What color do you get when you mix blue and yellow?", "green", []string{"green"}},
	{"What is the capital of France?", "Paris", []string{"paris"}},
	{"Which animal is known as the king of the jungle?", "the lion", []string{"lion"}},
	{"How many days are in a week?", "seven", []string{"seven", "7"}},
	{"What do we call frozen water?", "ice", []string{"ice"}},
	{"Which planet is known as the red planet?", "Mars", []string{"mars"}},
}

// Options configure the skill.
type Options struct {
	// Seed fixes the questions: every game asks Order(seed, n); 0 means
	// a random order per game.
	Seed uint64
	// Questions per game: 1..len(Bank); 0 means DefaultQuestion.
	Questions int
	// Logger; nil means slog.Default().
	Logger *slog.Logger
	// Now is the clock of prompt data; nil means time.Now.
	Now func() time.Time
}

// Order is the questions (indexes into Bank) a game with seed asks.
func Order(seed uint64, n int) []int {
	r := rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d))
	return r.Perm(len(Bank))[:n]
}

// Manifest is the skill's registry manifest.
func Manifest() *registry.Manifest {
	return &registry.Manifest{
		ID: ID, Version: "1.0.0", Name: "Trivia",
		Description: "Plays a game of trivia: asks questions, says if you got them right and keeps score.",
		Permissions: cloud.Permissions, SafetyLevel: registry.SafetyLow,
		Timeout: 2 * time.Second,
		Limits:  registry.Limits{CallsPerMinute: registry.MaxCallsPerMinute},
	}
}

// game is the session state of a game.
type game struct {
	Order []int `json:"order"`
	Next  int   `json:"next"` // index into Order of the question being asked
	Score int   `json:"score"`
}

const stateKey = "game"

// Transitions of the skill's nodes.
const (
	toAsk  = "Ask"
	toNext = "Next"
	toDone = "Done"
	toStop = "Stop"
	exit   = "End"
)

// New builds the skill.
func New(opts Options) (*cloud.Skill, error) {
	if opts.Questions == 0 {
		opts.Questions = DefaultQuestion
	}
	if opts.Questions < 1 || opts.Questions > len(Bank) {
		return nil, fmt.Errorf("trivia skill: %d questions: want 1..%d", opts.Questions, len(Bank))
	}
	t := &trivia{opts: opts}
	return cloud.New(cloud.Spec{
		Manifest: Manifest(),
		Config:   protocol.ManifestSkillConfig{Intents: []protocol.ManifestIntent{{Name: IntentPlay}}},
		Files:    files, Rand: cloud.Rand(opts.Seed), Logger: opts.Logger,
		Build: func(s *cloud.Skill, log *slog.Logger) (*graph.Graph, error) {
			t.s = s
			return t.build(log)
		},
	})
}

type trivia struct {
	opts Options
	s    *cloud.Skill
}

// build assembles the graph:
//
//	Start --Ask--> QN MIM: AskQuestion --Success/NoMatch--> Check --Next--> QN (verdict first)
//	                                   --NoInput--> GiveUp
//	Check --Done--> Score, --Stop--> Stopped
func (t *trivia) build(log *slog.Logger) (*graph.Graph, error) {
	ask, err := mim.Load(files, "mims/AskQuestion.mim")
	if err != nil {
		return nil, err
	}
	if ask.RuleName != RuleAnswer {
		return nil, fmt.Errorf("AskQuestion.mim listens with %q, want %q", ask.RuleName, RuleAnswer)
	}
	qn, err := factory.QN("AskQuestion", factory.Options{MIMs: factory.MIMs(ask), Now: t.opts.Now,
		SkillData: t.promptData, Slimmer: &mim.Slimmer{Logger: log}})
	if err != nil {
		return nil, err
	}
	start := graph.Func("Start", []string{toAsk}, nil, t.start)
	check := graph.Func("Check", []string{toNext, toDone, toStop}, nil, t.check)
	score := graph.JCP("Score", t.end("score"), nil, exit).Final()
	stopped := graph.JCP("Stopped", t.end("stopped"), nil, exit).Final()
	giveUp := t.s.SayNode("GiveUp", "give_up", exit)

	g := graph.New("trivia", exit)
	_ = g.AddNode(start, graph.To(toAsk, qn.Initial()))
	// The question MIM has no no-match prompts, so an answer the rule
	// does not understand leaves at once and is judged as it was heard.
	_ = g.AddSubGraph(qn, graph.To(factory.Success, check), graph.To(factory.NoMatch, check),
		graph.To(factory.NoInput, giveUp))
	_ = g.AddNode(check, graph.To(toNext, qn.Initial()), graph.To(toDone, score), graph.To(toStop, stopped))
	for _, n := range []graph.Node{score, stopped, giveUp} {
		_ = g.AddNode(n, graph.ToExit(exit, exit))
	}
	return g, g.Finalize()
}

func (t *trivia) state(d *graph.Data) (game, error) {
	var g game
	ok, err := d.Get(stateKey, &g)
	if err != nil {
		return g, err
	}
	if !ok || len(g.Order) == 0 || g.Next < 0 || g.Next > len(g.Order) || g.Score < 0 || g.Score > len(g.Order) {
		return g, errors.New("no game in the session")
	}
	for _, i := range g.Order {
		if i < 0 || i >= len(Bank) {
			return g, fmt.Errorf("session names question %d of %d", i, len(Bank))
		}
	}
	return g, nil
}

// start begins a game and says so before the first question.
func (t *trivia) start(_ context.Context, d *graph.Data) (graph.ExitResult, error) {
	order := Order(t.opts.Seed, t.opts.Questions)
	if t.opts.Seed == 0 {
		order = rand.Perm(len(Bank))[:t.opts.Questions]
	}
	if err := d.Set(stateKey, game{Order: order}); err != nil {
		return graph.ExitResult{}, err
	}
	intro, err := t.s.Render(d.General.Lang, "start", map[string]string{"count": strconv.Itoa(len(order))})
	if err != nil {
		return graph.ExitResult{}, err
	}
	d.AddSequenceBehavior(jcp.Say(intro))
	return graph.ExitResult{Transition: toAsk}, nil
}

// promptData gives the question MIM skill.prompt and skill.question.
func (t *trivia) promptData(_ context.Context, d *graph.Data) (map[string]any, error) {
	g, err := t.state(d)
	if err != nil {
		return nil, err
	}
	if g.Next >= len(g.Order) {
		return nil, errors.New("no question left to ask")
	}
	q := Bank[g.Order[g.Next]].Text
	return map[string]any{"question": q, "prompt": fmt.Sprintf("Question %d. %s", g.Next+1, q)}, nil
}

// check judges the answer: right or wrong is said before the next
// question, or with the score after the last one.
func (t *trivia) check(_ context.Context, d *graph.Data) (graph.ExitResult, error) {
	g, err := t.state(d)
	if err != nil {
		return graph.ExitResult{}, err
	}
	nlu := d.NLU()
	if nlu.IntentName() == IntentStop {
		return graph.ExitResult{Transition: toStop}, nil
	}
	if g.Next >= len(g.Order) {
		return graph.ExitResult{}, errors.New("answer after the last question")
	}
	q := Bank[g.Order[g.Next]]
	said := saidAnswer(nlu, d.ASR())
	dialog, values := "wrong", map[string]string{"answer": q.Answer}
	if slices.Contains(q.Accepts, Normalize(said)) {
		dialog, values = "right", nil
		g.Score++
	}
	g.Next++
	if err := d.Set(stateKey, g); err != nil {
		return graph.ExitResult{}, err
	}
	verdict, err := t.s.Render(d.General.Lang, dialog, values)
	if err != nil {
		return graph.ExitResult{}, err
	}
	if g.Next == len(g.Order) {
		return graph.ExitResult{Transition: toDone, Result: verdict}, nil
	}
	d.AddSequenceBehavior(jcp.Say(verdict))
	return graph.ExitResult{Transition: toNext}, nil
}

// end is the last word: the verdict on the last answer (if any) and the
// score.
func (t *trivia) end(dialog string) graph.ActionFunc {
	return func(_ context.Context, d *graph.Data) (*jcp.Action, error) {
		g, err := t.state(d)
		if err != nil {
			return nil, err
		}
		text, err := t.s.Render(d.General.Lang, dialog, map[string]string{
			"score": strconv.Itoa(g.Score), "count": strconv.Itoa(len(g.Order))})
		if err != nil {
			return nil, err
		}
		if verdict, ok := d.Result.(string); ok {
			text = verdict + " " + text
		}
		return jcp.NewAction(jcp.Say(text)), nil
	}
}

// saidAnswer is the answer a turn gives: the rule's answer entity, or the
// answer said alone (a said_<answer> intent: the robot understood it and
// sent no transcript, CLIENT_NLU), or else the transcript.
func saidAnswer(nlu *protocol.NLUResult, asr *protocol.ASRResult) string {
	if nlu != nil {
		if v, ok := nlu.Entities[EntityAnswer]; ok {
			return fmt.Sprint(v)
		}
		if a, ok := strings.CutPrefix(nlu.IntentName(), IntentSaidPrefix); ok && a != "" {
			return a
		}
	}
	if asr != nil {
		return asr.Text
	}
	return ""
}

// Normalize reduces an answer to what Accepts lists: lower case, words
// only, without articles.
func Normalize(s string) string {
	f := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
	f = slices.DeleteFunc(f, func(w string) bool { return w == "the" || w == "a" || w == "an" })
	return strings.Join(f, " ")
}
