package people

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/protocol"
)

// testNow is 2026-05-01 09:00 UTC.
var testNow = time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)

func testOptions() Options {
	return Options{Now: func() time.Time { return testNow }, Location: time.UTC, Logger: slog.New(slog.DiscardHandler)}
}

// open opens the loop file in a new folder (or dir, when given).
func open(t *testing.T, dir ...string) *Store {
	t.Helper()
	d := t.TempDir()
	if len(dir) > 0 {
		d = dir[0]
	}
	s, err := Open(filepath.Join(d, FileName), testOptions())
	require.NoError(t, err)
	return s
}

func readBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

// leftovers are the files of dir other than the loop file and its lock.
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		if e.Name() != FileName && e.Name() != FileName+".lock" {
			out = append(out, e.Name())
		}
	}
	return out
}

func TestOpenMakesTheFileOnce(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	path := filepath.Join(dir, FileName)
	assert.Equal(t, path, s.Path())
	l := s.Loop()
	assert.Empty(t, l.Users)
	assert.NotNil(t, l.Users, "no members is an empty list")
	assert.Empty(t, l.Owner)
	assert.Regexp(t, `^jibo-[0-9a-f]{12}$`, l.Jibo.ID)
	assert.Regexp(t, `^loop-[0-9a-f]{12}$`, l.LoopID)
	assert.Equal(t, time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC).UnixMilli(), l.Jibo.Birthdate, "born the day the loop was made")

	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	var f map[string]any
	require.NoError(t, json.Unmarshal(readBytes(t, path), &f))
	assert.Equal(t, []any{}, f["members"])

	// The identity is kept: made once.
	again := open(t, dir)
	assert.Equal(t, l.Jibo.ID, again.Loop().Jibo.ID)
	assert.Equal(t, l.LoopID, again.Loop().LoopID)
	assert.Empty(t, leftovers(t, dir))
}

func TestOpenInAFolderThatIsNot(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "missing", FileName), testOptions())
	require.Error(t, err)
	assert.ErrorContains(t, err, "making the loop file")
	require.NotNil(t, s, "the store is usable")
	assert.Empty(t, s.Loop().Users)
	assert.NotEmpty(t, s.Loop().Jibo.ID)
}

func TestAddOwnerAndLooperInfo(t *testing.T) {
	s := open(t)
	ann, err := s.Add(Member{FirstName: "  Ann ", LastName: "Lee", Gender: "Female", Birthdate: "2001-02-03"}, false)
	require.NoError(t, err)
	assert.Regexp(t, `^lp-[0-9a-f]{12}$`, ann.ID)
	assert.Equal(t, Member{ID: ann.ID, FirstName: "Ann", LastName: "Lee", Gender: "female", Birthdate: "2001-02-03"}, ann, "kept normalised")
	cleo, err := s.Add(Member{FirstName: "Cleo", PhoneticName: "Klee oh"}, false)
	require.NoError(t, err)
	assert.NotEqual(t, ann.ID, cleo.ID)

	l := s.Loop()
	assert.Equal(t, ann.ID, l.Owner, "the first member added is the owner")
	require.Len(t, l.Users, 2)
	assert.Equal(t, protocol.LooperInfo{FirstName: "Ann", LastName: "Lee", Gender: "female",
		Birthdate: time.Date(2001, 2, 3, 12, 0, 0, 0, time.UTC).UnixMilli(), ID: ann.ID}, l.Users[0])
	assert.Equal(t, protocol.LooperInfo{FirstName: "Cleo", PhoneticName: "Klee oh", ID: cleo.ID}, l.Users[1])

	dana, err := s.Add(Member{FirstName: "Dana"}, true)
	require.NoError(t, err)
	assert.Equal(t, dana.ID, s.Loop().Owner, "owner makes the new member the owner")

	// A deep copy: changing it changes nothing kept.
	l = s.Loop()
	l.Users[0].FirstName = "Zed"
	assert.Equal(t, "Ann", s.Loop().Users[0].FirstName)

	// Another store of the file sees the same loop.
	other, err := Open(s.Path(), testOptions())
	require.NoError(t, err)
	assert.Equal(t, s.Loop(), other.Loop())
}

