package registry

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/openjibo/jibod/jcp"
	"github.com/openjibo/jibod/motion"
)

// Animations resolves animation references the way the executor does, so
// the gate knows whether an animation moves the motors, drives the light
// ring, or both. *motion.Library satisfies it.
type Animations interface {
	Lookup(ref string) (*motion.Animation, bool)
	ByCategory(cats ...string) (*motion.Animation, bool)
}

// Gate checks JCP actions against a skill's manifest before anything of
// them runs. The zero Gate is ready to use; give it the robot's animation
// library to tell light-only animations from moving ones.
//
// What each part of an action needs:
//
//   - PLAY whose ESML has words: speech; ESML <sfx>, <ssa>, <audio>: sound;
//     ESML <anim>, <es>: as the animation they name (below);
//   - LISTEN: listen; DISPLAY: display;
//   - LOOKAT: motion (display when its dofs are EYE);
//   - PLAY_ANIMATION: as its animation, within its dofs (EYE: display;
//     BASE, BODY: no lights);
//   - SET_PRESENT_PERSON: person; IMPACT_EMOTION: emotion;
//   - SLIM, SEQUENCE, PARALLEL: nothing themselves.
//
// An animation needs motion when it moves an axis and led when it has a
// light track. One the gate cannot resolve (no library, an unknown name, a
// query or filter) needs motion: the skill asked for movement. The
// speaking colour the executor shows on the ring is the runtime's cue and
// needs nothing. LISTEN's intents and DISPLAY's onCancel are carried by the
// executor, not run; when it runs them, the gate must walk them too. A
// behaviour type the gate does not know is refused (fail closed).
type Gate struct {
	// Animations resolves animation references; nil counts every
	// animation as motion.
	Animations Animations
}

// Check refuses the action unless m grants everything it needs and it
// stays within m's limits, measuring its size in canonical JSON. See Gate.
func Check(m *Manifest, a *jcp.Action) error { return Gate{}.Check(m, a) }

// Check validates an action built in Go (jcp.Check; an invalid one is an
// ErrInvalid error) and checks it with CheckSized at its canonical JSON
// size.
func (g Gate) Check(m *Manifest, a *jcp.Action) error {
	if a == nil {
		return nil
	}
	c, err := jcp.Check(a)
	if err != nil {
		return fmt.Errorf("checking the action of skill %s: %w: %w", m.ID, err, ErrInvalid)
	}
	b, err := json.Marshal(a)
	if err != nil {
		return fmt.Errorf("checking the action of skill %s: encoding it: %w", m.ID, err)
	}
	return g.CheckSized(m, c, len(b))
}

// CheckSized refuses the action unless m grants every permission it needs
// and it stays within m's limits, size being its encoded length as
// received. The action was checked before (jcp.ParseChecked), so the gate
// neither validates it nor parses its ESML or animations again: it reads
// what the check kept. It walks the whole tree before deciding, so the
// answer is for the action as a whole: a *DeniedError (errors.Is
// ErrDenied) naming the first offending behaviour in document order and
// every missing permission, or nil. A nil action (the skill is done)
// needs nothing.
func (g Gate) CheckSized(m *Manifest, c *jcp.Checked, size int) error {
	if c == nil || c.Action == nil {
		return nil
	}
	lim := m.effectiveLimits()
	w := walker{g: g, c: c, maxBehaviors: lim.MaxBehaviors, maxSpeech: lim.MaxSpeechChars}
	w.behavior("config.jcp", c.Behavior)
	if w.err != nil {
		return fmt.Errorf("checking the action of skill %s: %w: %w", m.ID, w.err, ErrInvalid)
	}
	var first *need
	var missing []Permission
	for i := range w.needs {
		n := &w.needs[i]
		if n.perm == "" || !m.Allows(n.perm) {
			if first == nil {
				first = n
			}
			if n.perm != "" && !slices.Contains(missing, n.perm) {
				missing = append(missing, n.perm)
			}
		}
	}
	if first != nil {
		slices.Sort(missing)
		return &DeniedError{Skill: m.ID, Permission: first.perm, Path: first.path, Reason: first.reason, Missing: missing}
	}
	switch {
	case size > lim.MaxActionBytes:
		return &DeniedError{Skill: m.ID, Limit: "max_action_bytes",
			Reason: fmt.Sprintf("the action is %d bytes, limit %d", size, lim.MaxActionBytes)}
	case w.overCount != "":
		return &DeniedError{Skill: m.ID, Limit: "max_behaviors", Path: w.overCount,
			Reason: fmt.Sprintf("the action has %d behaviours, limit %d", w.count, lim.MaxBehaviors)}
	case w.overSpeech != "":
		return &DeniedError{Skill: m.ID, Limit: "max_speech_chars", Path: w.overSpeech,
			Reason: fmt.Sprintf("the action speaks %d characters, limit %d", w.speech, lim.MaxSpeechChars)}
	}
	return nil
}

