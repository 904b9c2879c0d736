package factory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/openjibo/jibod/core/skill/graph"
	"github.com/openjibo/jibod/core/skill/mim"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/jcp"
)

// MIMSource supplies the MIMs a factory's nodes play: fixed ones (MIMs,
// Path, FromSet), checked when the factory builds its graph, or ones chosen
// each turn (MIMFunc). The zero MIMSource supplies nothing, which the
// factories refuse.
type MIMSource struct {
	fixed  []*mim.MIM
	fn     func(ctx context.Context, d *graph.Data) ([]*mim.MIM, error)
	set    *mim.Set
	choose func(ctx context.Context, d *graph.Data) ([]string, error)
	err    error
}

// MIMs supplies the given MIMs, validating each (mim.Validate).
func MIMs(ms ...*mim.MIM) MIMSource {
	for _, m := range ms {
		if m == nil {
			return MIMSource{err: errors.New("nil MIM")}
		}
		if err := m.Validate(); err != nil {
			return MIMSource{err: err}
		}
	}
	return MIMSource{fixed: ms}
}

// Path supplies the MIMs loaded from the given .mim files of fsys.
func Path(fsys fs.FS, names ...string) MIMSource {
	ms := make([]*mim.MIM, 0, len(names))
	for _, n := range names {
		m, err := mim.Load(fsys, n)
		if err != nil {
			return MIMSource{err: err}
		}
		ms = append(ms, m)
	}
	return MIMSource{fixed: ms}
}

// FromSet supplies the MIMs of set with the given ids.
func FromSet(set *mim.Set, ids ...string) MIMSource {
	ms := make([]*mim.MIM, 0, len(ids))
	for _, id := range ids {
		m, err := set.Get(id)
		if err != nil {
			return MIMSource{err: err}
		}
		ms = append(ms, m)
	}
	return MIMSource{fixed: ms}
}

// FromSetBy supplies MIMs of set chosen when the factory's graph starts
// (from the launch memo, say): choose returns their ids, which are kept in
// the session (session.data._mimIDs:<factory name>) so that the later
// turns of the dialogue play the same MIMs.
func FromSetBy(set *mim.Set, choose func(ctx context.Context, d *graph.Data) ([]string, error)) MIMSource {
	if set == nil || choose == nil {
		return MIMSource{err: errors.New("FromSetBy needs a set and a choose function")}
	}
	return MIMSource{set: set, choose: choose}
}

// MIMFunc supplies the MIMs fn returns. It is called on every turn of the
// dialogue and must return the same MIMs each time (keep the choice in the
// session, or use FromSetBy); they must be validated (Parse, Load and
// LoadDir do that).
func MIMFunc(fn func(ctx context.Context, d *graph.Data) ([]*mim.MIM, error)) MIMSource {
	if fn == nil {
		return MIMSource{err: errors.New("nil MIM function")}
	}
	return MIMSource{fn: fn}
}

// empty reports whether the source supplies nothing.
func (s MIMSource) empty() bool { return s.fn == nil && s.choose == nil && len(s.fixed) == 0 }

// check reports a source that cannot work and checks fixed MIMs with ok.
func (s MIMSource) check(ok func([]*mim.MIM) error) error {
	switch {
	case s.err != nil:
		return s.err
	case s.empty():
		return errors.New("no MIMs: set Options.MIMs")
	case len(s.fixed) > 0:
		return ok(s.fixed)
	}
	return nil
}

// choiceKey is the session data member keeping FromSetBy's choice for
// the factory called name.
func choiceKey(name string) string { return "_mimIDs:" + name }

// get returns the turn's MIMs, checked with ok. fresh makes FromSetBy
// choose anew (the factory's first node); otherwise its choice is read
// back from the session, under key.
func (s MIMSource) get(ctx context.Context, d *graph.Data, ok func([]*mim.MIM) error, key string, fresh bool) ([]*mim.MIM, error) {
	var ms []*mim.MIM
	var err error
	switch {
	case s.choose != nil:
		ms, err = s.chosen(ctx, d, key, fresh)
	case s.fn != nil:
		ms, err = s.fn(ctx, d)
	default:
		ms = s.fixed
	}
	if err != nil {
		return nil, fmt.Errorf("choosing MIMs: %w", err)
	}
	for _, m := range ms {
		if m == nil {
			return nil, errors.New("choosing MIMs: got a nil MIM")
		}
	}
	if err := ok(ms); err != nil {
		return nil, err
	}
	return ms, nil
}

