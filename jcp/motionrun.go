package jcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/openjibo/jibod/motion"
)

func (r *run) lookAt(ctx context.Context, cancel context.CancelCauseFunc, l *LookAt) error {
	m := r.ex.cfg.Motion
	if m == nil {
		return skip("no motion on this body")
	}
	var target motion.Target
	switch t := l.Target; {
	case t.Camera != nil:
		return skip("no camera to aim with")
	case t.Entity != nil:
		return skip("no perception to find entities with")
	case t.Position != nil:
		target.Position = &[3]float64{t.Position.X, t.Position.Y, t.Position.Z}
	default:
		target.Turn = motion.Gaze{Yaw: t.Angle.X, Pitch: t.Angle.Y}
	}
	var opts motion.LookOptions
	if o := l.Options; o != nil {
		if o.Type == LookFlushBase {
			opts.Mode = motion.FlushBase
		}
		switch o.DOFs {
		case DOFEye:
			return skip("no eye display")
		case DOFBase:
			opts.Axes = motion.BaseOnly
		}
	}
	release, err := r.ex.motion.acquire(ctx, r, l, cancel, r.ex.cfg.Preempt)
	if err != nil {
		return err
	}
	defer release()
	job, err := m.LookAt(target, opts)
	if err != nil {
		return err
	}
	return job.Wait(ctx)
}

func (r *run) playAnimation(ctx context.Context, cancel context.CancelCauseFunc, p *PlayAnimation) error {
	m := r.ex.cfg.Motion
	if m == nil {
		return skip("no motion on this body")
	}
	a, err := r.findAnimation(p)
	if err != nil {
		return err
	}
	var opts motion.PlayOptions
	if o := p.Options; o != nil {
		switch o.DOFs {
		case DOFEye:
			return skip("no eye display")
		case DOFBase:
			opts.Axes, opts.NoLights = motion.BaseOnly, true
		case DOFBody:
			opts.NoLights = true
		}
		if o.Speed != nil {
			opts.Speed = *o.Speed
		}
		if o.Loops != nil {
			opts.Loops = *o.Loops
		}
	}
	sel := opts.Axes
	if sel.None() {
		sel = motion.AllAxes
	}
	// A light-only animation moves nothing, so it leaves the motion
	// resource to whoever moves the body.
	if a.Moves(sel) {
		release, err := r.ex.motion.acquire(ctx, r, p, cancel, r.ex.cfg.Preempt)
		if err != nil {
			return err
		}
		defer release()
	}
	job, err := m.Play(a, opts)
	if errors.Is(err, motion.ErrNothingToPlay) {
		return skip(fmt.Sprintf("animation %s: nothing this body can play", a.Name))
	}
	if err != nil {
		return err
	}
	return job.Wait(ctx)
}

// findAnimation resolves a PLAY_ANIMATION's animation. One this robot
// does not have is a skip, not a failure: the words of a skill written for
// Jibo's animation library still get said.
func (r *run) findAnimation(p *PlayAnimation) (*motion.Animation, error) {
	e, ref := r.ex, p.Animation
	switch {
	case ref.Data != nil:
		a, ok := r.chk.InlineAnimation(p)
		if !ok {
			return nil, fmt.Errorf("animation data of PLAY_ANIMATION %s: not checked", p.ID)
		}
		return a, nil
	case ref.URL != "":
		if a, ok := e.lib.Lookup(ref.URL); ok {
			return a, nil
		}
		return nil, skip(fmt.Sprintf("no animation called %q", ref.URL))
	case ref.Categories != nil:
		if a, ok := e.lib.ByCategory(ref.Categories...); ok {
			return a, nil
		}
		return nil, skip(fmt.Sprintf("no animation in categories %s", strings.Join(ref.Categories, ", ")))
	}
	return nil, skip("animation queries are not supported; use url, data or categories")
}

// waitJob waits for a motion job, treating a job that a later one of the
// same PLAY took over from as done.
func waitJob(ctx context.Context, j *motion.Job) error {
	err := j.Wait(ctx)
	if errors.Is(err, motion.ErrPreempted) {
		return nil
	}
	return err
}