// Require refuses what unless m grants p: for permissions enforced outside
// actions, such as proactive (a PROACTIVE_LAUNCH) and timers (scheduling).
func Require(m *Manifest, p Permission, what string) error {
	if m.Allows(p) {
		return nil
	}
	return &DeniedError{Skill: m.ID, Permission: p, Reason: what, Missing: []Permission{p}}
}

// effectiveLimits returns m's limits with defaults for zero members.
func (m *Manifest) effectiveLimits() Limits {
	l := m.Limits
	if l.MaxActionBytes == 0 {
		l.MaxActionBytes = jcp.MaxActionBytes
	}
	if l.MaxBehaviors == 0 {
		l.MaxBehaviors = jcp.MaxBehaviors
	}
	if l.MaxSpeechChars == 0 {
		l.MaxSpeechChars = DefaultMaxSpeechChars
	}
	if l.CallsPerMinute == 0 {
		l.CallsPerMinute = DefaultCallsPerMinute
	}
	return l
}

// EffectiveLimits returns the manifest's limits with the defaults filled
// in for zero members.
func (m *Manifest) EffectiveLimits() Limits { return m.effectiveLimits() }

// EffectiveTimeout returns the manifest's timeout, or DefaultTimeout.
func (m *Manifest) EffectiveTimeout() time.Duration {
	if m.Timeout == 0 {
		return DefaultTimeout
	}
	return m.Timeout
}

// need is one permission a part of the action needs; perm "" marks a
// behaviour the gate does not know, which nothing permits.
type need struct {
	perm   Permission
	path   string
	reason string
}

type walker struct {
	g     Gate
	c     *jcp.Checked // the action, with its parsed ESML and animations
	needs []need
	err   error

	maxBehaviors, maxSpeech int
	count, speech           int
	overCount, overSpeech   string // path where the limit was first exceeded
}

func (w *walker) add(p Permission, path, format string, args ...any) {
	w.needs = append(w.needs, need{perm: p, path: path, reason: fmt.Sprintf(format, args...)})
}

// counted counts one behaviour at path.
func (w *walker) counted(path string) {
	w.count++
	if w.count > w.maxBehaviors && w.overCount == "" {
		w.overCount = path
	}
}

func (w *walker) behavior(path string, b jcp.Behavior) {
	switch t := b.(type) {
	case nil:
	case *jcp.SLIM:
		if t == nil {
			return
		}
		w.counted(path)
		cfg := path + ".config"
		w.play(cfg+".play", t.Play)
		w.listen(cfg+".listen", t.Listen)
		w.display(cfg+".display", t.Display)
	case *jcp.Play:
		w.play(path, t)
	case *jcp.Listen:
		w.listen(path, t)
	case *jcp.Display:
		w.display(path, t)
	case *jcp.SequenceBehavior:
		if t == nil {
			return
		}
		w.counted(path)
		for i, c := range t.Children {
			w.behavior(fmt.Sprintf("%s.children[%d]", path, i), c)
		}
	case *jcp.ParallelBehavior:
		if t == nil {
			return
		}
		w.counted(path)
		for i, c := range t.Children {
			w.behavior(fmt.Sprintf("%s.children[%d]", path, i), c)
		}
	case *jcp.SetPresentPerson:
		if t == nil {
			return
		}
		w.counted(path)
		w.add(PermPerson, path, "SET_PRESENT_PERSON sets who the robot is talking to")
	case *jcp.ImpactEmotion:
		if t == nil {
			return
		}
		w.counted(path)
		w.add(PermEmotion, path, "IMPACT_EMOTION changes the robot's emotion")
	case *jcp.LookAt:
		if t == nil {
			return
		}
		w.counted(path)
		if t.Options != nil && t.Options.DOFs == jcp.DOFEye {
			w.add(PermDisplay, path, "LOOKAT moves the eye on the screen")
			return
		}
		w.add(PermMotion, path, "LOOKAT turns the body")
	case *jcp.PlayAnimation:
		if t == nil {
			return
		}
		w.counted(path)
		w.playAnimation(path, t)
	default:
		// A behaviour type added to jcp after this gate was written: fail
		// closed until the gate knows what it needs.
		w.count++
		w.add("", path, "behaviour type %s is not known to the permission gate", b.BehaviorType())
	}
}