// chosen returns FromSetBy's MIMs for the dialogue.
func (s MIMSource) chosen(ctx context.Context, d *graph.Data, key string, fresh bool) ([]*mim.MIM, error) {
	var ids []string
	found := false
	if !fresh {
		var err error
		if found, err = d.Get(key, &ids); err != nil {
			return nil, err
		}
	}
	if !found {
		var err error
		if ids, err = s.choose(ctx, d); err != nil {
			return nil, err
		}
		if err := d.Set(key, ids); err != nil {
			return nil, err
		}
	}
	ms := make([]*mim.MIM, 0, len(ids))
	for _, id := range ids {
		m, err := s.set.Get(id)
		if err != nil {
			return nil, err
		}
		ms = append(ms, m)
	}
	return ms, nil
}

// PromptDataFunc supplies what conditions and templates see.
type PromptDataFunc func(ctx context.Context, d *graph.Data) (mim.PromptData, error)

// SkillDataFunc supplies the skill's own prompt data (skill.* in
// templates).
type SkillDataFunc func(ctx context.Context, d *graph.Data) (map[string]any, error)

// ViewDataFunc supplies data for a MIM's gui when it is shown: the
// DISPLAY's view carries it as "data" beside the gui ("context").
type ViewDataFunc func(ctx context.Context, d *graph.Data) (any, error)

// FinalFunc decides whether an announcement is the skill's last action.
type FinalFunc func(ctx context.Context, d *graph.Data) (bool, error)

// Final returns a FinalFunc that always answers b.
func Final(b bool) FinalFunc {
	return func(context.Context, *graph.Data) (bool, error) { return b, nil }
}

// Options are MimFactoryOptions (spec/jibo.md §5.3) in Go form.
type Options struct {
	// MIMs is mimDataProvider: the MIM (AN, QN, MIM) or MIMs (MAN) to
	// play. Required.
	MIMs MIMSource
	// PromptData is promptDataProvider: nil builds prompt data from the
	// turn's runtime context (with any speaker override) at Now, with
	// SkillData's data.
	PromptData PromptDataFunc
	// SkillData supplies skill.* when PromptData is nil; nil for none.
	SkillData SkillDataFunc
	// ViewData is viewDataProvider; nil for none.
	ViewData ViewDataFunc
	// Final is final: whether an announcement node's action is the
	// skill's last; nil means not final.
	Final FinalFunc
	// Slimmer turns MIMs into SLIMs; nil for a zero mim.Slimmer of the
	// factory's own.
	Slimmer *mim.Slimmer
	// Now is the clock of the default prompt data; nil means time.Now.
	Now func() time.Time
}

// runner is what a factory's nodes share.
type runner struct {
	opts    Options
	slimmer *mim.Slimmer
	key     string // where FromSetBy keeps its choice
}

func newRunner(name string, opts Options) *runner {
	r := &runner{opts: opts, slimmer: opts.Slimmer, key: choiceKey(name)}
	if r.slimmer == nil {
		r.slimmer = &mim.Slimmer{}
	}
	if r.opts.Now == nil {
		r.opts.Now = time.Now
	}
	return r
}

// mims returns the turn's MIMs of the factory's source.
func (r *runner) mims(ctx context.Context, d *graph.Data, ok func([]*mim.MIM) error, fresh bool) ([]*mim.MIM, error) {
	return r.opts.MIMs.get(ctx, d, ok, r.key, fresh)
}

// checkName refuses a factory name that cannot name a graph.
func checkName(name string) error {
	switch {
	case name == "":
		return errors.New("empty name")
	case len(name) > graph.MaxNameLen-len("MAN MIM: "):
		return fmt.Errorf("name of %d bytes, limit %d", len(name), graph.MaxNameLen-len("MAN MIM: "))
	}
	return nil
}

// promptData returns the turn's prompt data.
func (r *runner) promptData(ctx context.Context, d *graph.Data) (mim.PromptData, error) {
	if r.opts.PromptData != nil {
		pd, err := r.opts.PromptData(ctx, d)
		if err != nil {
			return mim.PromptData{}, fmt.Errorf("prompt data: %w", err)
		}
		return pd, nil
	}
	var skill map[string]any
	if r.opts.SkillData != nil {
		var err error
		if skill, err = r.opts.SkillData(ctx, d); err != nil {
			return mim.PromptData{}, fmt.Errorf("skill prompt data: %w", err)
		}
	}
	return mim.NewPromptData(d.Runtime, r.opts.Now(), skill), nil
}

