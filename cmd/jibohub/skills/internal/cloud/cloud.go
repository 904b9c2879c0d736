// Package cloud is what jibohub's own skills share: a graph skill built
// from its registry manifest, its hub manifest (intents, proactives), an
// embedded locale tree with dialogs, answer rules, and a seeded source of
// choices so tests can know what the skill will say.
package cloud

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"sync"

	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/graph"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/jcp"
)

// Skill is a cloud graph skill: Manifest, Locale, Rules, SkillConfig and
// Handle, the methods the hub reads.
type Skill struct {
	manifest *registry.Manifest
	config   protocol.ManifestSkillConfig
	locale   fs.FS
	rules    fs.FS
	dialogs  map[string]*skill.Dialogs
	graph    *graph.Skill
}

// Spec is what New builds a skill from.
type Spec struct {
	// Manifest is the registry manifest (id "namespace/name").
	Manifest *registry.Manifest
	// Config is the hub manifest: intents and proactives. Its ID is set
	// from Manifest.
	Config protocol.ManifestSkillConfig
	// Files holds "locale" (required) and "rules" (optional).
	Files fs.FS
	// Rand picks dialog phrasings; nil means random.
	Rand func(n int) int
	// Logger; nil means slog.Default().
	Logger *slog.Logger
	// Build makes the graph once the locale is loaded.
	Build func(s *Skill, log *slog.Logger) (*graph.Graph, error)
}

// New checks the manifests, loads the locale and rules and builds the
// graph. The graph skill is named by the manifest's bus id, the skill.id
// the hub puts in its requests, as the robot's skill host does.
func New(sp Spec) (*Skill, error) {
	m := sp.Manifest
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("cloud skill: %w", err)
	}
	sp.Config.ID = m.ID
	if err := sp.Config.Validate(); err != nil {
		return nil, fmt.Errorf("skill %s: hub manifest: %w", m.ID, err)
	}
	log := sp.Logger
	if log == nil {
		log = slog.Default()
	}
	s := &Skill{manifest: m, config: sp.Config, dialogs: map[string]*skill.Dialogs{}}
	var err error
	if s.locale, err = fs.Sub(sp.Files, "locale"); err != nil {
		return nil, fmt.Errorf("skill %s: %w", m.ID, err)
	}
	loc, err := intent.LoadLocale(s.locale, ".")
	if err != nil {
		return nil, fmt.Errorf("skill %s: loading locale: %w", m.ID, err)
	}
	for tag, lang := range loc.Langs {
		if s.dialogs[tag], err = skill.NewDialogs(lang, sp.Rand); err != nil {
			return nil, fmt.Errorf("skill %s: dialogs of %s: %w", m.ID, tag, err)
		}
	}
	if _, err := fs.Stat(sp.Files, "rules"); err == nil {
		if s.rules, err = fs.Sub(sp.Files, "rules"); err != nil {
			return nil, fmt.Errorf("skill %s: %w", m.ID, err)
		}
	}
	g, err := sp.Build(s, log)
	if err != nil {
		return nil, fmt.Errorf("skill %s: %w", m.ID, err)
	}
	if s.graph, err = graph.NewSkill(m.BusID(), g, graph.Options{Logger: log}); err != nil {
		return nil, fmt.Errorf("skill %s: %w", m.ID, err)
	}
	return s, nil
}

// Manifest is the registry manifest.
func (s *Skill) Manifest() *registry.Manifest { return s.manifest }

// Locale is the locale tree.
func (s *Skill) Locale() fs.FS { return s.locale }

// Rules are the answer rules, one folder per rule; nil for none.
func (s *Skill) Rules() fs.FS { return s.rules }

// SkillConfig is the hub manifest (jibo.md §2.6).
func (s *Skill) SkillConfig() protocol.ManifestSkillConfig { return s.config }

// Handle answers one request through the graph.
func (s *Skill) Handle(ctx context.Context, req *protocol.Request) (*protocol.Response, error) {
	return s.graph.Handle(ctx, req)
}

// HandleChecked answers one request through the graph, the answer checked
// there: the hub's invoker takes it without validating again.
func (s *Skill) HandleChecked(ctx context.Context, req *protocol.Request) (*protocol.CheckedResponse, error) {
	return s.graph.HandleChecked(ctx, req)
}

// Render renders dialog name in lang ("en-US") with values.
func (s *Skill) Render(lang, name string, values map[string]string) (string, error) {
	tag, err := intent.NormalizeLang(lang)
	if err != nil {
		return "", fmt.Errorf("language %q: %w", lang, err)
	}
	d, ok := s.dialogs[tag]
	if !ok {
		return "", fmt.Errorf("skill %s does not speak %q", s.manifest.ID, lang)
	}
	return d.Render(name, values)
}

// Say is an action speaking dialog name.
func (s *Skill) Say(lang, name string, values map[string]string) (*jcp.Action, error) {
	text, err := s.Render(lang, name, values)
	if err != nil {
		return nil, err
	}
	return jcp.NewAction(jcp.Say(text)), nil
}

// SayNode is a final node speaking dialog name.
func (s *Skill) SayNode(node, dialog, exit string) *graph.JCPNode {
	return graph.JCP(node, func(_ context.Context, d *graph.Data) (*jcp.Action, error) {
		return s.Say(d.General.Lang, dialog, nil)
	}, nil, exit).Final()
}

// Rand returns a source of choices in [0, n), safe for concurrent use:
// seeded with seed, or random when seed is 0.
func Rand(seed uint64) func(n int) int {
	if seed == 0 {
		return rand.IntN
	}
	var mu sync.Mutex
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	return func(n int) int {
		mu.Lock()
		defer mu.Unlock()
		return r.IntN(n)
	}
}

// Permissions every jibohub skill has: it speaks and asks.
var Permissions = []registry.Permission{registry.PermSpeech, registry.PermListen}