func (w *walker) play(path string, p *jcp.Play) {
	if p == nil {
		return
	}
	w.counted(path)
	ep := path + ".esml"
	doc, ok := w.c.ESML(p)
	if !ok {
		if w.err == nil {
			w.err = fmt.Errorf("%s: not checked", ep)
		}
		return
	}
	if doc.Text != "" {
		w.add(PermSpeech, ep, "PLAY says %q", clip(doc.Text))
		w.speech += utf8.RuneCountInString(doc.Text)
		if w.speech > w.maxSpeech && w.overSpeech == "" {
			w.overSpeech = ep
		}
	}
	for _, t := range doc.Tags {
		switch t.Name {
		case "sfx", "ssa", "audio":
			w.add(PermSound, ep, "%s plays a sound", tagString(t))
		case "anim", "es":
			a, ok := w.tagAnimation(t)
			w.animation(ep, tagString(t), a, ok, motion.AllAxes, true)
		}
	}
}

func (w *walker) listen(path string, l *jcp.Listen) {
	if l == nil {
		return
	}
	w.counted(path)
	w.add(PermListen, path, "LISTEN opens the microphone for an answer")
}

func (w *walker) display(path string, d *jcp.Display) {
	if d == nil {
		return
	}
	w.counted(path)
	w.add(PermDisplay, path, "DISPLAY shows a view on the screen")
}

func (w *walker) playAnimation(path string, p *jcp.PlayAnimation) {
	sel, lights := motion.AllAxes, true
	if o := p.Options; o != nil {
		switch o.DOFs {
		case jcp.DOFEye:
			w.add(PermDisplay, path, "PLAY_ANIMATION animates the eye on the screen")
			return
		case jcp.DOFBase:
			sel, lights = motion.BaseOnly, false
		case jcp.DOFBody:
			lights = false
		}
	}
	var (
		a    *motion.Animation
		ok   bool
		what string
	)
	ref := p.Animation
	switch {
	case ref.Data != nil:
		a, ok = w.c.InlineAnimation(p)
		what = "PLAY_ANIMATION of inline data"
	case ref.URL != "":
		what = fmt.Sprintf("PLAY_ANIMATION %q", ref.URL)
		if w.g.Animations != nil {
			a, ok = w.g.Animations.Lookup(ref.URL)
		}
	case ref.Categories != nil:
		what = fmt.Sprintf("PLAY_ANIMATION of categories %s", strings.Join(ref.Categories, ", "))
		if w.g.Animations != nil {
			a, ok = w.g.Animations.ByCategory(ref.Categories...)
		}
	default:
		what = fmt.Sprintf("PLAY_ANIMATION query %q", ref.Query)
	}
	w.animation(path, what, a, ok, sel, lights)
}

// tagAnimation resolves an ESML animation tag as the executor does: by
// name, else cat, else path.
func (w *walker) tagAnimation(t jcp.Tag) (*motion.Animation, bool) {
	lib := w.g.Animations
	if lib == nil {
		return nil, false
	}
	if name, ok := t.Attr("name"); ok {
		return lib.Lookup(name)
	}
	if cat, ok := t.Attr("cat"); ok {
		return lib.ByCategory(cat)
	}
	if p, ok := t.Attr("path"); ok {
		return lib.Lookup(p)
	}
	return nil, false
}

// animation records what an animation needs within the selected axes and,
// when lights is true, the light ring.
func (w *walker) animation(path, what string, a *motion.Animation, resolved bool, sel motion.Axes, lights bool) {
	if !resolved {
		w.add(PermMotion, path, "%s may move the body (the gate cannot tell what it animates)", what)
		return
	}
	if a.Moves(sel) {
		w.add(PermMotion, path, "%s moves the body", what)
	}
	if lights && a.HasLights() {
		w.add(PermLED, path, "%s drives the light ring", what)
	}
}

// tagString renders an ESML tag with its identifying attribute for an
// error message, e.g. "<anim name='dance'> at offset 12".
func tagString(t jcp.Tag) string {
	for _, k := range []string{"name", "cat", "path", "filter"} {
		if v, ok := t.Attr(k); ok {
			return fmt.Sprintf("<%s %s='%s'> at offset %d", t.Name, k, clip(v), t.Offset)
		}
	}
	return fmt.Sprintf("<%s> at offset %d", t.Name, t.Offset)
}

// clip shortens s for an error message.
func clip(s string) string {
	const max = 40
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max]) + "…"
}
