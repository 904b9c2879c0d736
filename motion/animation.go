package motion

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/device/ledring"
	"github.com/openjibo/jibod/internal/strictjson"
)

// Limits on animations (the file format is described in FORMAT.md).
const (
	// MaxAnimationBytes bounds an encoded animation.
	MaxAnimationBytes = 64 << 10
	// MaxKeyframes bounds the keyframes of one track, and the LED keys.
	MaxKeyframes = 512
	// MaxAnimationSeconds bounds an animation's duration.
	MaxAnimationSeconds = 60.0
	// MaxCategories bounds an animation's categories.
	MaxCategories = 16
	// MaxCategoryBytes bounds one category, and an animation's name.
	MaxCategoryBytes = 64
	// MaxDescriptionBytes bounds an animation's description.
	MaxDescriptionBytes = 1024
)

// Animation is a keyframe animation of the axes and, optionally, the light
// ring. Build one with ParseAnimation; the zero value is not usable.
type Animation struct {
	// Name identifies the animation: 1..64 of a-z, 0-9, '-' and '_'.
	Name string
	// Description says what it looks like.
	Description string
	// Categories tag it for selection (e.g. "happy", "yes").
	Categories []string
	// Relative makes the angles offsets from the pose the body is in when
	// the animation starts; otherwise they are absolute.
	Relative bool
	// Duration is the length of one play, in seconds.
	Duration float64

	tracks [NumAxes]*track // nil where an axis is not animated
	led    []ledring.Key   // times are animation seconds as durations
}

// track is one axis's keyframes with precomputed tangents.
type track struct {
	t, v, m []float64
	linear  bool
}

// Animates reports whether the animation moves axis i.
func (a *Animation) Animates(i int) bool { return a.tracks[i] != nil }

// Moves reports whether the animation moves any of the selected axes.
func (a *Animation) Moves(sel Axes) bool {
	for i := range a.tracks {
		if sel[i] && a.tracks[i] != nil {
			return true
		}
	}
	return false
}

// HasLights reports whether the animation has a light track.
func (a *Animation) HasLights() bool { return len(a.led) > 0 }

// Sample returns axis i's angle (or offset, for a relative animation) at t
// seconds into one play, holding the first and last keyframes outside the
// keyed span; ok is false when the axis is not animated. It does not
// allocate.
func (a *Animation) Sample(i int, t float64) (v float64, ok bool) {
	tr := a.tracks[i]
	if tr == nil {
		return 0, false
	}
	return tr.at(t), true
}

// LightProgram returns the light track as a ring program for playing at
// speed (1 = as written) for loops plays (-1: forever).
func (a *Animation) LightProgram(speed float64, loops int) ledring.Program {
	keys := make([]ledring.Key, len(a.led))
	for i, k := range a.led {
		k.At = time.Duration(float64(k.At) / speed)
		keys[i] = k
	}
	period := time.Duration(a.Duration / speed * float64(time.Second))
	p := ledring.Program{Name: a.Name, Keys: keys, Period: period}
	if loops >= 0 {
		p.Duration = period * time.Duration(max(loops, 1))
	}
	return p
}

func (tr *track) at(t float64) float64 {
	n := len(tr.t)
	if t <= tr.t[0] {
		return tr.v[0]
	}
	if t >= tr.t[n-1] {
		return tr.v[n-1]
	}
	// Binary search for the segment [k, k+1] holding t.
	lo, hi := 0, n-1
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if tr.t[mid] <= t {
			lo = mid
		} else {
			hi = mid
		}
	}
	h := tr.t[hi] - tr.t[lo]
	s := (t - tr.t[lo]) / h
	if tr.linear {
		return tr.v[lo] + (tr.v[hi]-tr.v[lo])*s
	}
	// Cubic Hermite between the two keys.
	s2, s3 := s*s, s*s*s
	return (2*s3-3*s2+1)*tr.v[lo] + (s3-2*s2+s)*h*tr.m[lo] + (-2*s3+3*s2)*tr.v[hi] + (s3-s2)*h*tr.m[hi]
}

// tangents sets monotone cubic tangents (Fritsch–Carlson), zero at the
// ends, so that curves pass through every keyframe without overshooting
// between them: a keyframe at the limit is never exceeded.
func (tr *track) tangents() {
	n := len(tr.t)
	tr.m = make([]float64, n)
	if n < 3 {
		return
	}
	d := make([]float64, n-1)
	for k := range d {
		d[k] = (tr.v[k+1] - tr.v[k]) / (tr.t[k+1] - tr.t[k])
	}
	for k := 1; k < n-1; k++ {
		if d[k-1]*d[k] > 0 {
			tr.m[k] = (d[k-1] + d[k]) / 2
		}
	}
	for k := range d {
		if d[k] == 0 {
			tr.m[k], tr.m[k+1] = 0, 0
			continue
		}
		a, b := tr.m[k]/d[k], tr.m[k+1]/d[k]
		if r := a*a + b*b; r > 9 {
			f := 3 / math.Sqrt(r)
			tr.m[k], tr.m[k+1] = f*a*d[k], f*b*d[k]
		}
	}
}

