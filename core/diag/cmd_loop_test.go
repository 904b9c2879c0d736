package diag

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

// fakeLoop is a loop with chosen members and file problem.
type fakeLoop struct {
	members []LoopMember
	problem error
}

func (l fakeLoop) Members() ([]LoopMember, error) { return l.members, l.problem }

var _ Loop = fakeLoop{}

func TestLoop(t *testing.T) {
	ann := LoopMember{ID: "lp-0a1b2c3d4e5f", FirstName: "Ann", LastName: "Lee", Owner: true}
	cleo := LoopMember{ID: "lp-ffeeddccbbaa", FirstName: "Cleo"}
	bad := errors.New(`loop file /var/lib/jibod/loop.json: invalid: member 2 (u-cleo): invalid: first name "Cl3o"`)
	tests := []struct {
		name     string
		loop     fakeLoop
		want     string
		wantJSON map[string]any
	}{
		{name: "members, the owner marked", loop: fakeLoop{members: []LoopMember{ann, cleo}},
			want: "ID               NAME     OWNER\n" +
				"lp-0a1b2c3d4e5f  Ann Lee  *\n" +
				"lp-ffeeddccbbaa  Cleo     \n",
			wantJSON: map[string]any{"members": []any{
				map[string]any{"id": "lp-0a1b2c3d4e5f", "first_name": "Ann", "last_name": "Lee", "owner": true},
				map[string]any{"id": "lp-ffeeddccbbaa", "first_name": "Cleo", "owner": false}}}},
		{name: "nobody", loop: fakeLoop{},
			want:     "nobody in the loop (`jibod loop add --first NAME` on the robot adds someone)\n",
			wantJSON: map[string]any{"members": []any{}}},
		{name: "a bad file: the problem, then the last good members", loop: fakeLoop{members: []LoopMember{ann}, problem: bad},
			want: "loop file problem: " + bad.Error() + "\n" +
				"ID               NAME     OWNER\n" +
				"lp-0a1b2c3d4e5f  Ann Lee  *\n",
			wantJSON: map[string]any{"error": bad.Error(), "members": []any{
				map[string]any{"id": "lp-0a1b2c3d4e5f", "first_name": "Ann", "last_name": "Lee", "owner": true}}}},
	}
	r := newRig(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := r.server(t, func(c *Config) { c.Env.Loop = tc.loop })
			assert.Equal(t, tc.want, script(t, s, "loop"))
			assert.Equal(t, tc.wantJSON, jsonLines(t, script(t, s, "loop --json"))[0])
		})
	}

	s := r.server(t, func(c *Config) { c.Env.Loop = fakeLoop{members: []LoopMember{ann}} })
	assert.Equal(t, "error: loop takes no arguments: the shell only reads the loop; `jibod loop add|remove|owner` on the robot changes it\n",
		script(t, s, "loop add Ann"))
}

func TestLoopWithoutOne(t *testing.T) {
	s := newRig(t).server(t, nil)
	assert.Equal(t, "error: this robot has no loop\n", script(t, s, "loop"))
}
