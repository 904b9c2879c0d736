// Package base is BaseSkill (spec/jibo.md §2.3, §2.4): the part every local
// skill shares. A Skill wraps a Handler and, for every request, validates
// it the way Jibo's GraphSkill does, times the handling, turns a handler's
// error or panic into an ERROR response, and validates the response before
// anything leaves. It also offers the analytics helper Track and builders
// for the three responses.
//
// Handle returns an error only when its context ended (the caller's
// timeout or cancellation), so a caller can tell "no answer in time" apart
// from "the skill failed", which is always an ERROR response naming the
// skill and what failed.
package base

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/openjibo/jibod/core/skill/invoke"
	"github.com/openjibo/jibod/core/skill/protocol"
)

// MaxNameLen bounds a skill name in bytes.
const MaxNameLen = 256

// Handler answers a request that Skill has already validated.
type Handler func(ctx context.Context, req *protocol.Request) (*protocol.Response, error)

// Observation is what Skill reports about one handled request.
type Observation struct {
	// Skill is the skill's name.
	Skill string
	// Type is the request type, "" when there was no request.
	Type string
	// Response is the response type sent back, "" when Handle returned an
	// error instead.
	Response string
	// Duration is how long handling took, validation included.
	Duration time.Duration
	// Err is why handling failed (the message of an ERROR response or the
	// error Handle returned); nil on success.
	Err error
}

// Options configure a Skill.
type Options struct {
	// Logger receives one debug line per request and the stack of a panic;
	// nil means slog.Default().
	Logger *slog.Logger
	// Observe, when set, is called after every request, from the goroutine
	// that called Handle; it must return quickly.
	Observe func(Observation)
}

// Skill is BaseSkill: a Handler behind request and response validation.
// It is safe for concurrent use when its Handler is.
type Skill struct {
	name    string
	h       Handler
	log     *slog.Logger
	observe func(Observation)
}

// New builds a skill called name (the skill.id its requests must carry).
func New(name string, h Handler, opts Options) (*Skill, error) {
	if name == "" {
		return nil, errors.New("base skill: empty name")
	}
	if len(name) > MaxNameLen {
		return nil, fmt.Errorf("base skill: name of %d bytes, limit %d", len(name), MaxNameLen)
	}
	if h == nil {
		return nil, fmt.Errorf("base skill %s: no handler", name)
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Skill{name: name, h: h, log: log.With("skill", name), observe: opts.Observe}, nil
}

// Name returns the skill's name.
func (s *Skill) Name() string { return s.name }

// Handle validates req, hands it to the handler and validates the answer.
// Every failure but an ended ctx becomes an ERROR response. It is
// HandleChecked's response.
func (s *Skill) Handle(ctx context.Context, req *protocol.Request) (*protocol.Response, error) {
	c, err := s.HandleChecked(ctx, req)
	return c.Response(), err
}

// HandleChecked is Handle returning the response checked: the one
// validation of the answer on its way, which the skill invoker and
// jibod skills try take as it is.
func (s *Skill) HandleChecked(ctx context.Context, req *protocol.Request) (*protocol.CheckedResponse, error) {
	start := time.Now()
	typ := ""
	if req != nil {
		typ = req.Type
	}
	c, err := s.handle(ctx, req)
	o := Observation{Skill: s.name, Type: typ, Duration: time.Since(start), Err: err}
	if resp := c.Response(); resp != nil {
		o.Response = resp.Type
		if resp.Error != nil {
			o.Err = errors.New(resp.Error.Message)
		}
	}
	s.log.Debug("skill request handled", "type", typ, "response", o.Response, "duration", o.Duration, "err", o.Err)
	if s.observe != nil {
		s.observe(o)
	}
	return c, err
}

func (s *Skill) handle(ctx context.Context, req *protocol.Request) (*protocol.CheckedResponse, error) {
	if err := s.Validate(req); err != nil {
		return s.fail(req, err)
	}
	resp, err := s.call(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			// The caller gave up: say so as an error, not as the skill's fault.
			return nil, fmt.Errorf("skill %s: handling %s: %w", s.name, req.Type, context.Cause(ctx))
		}
		return s.fail(req, fmt.Errorf("handling %s: %w", req.Type, err))
	}
	if resp == nil {
		return s.fail(req, fmt.Errorf("handling %s: the handler returned no response", req.Type))
	}
	c, err := protocol.CheckResponse(resp)
	if err != nil {
		return s.fail(req, fmt.Errorf("handling %s: invalid %s response: %w", req.Type, resp.Type, err))
	}
	return c, nil
}

// fail answers req with an ERROR response naming the skill and err.
func (s *Skill) fail(req *protocol.Request, err error) (*protocol.CheckedResponse, error) {
	c, cerr := protocol.CheckResponse(ErrorResponse(req, s.name, err))
	if cerr != nil {
		// The ERROR carries the request's skill data, which a request
		// refused for it can make invalid: the invoker reports that as
		// an invalid answer.
		return nil, fmt.Errorf("%w: %w", invoke.ErrInvalidResponse, cerr)
	}
	return c, nil
}

// call runs the handler, turning a panic into an error; the stack goes to
// the log only, never into a response.
func (s *Skill) call(ctx context.Context, req *protocol.Request) (resp *protocol.Response, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("skill panicked", "type", req.Type, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			resp, err = nil, fmt.Errorf("panic: %s", clip(fmt.Sprint(r)))
		}
	}()
	return s.h(ctx, req)
}

// Validate applies GraphSkill's request rules (§2.3): a known request
// type, a well-formed request (protocol's Validate), general.accountID and
// general.robotID present, and skill.id equal to the skill's name.
func (s *Skill) Validate(req *protocol.Request) error {
	if req == nil {
		return errors.New("no request")
	}
	switch req.Type {
	case protocol.TypeListenLaunch, protocol.TypeListenUpdate, protocol.TypeProactiveLaunch:
	default:
		return fmt.Errorf("refused request: type %q is not %s, %s or %s", clip(req.Type),
			protocol.TypeListenLaunch, protocol.TypeListenUpdate, protocol.TypeProactiveLaunch)
	}
	if err := req.Validate(); err != nil {
		return fmt.Errorf("refused %s: %w", req.Type, err)
	}
	g := req.Data.General
	switch {
	case g.AccountID == "":
		return fmt.Errorf("refused %s: data.general.accountID: required", req.Type)
	case g.RobotID == "":
		return fmt.Errorf("refused %s: data.general.robotID: required", req.Type)
	}
	if id := req.Data.Skill.Name(); id != s.name {
		return fmt.Errorf("refused %s: data.skill.id is %q, not this skill", req.Type, clip(id))
	}
	return nil
}

// clip shortens a value quoted in a message.
func clip(s string) string {
	const limit = 200
	if len(s) <= limit {
		return s
	}
	return s[:limit] + "…"
}
