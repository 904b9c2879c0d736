package jcp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/openjibo/jibod/motion"
)

// A PLAY's timeline. The spoken text is cut where ESML tags stand; between
// the cuts the voice says the words, at the cuts the tags fire:
//
//   - <break> pauses;
//   - an empty <anim>/<es>/<sfx>/<ssa>/<audio> is blocking: speech waits
//     for it to end;
//   - one wrapping text is bounded: it starts with the text and, for an
//     animation, blends back to rest when the text ends (loop='0', the
//     default, repeats it to fill the span);
//   - an empty one with nonBlocking='true' is unbounded: it starts there
//     and runs on under the following speech.
//
// The PLAY ends when its speech and every tag it started have ended.
// Tags the body cannot render (an unknown animation, prosody for a voice
// that only speaks plain text, unknown tags) are noted on the PLAY's
// result and skipped; they never fail it.

type actionKind uint8

const (
	actSay actionKind = iota
	actPause
	actBlocking // run a tag and wait for it
	actStart    // start a tag and go on
	actFinish   // end a bounded tag
)

type playAction struct {
	kind  actionKind
	at    int // offset in the spoken text
	order int // document order, to keep ties stable
	text  string
	pause time.Duration
	tag   *Tag
	cue   int // index of the tag's cue, for actStart/actFinish/actBlocking
}

// planPlay lays out doc, and the tags the auto-rules added, as a sequence
// of actions.
func planPlay(doc *ESML, auto []Tag) []playAction {
	var acts []playAction
	cue := 0
	add := func(t *Tag, order int) {
		switch t.Name {
		case "break":
			d, _ := breakDuration(*t)
			acts = append(acts, playAction{kind: actPause, at: t.Start, order: order, pause: d, tag: t})
		case autoLook:
			acts = append(acts, playAction{kind: actBlocking, at: t.Start, order: order, tag: t, cue: cue})
			cue++
		case "anim", "es", "sfx", "ssa", "audio":
			nonBlocking, _ := t.Attr("nonBlocking")
			switch {
			case t.End > t.Start:
				acts = append(acts,
					playAction{kind: actStart, at: t.Start, order: order, tag: t, cue: cue},
					playAction{kind: actFinish, at: t.End, order: -1, tag: t, cue: cue})
			case strings.EqualFold(nonBlocking, "true"):
				acts = append(acts, playAction{kind: actStart, at: t.Start, order: order, tag: t, cue: cue})
			default:
				acts = append(acts, playAction{kind: actBlocking, at: t.Start, order: order, tag: t, cue: cue})
			}
			cue++
		}
	}
	for i := range doc.Tags {
		add(&doc.Tags[i], 2*i)
	}
	// The turn toward the listener comes first; the rules' gestures come
	// after the skill's own tags at the same place.
	for i := range auto {
		order := 2 * (len(doc.Tags) + i)
		if auto[i].Name == autoLook {
			order = -2
		}
		add(&auto[i], order)
	}
	// By position in the text; at one position, bounded tags end before
	// others start, then document order.
	sort.SliceStable(acts, func(i, j int) bool {
		a, b := acts[i], acts[j]
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.order, b.order)) < 0
	})
	var out []playAction
	prev := 0
	for _, a := range acts {
		if s := strings.TrimSpace(doc.Text[prev:a.at]); s != "" {
			out = append(out, playAction{kind: actSay, at: prev, text: s})
		}
		prev = max(prev, a.at)
		out = append(out, a)
	}
	if s := strings.TrimSpace(doc.Text[prev:]); s != "" {
		out = append(out, playAction{kind: actSay, at: prev, text: s})
	}
	return out
}

// prosodyTags are ESML tags that shape the voice; a Voice that takes plain
// text cannot render them.
var prosodyTags = []string{"pitch", "duration", "style", "phoneme", "say-as"}

