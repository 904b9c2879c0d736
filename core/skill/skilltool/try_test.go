package skilltool

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill"
)

// TestOpenTryAndTry: a .mim file plays turn by turn, each answer shown
// with the SLIM it played; a target that is nothing known is an error
// naming the built-in skills; a person at a terminal is prompted.
func TestOpenTryAndTry(t *testing.T) {
	builtins := func() ([]skill.Skill, error) { return fakeSkills(t, twoSkills...), nil }
	mimFile := filepath.Join("..", "..", "..", "examples", "go-skills", "plants", "mims", "AskWatered.mim")
	s, done, err := OpenTry(context.Background(), mimFile, "", builtins)
	require.NoError(t, err)
	defer done()
	var out strings.Builder
	require.NoError(t, Try(context.Background(), s, strings.NewReader("purple\n"), &out, "en-US", false, true))
	assert.True(t, strings.HasPrefix(out.String(), "Say something (an empty line is silence, @FILE sends a request file, Ctrl-D ends).\n"), out.String())
	assert.Contains(t, out.String(), "turn 1: launch \"\": no intent\n  SLIM (AskWatered_QN_01, MIM AskWatered): Did you water the plants today?\n")
	assert.Contains(t, out.String(), "turn 2: answer \"purple\": no intent\n")
	assert.Contains(t, out.String(), "you> ")

	s, _, err = OpenTry(context.Background(), "jibo.timer", "", builtins)
	require.NoError(t, err)
	assert.Equal(t, "jibo/timer", s.Manifest().ID, "a built-in skill by its bus id")
	_, _, err = OpenTry(context.Background(), "nothing", "", builtins)
	assert.EqualError(t, err, `"nothing" is no .mim file, skill package folder or built-in skill (built-in skills: jibo/clock, jibo/timer)`)
	_, _, err = OpenTry(context.Background(), "nothing", "", func() ([]skill.Skill, error) { return nil, errors.New("no skills") })
	assert.EqualError(t, err, "no skills")
}

// RunTry reads what is said from the answers file when given one (no
// prompt: no one is at a terminal), else from In; a missing answers file
// is an error before the skill opens.
func TestRunTry(t *testing.T) {
	builtins := func() ([]skill.Skill, error) { return nil, errors.New("no built-in skill is asked for") }
	mimFile := filepath.Join("..", "..", "..", "examples", "go-skills", "plants", "mims", "AskWatered.mim")
	answers := filepath.Join(t.TempDir(), "answers.txt")
	require.NoError(t, os.WriteFile(answers, []byte("yes\n"), 0o600))
	var out strings.Builder
	require.NoError(t, RunTry(context.Background(), TryConfig{Target: mimFile, Builtins: builtins, Answers: answers,
		In: strings.NewReader("not read\n"), Out: &out, Lang: "en-US"}))
	assert.True(t, strings.HasPrefix(out.String(), "turn 1: launch \"\": no intent\n"), out.String())
	assert.Contains(t, out.String(), "turn 2: answer \"yes\"")
	assert.NotContains(t, out.String(), "not read")
	assert.NotContains(t, out.String(), "you> ")

	out.Reset()
	require.NoError(t, RunTry(context.Background(), TryConfig{Target: mimFile, Builtins: builtins,
		In: strings.NewReader("no\n"), Out: &out, Lang: "en-US", JSON: true}))
	assert.Contains(t, out.String(), `"heard":"no"`)

	err := RunTry(context.Background(), TryConfig{Target: mimFile, Builtins: builtins, Answers: filepath.Join(t.TempDir(), "none.txt"), Out: &out})
	require.ErrorIs(t, err, os.ErrNotExist)
}
