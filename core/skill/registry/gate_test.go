package registry

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/jcp"
	"github.com/openjibo/jibod/motion"
)

func mustAction(t testing.TB, s string) *jcp.Checked {
	t.Helper()
	a, err := jcp.ParseChecked([]byte(s))
	require.NoError(t, err)
	return a
}

func slim(config string) string {
	return `{"type":"JCP","config":{"version":"2.0","jcp":{"id":"s","type":"SLIM","config":` + config + `}}}`
}

func root(b string) string {
	return `{"type":"JCP","config":{"version":"2.0","jcp":` + b + `}}`
}

func library(t testing.TB) *motion.Library {
	t.Helper()
	lib, err := motion.Builtin()
	require.NoError(t, err)
	return lib
}

// What each behaviour needs (the gate's table), checked one permission at a
// time: granted everything but the permission under test, the action is
// refused naming it and the path; granted it, the action passes.
func TestGateNeeds(t *testing.T) {
	lib := library(t)
	tests := []struct {
		name   string
		action string
		needs  []Permission // sorted
		path   string       // where the first need stands
	}{
		{"spoken words", slim(`{"play":{"id":"p","esml":"Hello there"}}`), []Permission{PermSpeech}, "config.jcp.config.play.esml"},
		{"markup only needs nothing", slim(`{"play":{"id":"p","esml":"<break size='1'/>"}}`), nil, ""},
		{"sfx", slim(`{"play":{"id":"p","esml":"<sfx name='ding'/>"}}`), []Permission{PermSound}, "config.jcp.config.play.esml"},
		{"ssa", slim(`{"play":{"id":"p","esml":"<ssa cat='laughing'/>"}}`), []Permission{PermSound}, "config.jcp.config.play.esml"},
		{"audio", slim(`{"play":{"id":"p","esml":"<audio path='bell.wav'/>"}}`), []Permission{PermSound}, "config.jcp.config.play.esml"},
		{"anim that moves", slim(`{"play":{"id":"p","esml":"<anim name='nod'/>"}}`), []Permission{PermMotion}, "config.jcp.config.play.esml"},
		{"es that moves and lights", slim(`{"play":{"id":"p","esml":"<es name='dance'/>"}}`), []Permission{PermLED, PermMotion}, "config.jcp.config.play.esml"},
		{"anim lights only", slim(`{"play":{"id":"p","esml":"<anim name='led-glow'/>"}}`), []Permission{PermLED}, "config.jcp.config.play.esml"},
		{"anim by category", slim(`{"play":{"id":"p","esml":"<anim cat='no'/>"}}`), []Permission{PermMotion}, "config.jcp.config.play.esml"},
		{"anim unknown name", slim(`{"play":{"id":"p","esml":"<anim name='backflip'/>"}}`), []Permission{PermMotion}, "config.jcp.config.play.esml"},
		{"anim by filter", slim(`{"play":{"id":"p","esml":"<anim filter='happy'/>"}}`), []Permission{PermMotion}, "config.jcp.config.play.esml"},
		{"anim wrapping words", slim(`{"play":{"id":"p","esml":"<anim name='nod'>Yes</anim>"}}`), []Permission{PermMotion, PermSpeech}, "config.jcp.config.play.esml"},
		{"listen", slim(`{"listen":{"id":"l","contexts":["timer/duration"]}}`), []Permission{PermListen}, "config.jcp.config.listen"},
		{"display", slim(`{"display":{"id":"d","name":"clock","view":{"type":"TEXT","text":"12:00"}}}`), []Permission{PermDisplay}, "config.jcp.config.display"},
		{"question", slim(`{"play":{"id":"p","esml":"For how long?"},"listen":{"id":"l","contexts":["timer/duration"]}}`), []Permission{PermListen, PermSpeech}, "config.jcp.config.play.esml"},
		{"look at", root(`{"id":"a","type":"LOOKAT","target":{"angleVector":{"x":0.5,"y":0}}}`), []Permission{PermMotion}, "config.jcp"},
		{"look at with the eye", root(`{"id":"a","type":"LOOKAT","target":{"angleVector":{"x":0.5,"y":0}},"options":{"dofs":"EYE"}}`), []Permission{PermDisplay}, "config.jcp"},
		{"play animation", root(`{"id":"a","type":"PLAY_ANIMATION","animation":{"url":"nod"}}`), []Permission{PermMotion}, "config.jcp"},
		{"play animation with lights", root(`{"id":"a","type":"PLAY_ANIMATION","animation":{"url":"animations/dance.keys"}}`), []Permission{PermLED, PermMotion}, "config.jcp"},
		{"play animation body only", root(`{"id":"a","type":"PLAY_ANIMATION","animation":{"url":"dance"},"options":{"dofs":"BODY"}}`), []Permission{PermMotion}, "config.jcp"},
		{"play animation base only", root(`{"id":"a","type":"PLAY_ANIMATION","animation":{"url":"dance"},"options":{"dofs":"BASE"}}`), []Permission{PermMotion}, "config.jcp"},
		{"play light animation", root(`{"id":"a","type":"PLAY_ANIMATION","animation":{"categories":["lights","calm"]}}`), []Permission{PermLED}, "config.jcp"},
		{"light animation on the body only does nothing", root(`{"id":"a","type":"PLAY_ANIMATION","animation":{"url":"led-glow"},"options":{"dofs":"BODY"}}`), nil, ""},
		{"play animation on the eye", root(`{"id":"a","type":"PLAY_ANIMATION","animation":{"url":"nod"},"options":{"dofs":"EYE"}}`), []Permission{PermDisplay}, "config.jcp"},
		{"play animation inline", root(`{"id":"a","type":"PLAY_ANIMATION","animation":{"data":{"name":"blink","duration":1,"led":[{"t":0,"color":"red"}]}}}`), []Permission{PermLED}, "config.jcp"},
		{"play animation query", root(`{"id":"a","type":"PLAY_ANIMATION","animation":{"query":"something happy"}}`), []Permission{PermMotion}, "config.jcp"},
		{"present person", root(`{"id":"a","type":"SET_PRESENT_PERSON","looperId":"u1","source":"USER_OVERRIDE","confidence":100}`), []Permission{PermPerson}, "config.jcp"},
		{"emotion", root(`{"id":"a","type":"IMPACT_EMOTION","valence":"LOW_POS"}`), []Permission{PermEmotion}, "config.jcp"},
		{"nested", root(`{"id":"q","type":"SEQUENCE","children":[
			{"id":"a","type":"SLIM","config":{"play":{"id":"p","esml":"Look!"}}},
			{"id":"b","type":"PARALLEL","succeedOnFirst":false,"children":[
				{"id":"c","type":"IMPACT_EMOTION","valence":"LOW_POS"},
				{"id":"d","type":"LOOKAT","target":{"position":{"x":1,"y":0,"z":0.5}}}]}]}`),
			[]Permission{PermEmotion, PermMotion, PermSpeech}, "config.jcp.children[0].config.play.esml"},
	}
	g := Gate{Animations: lib}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := mustAction(t, tt.action)
			assert.NoError(t, g.Check(manifest("acme/all", tt.needs...), a.Action), "granted exactly what it needs")
			assert.NoError(t, g.Check(manifest("acme/all", AllPermissions()...), a.Action))
			if len(tt.needs) == 0 {
				assert.NoError(t, g.Check(manifest("acme/none"), a.Action))
				return
			}
			err := g.Check(manifest("acme/none"), a.Action)
			require.ErrorIs(t, err, ErrDenied)
			var d *DeniedError
			require.ErrorAs(t, err, &d)
			assert.Equal(t, "acme/none", d.Skill)
			assert.Equal(t, tt.path, d.Path)
			assert.Equal(t, tt.needs, d.Missing)
			for _, p := range tt.needs {
				others := []Permission{}
				for _, q := range AllPermissions() {
					if q != p {
						others = append(others, q)
					}
				}
				err := g.Check(manifest("acme/most", others...), a.Action)
				require.ErrorAs(t, err, &d, "without %s", p)
				assert.Equal(t, p, d.Permission)
				assert.Equal(t, []Permission{p}, d.Missing)
			}
		})
	}
}