func (r *run) play(ctx context.Context, cancel context.CancelCauseFunc, p *Play) error {
	doc, err := ParseESML(p.ESML)
	if err != nil {
		return fmt.Errorf("parse ESML: %w", err)
	}
	var auto []Tag
	if r.ex.cfg.AutoRules && r.ex.cfg.Motion != nil {
		auto = autoTags(doc, AutoRulesOf(p), r.ex.cfg.Attention != nil && r.turnStarts())
	}
	plan := planPlay(doc, auto)
	release, err := r.ex.tts.acquire(ctx, r, p, cancel, r.ex.cfg.Preempt)
	if err != nil {
		return err
	}
	defer release()
	restore := r.ex.cueLights(ctx)
	defer restore()
	if doc.Text != "" {
		r.emit(Event{Time: time.Now(), BehaviorID: p.ID, Type: TypePlay, Kind: EventSpeaking, Text: doc.Text})
	}
	if len(doc.Unknown) > 0 {
		r.note(p, "unknown ESML tags ignored: "+strings.Join(doc.Unknown, ", "))
	}
	var prosody []string
	for _, t := range doc.Tags {
		if slices.Contains(prosodyTags, t.Name) && !slices.Contains(prosody, t.Name) {
			prosody = append(prosody, t.Name)
		}
	}
	if len(prosody) > 0 {
		r.note(p, "not rendered by this voice: "+strings.Join(prosody, ", "))
	}

	tl := &timeline{r: r, p: p, cancel: cancel, cues: map[int]*runningCue{}}
	defer tl.stop()
	for _, a := range plan {
		if err := ctx.Err(); err != nil {
			return err
		}
		switch a.kind {
		case actSay:
			if err := r.ex.cfg.Voice.Say(ctx, a.text); err != nil {
				return fmt.Errorf("say: %w", err)
			}
		case actPause:
			r.event(p, EventCue, "break "+a.pause.String())
			if err := sleep(ctx, a.pause); err != nil {
				return fmt.Errorf("pause: %w", err)
			}
		case actBlocking:
			if err := tl.run(ctx, a, true); err != nil {
				return err
			}
		case actStart:
			if err := tl.run(ctx, a, false); err != nil {
				return err
			}
		case actFinish:
			tl.finish(a.cue)
		}
	}
	if err := tl.wait(ctx); err != nil {
		return err
	}
	tl.spoken = true
	if doc.Text != "" {
		r.mu.Lock()
		r.res.Spoken = append(r.res.Spoken, doc.Text)
		r.mu.Unlock()
	}
	return nil
}

// timeline runs a PLAY's tags.
type timeline struct {
	r      *run
	p      *Play
	cancel context.CancelCauseFunc

	motionRelease func() // the MOTION resource, once a tag took it
	cues          map[int]*runningCue
	look          *motion.Job    // the turn toward the listener, once started
	wg            sync.WaitGroup // sounds playing under the speech
	soundCancel   context.CancelFunc
	soundCtx      context.Context
	// spoken is set once the PLAY has said everything: the rules'
	// gestures still under way then end on their own.
	spoken bool
}

// runningCue is a tag that runs under the speech.
type runningCue struct {
	job  *motion.Job
	auto bool // added by the auto-rules
}

// maxLookWait bounds how long speech waits for the body to turn toward
// the listener; a longer turn goes on under the words.
const maxLookWait = 1500 * time.Millisecond

// gesturing reports whether a motion this PLAY started is still under
// way.
func (tl *timeline) gesturing() bool {
	busy := func(j *motion.Job) bool {
		if j == nil {
			return false
		}
		select {
		case <-j.Done():
			return false
		default:
			return true
		}
	}
	if busy(tl.look) {
		return true
	}
	for _, c := range tl.cues {
		if busy(c.job) {
			return true
		}
	}
	return false
}

// takeMotion takes the MOTION resource for this PLAY if it does not have
// it yet; speech never waits for it.
func (tl *timeline) takeMotion() (holder string, ok bool) {
	if tl.motionRelease != nil {
		return "", true
	}
	release, holder, got := tl.r.ex.motion.tryAcquire(tl.r, tl.p, tl.cancel)
	if !got {
		return holder, false
	}
	tl.motionRelease = release
	return "", true
}

// run fires tag a.tag; with block it waits for the tag to end.
func (tl *timeline) run(ctx context.Context, a playAction, block bool) error {
	t := a.tag
	switch t.Name {
	case "sfx", "ssa", "audio":
		return tl.sound(ctx, t, block)
	case autoLook:
		return tl.lookAtListener(ctx)
	}
	if t.auto && tl.gesturing() {
		return nil // the rules never cut a gesture short
	}
	anim, loops, ok := tl.animation(t)
	if !ok {
		return nil
	}
	m := tl.r.ex.cfg.Motion
	if anim.Moves(motion.AllAxes) {
		if holder, ok := tl.takeMotion(); !ok {
			// Speech does not wait for the body: the tag is dropped.
			if !t.auto {
				tl.r.note(tl.p, fmt.Sprintf("<%s %s> skipped: %s is held by %s", t.Name, anim.Name, ResourceMotion, holder))
			}
			return nil
		}
	}
	if a.kind == actStart && a.tag.End > a.tag.Start && loops == 0 && !t.auto {
		loops = -1 // fit the bounded span: repeat until it ends
	}
	job, err := m.Play(anim, motion.PlayOptions{Loops: loops})
	if err != nil {
		if !t.auto {
			tl.r.note(tl.p, fmt.Sprintf("<%s %s>: %v", t.Name, anim.Name, err))
		}
		return nil
	}
	what := t.Name + " " + anim.Name
	if t.auto {
		what = "auto " + what
	}
	tl.r.event(tl.p, EventCue, what)
	if !block {
		tl.cues[a.cue] = &runningCue{job: job, auto: t.auto}
		return nil
	}
	if err := waitJob(ctx, job); err != nil {
		if ctx.Err() != nil {
			return err
		}
		tl.r.note(tl.p, fmt.Sprintf("<%s %s>: %v", t.Name, anim.Name, err))
	}
	return nil
}

