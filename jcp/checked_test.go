package jcp_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/jcp"
)

// A checked action keeps what its one validation parsed, for the gate and
// the executor to read: each PLAY's ESML, each DISPLAY's view, each inline
// animation; nothing for behaviours that are not its own.
func TestCheckedKeepsWhatValidationParsed(t *testing.T) {
	c, err := jcp.ParseChecked([]byte(env(`{"id":"q","type":"SEQUENCE","children":[
		{"id":"s","type":"SLIM","config":{"play":{"id":"p","esml":"Hello <anim name='nod'/> there"},
			"display":{"id":"d","view":{"type":"TEXT","text":"Hi"}}}},
		{"id":"a","type":"PLAY_ANIMATION","animation":{"data":{"name":"x","tracks":{"topSection_r":[[0,0],[1,0.5]]}}}},
		{"id":"u","type":"PLAY_ANIMATION","animation":{"url":"nod"}}]}`)))
	require.NoError(t, err)
	seq := c.Behavior.(*jcp.SequenceBehavior)
	s := seq.Children[0].(*jcp.SLIM)

	doc, ok := c.ESML(s.Play)
	require.True(t, ok)
	assert.Equal(t, "Hello there", doc.Text)
	require.Len(t, doc.Tags, 1)
	assert.Equal(t, "anim", doc.Tags[0].Name)

	view, ok := c.View(s.Display)
	require.True(t, ok)
	assert.Equal(t, jcp.View{Kind: jcp.ViewText, Text: "Hi"}, view)

	anim, ok := c.InlineAnimation(seq.Children[1].(*jcp.PlayAnimation))
	require.True(t, ok)
	assert.Equal(t, "x", anim.Name)
	_, ok = c.InlineAnimation(seq.Children[2].(*jcp.PlayAnimation))
	assert.False(t, ok, "an animation named by url is the library's, not parsed here")

	_, ok = c.ESML(jcp.Say("Hello there").Play)
	assert.False(t, ok, "a PLAY of another action")
}

// Check refuses exactly what Validate refuses, with the same error, and
// Run, which checks an action built in Go once, says it in the same words
// as before.
func TestCheckSameErrorsAsValidate(t *testing.T) {
	tests := []struct {
		name string
		a    *jcp.Action
		want string
	}{
		{"nil", nil, "action is nil"},
		{"hole", jcp.NewAction(&jcp.SequenceBehavior{Base: jcp.Base{ID: "q"}, Children: []jcp.Behavior{nil}}),
			"config.jcp.children[0]: missing"},
		{"no id", &jcp.Action{Behavior: &jcp.SLIM{Play: &jcp.Play{Base: jcp.Base{ID: "p"}, ESML: "hi"}}}, "config.jcp.id: missing"},
		{"bad ESML", jcp.NewAction(jcp.Say("<anim name='nod'>unclosed")),
			"config.jcp.config.play.esml: offset 0: <anim> is never closed"},
		{"bad view", jcp.NewAction(&jcp.SLIM{Base: jcp.Base{ID: "s"}, Display: &jcp.Display{Base: jcp.Base{ID: "d"},
			View: json.RawMessage(`{"type":"HOLOGRAM"}`)}}), `config.jcp.config.display.view: type: unknown view type "HOLOGRAM"`},
	}
	ex := newExecutor(t, jcp.ExecutorConfig{Voice: &fakeVoice{}})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := jcp.Check(tt.a)
			require.Error(t, err)
			assert.Nil(t, c)
			assert.Contains(t, err.Error(), tt.want)
			assert.EqualError(t, err, tt.a.Validate().Error(), "the same error as Validate")
			res, err := ex.Run(context.Background(), tt.a)
			assert.Nil(t, res, "nothing ran")
			assert.EqualError(t, err, "run JCP action: "+tt.a.Validate().Error())
		})
	}
}

// ParseChecked and ParseCheckedOrBehavior refuse what ParseAction and
// ParseActionOrBehavior refuse, with the same errors.
func TestParseCheckedSameErrorsAsParseAction(t *testing.T) {
	for _, in := range []string{
		`[]`,
		`{"type":"JCP","config":{"jcp":{"id":"x","type":"DANCE"}}}`,
		env(say("s", "<anim>")),
		env(`{"id":"s","type":"SLIM","config":{"display":{"id":"d","view":{"type":"TEXT"}}}}`),
		`{"type":"SLIM","id":"s","config":{}}`,
		`{"type":"HUG"}`,
	} {
		t.Run(in, func(t *testing.T) {
			_, perr := jcp.ParseAction([]byte(in))
			c, err := jcp.ParseChecked([]byte(in))
			require.Error(t, err)
			assert.Nil(t, c)
			assert.EqualError(t, err, perr.Error())

			_, pbare, perr := jcp.ParseActionOrBehavior([]byte(in))
			c, bare, err := jcp.ParseCheckedOrBehavior([]byte(in))
			require.Error(t, err)
			assert.Nil(t, c)
			assert.Equal(t, pbare, bare)
			assert.EqualError(t, err, perr.Error())
		})
	}
}

// The executor takes a checked action and does not parse or validate it
// again: it plays the ESML its check parsed, even when the text was
// changed since (which the Checked contract forbids, and which is how the
// single parse shows).
func TestRunCheckedRunsWhatWasChecked(t *testing.T) {
	c, err := jcp.ParseChecked([]byte(env(say("s", "Checked words."))))
	require.NoError(t, err)
	c.Behavior.(*jcp.SLIM).Play.ESML = "<anim>never parsed"
	v := &fakeVoice{}
	res, err := newExecutor(t, jcp.ExecutorConfig{Voice: v}).RunChecked(context.Background(), c, nil)
	require.NoError(t, err)
	assert.Equal(t, jcp.StatusSucceeded, res.Status)
	assert.Equal(t, []string{"Checked words."}, v.said)

	_, err = newExecutor(t, jcp.ExecutorConfig{Voice: v}).RunChecked(context.Background(), nil, nil)
	assert.EqualError(t, err, "run JCP action: action is nil")
	forged := &jcp.Checked{Action: jcp.NewAction(jcp.Say("<anim>"))}
	res, err = newExecutor(t, jcp.ExecutorConfig{Voice: v}).RunChecked(context.Background(), forged, nil)
	assert.Nil(t, res, "nothing ran")
	assert.EqualError(t, err, "run JCP action: not checked (make it with Check or ParseChecked)")
}

// A Checked decoded from JSON is parsed and checked like any other.
func TestCheckedUnmarshalJSON(t *testing.T) {
	var msg struct {
		Action jcp.Checked `json:"action"`
	}
	require.NoError(t, json.Unmarshal([]byte(`{"action":`+env(say("s", "Hi <break size='1'/> you"))+`}`), &msg))
	doc, ok := msg.Action.ESML(msg.Action.Behavior.(*jcp.SLIM).Play)
	require.True(t, ok)
	assert.Equal(t, "Hi you", doc.Text)

	bad := env(say("s", "<anim>"))
	_, want := jcp.ParseChecked([]byte(bad))
	err := json.Unmarshal([]byte(`{"action":`+bad+`}`), &msg)
	assert.EqualError(t, err, want.Error())
}
