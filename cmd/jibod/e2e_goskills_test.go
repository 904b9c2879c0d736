package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// plantsProgram builds the example Go skill's own program
// (examples/go-skills/plants/cmd/plants) once, beside the test binary of
// jibod.
func plantsProgram(t *testing.T) string {
	t.Helper()
	plantsOnce.Do(func() {
		plantsBin = filepath.Join(filepath.Dir(jibodBin), "plants")
		cmd := exec.CommandContext(context.Background(), "go", "build", "-o", plantsBin, "./examples/go-skills/plants/cmd/plants")
		cmd.Dir = filepath.Join("..", "..")
		var out []byte
		if out, plantsErr = cmd.CombinedOutput(); plantsErr != nil {
			plantsErr = fmt.Errorf("%w: %s", plantsErr, out)
		}
	})
	require.NoError(t, plantsErr)
	return plantsBin
}

var (
	plantsOnce sync.Once
	plantsBin  string
	plantsErr  error
)

// A local Go skill (a GraphSkill whose question is a MIM file naming
// Jibo's shared/yes_no) runs on a stock jibod, its program started with
// --local-skill: no edit of jibod for it. The robot's own skills carry on.
func TestLocalGoSkillOnTheRobot(t *testing.T) {
	prog := plantsProgram(t)
	robot := startJibod(t, t.TempDir(), "--local-skill", prog)
	robot.say(t, "did i water the plants")
	robot.hear(t, "Did you water the plants today?", 30*time.Second)
	robot.say(t, "yes")
	robot.hear(t, "Good. They will be happy.", 30*time.Second)
	robot.say(t, "did i water the plants")
	robot.hear(t, "Did you water the plants today?", 30*time.Second)
	robot.say(t, "nope")
	robot.hear(t, "Then they must be thirsty.", 30*time.Second)
	robot.say(t, "what time is it")
	robot.hearTime(t, 30*time.Second)
	require.NoError(t, robot.in.Close())
	require.NoError(t, robot.cmd.Wait(), "jibod exits cleanly, and stops the skill's program")

	// A program that is no skill is reported; the robot runs on.
	out, stderr, code := runJibod(t, "what time is it\n", "run", "--input", "stdin", "--speak-wpm", "0", "--local-skill", "/bin/false")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "local skill not loaded")
	assert.Contains(t, stderr, "exited before it was ready")
	assert.Regexp(t, clockAnswer, out)
}

// jibod skills try plays a MIM, a built-in graph skill and a local Go
// skill turn by turn from typed answers and request files, showing each
// response, the SLIMs played and the node trace; a MIM whose question
// names no answer rule the robot has is refused at load.
func TestSkillsTry(t *testing.T) {
	mimFile := filepath.Join("..", "..", "examples", "go-skills", "plants", "mims", "AskWatered.mim")
	out, stderr, code := runJibod(t, "purple\n\n\n", "skills", "try", mimFile)
	require.Equal(t, 0, code, stderr)
	for _, want := range []string{
		"turn 1: launch \"\": no intent\n  SLIM (AskWatered_QN_01, MIM AskWatered): Did you water the plants today?\n    listens with shared/yes_no\n",
		"turn 2: answer \"purple\": no intent\n  SLIM (AskWatered_NM_1_01, MIM AskWatered): Sorry, did you water them? Yes or no.",
		"turn 3: answer (silence): no intent\n  SLIM (AskWatered_NI_1_01, MIM AskWatered): Did you water the plants?",
		"-NoMatch-> 2 NM:SL:AskWatered -NoInput-> 3 NI:SL:AskWatered\n",
		"-FinalNoInput->\n  => done\n",
	} {
		assert.Contains(t, out, want)
	}

	// A built-in graph skill, launched by what is said, answered from a
	// file; JSON turns carry the request and the response.
	answers := writeFile(t, "answers.txt", "# the launch, then the answer\nset a timer\nfive minutes\n")
	out, stderr, code = runJibod(t, "", "skills", "try", "--json", "--answers", answers, "jibo/timer")
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 2)
	var turn struct {
		Intent   string         `json:"intent"`
		Entities map[string]any `json:"entities"`
		Request  struct{ Type string }
		Response struct{ Type string }
		SLIMs    []struct{ ESML string }
		Trace    []struct{ Node, Transition string }
		Listen   []string
	}
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &turn))
	assert.Equal(t, "set_timer", turn.Intent)
	assert.Equal(t, "LISTEN_LAUNCH", turn.Request.Type)
	assert.Equal(t, "SKILL_ACTION", turn.Response.Type)
	assert.Equal(t, []string{"jibo.timer/duration"}, turn.Listen)
	assert.Equal(t, "For how long?", turn.SLIMs[0].ESML)
	require.NoError(t, json.Unmarshal([]byte(lines[1]), &turn))
	assert.Equal(t, "duration", turn.Intent)
	assert.Equal(t, map[string]any{"amount": "five"}, turn.Entities)

	// A request file as written: the LISTEN_UPDATE gets the kept session.
	req := writeFile(t, "yes.json", `{"type": "LISTEN_UPDATE", "msgID": "mid-1", "ts": 1, "data": {
		"general": {"lang": "en-US"}, "skill": {"id": "community.plants"},
		"result": {"nlu": {"intent": "yes", "entities": {}, "rules": ["shared/yes_no"]}, "asr": {"text": "yes", "confidence": 1}}}}`)
	out, stderr, code = runJibod(t, "did i water the plants\n@"+req+"\n", "skills", "try", "--local-skill", plantsProgram(t))
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "turn 1: launch \"did i water the plants\": intent plants\n")
	assert.Contains(t, out, "turn 2: answer \"yes\": intent yes\n  SLIM (Watered_AN_01, MIM Watered): Good. They will be happy.\n")
	assert.Contains(t, out, "-Success-> 3 Answered? -True-> 4 AN:SL:Watered")

	// A WebAssembly skill package, its storage kept for the session.
	out, stderr, code = runJibod(t, "remember that the cat is fed\nwhat did i ask you to remember\n", "skills", "try", memoPackage(t))
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "turn 1: launch \"remember that the cat is fed\": intent remember {\"memo\":\"the cat is fed\"}\n")
	assert.Contains(t, out, "I'll remember that the cat is fed.")
	assert.Contains(t, out, "you asked me to remember: the cat is fed.")

	// A question naming a rule the robot does not have is refused at load.
	bad, err := os.ReadFile(mimFile)
	require.NoError(t, err)
	badFile := writeFile(t, "Ask.mim", strings.Replace(string(bad), "shared/yes_no", "shared/yes_nope", 1))
	_, stderr, code = runJibod(t, "", "skills", "try", badFile)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, `its questions: "shared/yes_nope" names no answer rule (the robot's rules: globals/yes_no`)
}
