// Package plants is an example local Go skill: a GraphSkill asking a
// question from a MIM file, the way Jibo's own skills did. "Did I water
// the plants?" launches it; it asks "Did you water the plants today?"
// (mims/AskWatered.mim, rule shared/yes_no, Jibo's name for the robot's
// globals/yes_no), and answers a yes or a no with another MIM. After an
// answer it does not understand or silence it asks again (the MIM's
// no-match and no-input prompts), and then gives up with a line of its
// dialog (locale/en-us/later.dialog).
//
// The graph:
//
//	AskWatered (QN) ──Success──> Answered? ──True──> Watered (AN)
//	                                       └─False─> NotWatered (AN)
//	              ──NoMatch, NoInput──> Later (dialog)
//
// cmd/plants runs it beside a stock jibod: `jibod run --local-skill
// ./plants` (docs/go-skills.md).
package plants

import (
	"context"
	"embed"
	"io/fs"

	"github.com/openjibo/jibod/core/skill/graph"
	"github.com/openjibo/jibod/core/skill/local"
	"github.com/openjibo/jibod/core/skill/mim/factory"
	"github.com/openjibo/jibod/jcp"
)

//go:embed manifest.json locale mims
var files embed.FS

// Files are the skill's files: its manifest, locale and MIMs.
func Files() fs.FS { return files }

// New builds the skill.
func New(opts local.Options) (*local.Skill, error) {
	k, err := local.Load(files, opts)
	if err != nil {
		return nil, err
	}
	g, err := build(k)
	if err != nil {
		return nil, err
	}
	return k.Graph(g)
}

func build(k *local.Kit) (*graph.Graph, error) {
	last := factory.Options{Final: factory.Final(true)}
	ask, err := factory.QN("AskWatered", factory.Options{MIMs: factory.FromSet(k.MIMs(), "AskWatered")})
	if err != nil {
		return nil, err
	}
	last.MIMs = factory.FromSet(k.MIMs(), "Watered")
	watered, err := factory.AN("Watered", last)
	if err != nil {
		return nil, err
	}
	last.MIMs = factory.FromSet(k.MIMs(), "NotWatered")
	notWatered, err := factory.AN("NotWatered", last)
	if err != nil {
		return nil, err
	}
	answered := graph.TrueFalse("Answered?", func(_ context.Context, d *graph.Data) (bool, error) {
		return d.NLU().IntentName() == "yes", nil
	})
	later := graph.JCP("Later", func(_ context.Context, d *graph.Data) (*jcp.Action, error) {
		text, err := k.Render(d.General.Lang, "later", nil)
		if err != nil {
			return nil, err
		}
		return jcp.NewAction(jcp.Say(local.EscapeESML(text))), nil
	}, nil, "Done").Final()

	g := graph.New("plants", "Done")
	for _, step := range []error{
		g.AddSubGraph(ask, graph.To(factory.Success, answered), graph.To(factory.NoMatch, later), graph.To(factory.NoInput, later)),
		g.AddNode(answered, graph.To(graph.TransitionTrue, watered.Initial()), graph.To(graph.TransitionFalse, notWatered.Initial())),
		g.AddSubGraph(watered, graph.ToExit(factory.Success, "Done")),
		g.AddSubGraph(notWatered, graph.ToExit(factory.Success, "Done")),
		g.AddNode(later, graph.ToExit("Done", "Done")),
		g.SetInitial(ask.Initial()),
	} {
		if step != nil {
			return nil, step
		}
	}
	return g, g.Finalize()
}
