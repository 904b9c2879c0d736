package peopletool

import (
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/people"
)

func openStore(t *testing.T) *people.Store {
	t.Helper()
	s, err := people.Open(filepath.Join(t.TempDir(), people.FileName), people.Options{Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	return s
}

// TestAddAndList: the first added is the owner; someone called like
// someone else gets a note; the table marks the owner and dashes what is
// not known; JSON lines carry the owner flag.
func TestAddAndList(t *testing.T) {
	s := openStore(t)
	var out, warn strings.Builder
	require.NoError(t, List(&out, s, false))
	assert.Equal(t, "nobody in the loop yet ("+s.Path()+"); 'jibod people add --first NAME' adds someone\n", out.String())

	out.Reset()
	require.NoError(t, Add(&out, &warn, s, people.Member{FirstName: "Ann", LastName: "Lee", Gender: "female"}, false))
	require.NoError(t, Add(&out, &warn, s, people.Member{FirstName: "Ann", Birthdate: "2001-02-03"}, false))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 2)
	assert.Regexp(t, `^added Ann Lee \(\S+, the owner\)$`, lines[0])
	assert.Regexp(t, `^added Ann \(\S+\)$`, lines[1])
	assert.Regexp(t, `^note: Ann Lee \(\S+\) is called that too: said aloud, neither name picks one of them\n$`, warn.String())

	err := Add(&out, &warn, s, people.Member{FirstName: "R2D2"}, false)
	assert.ErrorIs(t, err, people.ErrInvalid, "the store's refusal is returned")

	out.Reset()
	require.NoError(t, List(&out, s, false))
	table := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, table, 3)
	assert.Equal(t, []string{"ID", "NAME", "OWNER", "SAY", "GENDER", "BIRTHDATE"}, strings.Fields(table[0]))
	assert.Equal(t, []string{"Ann", "Lee", "*", "-", "female", "-"}, strings.Fields(table[1])[1:])
	assert.Equal(t, []string{"Ann", "-", "-", "2001-02-03"}, strings.Fields(table[2])[1:])

	out.Reset()
	require.NoError(t, List(&out, s, true))
	jsonLines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, jsonLines, 2)
	assert.Contains(t, jsonLines[0], `"owner":true`)
	assert.Contains(t, jsonLines[1], `"owner":false`)
}
