package invoke

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/jcp"
)

// An action that is invalid where it enters (the invoker, its one parse)
// is refused whole, and the error says exactly what it said when the
// gate and the executor validated it again.
func TestInvalidActionRefusedAtTheBoundary(t *testing.T) {
	const prefix = "skill jibo/timer: invalid response: data.action: parse JCP action: "
	tests := []struct {
		name, action string
		outcome      Outcome
		want         string
	}{
		{"unknown behaviour", `{"type":"JCP","config":{"jcp":{"id":"x","type":"DANCE"}}}`, OutcomeInvalid,
			prefix + `config.jcp.type: unknown behaviour type "DANCE"`},
		{"bad ESML", `{"type":"JCP","config":{"jcp":{"id":"s","type":"SLIM","config":{"play":{"id":"p","esml":"<anim name='nod'>unclosed"}}}}}`,
			OutcomeInvalid, prefix + `config.jcp.config.play.esml: offset 0: <anim> is never closed`},
		{"duplicate id", `{"type":"JCP","config":{"jcp":{"id":"q","type":"SEQUENCE","children":[` +
			`{"id":"a","type":"SLIM","config":{"play":{"id":"p","esml":"one"}}},{"id":"a","type":"SLIM","config":{"play":{"id":"p2","esml":"two"}}}]}}}`,
			OutcomeInvalid, prefix + `config.jcp.children[1].id: duplicate id "a" (first used at config.jcp.children[0])`},
		{"bad view", `{"type":"JCP","config":{"jcp":{"id":"s","type":"SLIM","config":{"display":{"id":"d","view":{"type":"TEXT"}}}}}}`,
			OutcomeInvalid, prefix + `config.jcp.config.display.view: text: missing`},
		{"bad inline animation", `{"type":"JCP","config":{"jcp":{"id":"a","type":"PLAY_ANIMATION","animation":{"data":{"name":"x","tracks":{"topSection_r":[[0,0],[1,5]]}}}}}}`,
			OutcomeInvalid, prefix + `config.jcp.animation.data: parse animation: tracks.topSection_r[1]: angle 5 rad is outside ±3.0543`},
		{"member given twice", `{"type":"JCP","config":{"jcp":{"id":"s","type":"SLIM","config":{"play":{"id":"p","esml":"hi","esml":"<anim>"}}}}}`,
			OutcomeInvalid, prefix + `config.jcp.config.play.esml: member given twice ("esml")`},
		{"valid but forbidden", `{"type":"JCP","config":{"jcp":{"id":"s","type":"SLIM","config":{"play":{"id":"p","esml":"<anim name='nod'/>hi"}}}}}`,
			OutcomeDenied, `skill jibo/timer: no "motion" permission: config.jcp.config.play.esml: <anim name='nod'> at offset 0 may move the body (the gate cannot tell what it animates)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, Config{})
			reply, err := r.iv.Call(context.Background(), manifest(registry.PermSpeech), func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
				return protocol.NewSkillAction(req, protocol.Skill("jibo.timer"), []byte(tt.action), true), nil
			}, launch("set"))
			require.EqualError(t, err, tt.want)
			assert.Equal(t, tt.outcome, OutcomeOf(err))
			assert.Nil(t, reply.Action, "nothing of it reaches the body")
			assert.Equal(t, tt.want, reply.Record.Error)
		})
	}
}

// The invoker hands on the action it parsed as a *jcp.Checked: the gate
// read its ESML from there, and the body runs it as it is
// (jcp.Executor.RunChecked), with no parse of its own.
func TestReplyActionIsChecked(t *testing.T) {
	r := newRig(t, Config{})
	req := launch("time_left")
	reply, err := r.iv.Call(context.Background(), manifest(registry.PermSpeech, registry.PermListen),
		func(context.Context, *protocol.Request) (*protocol.Response, error) {
			return sayResponse(t, req, jcp.Question("Four minutes left. Anything else?", "timer/followup")), nil
		}, req)
	require.NoError(t, err)
	var checked *jcp.Checked = reply.Action
	require.NotNil(t, checked)
	doc, ok := checked.ESML(checked.Behavior.(*jcp.SLIM).Play)
	require.True(t, ok, "the ESML parsed by the one check travels with the action")
	assert.Equal(t, "Four minutes left. Anything else?", doc.Text)

	v := &recordingVoice{}
	ex, err := jcp.NewExecutor(jcp.ExecutorConfig{Voice: v, Logger: quiet})
	require.NoError(t, err)
	res, err := ex.RunChecked(context.Background(), checked, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"Four minutes left. Anything else?"}, v.said)
	require.NotNil(t, res.Listen)
	assert.Equal(t, []string{"timer/followup"}, res.Listen.Contexts)
}

// recordingVoice records what it says, at once.
type recordingVoice struct{ said []string }

func (v *recordingVoice) Say(_ context.Context, text string) error {
	v.said = append(v.said, text)
	return nil
}
