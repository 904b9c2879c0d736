// Package local is how a skill written in Go runs on the robot: a
// BaseSkill handler (package base) or a GraphSkill's graph (package graph,
// with MIMs from files and the factories of package mim/factory), with its
// manifest and its files, as a skill.Skill the robot's skill host takes.
//
// A skill's files are an fs.FS, usually embedded, laid out as a Wasm
// skill package is (docs/wasm-abi.md) without the module:
//
//	manifest.json   the skill's manifest (core/skill/registry), strictly read
//	locale/         <lang>/ intents (.intent), vocabularies (.voc),
//	                entities (.entity), what it says (.dialog)
//	mims/           its MIMs (.mim), in sub-folders too; optional
//	rules/          answer rules of its own: <rule>/<lang>/…; optional
//
// Load reads and checks them all (a dialog that does not expand or whose
// lines declare different slots, GRM-16, a MIM that does not parse, a
// question MIM without a rule fail here), and the Kit it returns builds
// the skill: Kit.Base around a handler, Kit.Graph around a graph. The
// skill's questions must listen with rules the robot has: its own
// ("<bus id>/<rule>" from rules/), the robot's (globals/yes_no, optin/…),
// or Jibo's shared ones (shared/yes_no …, mapped to the robot's); the host
// refuses a skill whose MIM names another when it adds it.
//
// The robot hosts such a skill in its own process (the runtime's
// composition takes a list of skills), or, with a stock jibod, in a
// process of the skill's own: Main is the whole main function of that
// program, and `jibod run --local-skill PROGRAM` starts it (see
// docs/go-skills.md).
package local

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"strings"

	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/base"
	"github.com/openjibo/jibod/core/skill/graph"
	"github.com/openjibo/jibod/core/skill/mim"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/jcp"
)

// Names of a skill's files.
const (
	ManifestFile = "manifest.json"
	LocaleDir    = "locale"
	MIMsDir      = "mims"
	RulesDir     = "rules"
)

// Options configure Load.
type Options struct {
	// Rand picks among a dialog's lines; nil means random.
	Rand func(n int) int
	// Logger is the skill's; nil means slog.Default().
	Logger *slog.Logger
	// RequiredContext maps an intent to the context keys of the skill's
	// own that must be live for it to match (CTX-11): follow-ups that
	// mean something only right after another turn.
	RequiredContext map[string][]string
}

// Kit is a skill's checked manifest and files, from which Base or Graph
// builds the skill. It is safe for concurrent use once loaded.
type Kit struct {
	manifest *registry.Manifest
	raw      []byte // manifest.json as written
	locale   fs.FS
	rules    fs.FS
	mims     *mim.Set
	dialogs  *skill.LocaleDialogs
	listen   []string
	context  map[string][]string
	log      *slog.Logger
}

// Load reads and checks a skill's files (see the package comment).
func Load(files fs.FS, opts Options) (*Kit, error) {
	raw, err := fs.ReadFile(files, ManifestFile)
	if err != nil {
		return nil, fmt.Errorf("local skill: %w", err)
	}
	m, err := registry.ParseManifest(raw)
	if err != nil {
		return nil, fmt.Errorf("local skill: %s: %w", ManifestFile, err)
	}
	k := &Kit{manifest: m, raw: raw, log: opts.Logger}
	if k.log == nil {
		k.log = slog.Default()
	}
	k.log = k.log.With("skill", m.ID)
	wrap := func(err error) error { return fmt.Errorf("skill %s: %w", m.ID, err) }
	if k.locale, err = sub(files, LocaleDir); err != nil {
		return nil, wrap(err)
	}
	intents := map[string]bool{}
	if k.locale != nil {
		loc, err := intent.LoadLocale(k.locale, ".")
		if err != nil {
			return nil, wrap(fmt.Errorf("%s: %w", LocaleDir, err))
		}
		if k.dialogs, err = skill.NewLocaleDialogs(loc, opts.Rand); err != nil {
			return nil, wrap(fmt.Errorf("%s: %w", LocaleDir, err))
		}
		for _, tag := range loc.Languages() {
			for _, in := range loc.Langs[tag].Names(intent.RoleIntent) {
				intents[in] = true
			}
		}
	}
	for in, keys := range opts.RequiredContext {
		if !intents[in] {
			return nil, wrap(fmt.Errorf("context for intent %q, which no .intent file defines", in))
		}
		if len(keys) == 0 {
			return nil, wrap(fmt.Errorf("intent %q: empty list of required context keys", in))
		}
	}
	k.context = opts.RequiredContext
	if k.rules, err = sub(files, RulesDir); err != nil {
		return nil, wrap(err)
	}
	if _, err := fs.Stat(files, MIMsDir); err == nil {
		if k.mims, err = mim.LoadDir(files, MIMsDir); err != nil {
			return nil, wrap(err)
		}
	}
	seen := map[string]bool{}
	for _, id := range k.mims.IDs() {
		q, _ := k.mims.Get(id)
		if !q.Type.Listens() {
			continue
		}
		if !seen[q.RuleName] {
			seen[q.RuleName] = true
			k.listen = append(k.listen, q.RuleName)
		}
	}
	return k, nil
}

// sub is the folder name of files, nil when it has none.
func sub(files fs.FS, name string) (fs.FS, error) {
	st, err := fs.Stat(files, name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, err
	case !st.IsDir():
		return nil, fmt.Errorf("%s is not a folder", name)
	}
	return fs.Sub(files, name)
}