func TestAddRefusesABadMember(t *testing.T) {
	long := strings.Repeat("a", MaxNameBytes+1)
	tests := []struct {
		name string
		m    Member
		want string
	}{
		{"no first name", Member{LastName: "Lee"}, "a first name is required"},
		{"blank first name", Member{FirstName: "   "}, "a first name is required"},
		{"digits", Member{FirstName: "Ann3"}, `first name "Ann3": '3' is not allowed (only letters, spaces, apostrophes and hyphens)`},
		{"punctuation", Member{FirstName: "Ann!"}, `'!' is not allowed`},
		{"control", Member{FirstName: "An\x00n"}, `'\x00' is not allowed`},
		{"no letter", Member{FirstName: "'-'"}, `first name "'-'" has no letter`},
		{"too long", Member{FirstName: long}, "is 65 bytes, more than 64"},
		{"long last name", Member{FirstName: "Ann", LastName: long}, "last name"},
		{"bad phonetic name", Member{FirstName: "Ann", PhoneticName: "an/n"}, `phonetic name "an/n"`},
		{"long gender", Member{FirstName: "Ann", Gender: strings.Repeat("x", MaxGenderBytes+1)}, "gender"},
		{"control in gender", Member{FirstName: "Ann", Gender: "f\x07"}, "is not printable"},
		{"birthdate shape", Member{FirstName: "Ann", Birthdate: "3/2/2001"}, `birthdate "3/2/2001": want a date as YYYY-MM-DD`},
		{"birthdate unpadded", Member{FirstName: "Ann", Birthdate: "2001-2-3"}, "want a date as YYYY-MM-DD"},
		{"no such day", Member{FirstName: "Ann", Birthdate: "2001-02-30"}, "want a date as YYYY-MM-DD"},
		{"born tomorrow", Member{FirstName: "Ann", Birthdate: "2026-05-02"}, "want a day from 1900 to today (2026-05-01)"},
		{"born too long ago", Member{FirstName: "Ann", Birthdate: "1899-12-31"}, "want a day from 1900"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := open(t)
			before := readBytes(t, s.Path())
			_, err := s.Add(tc.m, false)
			require.ErrorIs(t, err, ErrInvalid)
			assert.ErrorContains(t, err, tc.want)
			assert.Equal(t, before, readBytes(t, s.Path()), "nothing written")
			assert.Empty(t, s.Loop().Users)
		})
	}
}

func TestNamesTheRulesAllow(t *testing.T) {
	s := open(t)
	for _, name := range []string{"Ann", "Mary Jane", "Mary-Jane", "O'Brien", "D’Angelo", "Zoë", "José", "Łucja", "李", "Anne  Marie"} {
		m, err := s.Add(Member{FirstName: name}, false)
		require.NoError(t, err, name)
		assert.NotContains(t, m.FirstName, "  ", "single-spaced")
	}
}

func TestTheLoopIsBounded(t *testing.T) {
	s := open(t)
	for i := range MaxMembers {
		_, err := s.Add(Member{FirstName: "Person " + strings.Repeat("a", i+1)}, false)
		require.NoError(t, err)
	}
	before := readBytes(t, s.Path())
	_, err := s.Add(Member{FirstName: "One More"}, false)
	require.ErrorIs(t, err, ErrFull)
	assert.ErrorContains(t, err, "32 members, at most 32")
	assert.Equal(t, before, readBytes(t, s.Path()))
	assert.Len(t, s.Loop().Users, MaxMembers)
}

func TestRemoveAndOwner(t *testing.T) {
	s := open(t)
	ann, _ := s.Add(Member{FirstName: "Ann", LastName: "Lee"}, false)
	annP, _ := s.Add(Member{FirstName: "Ann", LastName: "Park"}, false)
	bo, _ := s.Add(Member{FirstName: "Bo", LastName: "O'Neil"}, false)

	tests := []struct {
		name, ref string
		want      string // the member's id, or the error
		err       error
	}{
		{"by id", bo.ID, bo.ID, nil},
		{"by first name", "bo", bo.ID, nil},
		{"by full name, as spoken", "bo oneil", bo.ID, nil},
		{"by full name", "Ann Park", annP.ID, nil},
		{"ambiguous", "ann", "2 members are called that: Ann Lee (" + ann.ID + "), Ann Park (" + annP.ID + "); give the id", ErrAmbiguous},
		{"nobody", "Zed", "nobody has that id or name", ErrNotFound},
		{"empty", "", "nobody has that id or name", ErrNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := s.Find(tc.ref)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				assert.ErrorContains(t, err, tc.want)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, m.ID)
		})
	}

	// The owner goes last.
	_, err := s.Remove(ann.ID)
	require.ErrorIs(t, err, ErrOwner)
	assert.ErrorContains(t, err, "removing Ann Lee: the owner cannot be removed while others are in the loop: make another member the owner first")
	owner, err := s.SetOwner("ann park")
	require.NoError(t, err)
	assert.Equal(t, annP.ID, owner.ID)
	gone, err := s.Remove("Ann Lee")
	require.NoError(t, err)
	assert.Equal(t, ann.ID, gone.ID)
	_, err = s.SetOwner("ann lee")
	require.ErrorIs(t, err, ErrNotFound)

	_, err = s.Remove(bo.ID)
	require.NoError(t, err)
	_, err = s.Remove("ann")
	require.NoError(t, err, "the owner, last")
	l := s.Loop()
	assert.Empty(t, l.Users)
	assert.Empty(t, l.Owner)
	assert.NotEmpty(t, l.Jibo.ID, "the robot keeps its identity")
}

