package try_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/local"
	"github.com/openjibo/jibod/core/skill/mim"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/try"
)

const ask = `{"mim_type": "question", "rule_name": "shared/yes_no", "prompts": [
	{"prompt_category": "Entry-Core", "prompt_sub_category": "Q", "prompt": "Tea?", "prompt_id": "Tea_QN_01"},
	{"prompt_category": "Errors", "prompt_sub_category": "NM", "index": 1, "prompt": "Tea, yes or no?"}]}`

func mimSkill(t *testing.T, text string) *try.MIMSkill {
	t.Helper()
	m, err := mim.Parse([]byte(text), "Tea.mim")
	require.NoError(t, err)
	s, err := try.NewMIMSkill(m)
	require.NoError(t, err)
	return s
}

// A MIM played from lines: the launch before the first line, answers
// understood with the MIM's rule (Jibo's shared/yes_no), each turn shown.
func TestRunMIM(t *testing.T) {
	p, err := try.New(try.Config{Skill: mimSkill(t, ask)})
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, try.Run(context.Background(), p, strings.NewReader("# a comment\nmaybe\nyes please\n"), &out, try.RunOptions{}))
	assert.Equal(t, `turn 1: launch "": no intent
  SLIM (Tea_QN_01, MIM Tea): Tea?
    listens with shared/yes_no
  trace: 0 Router:Tea -Question-> 1 QN:SL:Tea
  => asks, listening with shared/yes_no
turn 2: answer "maybe": no intent
  SLIM (MIM Tea): Tea, yes or no?
    listens with shared/yes_no
  trace: 0 Router:Tea -Question-> 1 QN:SL:Tea -NoMatch-> 2 NM:SL:Tea
  => asks, listening with shared/yes_no
turn 3: answer "yes please": intent yes
  trace: 0 Router:Tea -Question-> 1 QN:SL:Tea -NoMatch-> 2 NM:SL:Tea -Success->
  => done
`, out.String())
}

// A question naming no rule the robot has is refused before anything plays.
func TestUnknownRuleIsRefused(t *testing.T) {
	_, err := try.New(try.Config{Skill: mimSkill(t, strings.Replace(ask, "shared/yes_no", "tea/yes_no", 1))})
	require.Error(t, err)
	assert.ErrorContains(t, err, `its questions: "tea/yes_no" names no answer rule`)
}

// A skill with intents launches from what is said; what none of its
// intents understands is said to be so, and the run goes on; request
// files go as written, with the kept session.
func TestRunSkill(t *testing.T) {
	k, err := local.Load(fstest.MapFS{
		"manifest.json":             {Data: []byte(`{"id": "acme/tea", "version": "1.0.0", "name": "Tea", "description": "Offers tea.", "permissions": ["speech", "listen"], "safety_level": "low"}`)},
		"locale/en-us/offer.intent": {Data: []byte("offer me [some] tea\n")},
		"mims/Tea.mim":              {Data: []byte(ask)},
	}, local.Options{})
	require.NoError(t, err)
	s, err := k.Base(func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
		if req.Type == protocol.TypeListenUpdate {
			return local.Say(req, "You said "+req.Data.Result.NLU.IntentName()+".")
		}
		return nil, errors.New("not this way")
	})
	require.NoError(t, err)
	p, err := try.New(try.Config{Skill: s})
	require.NoError(t, err)
	var out bytes.Buffer
	err = try.Run(context.Background(), p, strings.NewReader("make coffee\noffer me tea\n"), &out, try.RunOptions{JSON: true})
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 2)
	assert.JSONEq(t, `{"heard":"make coffee","error":"\"make coffee\": none of the skill's intents understands it (intents: offer)"}`, lines[0])
	var turn try.Turn
	require.NoError(t, json.Unmarshal([]byte(lines[1]), &turn))
	assert.Equal(t, "offer", turn.Intent)
	assert.Contains(t, turn.Error, "not this way", "an ERROR response is shown, not hidden")

	req, err := protocol.DecodeRequest([]byte(`{"type": "LISTEN_UPDATE", "msgID": "m", "ts": 1, "data": {"general": {"lang": "en-US"},
		"skill": {"id": "acme.tea"}, "result": {"nlu": {"intent": "no", "entities": {}, "rules": []}, "asr": {"text": "no", "confidence": 1}}}}`))
	require.NoError(t, err)
	turn2, err := p.Send(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, "You said no.", turn2.SLIMs[0].ESML)
	other := protocol.NewListenLaunch(protocol.Context{Skill: protocol.Skill("other.skill")}, protocol.NLUFromSlots("offer", nil, nil),
		protocol.ASRResult{Text: "x"}, nil)
	_, err = p.Send(context.Background(), other)
	assert.ErrorContains(t, err, `the request is for skill "other.skill", not acme.tea`)
}
