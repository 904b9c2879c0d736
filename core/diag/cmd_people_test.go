package diag

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

// fakePeople are the people a robot knows, with a chosen file problem.
type fakePeople struct {
	members []Person
	problem error
}

func (l fakePeople) Members() ([]Person, error) { return l.members, l.problem }

var _ People = fakePeople{}

func TestPeople(t *testing.T) {
	ann := Person{ID: "lp-0a1b2c3d4e5f", FirstName: "Ann", LastName: "Lee", Owner: true}
	cleo := Person{ID: "lp-ffeeddccbbaa", FirstName: "Cleo"}
	bad := errors.New(`loop file /var/lib/jibod/loop.json: invalid: member 2 (u-cleo): invalid: first name "Cl3o"`)
	tests := []struct {
		name     string
		people   fakePeople
		want     string
		wantJSON map[string]any
	}{
		{name: "members, the owner marked", people: fakePeople{members: []Person{ann, cleo}},
			want: "ID               NAME     OWNER\n" +
				"lp-0a1b2c3d4e5f  Ann Lee  *\n" +
				"lp-ffeeddccbbaa  Cleo     \n",
			wantJSON: map[string]any{"members": []any{
				map[string]any{"id": "lp-0a1b2c3d4e5f", "first_name": "Ann", "last_name": "Lee", "owner": true},
				map[string]any{"id": "lp-ffeeddccbbaa", "first_name": "Cleo", "owner": false}}}},
		{name: "nobody", people: fakePeople{},
			want:     "nobody in the loop (`jibod people add --first NAME` on the robot adds someone)\n",
			wantJSON: map[string]any{"members": []any{}}},
		{name: "a bad file: the problem, then the last good members", people: fakePeople{members: []Person{ann}, problem: bad},
			want: "loop file problem: " + bad.Error() + "\n" +
				"ID               NAME     OWNER\n" +
				"lp-0a1b2c3d4e5f  Ann Lee  *\n",
			wantJSON: map[string]any{"error": bad.Error(), "members": []any{
				map[string]any{"id": "lp-0a1b2c3d4e5f", "first_name": "Ann", "last_name": "Lee", "owner": true}}}},
	}
	r := newRig(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := r.server(t, func(c *Config) { c.Env.People = tc.people })
			assert.Equal(t, tc.want, script(t, s, "people"))
			assert.Equal(t, tc.want, script(t, s, "loop"), "loop, Jibo's word, is the same command")
			assert.Equal(t, tc.wantJSON, jsonLines(t, script(t, s, "people --json"))[0])
		})
	}

	s := r.server(t, func(c *Config) { c.Env.People = fakePeople{members: []Person{ann}} })
	assert.Equal(t, "error: people takes no arguments: the shell only reads the loop; `jibod people add|remove|owner` on the robot changes it\n",
		script(t, s, "people add Ann"))
}

func TestPeopleWithoutALoop(t *testing.T) {
	s := newRig(t).server(t, nil)
	assert.Equal(t, "error: this robot has no loop\n", script(t, s, "people"))
}