// Manifest returns a copy of the skill's manifest.
func (k *Kit) Manifest() *registry.Manifest { return k.manifest.Clone() }

// Logger is the skill's logger.
func (k *Kit) Logger() *slog.Logger { return k.log }

// MIMs are the skill's MIMs, by id (the file name without .mim, or its
// mim_id): for the factories' FromSet, FromSetBy and MIMs.
func (k *Kit) MIMs() *mim.Set { return k.mims }

// MIM returns one of the skill's MIMs.
func (k *Kit) MIM(id string) (*mim.MIM, error) { return k.mims.Get(id) }

// Render renders one of the skill's dialogs in lang ("en-US"), a line at
// random with its slots filled (see skill.LocaleDialogs).
func (k *Kit) Render(lang, name string, values map[string]string) (string, error) {
	if k.dialogs == nil {
		return "", fmt.Errorf("%w: skill %s has no %s/", skill.ErrNoDialog, k.manifest.ID, LocaleDir)
	}
	return k.dialogs.Render(lang, name, values)
}

// Base builds a skill answering with h behind BaseSkill's checks (package
// base): it gets every request (LISTEN_LAUNCH, LISTEN_UPDATE,
// PROACTIVE_LAUNCH) already validated.
func (k *Kit) Base(h base.Handler) (*Skill, error) {
	if h == nil {
		return nil, fmt.Errorf("skill %s: no handler", k.manifest.ID)
	}
	b, err := base.New(k.manifest.BusID(), h, base.Options{Logger: k.log})
	if err != nil {
		return nil, fmt.Errorf("skill %s: %w", k.manifest.ID, err)
	}
	return &Skill{kit: k, handler: b}, nil
}

// Graph builds a GraphSkill around g (finalized here if it is not yet).
func (k *Kit) Graph(g *graph.Graph) (*Skill, error) {
	gs, err := graph.NewSkill(k.manifest.BusID(), g, graph.Options{Logger: k.log})
	if err != nil {
		return nil, fmt.Errorf("skill %s: %w", k.manifest.ID, err)
	}
	return &Skill{kit: k, handler: gs, graph: gs}, nil
}

// Skill is a local Go skill: a skill.Skill with answer rules of its own,
// questions checked when the host adds it, and context-gated intents.
type Skill struct {
	kit     *Kit
	handler interface {
		HandleChecked(ctx context.Context, req *protocol.Request) (*protocol.CheckedResponse, error)
	}
	graph *graph.Skill
}

var (
	_ skill.CheckedSkill = (*Skill)(nil)
	_ skill.RuleSkill    = (*Skill)(nil)
	_ skill.Questioner   = (*Skill)(nil)
	_ skill.ContextGated = (*Skill)(nil)
)

// Manifest returns a copy of the skill's manifest.
func (s *Skill) Manifest() *registry.Manifest { return s.kit.Manifest() }

// Locale is the skill's locale tree; nil when it has none.
func (s *Skill) Locale() fs.FS { return s.kit.locale }

// Rules is the skill's answer rules tree; nil when it has none.
func (s *Skill) Rules() fs.FS { return s.kit.rules }

// ListenRules are the rules its MIMs' questions listen with.
func (s *Skill) ListenRules() []string { return append([]string(nil), s.kit.listen...) }

// RequiredContext maps its context-gated intents to their keys.
func (s *Skill) RequiredContext() map[string][]string {
	out := make(map[string][]string, len(s.kit.context))
	for k, v := range s.kit.context {
		out[k] = append([]string(nil), v...)
	}
	return out
}

// Handle answers one request.
func (s *Skill) Handle(ctx context.Context, req *protocol.Request) (*protocol.Response, error) {
	c, err := s.handler.HandleChecked(ctx, req)
	return c.Response(), err
}

// HandleChecked answers one request, the answer checked by BaseSkill.
func (s *Skill) HandleChecked(ctx context.Context, req *protocol.Request) (*protocol.CheckedResponse, error) {
	return s.handler.HandleChecked(ctx, req)
}

// Kit is what the skill was built from.
func (s *Skill) Kit() *Kit { return s.kit }

// Graph is a GraphSkill's graph (for `jibod skills graph`); nil for a
// BaseSkill.
func (s *Skill) Graph() *graph.Graph {
	if s.graph == nil {
		return nil
	}
	return s.graph.Graph()
}

// NodeNames names a GraphSkill's nodes by the ids its sessions carry
// (session.nodeID, trace); nil for a BaseSkill.
func (s *Skill) NodeNames() map[int]string {
	if s.graph == nil {
		return nil
	}
	return NodeNames(s.graph.Graph())
}

// NodeNames names the nodes of a graph a skill runs on its own by the ids
// its sessions carry: a Manager numbers them in the order Nodes lists them.
func NodeNames(g *graph.Graph) map[int]string {
	out := map[int]string{}
	for i, n := range g.Nodes() {
		out[i] = n.Name()
	}
	return out
}

// Say answers req by speaking text (plain text: escaped for ESML) as the
// skill's last action.
func Say(req *protocol.Request, text string) (*protocol.Response, error) {
	return base.ActionResponse(req, req.Data.Skill, jcp.NewAction(jcp.Say(EscapeESML(text))), true)
}

// EscapeESML makes plain text safe to speak as ESML.
func EscapeESML(text string) string { return esmlEscaper.Replace(text) }

var esmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