// Without an animation library every animation counts as motion.
func TestGateWithoutLibrary(t *testing.T) {
	a := mustAction(t, slim(`{"play":{"id":"p","esml":"<anim name='led-glow'/>"}}`))
	err := Check(manifest("acme/lights", PermLED), a.Action)
	var d *DeniedError
	require.ErrorAs(t, err, &d)
	assert.Equal(t, PermMotion, d.Permission)
	assert.Contains(t, d.Reason, "cannot tell")
	assert.NoError(t, Check(manifest("acme/mover", PermMotion), a.Action))
}

// A forbidden action is refused whole, naming the first offending behaviour
// in document order and every missing permission.
func TestGateDeniedError(t *testing.T) {
	a := mustAction(t, root(`{"id":"q","type":"SEQUENCE","children":[
		{"id":"a","type":"SLIM","config":{"play":{"id":"p","esml":"Watch me dance! <sfx name='ta-da'/>"}}},
		{"id":"b","type":"PLAY_ANIMATION","animation":{"url":"nod"}},
		{"id":"c","type":"LOOKAT","target":{"angleVector":{"x":1,"y":0}}}]}`))
	err := Gate{Animations: library(t)}.Check(manifest("jibo/clock", PermSpeech), a.Action)
	require.ErrorIs(t, err, ErrDenied)
	var d *DeniedError
	require.ErrorAs(t, err, &d)
	assert.Equal(t, &DeniedError{Skill: "jibo/clock", Permission: PermSound, Path: "config.jcp.children[0].config.play.esml",
		Reason: "<sfx name='ta-da'> at offset 16 plays a sound", Missing: []Permission{PermMotion, PermSound}}, d)
	assert.EqualError(t, err, `skill jibo/clock: no "sound" permission: config.jcp.children[0].config.play.esml: `+
		`<sfx name='ta-da'> at offset 16 plays a sound (all missing: motion, sound)`)
}

