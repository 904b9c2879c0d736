package store

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/internal/killtest"
)

// crashChildEnv makes the test binary act as a jibod writing conversations
// until it is killed.
const crashChildEnv = "JIBOD_STORE_CRASH_CHILD"

// writeUntilKilled stores conversation after conversation, reporting each
// one on stdout once PutConversation has returned.
func writeUntilKilled(path string) {
	s, err := Open(path, Options{})
	if err != nil {
		killtest.Fail(err)
	}
	for i := 0; ; i++ {
		c := timerConversation("s"+strconv.Itoa(i%MaxConversations), "timer")
		c.Skill.Session.NodeID = i
		c.Skill.Session.Data = []byte(`{"turn":` + strconv.Itoa(i) + `,"pad":"` + strings.Repeat("x", 4096) + `"}`)
		if err := s.PutConversation(c); err != nil {
			killtest.Fail(err)
		}
		killtest.Committed(i)
	}
}

// A process killed (SIGKILL) while writing leaves every committed record
// in place and nothing half-written: the file opens cleanly, passes the
// consistency check, and every record reads back.
func TestKilledWriterLeavesConsistentFile(t *testing.T) {
	if path := os.Getenv(crashChildEnv); path != "" {
		writeUntilKilled(path)
		return
	}
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	path := filepath.Join(t.TempDir(), "skills.db")
	last := killtest.Run(t, crashChildEnv, path, 300)

	var logs logBuffer
	s, err := Open(path, Options{Logger: logs.logger()})
	require.NoError(t, err, "the killed writer's lock is gone and the file is consistent")
	defer s.Close()
	all, err := s.Conversations()
	require.NoError(t, err)
	assert.Empty(t, logs.String(), "no record is half-written")
	require.Len(t, all, MaxConversations)
	newest := -1
	for _, c := range all {
		newest = max(newest, c.Skill.Session.NodeID)
	}
	// The last reported commit is on disk; at most one more committed
	// before its report was printed.
	assert.Contains(t, []int{last, last + 1}, newest)
}