// FieldError reports a bad part of an animation by its JSON path, e.g.
// "tracks.topSection_r[2]: time 0.4 is not after 0.5".
type FieldError struct {
	// Path locates the bad value.
	Path string
	// Reason says what is wrong.
	Reason string
}

// Error reports the path and the reason.
func (e *FieldError) Error() string {
	if e.Path == "" {
		return e.Reason
	}
	return e.Path + ": " + e.Reason
}

// fieldErr is not inlined: it runs on error paths only, and inlining would
// copy its body into each of its many callers.
//
//go:noinline
func fieldErr(path, format string, args ...any) error {
	return &FieldError{Path: path, Reason: fmt.Sprintf(format, args...)}
}

// wire is the JSON form.
type wire struct {
	Name          string                 `json:"name"`
	Description   string                 `json:"description"`
	Categories    []string               `json:"categories"`
	Relative      bool                   `json:"relative"`
	Interpolation string                 `json:"interpolation"`
	Duration      *float64               `json:"duration"`
	Tracks        map[string][][]float64 `json:"tracks"`
	LED           []wireLED              `json:"led"`
}

type wireLED struct {
	T       *float64 `json:"t"`
	Color   string   `json:"color"`
	Pattern string   `json:"pattern"`
	Fade    bool     `json:"fade"`
}

// ParseAnimation decodes and validates an animation in the JSON format of
// FORMAT.md. Decoding is strict: an unknown field, a wrongly typed value
// or any broken rule is an error naming the field, and nothing is
// returned.
func ParseAnimation(data []byte) (*Animation, error) {
	a, err := parseAnimation(data)
	if err != nil {
		return nil, fmt.Errorf("parse animation: %w", err)
	}
	return a, nil
}

func parseAnimation(data []byte) (*Animation, error) {
	if len(data) > MaxAnimationBytes {
		return nil, fmt.Errorf("animation is %d bytes, limit %d", len(data), MaxAnimationBytes)
	}
	if err := strictjson.CheckMembers(data); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var w wire
	if err := dec.Decode(&w); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, fieldErr(te.Field, "is a JSON %s, want %s", te.Value, jsonKind(te.Type.String()))
		}
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("invalid JSON: trailing data after the animation")
	}
	return w.build()
}

func jsonKind(goType string) string {
	switch {
	case goType == "string":
		return "a string"
	case goType == "float64" || goType == "*float64":
		return "a number"
	case goType == "bool":
		return "a boolean"
	case len(goType) > 2 && goType[:2] == "[]":
		return "an array"
	}
	return "an object"
}

