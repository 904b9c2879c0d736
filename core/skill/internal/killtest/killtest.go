// Package killtest kills a writer mid-write, for the tests that a skill
// storage file survives a crash: the test binary runs itself again as the
// writer, which reports each commit, and the test kills it (SIGKILL) once
// enough are reported.
package killtest

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// Committed reports, from the writer, that write i has been committed.
func Committed(i int) { fmt.Println("committed", i) }

// Fail reports, from the writer, that it could not go on, and ends it.
func Fail(err error) {
	fmt.Println("error:", err)
	os.Exit(2)
}

// Run runs t's test again as the writer, with env set to path (the test
// sees it and writes to path until it is killed), kills it once it has
// reported commit number after, and returns the last commit it reported.
// It skips t where the binary cannot run itself again (an emulated one)
// and fails t if the writer reports an error.
func Run(t *testing.T, env, path string, after int) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$")
	cmd.Env = append(os.Environ(), env+"="+path)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	if err := cmd.Start(); errors.Is(err, syscall.ENOEXEC) {
		t.Skip("cannot re-execute the test binary here (an emulated one): ", err)
	} else {
		require.NoError(t, err)
	}
	// A failed check below must not leave the writer running.
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	last, killed := -1, false
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		line := lines.Text()
		require.False(t, strings.HasPrefix(line, "error:"), line)
		if n, ok := strings.CutPrefix(line, "committed "); ok {
			last, err = strconv.Atoi(n)
			require.NoError(t, err)
		}
		if last >= after && !killed {
			require.NoError(t, cmd.Process.Kill())
			killed = true // read on: the writer may have reported more before it died
		}
	}
	_ = cmd.Wait()
	return last
}
