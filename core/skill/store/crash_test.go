package store

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// crashChildEnv makes the test binary act as a jibod writing conversations
// until it is killed.
const crashChildEnv = "JIBOD_STORE_CRASH_CHILD"

// writeUntilKilled stores conversation after conversation, reporting each
// one on stdout once PutConversation has returned.
func writeUntilKilled(path string) {
	s, err := Open(path, Options{})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(2)
	}
	for i := 0; ; i++ {
		c := timerConversation("s"+strconv.Itoa(i%MaxConversations), "timer")
		c.Skill.Session.NodeID = i
		c.Skill.Session.Data = []byte(`{"turn":` + strconv.Itoa(i) + `,"pad":"` + strings.Repeat("x", 4096) + `"}`)
		if err := s.PutConversation(c); err != nil {
			fmt.Println("error:", err)
			os.Exit(2)
		}
		fmt.Println("committed", i)
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
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledWriterLeavesConsistentFile$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	if err := cmd.Start(); errors.Is(err, syscall.ENOEXEC) {
		t.Skip("cannot re-execute the test binary here (an emulated one): ", err)
	} else {
		require.NoError(t, err)
	}

	last := -1
	lines := bufio.NewScanner(out)
	killed := false
	for lines.Scan() {
		line := lines.Text()
		require.False(t, strings.HasPrefix(line, "error:"), line)
		if n, ok := strings.CutPrefix(line, "committed "); ok {
			last, err = strconv.Atoi(n)
			require.NoError(t, err)
		}
		if last >= 300 && !killed {
			require.NoError(t, cmd.Process.Kill())
			killed = true // read on: the child may have reported more before it died
		}
	}
	_ = cmd.Wait()

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