func (r *runner) final(ctx context.Context, d *graph.Data) (bool, error) {
	if r.opts.Final == nil {
		return false, nil
	}
	f, err := r.opts.Final(ctx, d)
	if err != nil {
		return false, fmt.Errorf("final: %w", err)
	}
	return f, nil
}

// slim plays one prompt of m; a nil action means the Errors ladder ran
// out (the returned state has the max flag set).
func (r *runner) slim(ctx context.Context, d *graph.Data, m *mim.MIM, cfg mim.Config) (*jcp.Action, mim.DialogState, error) {
	pd, err := r.promptData(ctx, d)
	if err != nil {
		return nil, cfg.State, err
	}
	sel, err := r.slimmer.Slim(m, cfg, pd)
	if err != nil {
		return nil, cfg.State, err
	}
	if sel.SLIM == nil {
		return nil, sel.State, nil
	}
	if err := r.viewData(ctx, d, sel.SLIM.Display); err != nil {
		return nil, sel.State, err
	}
	return jcp.NewAction(sel.SLIM), sel.State, nil
}

// viewData adds the view data, if any, to a shown gui.
func (r *runner) viewData(ctx context.Context, d *graph.Data, disp *jcp.Display) error {
	if disp == nil || r.opts.ViewData == nil {
		return nil
	}
	v, err := r.opts.ViewData(ctx, d)
	if err != nil {
		return fmt.Errorf("view data: %w", err)
	}
	var view map[string]json.RawMessage
	if err := json.Unmarshal(disp.View, &view); err != nil {
		return fmt.Errorf("view data: reading the view: %w", err)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("view data: %w", err)
	}
	view["data"] = raw
	if disp.View, err = json.Marshal(view); err != nil {
		return fmt.Errorf("view data: %w", err)
	}
	return nil
}

// StateKey is the session data member holding the MIM dialogue state.
const StateKey = "_mim"

// State returns the MIM dialogue state of d's session (zero when none).
func State(d *graph.Data) (mim.DialogState, error) {
	var s mim.DialogState
	if _, err := d.Get(StateKey, &s); err != nil {
		return mim.DialogState{}, err
	}
	return s, nil
}

// SetState stores the MIM dialogue state in d's session.
func SetState(d *graph.Data, s mim.DialogState) error { return d.Set(StateKey, s) }

// Exit and transition names.
const (
	Success      = "Success"
	NoMatch      = "NoMatch"
	NoInput      = "NoInput"
	FinalNoMatch = "FinalNoMatch"
	FinalNoInput = "FinalNoInput"
)

// Answer applies the multi-turn exit rule to the turn's result: an NLU
// intent is Success, with protocol.Result{NLU, ASR} as the result;
// otherwise heard text (ASR) is NoMatch; otherwise NoInput. The result
// of NoMatch and NoInput is the same protocol.Result.
func Answer(d *graph.Data) graph.ExitResult {
	nlu, asr := d.NLU(), d.ASR()
	res := protocol.Result{NLU: nlu, ASR: asr}
	switch {
	case nlu.IntentName() != "":
		return graph.ExitResult{Transition: Success, Result: res}
	case asr != nil && asr.Text != "":
		return graph.ExitResult{Transition: NoMatch, Result: res}
	}
	return graph.ExitResult{Transition: NoInput, Result: res}
}

// one checks that a source gives exactly one MIM.
func one(ms []*mim.MIM) error {
	if len(ms) != 1 {
		return fmt.Errorf("want exactly one MIM, got %d", len(ms))
	}
	return nil
}

// oneOf checks that a source gives exactly one MIM of one of the types.
func oneOf(types ...mim.Type) func([]*mim.MIM) error {
	return func(ms []*mim.MIM) error {
		if err := one(ms); err != nil {
			return err
		}
		for _, t := range types {
			if ms[0].Type == t {
				return nil
			}
		}
		return fmt.Errorf("MIM %q is a %s; want %v", ms[0].MimID(), ms[0].Type, types)
	}
}

// announcements checks that a source gives announcements only.
func announcements(ms []*mim.MIM) error {
	if len(ms) == 0 {
		return errors.New("want at least one MIM, got none")
	}
	for _, m := range ms {
		if m.Type != mim.Announcement {
			return fmt.Errorf("MIM %q is a %s: %w", m.MimID(), m.Type, mim.ErrNotAnnouncement)
		}
	}
	return nil
}
