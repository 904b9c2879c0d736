package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/people"
)

var looperID = regexp.MustCompile(`lp-[0-9a-f]{12}`)

// peopleCmd runs `jibod people ARGS --state dir`.
func peopleCmd(t *testing.T, dir string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runCmd(t, append(append([]string{"people"}, args...), "--state", dir)...)
}

func listJSON(t *testing.T, dir string) []map[string]any {
	t.Helper()
	code, out, stderr := peopleCmd(t, dir, "list", "--json")
	require.Equal(t, 0, code, stderr)
	var ms []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
		ms = append(ms, m)
	}
	return ms
}

func TestPeopleCommands(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state") // made by the first command
	code, out, stderr := peopleCmd(t, dir, "list")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "nobody in the loop yet ("+filepath.Join(dir, people.FileName)+"); 'jibod people add --first NAME' adds someone\n", out)
	assert.Empty(t, listJSON(t, dir))

	code, out, stderr = peopleCmd(t, dir, "add", "--first", "Ann", "--last", "Lee", "--gender", "Female", "--birthdate", "2001-02-03")
	require.Equal(t, 0, code, stderr)
	assert.Regexp(t, `^added Ann Lee \(lp-[0-9a-f]{12}, the owner\)\n$`, out, "the first person added is the owner")
	ann := looperID.FindString(out)
	code, out, stderr = peopleCmd(t, dir, "add", "--first", "Mary Jane", "--phonetic", "Mairee Jayn")
	require.Equal(t, 0, code, stderr)
	assert.Regexp(t, `^added Mary Jane \(lp-[0-9a-f]{12}\)\n$`, out)
	mj := looperID.FindString(out)

	code, out, stderr = peopleCmd(t, dir, "list")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "ID               NAME       OWNER  SAY          GENDER  BIRTHDATE\n"+
		ann+"  Ann Lee    *      -            female  2001-02-03\n"+
		mj+"  Mary Jane         Mairee Jayn  -       -\n", out)
	assert.Equal(t, []map[string]any{
		{"id": ann, "firstName": "Ann", "lastName": "Lee", "gender": "female", "birthdate": "2001-02-03", "owner": true},
		{"id": mj, "firstName": "Mary Jane", "phoneticName": "Mairee Jayn", "owner": false},
	}, listJSON(t, dir))

	// --owner makes the new person the owner; a shared first name is
	// allowed, with a note that saying it picks nobody.
	code, out, stderr = peopleCmd(t, dir, "add", "--first", "ann", "--last", "Park", "--owner")
	require.Equal(t, 0, code, stderr)
	assert.Regexp(t, `^added ann Park \(lp-[0-9a-f]{12}, the owner\)\n$`, out)
	annP := looperID.FindString(out)
	assert.Equal(t, "note: Ann Lee ("+ann+") is called that too: said aloud, neither name picks one of them\n", stderr)

	code, _, stderr = peopleCmd(t, dir, "remove", "Ann")
	assert.Equal(t, 1, code)
	assert.Equal(t, `jibod people: removing "Ann": ambiguous: 2 members are called that: Ann Lee (`+ann+`), ann Park (`+annP+`); give the id`+"\n", stderr)
	code, _, stderr = peopleCmd(t, dir, "remove", "ann", "park")
	assert.Equal(t, 1, code, "the owner goes last")
	assert.Contains(t, stderr, "removing ann Park: the owner cannot be removed while others are in the loop: make another member the owner first")

	// A full name need not be quoted; flags may come after it.
	code, out, stderr = runCmd(t, "people", "owner", "Mary", "Jane", "--state", dir)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "Mary Jane ("+mj+") is the owner\n", out)
	code, out, stderr = runCmd(t, "people", "remove", "--state", dir, annP)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "removed ann Park ("+annP+")\n", out)
	code, out, stderr = peopleCmd(t, dir, "remove", "ann")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "removed Ann Lee ("+ann+")\n", out, "the name is unambiguous now")

	ms := listJSON(t, dir)
	require.Len(t, ms, 1)
	assert.Equal(t, mj, ms[0]["id"])
	assert.Equal(t, true, ms[0]["owner"])

	code, _, stderr = peopleCmd(t, dir, "owner", "Zed")
	assert.Equal(t, 1, code)
	assert.Equal(t, "jibod people: making \"Zed\" the owner: not in the loop: nobody has that id or name\n", stderr)
}

func TestPeopleCommandErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		code int
		want string // in standard error
	}{
		{"no command", []string{"people"}, 2, "jibod people: people: missing command"},
		{"unknown command", []string{"people", "invite", "--state", dir}, 2, `people: unknown command "invite"`},
		{"no first name", []string{"people", "add", "--state", dir, "--last", "Lee"}, 2, "--first: a first name is required"},
		{"bad first name", []string{"people", "add", "--state", dir, "--first", "R2D2"}, 2,
			`jibod people: adding R2D2: invalid: first name "R2D2": '2' is not allowed (only letters, spaces, apostrophes and hyphens)`},
		{"bad birthdate", []string{"people", "add", "--state", dir, "--first", "Ann", "--birthdate", "03/02/2001"}, 2,
			`birthdate "03/02/2001": want a date as YYYY-MM-DD`},
		{"unquoted name", []string{"people", "add", "--state", dir, "--first", "Mary", "Jane"}, 2,
			`unexpected argument "Jane" (a name with spaces needs quotes: --first "Mary Jane")`},
		{"unknown flag", []string{"people", "add", "--state", dir, "--first", "Ann", "--nick", "A"}, 2, "flag provided but not defined: -nick"},
		{"remove nobody", []string{"people", "remove", "--state", dir}, 2, "want the id or name of a loop member (see 'jibod people list')"},
		{"list argument", []string{"people", "list", "--state", dir, "everyone"}, 2, `unexpected argument "everyone"`},
		{"no state folder", []string{"people", "list", "--state", "none"}, 2, "--state: the robot keeps its loop only in a state folder"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCmd(t, tc.args...)
			assert.Equal(t, tc.code, code, stderr)
			assert.Contains(t, stderr, tc.want)
		})
	}
	assert.Empty(t, listJSON(t, dir), "nothing was added")

	code, out, _ := runCmd(t, "people", "add", "-h")
	assert.Equal(t, 0, code)
	assert.Empty(t, out)
}

// The loop is full at 32; a bad file is refused by every command and never
// written over.
func TestPeopleCommandLimitsAndBadFile(t *testing.T) {
	dir := t.TempDir()
	for i := range people.MaxMembers {
		code, _, stderr := peopleCmd(t, dir, "add", "--first", "Person", "--last", strings.Repeat("a", i+1))
		require.Equal(t, 0, code, stderr)
	}
	code, _, stderr := peopleCmd(t, dir, "add", "--first", "One", "--last", "Too Many")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "adding One Too Many: the loop is full: 32 members, at most 32")

	path := filepath.Join(dir, people.FileName)
	bad := []byte(`{"version": 1, "members": [}`)
	require.NoError(t, os.WriteFile(path, bad, 0o600))
	for _, args := range [][]string{{"list"}, {"add", "--first", "Ann"}, {"remove", "Person"}, {"owner", "Person"}} {
		code, _, stderr := peopleCmd(t, dir, args...)
		assert.Equal(t, 1, code, args)
		assert.Contains(t, stderr, "jibod people: loop file "+path+": invalid: not a loop file: invalid character '}'", args)
		assert.Contains(t, stderr, "fix it, restore a backup or move it aside", args)
	}
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, bad, b, "the bad file is left as it was")
}

// `jibod loop`, the command's former name and Jibo's word for the people
// it knows, still works.
func TestLoopIsPeople(t *testing.T) {
	dir := t.TempDir()
	code, out, stderr := runCmd(t, "loop", "add", "--first", "Ann", "--state", dir)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "added Ann (lp-")
	code, out, stderr = peopleCmd(t, dir, "list")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "Ann")
}