// lookAtListener turns the body toward the person it talks to, as a turn
// starts (the Beat rule's Initiate), and lets the words begin once it
// faces them or after maxLookWait. Nothing is said about a body that
// cannot: it is the runtime's gesture, not the skill's.
func (tl *timeline) lookAtListener(ctx context.Context) error {
	att, m := tl.r.ex.cfg.Attention, tl.r.ex.cfg.Motion
	if att == nil || m == nil {
		return nil
	}
	target, ok := att.Listener()
	if !ok {
		return nil
	}
	if _, ok := tl.takeMotion(); !ok {
		return nil
	}
	job, err := m.LookAt(target, motion.LookOptions{})
	if err != nil {
		tl.r.ex.log.Debug("jcp: look at the listener", "error", err)
		return nil
	}
	tl.look = job
	tl.r.event(tl.p, EventCue, "auto look at listener")
	wait := time.NewTimer(maxLookWait)
	defer wait.Stop()
	select {
	case <-job.Done():
	case <-wait.C:
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

// animation resolves an animation tag; ok is false (with a note) when
// there is nothing to play.
func (tl *timeline) animation(t *Tag) (*motion.Animation, int, bool) {
	lib := tl.r.ex.lib
	var a *motion.Animation
	var found bool
	var what string
	if name, ok := t.Attr("name"); ok {
		what = "name '" + name + "'"
		a, found = lib.Lookup(name)
	} else if cat, ok := t.Attr("cat"); ok {
		what = "cat '" + cat + "'"
		a, found = lib.ByCategory(cat)
	} else if path, ok := t.Attr("path"); ok {
		what = "path '" + path + "'"
		a, found = lib.Lookup(path)
	} else if f, ok := t.Attr("filter"); ok {
		what = "filter '" + f + "'"
	} else {
		what = "no name"
	}
	if !found {
		if !t.auto {
			tl.r.note(tl.p, fmt.Sprintf("<%s %s>: no such animation", t.Name, what))
		}
		return nil, 0, false
	}
	if tl.r.ex.cfg.Motion == nil {
		if !t.auto {
			tl.r.note(tl.p, fmt.Sprintf("<%s %s> skipped: no motion on this body", t.Name, a.Name))
		}
		return nil, 0, false
	}
	loops := 0
	if v, ok := t.Attr("loop"); ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 || n > MaxLoops {
			tl.r.note(tl.p, fmt.Sprintf("<%s %s>: loop %q is not 0..%d; playing once", t.Name, a.Name, v, MaxLoops))
		} else {
			loops = n
		}
	}
	return a, loops, true
}

func (tl *timeline) sound(ctx context.Context, t *Tag, block bool) error {
	key := "name"
	if t.Name == "audio" {
		key = "path"
	}
	name, _ := t.Attr(key)
	snd := tl.r.ex.cfg.Sounds
	switch {
	case name == "":
		tl.r.note(tl.p, fmt.Sprintf("<%s> without %s skipped", t.Name, key))
		return nil
	case snd == nil:
		tl.r.note(tl.p, fmt.Sprintf("<%s %s> skipped: no sound output", t.Name, name))
		return nil
	}
	tl.r.event(tl.p, EventCue, t.Name+" "+name)
	playSound := func(ctx context.Context) error {
		err := snd.PlaySound(ctx, t.Name, name)
		if err != nil && ctx.Err() == nil {
			tl.r.note(tl.p, fmt.Sprintf("<%s %s>: %v", t.Name, name, err))
			if errors.Is(err, ErrNoSound) {
				return nil
			}
		}
		return err
	}
	if block {
		if err := playSound(ctx); err != nil && ctx.Err() != nil {
			return err
		}
		return nil
	}
	if tl.soundCtx == nil {
		tl.soundCtx, tl.soundCancel = context.WithCancel(ctx)
	}
	tl.wg.Go(func() { _ = playSound(tl.soundCtx) })
	return nil
}

// finish ends a bounded tag's animation at the end of its text.
func (tl *timeline) finish(cue int) {
	if c := tl.cues[cue]; c != nil {
		c.job.Finish()
	}
}

// wait lets the tags still running under the speech end.
func (tl *timeline) wait(ctx context.Context) error {
	for _, c := range tl.cues {
		if c.auto {
			continue // the rules' gestures never hold the words back
		}
		if err := waitJob(ctx, c.job); err != nil {
			if ctx.Err() != nil {
				return err
			}
			tl.r.note(tl.p, fmt.Sprintf("animation %s: %v", c.job.Name, err))
		}
	}
	done := make(chan struct{})
	go func() { // owned here: it only waits for the sound goroutines
		tl.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// stop halts whatever still runs (after a failure or cancellation) and
// waits for the sounds, then frees the motion resource. Once everything
// was said, the rules' gestures and the turn toward the listener are left
// to end on their own.
func (tl *timeline) stop() {
	for _, c := range tl.cues {
		if !c.auto || !tl.spoken {
			c.job.Halt()
		}
	}
	if tl.look != nil && !tl.spoken {
		tl.look.Halt()
	}
	if tl.soundCancel != nil {
		tl.soundCancel()
	}
	tl.wg.Wait()
	if tl.motionRelease != nil {
		tl.motionRelease()
	}
}
