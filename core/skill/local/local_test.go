package local_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/local"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/jcp"
)

const manifest = `{"id": "acme/hello", "version": "1.0.0", "name": "Hello", "description": "Says hello.",
	"permissions": ["speech", "listen"], "safety_level": "low"}`

func files(extra map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{
		"manifest.json":             {Data: []byte(manifest)},
		"locale/en-us/hello.intent": {Data: []byte("say hello [to {name}]\n")},
		"locale/en-us/hi.dialog":    {Data: []byte("Hello, {name} & co.\n")},
	}
	for k, v := range extra {
		if v == "" {
			delete(fsys, k)
			continue
		}
		fsys[k] = &fstest.MapFile{Data: []byte(v)}
	}
	return fsys
}

// A BaseSkill handler, with its manifest, locale and dialogs checked at
// load: the handler renders a dialog and answers through BaseSkill's
// checks.
func TestBaseSkill(t *testing.T) {
	k, err := local.Load(files(nil), local.Options{})
	require.NoError(t, err)
	s, err := k.Base(func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
		text, err := k.Render(req.Data.General.Lang, "hi", map[string]string{"name": req.Data.Result.NLU.Entities["name"].(string)})
		if err != nil {
			return nil, err
		}
		return local.Say(req, text)
	})
	require.NoError(t, err)
	assert.Equal(t, "acme/hello", s.Manifest().ID)
	assert.NotNil(t, s.Locale())
	assert.Nil(t, s.Rules())
	assert.Nil(t, s.Graph())

	req := protocol.NewListenLaunch(protocol.Context{General: protocol.GeneralData{AccountID: "a", RobotID: "r", Lang: "en-US"},
		Skill: protocol.Skill("acme.hello")}, protocol.NLUFromSlots("hello", map[string]string{"name": "Sam"}, nil),
		protocol.ASRResult{Text: "say hello to sam"}, nil)
	resp, err := s.Handle(context.Background(), req)
	require.NoError(t, err)
	require.Equal(t, protocol.TypeSkillAction, resp.Type, "%+v", resp.Error)
	a, err := jcp.ParseAction(resp.Action.Action)
	require.NoError(t, err)
	assert.Equal(t, "Hello, Sam &amp; co.", a.Behavior.(*jcp.SLIM).Play.ESML, "plain dialog text, escaped for ESML")
}

// What does not check fails the load, naming the file.
func TestLoadRefuses(t *testing.T) {
	for _, tt := range []struct {
		name  string
		extra map[string]string
		want  string
	}{
		{"no manifest", map[string]string{"manifest.json": ""}, "manifest.json"},
		{"manifest with an unknown member", map[string]string{"manifest.json": `{"id": "acme/hello", "colour": "red"}`}, "colour"},
		{"dialog lines naming different slots", map[string]string{"locale/en-us/hi.dialog": "Hello, {name}.\nHi, {who}.\n"}, "GRM-16"},
		{"MIM that does not parse", map[string]string{"mims/Ask.mim": `{"mim_type": "question"`}, "Ask.mim"},
		{"question without a rule", map[string]string{"mims/Ask.mim": `{"mim_type": "question", "rule_name": "", "prompts": [
			{"prompt_category": "Entry-Core", "prompt_sub_category": "Q", "prompt": "Ready?"}]}`}, "mims/Ask.mim: rule_name: a question needs the NLU rule to listen with"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := local.Load(files(tt.extra), local.Options{})
			require.Error(t, err)
			assert.ErrorContains(t, err, tt.want)
		})
	}
	_, err := local.Load(files(nil), local.Options{RequiredContext: map[string][]string{"bye": {"k"}}})
	assert.ErrorContains(t, err, `context for intent "bye", which no .intent file defines`)
}

// The rules a skill's MIMs ask with are what the host checks when it adds
// the skill.
func TestListenRules(t *testing.T) {
	k, err := local.Load(files(map[string]string{
		"mims/Ask.mim":   `{"mim_type": "question", "rule_name": "shared/yes_no", "prompts": [{"prompt_category": "Entry-Core", "prompt_sub_category": "Q", "prompt": "Ready?"}]}`,
		"mims/Again.mim": `{"mim_type": "question", "rule_name": "shared/yes_no", "prompts": [{"prompt_category": "Entry-Core", "prompt_sub_category": "Q", "prompt": "Again?"}]}`,
		"mims/Done.mim":  `{"mim_type": "announcement", "rule_name": "", "prompts": [{"prompt_category": "Entry-Core", "prompt_sub_category": "AN", "prompt": "Done."}]}`,
	}), local.Options{})
	require.NoError(t, err)
	s, err := k.Base(func(context.Context, *protocol.Request) (*protocol.Response, error) { return nil, nil })
	require.NoError(t, err)
	assert.Equal(t, []string{"shared/yes_no"}, s.ListenRules())
	assert.Equal(t, []string{"Again", "Ask", "Done"}, k.MIMs().IDs())
}

// plantsProgram builds the example's own program (examples/go-skills/plants/cmd/plants).
func plantsProgram(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "plants")
	cmd := exec.Command("go", "build", "-o", out, "./cmd/plants")
	cmd.Dir = filepath.Join("..", "..", "..", "examples", "go-skills", "plants")
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", b)
	return out
}

// A local skill in a program of its own: the robot starts it, reads what
// it needs to host it, sends it requests over its socket, and stops it.
func TestProcess(t *testing.T) {
	ctx := context.Background()
	p, err := local.StartProcess(ctx, plantsProgram(t), local.ProcessConfig{})
	require.NoError(t, err)
	assert.Equal(t, "community/plants", p.Manifest().ID)
	assert.Equal(t, []string{"shared/yes_no"}, p.ListenRules())
	assert.Equal(t, "QN:SL:AskWatered", p.NodeNames()[0])
	_, err = p.Locale().Open("en-us/plants.intent")
	require.NoError(t, err)

	req := protocol.NewListenLaunch(protocol.Context{General: protocol.GeneralData{AccountID: "a", RobotID: "r", Lang: "en-US"},
		Skill: protocol.Skill("community.plants")}, protocol.NLUFromSlots("plants", nil, nil), protocol.ASRResult{Text: "did i water the plants"}, nil)
	resp, err := p.Handle(ctx, req)
	require.NoError(t, err)
	require.Equal(t, protocol.TypeSkillAction, resp.Type)
	a, err := jcp.ParseAction(resp.Action.Action)
	require.NoError(t, err)
	assert.Equal(t, "Did you water the plants today?", a.Behavior.(*jcp.SLIM).Play.ESML)

	require.NoError(t, p.Close(ctx))
	_, err = p.Handle(ctx, req)
	assert.ErrorContains(t, err, "its program has ended")
}

// A program that is not a local skill is reported and left out.
func TestProcessThatFails(t *testing.T) {
	ctx := context.Background()
	_, err := local.StartProcess(ctx, "/bin/false", local.ProcessConfig{})
	assert.ErrorContains(t, err, "local skill /bin/false: exited before it was ready")
	_, err = local.StartProcess(ctx, filepath.Join(t.TempDir(), "missing"), local.ProcessConfig{})
	assert.ErrorContains(t, err, "no such file")

	// Run by hand, a skill's program says how it is meant to be run.
	cmd := exec.Command(plantsProgram(t))
	cmd.Env = append(os.Environ(), local.SocketEnv+"=")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, 2, ee.ExitCode())
	assert.Contains(t, string(out), "is a jibod skill: run it with `jibod run --local-skill")
}
