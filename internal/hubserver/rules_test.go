package hubserver_test

import (
	"context"
	"io"
	"io/fs"
	"net/http"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/hub/wire"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/skillhttp"
	"github.com/openjibo/jibod/internal/hubserver"
)

// ruled is a test skill with answer rules (skill.RuleSkill).
type ruled struct {
	*testSkill
	rules fs.FS
}

func (r ruled) Rules() fs.FS { return r.rules }

func quizRules() fs.FS {
	return fstest.MapFS{
		"answer/en-us/answer.intent":   {Data: []byte("[it is] {answer}\nthe answer is {answer}\n")},
		"answer/en-us/answer.entity":   {Data: []byte("paris\nrome\n")},
		"answer/en-us/end_game.intent": {Data: []byte("stop\n")},
	}
}

// The hub publishes each skill's answer rules in its catalog, in-process
// and HTTP skills alike, and names them "<bus id>/<rule>" as the robot's
// host does, so an answer understood with them on the robot or on the hub
// is the same rule's.
func TestCatalogPublishesAnswerRules(t *testing.T) {
	quiz := ruled{&testSkill{id: "test/quiz", intents: map[string]string{"quiz": "start a quiz"}, handle: say("ok", true)}, quizRules()}
	remote := hubserver.HTTPSkill{Manifest: facts().Manifest(), URL: "http://127.0.0.1:1" + skillhttp.Path,
		Locale: facts().Locale(), Rules: fstest.MapFS{"more/en-us/more.intent": {Data: []byte("one more\n")}}}
	hub, ts := startHub(t, hubOpts{skills: []hubserver.Skill{quiz, counter()}, http: []hubserver.HTTPSkill{remote}})

	resp, err := http.Get(ts.URL + wire.CatalogPath)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	cat, err := wire.DecodeCatalog(body)
	require.NoError(t, err)
	byID := map[string]wire.CatalogSkill{}
	for _, s := range cat.Skills {
		byID[s.ID] = s
	}
	assert.Equal(t, map[string]map[string]map[string]string{"answer": {"en-us": {
		"answer.intent":   "[it is] {answer}\nthe answer is {answer}\n",
		"answer.entity":   "paris\nrome\n",
		"end_game.intent": "stop\n",
	}}}, byID["test/quiz"].Rules)
	assert.Equal(t, "one more\n", byID["test/facts"].Rules["more"]["en-us"]["more.intent"], "an HTTP skill's rules too")
	assert.Nil(t, byID["test/counter"].Rules, "a skill without rules has none")

	var listed []string
	for _, si := range hub.Skills() {
		listed = append(listed, si.Rules...)
	}
	assert.Equal(t, []string{"test.facts/more", "test.quiz/answer"}, listed, "rules are named by bus id")
}

// An answer sent as CLIENT_ASR with the question's bus-id-named rule is
// understood by the hub with that rule.
func TestHubUnderstandsAnswerWithBusIDRule(t *testing.T) {
	nlus := make(chan *protocol.NLUResult, 1)
	quiz := ruled{&testSkill{id: "test/quiz", intents: map[string]string{"quiz": "start a quiz"}}, quizRules()}
	quiz.handle = func(ctx context.Context, req *protocol.Request) (*protocol.Response, error) {
		if req.Type == protocol.TypeListenUpdate {
			nlus <- req.Data.Result.NLU
		}
		return say("ok", req.Type == protocol.TypeListenUpdate)(ctx, req)
	}
	_, ts := startHub(t, hubOpts{skills: []hubserver.Skill{quiz}})
	r := dial(t, ts, hubserver.PathListen, wire.JSON, nil)
	r.listenNLU("tid-1", "quiz", []string{"launch"}, nil)
	got := r.untilFinal()
	stored := got[len(got)-1].Action.Skill

	r.listenASR("tid-2", "it is paris", []string{"test.quiz/answer"}, false, &stored)
	got = r.untilFinal()
	require.Equal(t, []string{"SOS", "EOS", "LISTEN", "SKILL_ACTION"}, types(got))
	gotNLU := <-nlus
	require.NotNil(t, gotNLU)
	assert.Equal(t, "answer", gotNLU.IntentName())
	assert.Equal(t, "paris", gotNLU.Entities["answer"])
	assert.Equal(t, []string{"test.quiz/answer"}, gotNLU.Rules)
}
