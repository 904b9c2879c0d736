package kit

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"strings"

	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/skill/base"
	"github.com/openjibo/jibod/core/skill/graph"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
)

// Options configure what New and NewGraph build.
type Options struct {
	// Rand picks among a dialog's phrasings; nil means random.
	Rand func(n int) int
	// Logger; nil means slog.Default().
	Logger *slog.Logger
	// RequiredContext maps an intent to the private context keys that
	// must be live for it to match (CTX-11): follow-ups such as "and the
	// date?" that mean something only right after another turn.
	RequiredContext map[string][]string
}

// handler is what answers a skill's requests: a base.Skill or a
// graph.Skill.
type handler interface {
	Handle(ctx context.Context, req *protocol.Request) (*protocol.Response, error)
}

// Skill is the part of a built-in skill that is not its own: its checked
// manifest, its locale, and the handler its requests go through. A skill
// embeds it for Manifest, Locale, Handle and Render, and keeps only its
// own logic.
type Skill struct {
	manifest *registry.Manifest
	locale   *Locale
	handler  handler
	context  map[string][]string
}

// New checks m, loads the locale tree under "locale" in files and puts
// launch behind a base.Skill named m.BusID(). Errors name the skill
// ("clock skill: …").
//
// Such a skill answers in one turn: launch gets its LISTEN_LAUNCHes, and
// any other request is answered with an error.
func New(m *registry.Manifest, files fs.FS, opts Options, launch base.Handler) (*Skill, error) {
	s, log, err := load(m, files, opts)
	if err != nil {
		return nil, err
	}
	if launch == nil {
		return nil, wrap(m, errors.New("no handler"))
	}
	handle := func(ctx context.Context, req *protocol.Request) (*protocol.Response, error) {
		if req.Type != protocol.TypeListenLaunch {
			return nil, fmt.Errorf("answers LISTEN_LAUNCH only, not %s", req.Type)
		}
		return launch(ctx, req)
	}
	if s.handler, err = base.New(m.BusID(), handle, base.Options{Logger: log}); err != nil {
		return nil, wrap(m, err)
	}
	return s, nil
}

// GraphSkill is Skill for a graph skill: its requests go through a
// graph.Skill, and it shows its graph.
type GraphSkill struct {
	Skill
	graph *graph.Skill
}

// NewGraph is New for a graph skill: once m is checked and the locale
// loaded, build makes the skill's graph (with log, the skill's logger),
// and its requests go through a graph.Skill named m.BusID().
func NewGraph(m *registry.Manifest, files fs.FS, opts Options, build func(log *slog.Logger) (*graph.Graph, error)) (*GraphSkill, error) {
	s, log, err := load(m, files, opts)
	if err != nil {
		return nil, err
	}
	g, err := build(log)
	if err != nil {
		return nil, wrap(m, err)
	}
	gs := &GraphSkill{Skill: *s}
	if gs.graph, err = graph.NewSkill(m.BusID(), g, graph.Options{Logger: log}); err != nil {
		return nil, wrap(m, err)
	}
	gs.handler = gs.graph
	return gs, nil
}

// load checks m and loads the locale; it returns the logger to use.
func load(m *registry.Manifest, files fs.FS, opts Options) (*Skill, *slog.Logger, error) {
	if err := m.Validate(); err != nil {
		return nil, nil, wrap(m, err)
	}
	sub, err := fs.Sub(files, "locale")
	if err != nil {
		return nil, nil, wrap(m, err)
	}
	loc, err := LoadLocale(sub, opts.Rand)
	if err != nil {
		return nil, nil, wrap(m, err)
	}
	for in, keys := range opts.RequiredContext {
		if !loc.HasIntent(in) {
			return nil, nil, wrap(m, fmt.Errorf("context for intent %q, which no .intent file defines", in))
		}
		if len(keys) == 0 {
			return nil, nil, wrap(m, fmt.Errorf("intent %q: empty list of required context keys", in))
		}
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Skill{manifest: m, locale: loc, context: opts.RequiredContext}, log, nil
}

// wrap says which skill failed to build, by the name part of its id
// ("jibo/clock" → "clock skill: …").
func wrap(m *registry.Manifest, err error) error {
	name := m.ID[strings.LastIndexByte(m.ID, '/')+1:]
	return fmt.Errorf("%s skill: %w", name, err)
}

// Manifest declares the skill to the host.
func (s *Skill) Manifest() *registry.Manifest { return s.manifest.Clone() }

// Locale is the skill's locale tree.
func (s *Skill) Locale() fs.FS { return s.locale.FS() }

// TakeLoadedLocale hands the locale tree as loaded when the skill was built
// to the skill's first registration (skill.Host); afterwards it returns
// nil and a registration reads the files.
func (s *Skill) TakeLoadedLocale() *intent.Locale { return s.locale.TakeLoaded() }

// Handle answers one request.
func (s *Skill) Handle(ctx context.Context, req *protocol.Request) (*protocol.Response, error) {
	return s.handler.Handle(ctx, req)
}

// RequiredContext maps the skill's context-gated intents to the keys of
// its own that must be live (skill.ContextGated).
func (s *Skill) RequiredContext() map[string][]string {
	out := make(map[string][]string, len(s.context))
	for k, v := range s.context {
		out[k] = append([]string(nil), v...)
	}
	return out
}

// Render renders one of the skill's dialogs in lang with values.
func (s *Skill) Render(lang, dialog string, values map[string]string) (string, error) {
	return s.locale.Render(lang, dialog, values)
}

// Graph is the skill's graph, for `jibod skills graph`.
func (s *GraphSkill) Graph() *graph.Graph { return s.graph.Graph() }
