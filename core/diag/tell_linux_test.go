package diag

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// changeSyncer answers for a state folder of its own with changes.
type changeSyncer struct {
	dir     string
	changes []SkillChange
}

func (s *changeSyncer) SyncSkills(_ context.Context, _ []string) (SkillSync, error) {
	return SkillSync{StateDir: s.dir, Changes: s.changes}, nil
}

// TestTellSkillSync: the jibod running with the state folder is told and
// what it did is said; none running is no error; a skill it could not
// load is one.
func TestTellSkillSync(t *testing.T) {
	state := t.TempDir()
	var out strings.Builder
	running, err := TellSkillSync(context.Background(), filepath.Join(state, "none.sock"), state, "acme/echo", &out)
	require.NoError(t, err)
	assert.False(t, running)
	assert.Equal(t, "No jibod is running with "+state+": it takes the change when it starts.\n", out.String())

	r := newRig(t)
	s := &changeSyncer{dir: state, changes: []SkillChange{{ID: "acme/echo", Change: "loaded", Version: "1.0.0"}}}
	path := serveSocket(t, r.server(t, func(c *Config) { c.Env.Installed = s }))
	out.Reset()
	running, err = TellSkillSync(context.Background(), path, state, "acme/echo", &out)
	require.NoError(t, err)
	assert.True(t, running)
	assert.Equal(t, "The running jibod ("+path+"): "+s.changes[0].String()+".\n", out.String())

	s.changes = []SkillChange{{ID: "acme/echo", Change: "not loaded", Error: "bad module"}}
	out.Reset()
	running, err = TellSkillSync(context.Background(), path, state, "acme/echo", &out)
	assert.True(t, running)
	assert.EqualError(t, err, "the running jibod could not load it: acme/echo: bad module")
	assert.Empty(t, out.String())
}