// validFile is a good loop file with Ann (owner) and Cleo; edit changes
// its decoded form before it is written back.
func validFile(t *testing.T, edit func(m map[string]any)) []byte {
	t.Helper()
	m := map[string]any{
		"version": 1, "loopId": "loop-1", "jibo": map[string]any{"id": "jibo-1", "color": "WHITE", "birthdate": "2025-12-24"},
		"owner": "u-ann",
		"members": []any{
			map[string]any{"id": "u-ann", "firstName": "Ann", "lastName": "Lee", "birthdate": "2001-02-03"},
			map[string]any{"id": "u-cleo", "firstName": "Cleo", "gender": "female"},
		},
	}
	if edit != nil {
		edit(m)
	}
	b, err := json.Marshal(m)
	require.NoError(t, err)
	return b
}

func member(m map[string]any, i int) map[string]any { return m["members"].([]any)[i].(map[string]any) }

func TestABadFileIsNamedAndLeftAlone(t *testing.T) {
	many := func(m map[string]any) {
		var ms []any
		for i := range MaxMembers + 1 {
			ms = append(ms, map[string]any{"id": fmt.Sprintf("u-%d", i), "firstName": "Ann"})
		}
		m["members"], m["owner"] = ms, "u-0"
	}
	tests := []struct {
		name    string
		content []byte
		want    string
	}{
		{"empty", []byte{}, "not a loop file: EOF"},
		{"not JSON", []byte("members: Ann\n"), "not a loop file: invalid character"},
		{"cut short", validFile(t, nil)[:40], "not a loop file: unexpected EOF"},
		{"two loops", append(validFile(t, nil), validFile(t, nil)...), "data after the loop"},
		{"unknown member", validFile(t, func(m map[string]any) { m["pets"] = []any{"Rex"} }), `unknown field "pets"`},
		{"mistyped member field", validFile(t, func(m map[string]any) { member(m, 0)["first_name"] = "Ann" }), `unknown field "first_name"`},
		{"newer format", validFile(t, func(m map[string]any) { m["version"] = 2 }), "format version 2 is from a newer jibod; this one reads version 1"},
		{"no version", validFile(t, func(m map[string]any) { delete(m, "version") }), "format version 0: want 1"},
		{"no robot id", validFile(t, func(m map[string]any) { m["jibo"] = map[string]any{} }), `robot id "": want 1 to 64 bytes`},
		{"bad colour", validFile(t, func(m map[string]any) { m["jibo"].(map[string]any)["color"] = "PINK" }), `robot color "PINK": want BLACK or WHITE`},
		{"duplicate ids", validFile(t, func(m map[string]any) { member(m, 1)["id"] = "u-ann" }), "member 2: invalid: id u-ann is taken"},
		{"member with the robot's id", validFile(t, func(m map[string]any) { member(m, 1)["id"] = "jibo-1" }), "id jibo-1 is taken"},
		{"bad id", validFile(t, func(m map[string]any) { member(m, 1)["id"] = "u cleo" }), `member 2: invalid: id "u cleo": ' ' is not allowed`},
		{"bad name", validFile(t, func(m map[string]any) { member(m, 1)["firstName"] = "Cl3o" }), `member 2 (u-cleo): invalid: first name "Cl3o"`},
		{"no first name", validFile(t, func(m map[string]any) { delete(member(m, 0), "firstName") }), "member 1 (u-ann): invalid: a first name is required"},
		{"bad birthdate", validFile(t, func(m map[string]any) { member(m, 0)["birthdate"] = int64(981158400000) }), "cannot unmarshal number"},
		{"no owner", validFile(t, func(m map[string]any) { m["owner"] = "" }), "no owner: one member must be the owner"},
		{"owner not a member", validFile(t, func(m map[string]any) { m["owner"] = "u-bob" }), "owner u-bob is not a member"},
		{"owner of nobody", validFile(t, func(m map[string]any) { m["members"] = []any{} }), "owner u-ann but no members"},
		{"too many", validFile(t, many), "33 members, more than 32"},
		{"too big", bytes.Repeat([]byte(" "), MaxFileBytes+1), "more than 262144 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, FileName)
			require.NoError(t, os.WriteFile(path, tc.content, 0o600))
			var logs bytes.Buffer
			opts := testOptions()
			opts.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			s, err := Open(path, opts)
			var ferr *FileError
			require.ErrorAs(t, err, &ferr)
			assert.Equal(t, path, ferr.Path)
			assert.ErrorContains(t, err, "loop file "+path+": ")
			assert.ErrorContains(t, err, tc.want)
			assert.ErrorContains(t, err, "until then the loop is empty and cannot be changed")
			require.NotNil(t, s)

			assert.Empty(t, s.Loop().Users, "the robot runs with nobody in the loop")
			assert.ErrorIs(t, s.Err(), ErrInvalid, "the problem is still reported")
			_, err = s.Add(Member{FirstName: "Dana"}, false)
			require.ErrorAs(t, err, &ferr, "no change over a bad file")
			_, err = s.Remove("Ann")
			require.ErrorAs(t, err, &ferr)
			assert.Equal(t, tc.content, readBytes(t, path), "the bad file is never written over")
			assert.NotContains(t, logs.String(), "loop file unusable", "Open returns the problem for its caller to log; reads do not log it again")

			// Fixed by hand: the next read takes it.
			require.NoError(t, os.WriteFile(path, validFile(t, nil), 0o600))
			require.NoError(t, s.Err())
			l := s.Loop()
			require.Len(t, l.Users, 2)
			assert.Equal(t, "u-ann", l.Owner)
			assert.Equal(t, "jibo-1", l.Jibo.ID)
			assert.Contains(t, logs.String(), "loop file readable again")
		})
	}
}

