package jcp_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/jcp"
)

// env wraps a behaviour in the action envelope.
func env(behavior string) string {
	return `{"type":"JCP","config":{"version":"2.0","jcp":` + behavior + `}}`
}

// slim returns a SLIM whose config is cfg.
func slim(id, cfg string) string {
	return `{"id":"` + id + `","type":"SLIM","config":` + cfg + `}`
}

func say(id, esml string) string {
	return slim(id, `{"play":{"id":"`+id+`-p","type":"PLAY","esml":`+quote(esml)+`}}`)
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func nested(depth int) string {
	b := say("leaf", "hi")
	for i := 1; i < depth; i++ {
		b = fmt.Sprintf(`{"id":"s%d","type":"SEQUENCE","children":[%s]}`, i, b)
	}
	return b
}

func manyChildren(n int) string {
	kids := make([]string, n)
	for i := range kids {
		kids[i] = fmt.Sprintf(`{"id":"e%d","type":"IMPACT_EMOTION"}`, i)
	}
	return `{"id":"root","type":"SEQUENCE","children":[` + strings.Join(kids, ",") + `]}`
}

// Every way ParseAction rejects an action, and the message a sender sees.
func TestParseActionErrors(t *testing.T) {
	tests := []struct {
		name, in, wantErr string
	}{
		{"too big", `{"pad":"` + strings.Repeat("x", jcp.MaxActionBytes) + `"}`, "action is 262154 bytes, limit 262144"},
		{"invalid JSON", `{"type":`, "invalid JSON at byte 8"},
		{"not an object", `[1]`, "action is an array, want an object"},
		{"envelope type", `{"type":"FOO","config":{"jcp":{}}}`, `type: is "FOO", want "JCP"`},
		{"envelope type not string", `{"type":7,"config":{}}`, "type: is a number, want a string"},
		{"config missing", `{"type":"JCP"}`, "config: missing"},
		{"config not object", `{"config":"x"}`, "config: is a string, want an object"},
		{"version not string", `{"config":{"version":2,"jcp":{}}}`, "config.version: is a number, want a string"},
		{"version too long", `{"config":{"version":"` + strings.Repeat("9", 257) + `","jcp":` + say("a", "hi") + `}}`, "config.version: is 257 bytes, limit 256"},
		{"jcp missing", `{"config":{"version":"2.0"}}`, "config.jcp: missing"},
		{"jcp null", `{"config":{"jcp":null}}`, "config.jcp: missing"},
		{"jcp not object", `{"config":{"jcp":[]}}`, "config.jcp: is an array, want an object"},
		{"behaviour type missing", env(`{"id":"a"}`), "config.jcp.type: missing"},
		{"unknown behaviour type", env(`{"id":"a","type":"TAKE_PHOTO"}`), `config.jcp.type: unknown behaviour type "TAKE_PHOTO"`},
		{"lower-case type", env(`{"id":"a","type":"Sequence","children":[]}`), `config.jcp.type: unknown behaviour type "Sequence"`},
		{"PLAY at top level", env(`{"id":"a","type":"PLAY","esml":"hi"}`), "config.jcp.type: PLAY is only allowed inside a SLIM's config"},
		{"LISTEN as a child", env(`{"id":"a","type":"SEQUENCE","children":[{"type":"LISTEN","contexts":["x"]}]}`), "config.jcp.children[0].type: LISTEN is only allowed inside a SLIM's config"},
		{"id not string", env(`{"id":5,"type":"SLIM","config":{"play":{"esml":"hi"}}}`), "config.jcp.id: is a number, want a string"},
		{"id too long", env(say(strings.Repeat("a", 129), "hi")), "config.jcp.id: is 129 bytes, limit 128"},
		{"meta not JSON-kept", env(`{"id":"a","type":"IMPACT_EMOTION","meta":{"x":[1,2]}}`), ""},
		{"SLIM config missing", env(`{"id":"a","type":"SLIM"}`), "config.jcp.config: missing"},
		{"SLIM config not object", env(`{"id":"a","type":"SLIM","config":[]}`), "config.jcp.config: is an array, want an object"},
		{"SLIM config empty", env(slim("a", `{}`)), "config.jcp.config: needs at least one of play, listen or display"},
		{"play not object", env(slim("a", `{"play":"hi"}`)), "config.jcp.config.play: is a string, want an object"},
		{"esml missing", env(slim("a", `{"play":{"id":"p"}}`)), "config.jcp.config.play.esml: missing"},
		{"esml not string", env(slim("a", `{"play":{"esml":1}}`)), "config.jcp.config.play.esml: is a number, want a string"},
		{"play wrong type", env(slim("a", `{"play":{"type":"LISTEN","esml":"hi"}}`)), `config.jcp.config.play.type: is "LISTEN", want "PLAY"`},
		{"play type not string", env(slim("a", `{"play":{"type":1,"esml":"hi"}}`)), `config.jcp.config.play.type: is a number, want a string`},
		{"esml malformed", env(say("a", "<es>hi")), "config.jcp.config.play.esml: offset 0: <es> is never closed"},
		// Two parsers must not read different behaviours (issue 22 item 9).
		{"esml twice", env(slim("a", `{"play":{"esml":"hi","esml":"bye"}}`)), `config.jcp.config.play.esml: member given twice ("esml")`},
		{"behaviour type twice", env(`{"id":"a","type":"IMPACT_EMOTION","type":"SLIM","config":{"play":{"esml":"hi"}}}`), `config.jcp.type: member given twice ("type")`},
		{"envelope config twice", `{"config":{"jcp":` + say("a", "hi") + `},"config":{"jcp":` + say("b", "yo") + `}}`, `config: member given twice ("config")`},
		{"esml not UTF-8", env(slim("a", "{\"play\":{\"esml\":\"caf\xe9\"}}")), "config.jcp.config.play.esml: invalid UTF-8"},
		{"esml lone surrogate", env(slim("a", `{"play":{"esml":"\ud83e"}}`)), "config.jcp.config.play.esml: invalid UTF-8"},
		{"esml control character", env(say("a", "hi\u0007")), "config.jcp.config.play.esml: offset 2: control character U+0007 (BEL)"},
		{"esml too long", env(say("a", strings.Repeat("a", jcp.MaxESMLBytes+1))), "config.jcp.config.play.esml: is 8193 bytes, limit 8192"},
		{"autoRuleConfig string", env(slim("a", `{"play":{"esml":"hi","autoRuleConfig":"yes"}}`)), "config.jcp.config.play.autoRuleConfig: is a string, want an object or a boolean"},
		{"speakOptions array", env(slim("a", `{"play":{"esml":"hi","speakOptions":[]}}`)), "config.jcp.config.play.speakOptions: is an array, want an object"},
		{"contexts missing", env(slim("a", `{"listen":{"id":"l"}}`)), "config.jcp.config.listen.contexts: missing"},
		{"contexts not array", env(slim("a", `{"listen":{"contexts":"x"}}`)), "config.jcp.config.listen.contexts: is a string, want an array"},
		{"contexts empty", env(slim("a", `{"listen":{"contexts":[]}}`)), "config.jcp.config.listen.contexts: must not be empty"},
		{"context not string", env(slim("a", `{"listen":{"contexts":["x",2]}}`)), "config.jcp.config.listen.contexts[1]: is a number, want a string"},
		{"context empty", env(slim("a", `{"listen":{"contexts":[""]}}`)), "config.jcp.config.listen.contexts[0]: must not be empty"},
		{"too many contexts", env(slim("a", `{"listen":{"contexts":[`+strings.Repeat(`"c",`, 32)+`"c"]}}`)), "config.jcp.config.listen.contexts: 33 contexts, limit 32"},
		{"context too long", env(slim("a", `{"listen":{"contexts":["`+strings.Repeat("c", 257)+`"]}}`)), "config.jcp.config.listen.contexts[0]: is 257 bytes, limit 256"},
		{"intents object", env(slim("a", `{"listen":{"contexts":["x"],"intents":{}}}`)), "config.jcp.config.listen.intents: is an object, want an array"},
		{"listen wrong type", env(slim("a", `{"listen":{"type":"PLAY","contexts":["x"]}}`)), `config.jcp.config.listen.type: is "PLAY", want "LISTEN"`},
		{"display view missing", env(slim("a", `{"display":{"name":"d"}}`)), "config.jcp.config.display.view: missing"},
		{"display view not object", env(slim("a", `{"display":{"view":"EYE"}}`)), "config.jcp.config.display.view: is a string, want an object"},
		{"display layer too high", env(slim("a", `{"display":{"view":{"type":"EYE"},"layer":5}}`)), "config.jcp.config.display.layer: 5 is outside 0..4"},
		{"display layer fraction", env(slim("a", `{"display":{"view":{"type":"EYE"},"layer":1.5}}`)), "config.jcp.config.display.layer: is 1.5, want a whole number"},
		{"display overlay", env(slim("a", `{"display":{"view":{"type":"EYE"},"overlay":"blur"}}`)), `config.jcp.config.display.overlay: "blur" is not one of dim, clear`},
		{"display visible", env(slim("a", `{"display":{"view":{"type":"EYE"},"visible":"yes"}}`)), "config.jcp.config.display.visible: is a string, want a boolean"},
		{"display keepDisplay", env(slim("a", `{"display":{"view":{"type":"EYE"},"keepDisplay":1}}`)), "config.jcp.config.display.keepDisplay: is a number, want a boolean"},
		{"display onCancel", env(slim("a", `{"display":{"view":{"type":"EYE"},"onCancel":{}}}`)), "config.jcp.config.display.onCancel: is an object, want an array"},
		{"display name", env(slim("a", `{"display":{"view":{"type":"EYE"},"name":3}}`)), "config.jcp.config.display.name: is a number, want a string"},
		{"options not object", env(`{"id":"a","type":"SLIM","config":{"play":{"esml":"hi"}},"options":true}`), "config.jcp.options: is a boolean, want an object"},
		{"displayMode", env(`{"id":"a","type":"SLIM","config":{"play":{"esml":"hi"}},"options":{"displayMode":"LATER"}}`), `config.jcp.options.displayMode: "LATER" is not one of START_ON_PLAY, START_ON_LISTEN`},
		{"children missing", env(`{"id":"a","type":"SEQUENCE"}`), "config.jcp.children: missing"},
		{"children not array", env(`{"id":"a","type":"PARALLEL","children":{}}`), "config.jcp.children: is an object, want an array"},
		{"children empty", env(`{"id":"a","type":"SEQUENCE","children":[]}`), "config.jcp.children: must not be empty"},
		{"parallel children empty", env(`{"id":"a","type":"PARALLEL","children":[],"succeedOnFirst":true}`), "config.jcp.children: must not be empty"},
		{"child not object", env(`{"id":"a","type":"SEQUENCE","children":["x"]}`), "config.jcp.children[0]: is a string, want an object"},
		{"deep missing esml", env(`{"id":"a","type":"SEQUENCE","children":[` + say("b", "one") + `,` + say("c", "two") + `,` + slim("d", `{"play":{}}`) + `]}`), "config.jcp.children[2].config.play.esml: missing"},
		{"succeedOnFirst string", env(`{"id":"a","type":"PARALLEL","children":[` + say("b", "x") + `],"succeedOnFirst":"true"}`), "config.jcp.succeedOnFirst: is a string, want a boolean"},
		{"duplicate ids", env(`{"id":"s","type":"SEQUENCE","children":[` + say("a", "one") + `,` + say("a", "two") + `]}`), `config.jcp.children[1].id: duplicate id "a" (first used at config.jcp.children[0])`},
		{"duplicate id inside SLIM", env(slim("x", `{"play":{"id":"x","esml":"hi"}}`)), `config.jcp.config.play.id: duplicate id "x" (first used at config.jcp)`},
		{"too deep", env(nested(jcp.MaxDepth + 1)), "nested deeper than 16 behaviours"},
		{"SLIM part too deep", env(nested(jcp.MaxDepth)), "config.play: nested deeper than 16 behaviours"},
		{"too many behaviours", env(manyChildren(jcp.MaxBehaviors)), "config.jcp.children[255]: more than 256 behaviours in one action"},
		{"looperId missing", env(`{"id":"a","type":"SET_PRESENT_PERSON","source":"VOICE","confidence":100}`), "config.jcp.looperId: missing"},
		{"looperId empty", env(`{"id":"a","type":"SET_PRESENT_PERSON","looperId":"","source":"VOICE","confidence":100}`), "config.jcp.looperId: missing"},
		{"source missing", env(`{"id":"a","type":"SET_PRESENT_PERSON","looperId":"p1","confidence":100}`), "config.jcp.source: missing"},
		{"source bad", env(`{"id":"a","type":"SET_PRESENT_PERSON","looperId":"p1","source":"EAR","confidence":100}`), `config.jcp.source: "EAR" is not one of VOICE, FACE, USER_OVERRIDE`},
		{"confidence missing", env(`{"id":"a","type":"SET_PRESENT_PERSON","looperId":"p1","source":"FACE"}`), "config.jcp.confidence: missing"},
		{"confidence string", env(`{"id":"a","type":"SET_PRESENT_PERSON","looperId":"p1","source":"FACE","confidence":"high"}`), "config.jcp.confidence: is a string, want a number"},
		{"confidence too high", env(`{"id":"a","type":"SET_PRESENT_PERSON","looperId":"p1","source":"FACE","confidence":101}`), "config.jcp.confidence: 101 is outside 0..100"},
		{"confidence overflow", env(`{"id":"a","type":"SET_PRESENT_PERSON","looperId":"p1","source":"FACE","confidence":1e400}`), "config.jcp.confidence: 1e400 is out of range"},
		{"valence bad", env(`{"id":"a","type":"IMPACT_EMOTION","valence":"VERY_POS"}`), `config.jcp.valence: "VERY_POS" is not one of NONE, LOW_POS, MEDIUM_POS, HIGH_POS, LOW_NEG, MEDIUM_NEG, HIGH_NEG`},
		{"emotion confidence not string", env(`{"id":"a","type":"IMPACT_EMOTION","confidence":3}`), "config.jcp.confidence: is a number, want a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := jcp.ParseAction([]byte(tt.in))
			if tt.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Nil(t, a, "nothing is half-applied")
			assert.True(t, strings.HasPrefix(err.Error(), "parse JCP action: "), err.Error())
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

func TestParseActionFieldErrorIsInspectable(t *testing.T) {
	_, err := jcp.ParseAction([]byte(env(slim("a", `{"play":{}}`))))
	var fe *jcp.FieldError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "config.jcp.config.play.esml", fe.Path)
	assert.Equal(t, "missing", fe.Reason)
}

// A full SLIM with every field, as §3.1 names them.
func TestParseActionFullSLIM(t *testing.T) {
	in := env(`{
		"id": "0123456789abcdef0123456789abcdef",
		"type": "SLIM",
		"meta": {"k": 1},
		"options": {"displayMode": "START_ON_LISTEN", "futureOption": 1},
		"config": {
			"play": {"id": "p1", "type": "PLAY", "esml": "<speak>Hi &amp; bye</speak>",
				"autoRuleConfig": true, "speakOptions": {"followedByListen": true},
				"meta": {"prompt_id": "X_AN_01", "mim_id": "X", "mim_type": "question", "prompt_sub_category": "Q"}},
			"listen": {"id": "l1", "type": "LISTEN", "contexts": ["shared/yes_no", "globals"], "intents": [{"type": "CANCEL"}]},
			"display": {"id": "d1", "type": "DISPLAY", "name": "PEGASUS_VIEW",
				"view": {"type": "SKILL", "name": "MIM_VIEW", "context": {}}, "layer": 0, "visible": true,
				"keepDisplay": false, "onCancel": [{"type": "HIDE_DISPLAY", "name": "HIDE_MIM_VIEW"}], "overlay": "dim"},
			"unknownPart": {"ignored": true}
		}
	}`)
	a, err := jcp.ParseAction([]byte(in))
	require.NoError(t, err)
	assert.Equal(t, "2.0", a.Version)
	s, ok := a.Behavior.(*jcp.SLIM)
	require.True(t, ok)
	assert.Equal(t, "0123456789abcdef0123456789abcdef", s.ID)
	assert.JSONEq(t, `{"k":1}`, string(s.Meta))
	assert.Equal(t, &jcp.SLIMOptions{DisplayMode: jcp.DisplayStartOnListen}, s.Options)

	require.NotNil(t, s.Play)
	assert.Equal(t, "p1", s.Play.ID)
	assert.Equal(t, "<speak>Hi &amp; bye</speak>", s.Play.ESML)
	assert.Equal(t, "true", string(s.Play.AutoRuleConfig))
	assert.Equal(t, `{"followedByListen":true}`, string(s.Play.SpeakOptions))
	assert.Contains(t, string(s.Play.Meta), `"prompt_id":"X_AN_01"`)

	require.NotNil(t, s.Listen)
	assert.Equal(t, []string{"shared/yes_no", "globals"}, s.Listen.Contexts)
	assert.Equal(t, `[{"type":"CANCEL"}]`, string(s.Listen.Intents))

	d := s.Display
	require.NotNil(t, d)
	assert.Equal(t, "PEGASUS_VIEW", d.Name)
	require.NotNil(t, d.Layer)
	assert.Equal(t, 0, *d.Layer)
	require.NotNil(t, d.Visible)
	assert.True(t, *d.Visible)
	require.NotNil(t, d.KeepDisplay)
	assert.False(t, *d.KeepDisplay)
	assert.Equal(t, jcp.OverlayDim, d.Overlay)
	assert.Equal(t, `[{"type":"HIDE_DISPLAY","name":"HIDE_MIM_VIEW"}]`, string(d.OnCancel))
}

var hexID = regexp.MustCompile(`^[0-9a-f]{32}$`)

// The community cloud sends no envelope type or version and no ids, and
// real robots ran it (spec/jibo.md §3.1: parse leniently).
func TestParseActionLenientEnvelope(t *testing.T) {
	in := `{"config":{"jcp":{"type":"SLIM","config":{"play":{"esml":"<speak><es cat='neutral' filter='!ssa-only, !sfx-only' endNeutral='true'>I heard you.</es></speak>","meta":{"prompt_id":"RUNTIME_PROMPT"}},"gui":{"type":"Javascript"}}}},"extra":1}`
	a, err := jcp.ParseAction([]byte(in))
	require.NoError(t, err)
	assert.Equal(t, jcp.Version, a.Version)
	s := a.Behavior.(*jcp.SLIM)
	assert.Regexp(t, hexID, s.ID, "a missing id is generated")
	assert.Regexp(t, hexID, s.Play.ID)
	assert.NotEqual(t, s.ID, s.Play.ID)

	// Other versions are kept: the robot never acted on the version.
	a, err = jcp.ParseAction([]byte(`{"type":"JCP","config":{"version":"1.0.0","jcp":` + say("a", "hi") + `}}`))
	require.NoError(t, err)
	assert.Equal(t, "1.0.0", a.Version)
}

func TestParseActionNullMeansAbsent(t *testing.T) {
	a, err := jcp.ParseAction([]byte(env(`{"id":"a","type":"SLIM","meta":null,"options":null,"config":{"play":{"esml":"hi","autoRuleConfig":null},"listen":null}}`)))
	require.NoError(t, err)
	s := a.Behavior.(*jcp.SLIM)
	assert.Nil(t, s.Meta)
	assert.Nil(t, s.Options)
	assert.Nil(t, s.Listen)
	assert.Nil(t, s.Play.AutoRuleConfig)
}

func TestParseAllBehaviourTypes(t *testing.T) {
	in := env(`{"id":"root","type":"PARALLEL","succeedOnFirst":true,"children":[
		{"id":"seq","type":"SEQUENCE","children":[` + say("s1", "one") + `]},
		{"id":"spp","type":"SET_PRESENT_PERSON","looperId":"loop-7","source":"USER_OVERRIDE","confidence":100},
		{"id":"emo","type":"IMPACT_EMOTION","valence":"HIGH_POS","confidence":"LOW_NEG"}
	]}`)
	a, err := jcp.ParseAction([]byte(in))
	require.NoError(t, err)
	par := a.Behavior.(*jcp.ParallelBehavior)
	assert.True(t, par.SucceedOnFirst)
	require.Len(t, par.Children, 3)
	assert.Equal(t, jcp.TypeSequence, par.Children[0].BehaviorType())
	assert.Equal(t, &jcp.SetPresentPerson{Base: jcp.Base{ID: "spp"}, LooperID: "loop-7", Source: jcp.SourceUserOverride, Confidence: 100}, par.Children[1])
	assert.Equal(t, &jcp.ImpactEmotion{Base: jcp.Base{ID: "emo"}, Valence: jcp.ImpactHighPos, Confidence: jcp.ImpactLowNeg}, par.Children[2])
}

// Limits are inclusive: exactly MaxDepth levels and MaxBehaviors behaviours
// are accepted.
func TestParseActionAtLimits(t *testing.T) {
	_, err := jcp.ParseAction([]byte(env(nested(jcp.MaxDepth - 1))))
	require.NoError(t, err)
	_, err = jcp.ParseAction([]byte(env(manyChildren(jcp.MaxBehaviors - 1))))
	require.NoError(t, err)
	_, err = jcp.ParseAction([]byte(env(say("a", strings.Repeat("a", jcp.MaxESMLBytes)))))
	require.NoError(t, err)
}

// Canonical JSON: fixed field order, defaults written, absent optionals left
// out; parsing it back gives the same action.
func TestMarshalCanonicalRoundTrip(t *testing.T) {
	in := `{"config":{"jcp":{"children":[
		{"type":"SLIM","id":"s1","config":{"listen":{"contexts":["a/b"],"id":"l1"},"play":{"esml":"Hi <break size='0.5'/> there","id":"p1","meta":{ "b" : 2 }},"display":{"id":"d1","view":{"type":"EYE"},"layer":2}},"options":{"displayMode":"START_ON_PLAY"}},
		{"type":"PARALLEL","id":"par","children":[{"type":"IMPACT_EMOTION","id":"e1","valence":"LOW_POS"},{"type":"SET_PRESENT_PERSON","id":"sp","looperId":"x","source":"VOICE","confidence":12.5}]}
	],"type":"SEQUENCE","id":"seq","meta":{"z":true}}}}`
	want := `{"type":"JCP","config":{"version":"2.0","jcp":{"id":"seq","type":"SEQUENCE","children":[` +
		`{"id":"s1","type":"SLIM","config":{"play":{"id":"p1","type":"PLAY","esml":"Hi \u003cbreak size='0.5'/\u003e there","meta":{"b":2}},` +
		`"listen":{"id":"l1","type":"LISTEN","contexts":["a/b"]},"display":{"id":"d1","type":"DISPLAY","view":{"type":"EYE"},"layer":2}},"options":{"displayMode":"START_ON_PLAY"}},` +
		`{"id":"par","type":"PARALLEL","children":[{"id":"e1","type":"IMPACT_EMOTION","valence":"LOW_POS"},` +
		`{"id":"sp","type":"SET_PRESENT_PERSON","looperId":"x","source":"VOICE","confidence":12.5}],"succeedOnFirst":false}` +
		`],"meta":{"z":true}}}}`
	a, err := jcp.ParseAction([]byte(in))
	require.NoError(t, err)
	out, err := json.Marshal(a)
	require.NoError(t, err)
	assert.Equal(t, want, string(out))

	back, err := jcp.ParseAction(out)
	require.NoError(t, err)
	assert.Equal(t, a, back)
	again, err := json.Marshal(back)
	require.NoError(t, err)
	assert.Equal(t, string(out), string(again))
}

// An Action inside a larger message is parsed just as strictly.
func TestActionUnmarshalJSON(t *testing.T) {
	var msg struct {
		Action *jcp.Action `json:"action"`
	}
	require.NoError(t, json.Unmarshal([]byte(`{"action":`+env(say("a", "hello"))+`}`), &msg))
	assert.Equal(t, "hello", msg.Action.Behavior.(*jcp.SLIM).Play.ESML)

	err := json.Unmarshal([]byte(`{"action":`+env(`{"id":"a","type":"NOPE"}`)+`}`), &msg)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `config.jcp.type: unknown behaviour type "NOPE"`)
}

func TestBuilders(t *testing.T) {
	q := jcp.Question("Ready?", "shared/yes_no")
	a := jcp.NewAction(jcp.Sequence(jcp.Say("Hello."), jcp.Parallel(true, q)))
	require.NoError(t, a.Validate())
	assert.Equal(t, jcp.Version, a.Version)

	seq := a.Behavior.(*jcp.SequenceBehavior)
	ids := map[string]bool{}
	for _, id := range []string{seq.ID, seq.Children[0].BehaviorID(), seq.Children[0].(*jcp.SLIM).Play.ID, q.ID, q.Play.ID, q.Listen.ID, seq.Children[1].BehaviorID()} {
		assert.Regexp(t, hexID, id)
		assert.False(t, ids[id], "ids are unique")
		ids[id] = true
	}
	assert.Equal(t, []string{"shared/yes_no"}, q.Listen.Contexts)
	assert.True(t, seq.Children[1].(*jcp.ParallelBehavior).SucceedOnFirst)
}

// Validate holds actions built in Go to the same rules.
func TestValidateGoBuilt(t *testing.T) {
	dupe := jcp.Say("a")
	tests := []struct {
		name    string
		action  *jcp.Action
		wantErr string
	}{
		{"nil action", nil, "action is nil"},
		{"nil behaviour", jcp.NewAction(nil), "config.jcp: missing"},
		{"typed nil", jcp.NewAction((*jcp.SLIM)(nil)), "config.jcp: missing"},
		{"nil child", jcp.NewAction(jcp.Sequence(jcp.Say("a"), nil)), "config.jcp.children[1]: missing"},
		{"no children", jcp.NewAction(jcp.Parallel(false)), "config.jcp.children: must not be empty"},
		{"bare PLAY", jcp.NewAction(&jcp.Play{Base: jcp.Base{ID: "p"}, ESML: "x"}), "config.jcp.type: PLAY is only allowed inside a SLIM's config"},
		{"missing id", jcp.NewAction(&jcp.ImpactEmotion{}), "config.jcp.id: missing"},
		{"same behaviour twice", jcp.NewAction(jcp.Sequence(dupe, dupe)), "config.jcp.children[1].id: duplicate id"},
		{"bad meta", jcp.NewAction(&jcp.ImpactEmotion{Base: jcp.Base{ID: "e", Meta: json.RawMessage(`{`)}}), "config.jcp.meta: is not valid JSON"},
		{"question without context", jcp.NewAction(jcp.Question("ok?")), "config.listen.contexts: must not be empty"},
		{"bad ESML", jcp.NewAction(jcp.Say("a < b")), "config.play.esml: offset 2: '<' must start a tag"},
		{"bad UTF-8 id", jcp.NewAction(&jcp.ImpactEmotion{Base: jcp.Base{ID: "\xff"}}), "config.jcp.id: is not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.action.Validate()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

func TestFieldErrorWithoutPath(t *testing.T) {
	err := error(&jcp.FieldError{Reason: "bad"})
	assert.Equal(t, "bad", err.Error())
	assert.True(t, errors.As(err, new(*jcp.FieldError)))
}

// Tools take a JCP action or a bare behaviour alike (`jibod protocol check`
// and `jibod jcp run` agree); a bare behaviour's errors name paths from the
// behaviour, and a type that is neither is refused, naming both.
func TestParseActionOrBehavior(t *testing.T) {
	slim := `{"type":"SLIM","id":"s1","config":{"play":{"esml":"Hello."}}}`
	for _, tt := range []struct {
		name, in string
		bare     bool
		err      string
	}{
		{"action", `{"type":"JCP","config":{"version":"2.0","jcp":` + slim + `}}`, false, ""},
		{"action without type", `{"config":{"jcp":` + slim + `}}`, false, ""},
		{"bare SLIM", slim, true, ""},
		{"bare SEQUENCE", `{"type":"SEQUENCE","children":[` + slim + `]}`, true, ""},
		{"bare, bad inside", `{"type":"SLIM","config":{"play":{"esml":5}}}`, true, "config.play.esml"},
		{"bare PLAY", `{"type":"PLAY","esml":"x"}`, true, "PLAY is only allowed inside a SLIM's config"},
		{"bare, member twice", `{"type":"SLIM","type":"SLIM","config":{}}`, true, "type"},
		{"unknown type", `{"type":"SKILL_ACTION","data":{}}`, false,
			`type: is "SKILL_ACTION": want "JCP" (an action, {"type":"JCP","config":{"jcp":…}}) or a behaviour type (SLIM, SEQUENCE, PARALLEL,`},
		{"action, bad inside", `{"type":"JCP","config":{"jcp":{"type":"SLIM","config":{"play":{"esml":5}}}}}`, false, "config.jcp.config.play.esml"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, bare, err := jcp.ParseActionOrBehavior([]byte(tt.in))
			assert.Equal(t, tt.bare, bare)
			if tt.err != "" {
				require.Error(t, err)
				assert.ErrorContains(t, err, tt.err)
				if tt.bare {
					assert.NotContains(t, err.Error(), "config.jcp", "a bare behaviour's paths start at the behaviour")
				}
				return
			}
			require.NoError(t, err)
			assert.NotNil(t, a.Behavior)
		})
	}
}

func TestParseActionOrBehaviorValidationPaths(t *testing.T) {
	_, bare, err := jcp.ParseActionOrBehavior([]byte(`{"type":"SLIM","config":{"play":{"esml":"Hi"},"listen":{"contexts":[]}}}`))
	assert.True(t, bare)
	var fe *jcp.FieldError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "config.listen.contexts", fe.Path)
}