func (w *wire) build() (*Animation, error) {
	if err := checkName(w.Name); err != nil {
		return nil, fieldErr("name", "%v", err)
	}
	if len(w.Description) > MaxDescriptionBytes || !utf8.ValidString(w.Description) {
		return nil, fieldErr("description", "want valid UTF-8 of at most %d bytes", MaxDescriptionBytes)
	}
	if len(w.Categories) > MaxCategories {
		return nil, fieldErr("categories", "%d categories, limit %d", len(w.Categories), MaxCategories)
	}
	for i, c := range w.Categories {
		if err := checkName(c); err != nil {
			return nil, fieldErr(fmt.Sprintf("categories[%d]", i), "%v", err)
		}
	}
	a := &Animation{Name: w.Name, Description: w.Description, Categories: w.Categories, Relative: w.Relative}
	linear := false
	switch w.Interpolation {
	case "", "smooth":
	case "linear":
		linear = true
	default:
		return nil, fieldErr("interpolation", "%q: want smooth or linear", w.Interpolation)
	}

	last := 0.0
	names := make([]string, 0, len(w.Tracks))
	for name := range w.Tracks {
		names = append(names, name)
	}
	// Sorted, so that the first error reported does not depend on map order.
	slices.Sort(names)
	for _, name := range names {
		keys := w.Tracks[name]
		i, ok := AxisIndex(name)
		if !ok {
			return nil, fieldErr("tracks."+name, "unknown axis (want one of %v)", device.Axes())
		}
		tr, end, err := buildTrack("tracks."+name, keys, a.Relative, linear)
		if err != nil {
			return nil, err
		}
		a.tracks[i] = tr
		last = math.Max(last, end)
	}
	for i, k := range w.LED {
		at := fmt.Sprintf("led[%d]", i)
		if i >= MaxKeyframes {
			return nil, fieldErr("led", "more than %d keys", MaxKeyframes)
		}
		if k.T == nil {
			return nil, fieldErr(at+".t", "missing")
		}
		t := *k.T
		if err := checkTime(at+".t", t); err != nil {
			return nil, err
		}
		if i == 0 && t != 0 {
			return nil, fieldErr(at+".t", "the first light key must be at 0")
		}
		if i > 0 && t <= last0(a.led) {
			return nil, fieldErr(at+".t", "%g is not after the previous key", t)
		}
		key := ledring.Key{At: time.Duration(t * float64(time.Second)), Fade: k.Fade}
		switch {
		case k.Color != "" && k.Pattern != "":
			return nil, fieldErr(at, "give color or pattern, not both")
		case k.Pattern != "":
			if !ledring.IsPattern(k.Pattern) {
				return nil, fieldErr(at+".pattern", "unknown pattern %q (have %v)", k.Pattern, ledring.Patterns())
			}
			if k.Fade {
				return nil, fieldErr(at+".fade", "only a colour can fade")
			}
			key.Pattern = k.Pattern
		case k.Color != "":
			c, err := device.ParseRGB(k.Color)
			if err != nil {
				return nil, fieldErr(at+".color", "%v", err)
			}
			key.Color = c
		default:
			return nil, fieldErr(at, "needs a color or a pattern")
		}
		a.led = append(a.led, key)
		last = math.Max(last, t)
	}
	if a.tracks == ([NumAxes]*track{}) && len(a.led) == 0 {
		return nil, fieldErr("tracks", "the animation animates nothing: give at least one track or light key")
	}
	a.Duration = last
	if w.Duration != nil {
		d := *w.Duration
		if err := checkTime("duration", d); err != nil {
			return nil, err
		}
		if d < last {
			return nil, fieldErr("duration", "%g ends before the last key at %g", d, last)
		}
		a.Duration = d
	}
	if a.Duration <= 0 {
		return nil, fieldErr("duration", "the animation lasts no time: give a duration or keys after 0")
	}
	return a, nil
}

// last0 returns the time of the last light key, in seconds.
func last0(keys []ledring.Key) float64 {
	return keys[len(keys)-1].At.Seconds()
}

func buildTrack(at string, keys [][]float64, relative, linear bool) (*track, float64, error) {
	if len(keys) == 0 {
		return nil, 0, fieldErr(at, "has no keyframes")
	}
	if len(keys) > MaxKeyframes {
		return nil, 0, fieldErr(at, "%d keyframes, limit %d", len(keys), MaxKeyframes)
	}
	bound := device.AxisLimit
	if relative {
		bound = 2 * device.AxisLimit
	}
	tr := &track{linear: linear}
	for i, k := range keys {
		kp := fmt.Sprintf("%s[%d]", at, i)
		if len(k) != 2 {
			return nil, 0, fieldErr(kp, "want [seconds, radians], got %d numbers", len(k))
		}
		t, v := k[0], k[1]
		if err := checkTime(kp, t); err != nil {
			return nil, 0, err
		}
		if i > 0 && t <= tr.t[i-1] {
			return nil, 0, fieldErr(kp, "time %g is not after %g", t, tr.t[i-1])
		}
		if math.IsNaN(v) || math.Abs(v) > bound {
			return nil, 0, fieldErr(kp, "angle %g rad is outside ±%g", v, bound)
		}
		tr.t = append(tr.t, t)
		tr.v = append(tr.v, v)
	}
	tr.tangents()
	return tr, tr.t[len(tr.t)-1], nil
}

func checkTime(at string, t float64) error {
	if math.IsNaN(t) || t < 0 || t > MaxAnimationSeconds {
		return fieldErr(at, "time %g s is outside 0..%g", t, MaxAnimationSeconds)
	}
	return nil
}

func checkName(s string) error {
	if s == "" || len(s) > MaxCategoryBytes {
		return fmt.Errorf("want 1..%d bytes", MaxCategoryBytes)
	}
	for i, c := range s {
		ok := ('a' <= c && c <= 'z') || ('0' <= c && c <= '9') || (i > 0 && (c == '-' || c == '_'))
		if !ok {
			return fmt.Errorf("%q: use a-z, 0-9, '-' and '_', starting with a letter or digit", s)
		}
	}
	return nil
}

// HasCategory reports whether the animation is tagged with every one of
// cats.
func (a *Animation) HasCategory(cats ...string) bool {
	for _, c := range cats {
		if !slices.Contains(a.Categories, c) {
			return false
		}
	}
	return true
}