// A file that turns bad while the robot runs: the last good loop is kept.
func TestAFileTurningBadKeepsTheLastGoodLoop(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	require.NoError(t, os.WriteFile(path, validFile(t, nil), 0o600))
	var logs bytes.Buffer
	opts := testOptions()
	opts.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	s, err := Open(path, opts)
	require.NoError(t, err)
	require.Len(t, s.Loop().Users, 2)
	g := s.Generation()
	require.NoError(t, os.WriteFile(path, []byte("{"), 0o600))
	assert.Len(t, s.Loop().Users, 2)
	assert.Error(t, s.Err())
	assert.Len(t, s.Loop().Users, 2)
	assert.Equal(t, g, s.Generation())
	assert.Equal(t, 1, strings.Count(logs.String(), "loop file unusable"), "logged once, not on every read: %s", logs.String())

	// Deleted: nobody is in the loop, and the next change makes a new
	// file with the same robot.
	require.NoError(t, os.Remove(path))
	assert.Empty(t, s.Loop().Users)
	require.NoError(t, s.Err())
	_, err = s.Add(Member{FirstName: "Dana"}, false)
	require.NoError(t, err)
	assert.Equal(t, "jibo-1", open(t, dir).Loop().Jibo.ID)
}

func TestChangesFromAnotherProcessAreSeen(t *testing.T) {
	dir := t.TempDir()
	robot, cli := open(t, dir), open(t, dir)
	g := robot.Generation()
	assert.Equal(t, g, robot.Generation(), "an unchanged file changes nothing")
	_ = robot.Loop()
	assert.Equal(t, g, robot.Generation(), "nor does reading it again")

	ann, err := cli.Add(Member{FirstName: "Ann"}, false)
	require.NoError(t, err)
	l := robot.Loop()
	require.Len(t, l.Users, 1)
	assert.Equal(t, ann.ID, l.Owner)
	assert.Greater(t, robot.Generation(), g)

	// Changes made by each start from the file, not from what each held.
	_, err = robot.Add(Member{FirstName: "Bo"}, false)
	require.NoError(t, err)
	_, err = cli.Add(Member{FirstName: "Cy"}, false)
	require.NoError(t, err)
	members, owner := robot.Members()
	assert.Equal(t, []string{"Ann", "Bo", "Cy"}, names(members))
	assert.Equal(t, ann.ID, owner)
}

func names(ms []Member) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.FirstName)
	}
	return out
}