func TestGateLimits(t *testing.T) {
	speak := func(n int) string {
		var b strings.Builder
		b.WriteString(`{"id":"q","type":"SEQUENCE","children":[`)
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(`{"type":"SLIM","config":{"play":{"esml":"Tick tock."}}}`)
		}
		b.WriteString(`]}`)
		return root(b.String())
	}
	a := mustAction(t, speak(5)) // 11 behaviours, 50 characters
	raw := []byte(speak(5))
	tests := []struct {
		name   string
		limits Limits
		size   int
		limit  string
		path   string
		reason string
	}{
		{"within", Limits{MaxBehaviors: 11, MaxSpeechChars: 50, MaxActionBytes: len(raw)}, len(raw), "", "", ""},
		{"behaviours", Limits{MaxBehaviors: 10}, len(raw), "max_behaviors", "config.jcp.children[4].config.play", "the action has 11 behaviours, limit 10"},
		{"speech", Limits{MaxSpeechChars: 35}, len(raw), "max_speech_chars", "config.jcp.children[3].config.play.esml", "the action speaks 50 characters, limit 35"},
		{"size", Limits{MaxActionBytes: 100}, len(raw), "max_action_bytes", "", "bytes, limit 100"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := manifest("jibo/clock", PermSpeech)
			m.Limits = tt.limits
			err := Gate{}.CheckSized(m, a, tt.size)
			if tt.limit == "" {
				require.NoError(t, err)
				return
			}
			var d *DeniedError
			require.ErrorAs(t, err, &d)
			assert.True(t, errors.Is(err, ErrDenied))
			assert.Equal(t, tt.limit, d.Limit)
			assert.Empty(t, d.Permission)
			assert.Equal(t, tt.path, d.Path)
			assert.Contains(t, d.Reason, tt.reason)
			assert.Contains(t, err.Error(), "over its "+tt.limit+" limit")
		})
	}
	// Check measures the canonical encoding.
	m := manifest("jibo/clock", PermSpeech)
	m.Limits.MaxActionBytes = 100
	var d *DeniedError
	require.ErrorAs(t, Check(m, a.Action), &d)
	assert.Equal(t, "max_action_bytes", d.Limit)
}

func TestGateNothingToCheck(t *testing.T) {
	assert.NoError(t, Check(manifest("jibo/clock"), nil), "a nil action ends the skill")
	assert.NoError(t, Gate{}.CheckSized(manifest("jibo/clock"), nil, 0), "nor does a nil checked action")
	// A tree built in Go with holes is refused by Check; CheckSized only
	// takes an action that passed jcp.Check or jcp.ParseChecked.
	a := jcp.NewAction(&jcp.SequenceBehavior{Base: jcp.Base{ID: "q"}, Children: []jcp.Behavior{nil, (*jcp.SLIM)(nil)}})
	err := Check(manifest("jibo/clock"), a)
	assert.ErrorIs(t, err, ErrInvalid)
	assert.Contains(t, err.Error(), "config.jcp.children[0]: missing")
}

func TestGateBadESML(t *testing.T) {
	a := jcp.NewAction(jcp.Say("<anim name='nod'>unclosed"))
	err := Gate{}.Check(manifest("jibo/clock", AllPermissions()...), a)
	assert.ErrorIs(t, err, ErrInvalid)
	assert.Contains(t, err.Error(), "config.jcp.config.play.esml: offset 0: <anim> is never closed")
}

func TestRequire(t *testing.T) {
	m := manifest("jibo/clock", PermSpeech)
	assert.NoError(t, Require(m, PermSpeech, "speaking"))
	err := Require(m, PermProactive, "PROACTIVE_LAUNCH starts the skill unasked")
	assert.ErrorIs(t, err, ErrDenied)
	assert.EqualError(t, err, `skill jibo/clock: no "proactive" permission: PROACTIVE_LAUNCH starts the skill unasked`)
}

func BenchmarkGateCheck(b *testing.B) {
	a := mustAction(b, root(`{"id":"q","type":"SEQUENCE","children":[
		{"id":"a","type":"SLIM","config":{"play":{"id":"p","esml":"<anim name='nod'>It is twelve o'clock.</anim>"}}},
		{"id":"b","type":"SLIM","config":{"play":{"id":"p2","esml":"Anything else?"},"listen":{"id":"l","contexts":["x"]}}}]}`))
	g := Gate{Animations: library(b)}
	m := manifest("jibo/clock", PermSpeech, PermMotion, PermListen).Normalized()
	b.ReportAllocs()
	for b.Loop() {
		if err := g.CheckSized(m, a, 300); err != nil {
			b.Fatal(err)
		}
	}
}
