package graph

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/openjibo/jibod/core/skill/base"
	"github.com/openjibo/jibod/core/skill/protocol"
)

// Options configure a graph skill.
type Options struct {
	// Logger is the skill's logger (also Data.Log); nil means
	// slog.Default().
	Logger *slog.Logger
	// Observe, when set, is told about every request handled (see
	// base.Options).
	Observe func(base.Observation)
}

// Skill is GraphSkill (§2.3, §4): a skill whose conversation is a graph.
// A launch (LISTEN_LAUNCH or PROACTIVE_LAUNCH) reports Skill Entry and
// starts a session in the graph's initial node; a LISTEN_UPDATE continues
// the session the request carries. The response carries the updated
// session: a SKILL_ACTION with the node's action (wrapped with the turn's
// supplemental behaviours) and final from the node, a SKILL_REDIRECT, or,
// when the graph reaches an exit, {action: null, final: true,
// fireAndForget: true}. Failures are ERROR responses (see package base).
type Skill struct {
	name string
	g    *Graph
	m    *Manager
	base *base.Skill
	log  *slog.Logger
}

// NewSkill builds the skill called name around g, finalizing g if needed
// and registering it with a Manager of its own.
func NewSkill(name string, g *Graph, opts Options) (*Skill, error) {
	if g == nil {
		return nil, fmt.Errorf("graph skill %s: nil graph", name)
	}
	if err := g.Finalize(); err != nil {
		return nil, fmt.Errorf("graph skill %s: %w", name, err)
	}
	m := NewManager()
	if err := m.Register(g); err != nil {
		return nil, fmt.Errorf("graph skill %s: %w", name, err)
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	s := &Skill{name: name, g: g, m: m, log: log.With("skill", name)}
	b, err := base.New(name, s.handle, base.Options{Logger: log, Observe: opts.Observe})
	if err != nil {
		return nil, fmt.Errorf("graph skill: %w", err)
	}
	s.base = b
	return s, nil
}

// Name returns the skill's name.
func (s *Skill) Name() string { return s.name }

// Graph returns the skill's graph (for DOT output).
func (s *Skill) Graph() *Graph { return s.g }

// Manager returns the manager numbering the graph's nodes.
func (s *Skill) Manager() *Manager { return s.m }

// Handle answers one request; see base.Skill.Handle.
func (s *Skill) Handle(ctx context.Context, req *protocol.Request) (*protocol.Response, error) {
	return s.base.Handle(ctx, req)
}

// HandleChecked answers one request checked; see base.Skill.HandleChecked.
func (s *Skill) HandleChecked(ctx context.Context, req *protocol.Request) (*protocol.CheckedResponse, error) {
	return s.base.HandleChecked(ctx, req)
}

func (s *Skill) handle(ctx context.Context, req *protocol.Request) (*protocol.Response, error) {
	d, err := NewData(req, s.name, s.log)
	if err != nil {
		return nil, err
	}
	var out Outcome
	switch req.Type {
	case protocol.TypeListenLaunch, protocol.TypeProactiveLaunch:
		if err := d.Track(protocol.EventSkillEntry, base.SkillEntry(req)); err != nil {
			return nil, err
		}
		out, err = s.m.Start(ctx, s.g, d)
	default: // LISTEN_UPDATE; base has refused every other type
		out, err = s.m.Resume(ctx, s.g, d)
	}
	if err != nil {
		return nil, err
	}
	skill := req.Data.Skill
	skill.Session = d.Session()
	var resp *protocol.Response
	switch {
	case out.Redirect != nil:
		return base.RedirectResponse(req, skill, *out.Redirect)
	case out.Action != nil:
		if resp, err = base.ActionResponse(req, skill, Supplement(out.Action, d.Behaviors), out.Final); err != nil {
			return nil, fmt.Errorf("node %d: %w", skill.Session.NodeID, err)
		}
	default:
		if n := len(d.Behaviors.Parallel) + len(d.Behaviors.Sequence); n > 0 {
			s.log.Warn("graph ended with supplemental behaviours but no action to carry them; dropped", "count", n)
		}
		resp = protocol.NewSkillEnd(req, skill)
	}
	if len(d.Analytics) > 0 {
		resp.Action.Analytics = d.Analytics
	}
	return resp, nil
}