// TestAFailedWriteLeavesTheOldFile: a write that fails before its rename
// (a crash there) leaves the old file whole and no temporary file; and
// until the rename, readers see the old file.
func TestAFailedWriteLeavesTheOldFile(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	_, err := s.Add(Member{FirstName: "Ann"}, false)
	require.NoError(t, err)
	before := readBytes(t, s.Path())
	reader := open(t, dir)

	var sawTemp []byte
	s.beforeRename = func(tmp string) error {
		sawTemp = readBytes(t, tmp)
		assert.Equal(t, before, readBytes(t, s.Path()), "the file is the old one until the rename")
		assert.Len(t, reader.Loop().Users, 1, "a reader sees the old loop")
		return errors.New("power cut")
	}
	_, err = s.Add(Member{FirstName: "Bo"}, false)
	require.ErrorContains(t, err, "writing the loop file "+s.Path()+": power cut")
	assert.Contains(t, string(sawTemp), `"Bo"`, "the new file was whole before the rename")
	assert.Equal(t, before, readBytes(t, s.Path()))
	assert.Empty(t, leftovers(t, dir), "no temporary file left")
	assert.Len(t, s.Loop().Users, 1, "nothing changed")

	s.beforeRename = nil
	_, err = s.Add(Member{FirstName: "Bo"}, false)
	require.NoError(t, err)
	assert.Len(t, reader.Loop().Users, 2)
}

// TestReadersNeverSeeHalfAFile: a reader in another store reads while a
// writer changes the loop over and over: every read is a whole loop.
func TestReadersNeverSeeHalfAFile(t *testing.T) {
	dir := t.TempDir()
	w, r := open(t, dir), open(t, dir)
	_, err := w.Add(Member{FirstName: "Owner"}, false)
	require.NoError(t, err)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(done)
		for i := range 40 {
			m, err := w.Add(Member{FirstName: "Person", LastName: strings.Repeat("a", i%20+1)}, false)
			if !assert.NoError(t, err) {
				return
			}
			if i%2 == 1 {
				_, err = w.Remove(m.ID)
				assert.NoError(t, err)
			}
		}
	})
	reads := 0
	for {
		select {
		case <-done:
			wg.Wait()
			assert.Positive(t, reads)
			assert.Len(t, r.Loop().Users, 21)
			return
		default:
		}
		require.NoError(t, r.Err(), "every read is a whole file")
		l := r.Loop()
		require.NotEmpty(t, l.Users)
		assert.Equal(t, l.Users[0].ID, l.Owner)
		reads++
	}
}

// TestConcurrentChanges: changes at once, through one store and through
// two (two processes), all land.
func TestConcurrentChanges(t *testing.T) {
	dir := t.TempDir()
	stores := []*Store{open(t, dir), open(t, dir)}
	var wg sync.WaitGroup
	for i := range 24 {
		wg.Go(func() {
			_, err := stores[i%2].Add(Member{FirstName: "Person", LastName: strings.Repeat("b", i+1)}, false)
			assert.NoError(t, err)
			_ = stores[(i+1)%2].Loop()
		})
	}
	wg.Wait()
	ids := map[string]bool{}
	for _, u := range open(t, dir).Loop().Users {
		ids[u.ID] = true
	}
	assert.Len(t, ids, 24, "every addition is there, each with its own id")
}

func TestInMemory(t *testing.T) {
	s, err := Open("", testOptions())
	require.NoError(t, err)
	_, err = s.Add(Member{FirstName: "Ann"}, false)
	require.NoError(t, err)
	assert.Len(t, s.Loop().Users, 1)
	assert.NoError(t, s.Err())
	assert.Empty(t, s.Path())
}

func TestWatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		robot, cli := open(t, dir), open(t, dir)
		ctx, cancel := context.WithCancel(context.Background())
		got := make(chan protocol.Loop, 4)
		done := make(chan struct{})
		go func() {
			defer close(done)
			robot.Watch(ctx, time.Second, func(l protocol.Loop) { got <- l })
		}()
		time.Sleep(3 * time.Second)
		synctest.Wait()
		assert.Empty(t, got, "nothing changed, nothing told")

		_, err := cli.Add(Member{FirstName: "Ann"}, false)
		require.NoError(t, err)
		time.Sleep(time.Second)
		synctest.Wait()
		require.Len(t, got, 1)
		assert.Equal(t, "Ann", (<-got).Users[0].FirstName)

		// A change through the watched store itself is told too.
		_, err = robot.Add(Member{FirstName: "Bo"}, false)
		require.NoError(t, err)
		time.Sleep(time.Second)
		synctest.Wait()
		require.Len(t, got, 1)
		assert.Len(t, (<-got).Users, 2)

		cancel()
		<-done
	})
}

func TestCalled(t *testing.T) {
	m := Member{FirstName: "Mary-Jane", LastName: "O'Brien"}
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"mary jane", true}, {"Mary-Jane", true}, {"MARY JANE OBRIEN", true}, {"mary-jane o’brien", true},
		{"mary", false}, {"obrien", false}, {"", false}, {"  ", false},
	} {
		assert.Equal(t, tc.want, Called(m, tc.name), tc.name)
	}
}
