//go:build linux

package diag

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/lineedit/lineedittest"
)

// serveSocket serves the rig's shell on a socket in a fresh folder.
func serveSocket(t *testing.T, s *Server) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "shell.sock")
	l, err := ListenUnix(path)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ServeUnix(ctx, l) }()
	t.Cleanup(func() {
		cancel()
		assert.ErrorIs(t, <-done, context.Canceled)
		_, err := os.Stat(path)
		assert.True(t, os.IsNotExist(err), "the socket is removed at the end")
	})
	return path
}

func TestSocketScript(t *testing.T) {
	r := newRig(t)
	path := serveSocket(t, r.server(t, nil))
	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "only jibod's user may connect")

	// A script on standard input: its end ends the session once its
	// commands have run.
	in, err := os.CreateTemp(t.TempDir(), "script")
	require.NoError(t, err)
	_, err = in.WriteString("version --json\nbus tail jibo.sock --count 1\n")
	require.NoError(t, err)
	_, err = in.Seek(0, 0)
	require.NoError(t, err)
	outPath := filepath.Join(t.TempDir(), "out")
	out, err := os.Create(outPath)
	require.NoError(t, err)
	go func() {
		for i := 0; i < 500; i++ {
			_ = r.bus.Publish(context.Background(), bus.NewMessage("jibo.sock.ping", nil))
			time.Sleep(2 * time.Millisecond)
		}
	}()
	require.NoError(t, Attach(context.Background(), path, in, out))
	require.NoError(t, out.Close())
	got, err := os.ReadFile(outPath)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(got)), "\n")
	require.Len(t, lines, 4, string(got))
	assert.Contains(t, lines[0], `"version":"test"`)
	assert.Equal(t, "(watching jibo.sock*; Ctrl-C stops)", lines[1])
	assert.Contains(t, lines[2], "jibo.sock.ping")
	assert.Equal(t, "(1 shown)", lines[3])
}

func TestSocketTerminalThroughAttach(t *testing.T) {
	r := newRig(t)
	path := serveSocket(t, r.server(t, nil))
	// The technician's own terminal is a pseudo-terminal here.
	master, slavePath := openPTY(t)
	defer master.Close()
	slave, err := os.OpenFile(slavePath, os.O_RDWR|unix.O_NOCTTY, 0)
	require.NoError(t, err)
	defer slave.Close()
	scr := lineedittest.NewScreen()
	go func() { _, _ = io.Copy(scr, master) }()

	attached := make(chan error, 1)
	go func() { attached <- Attach(context.Background(), path, slave, slave) }()
	waitScreen(t, scr, "jibo>")
	_, err = master.Write([]byte("stat\t\r"))
	require.NoError(t, err)
	waitScreen(t, scr, "last errors:")
	assert.Contains(t, scr.Text(), "\njibo> status\n", "Tab completed on the socket too")
	assert.Contains(t, scr.Text(), "#1 unix uid ")
	_, err = master.Write([]byte("\x04"))
	require.NoError(t, err)
	select {
	case err := <-attached:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Ctrl-D did not end the session")
	}
	waitScreen(t, scr, "bye")
	// The client put its terminal back.
	rc, err := slave.SyscallConn()
	require.NoError(t, err)
	var tio *unix.Termios
	require.NoError(t, rc.Control(func(fd uintptr) { tio, err = unix.IoctlGetTermios(int(fd), unix.TCGETS) }))
	require.NoError(t, err)
	assert.NotZero(t, tio.Lflag&unix.ICANON, "cooked mode again")
}

func TestListenUnix(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.sock")

	// A stale socket (its jibod died) is replaced.
	stale, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	require.NoError(t, err)
	stale.SetUnlinkOnClose(false)
	require.NoError(t, stale.Close())
	l, err := ListenUnix(path)
	require.NoError(t, err)

	// A live one is not.
	_, err = ListenUnix(path)
	assert.ErrorContains(t, err, "another jibod is serving a shell there")
	require.NoError(t, l.Close())

	// Nor is something else.
	other := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(other, nil, 0o600))
	_, err = ListenUnix(other)
	assert.ErrorContains(t, err, "not a socket")
	_, err = ListenUnix(filepath.Join(dir, strings.Repeat("x", 120)))
	assert.ErrorContains(t, err, "want a path of 1..107 bytes")

	assert.ErrorContains(t, Attach(context.Background(), filepath.Join(dir, "none.sock"), os.Stdin, os.Stdout), "is jibod running?")
}

func TestSocketRefusesStrangers(t *testing.T) {
	r := newRig(t)
	path := serveSocket(t, r.server(t, nil))
	c, err := net.Dial("unix", path)
	require.NoError(t, err)
	defer c.Close()
	_, err = c.Write([]byte("GET / HTTP/1.0\r\n\r\n"))
	require.NoError(t, err)
	b, err := io.ReadAll(c)
	if err != nil && !errors.Is(err, net.ErrClosed) {
		require.NoError(t, err)
	}
	assert.Equal(t, "jibod shell: want \"jibod-shell/1 terminal|script\" first (connect with `jibod shell`)\n", string(b))
	assert.Contains(t, logText(r.logs), "not a jibod shell client")
}

func TestSocketCandidates(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/1000")
	assert.Equal(t, []string{"/run/user/1000/jibod-shell.sock", "/home/t/.local/state/jibod/shell.sock", "/run/jibod/shell.sock", "/var/lib/jibod/shell.sock"},
		SocketCandidates("/home/t/.local/state/jibod"))
	t.Setenv("XDG_RUNTIME_DIR", "")
	assert.Equal(t, []string{"/var/lib/jibod/shell.sock", "/run/jibod/shell.sock"}, SocketCandidates("/var/lib/jibod"))
	assert.Equal(t, []string{"/run/jibod/shell.sock", "/var/lib/jibod/shell.sock"}, SocketCandidates(""))
}

// SyncSkills is `skills sync` from another process, over the socket, as
// `jibod skills install` runs it.
func TestSyncSkillsOverTheSocket(t *testing.T) {
	r := newRig(t)
	f := &fakeSyncer{changes: []SkillChange{{ID: "acme/echo", Change: "loaded", Version: "1.0.0"}}}
	path := serveSocket(t, r.server(t, func(c *Config) { c.Env.Installed = f }))
	res, err := SyncSkills(context.Background(), path, []string{"acme/echo"})
	require.NoError(t, err)
	assert.Equal(t, SkillSync{StateDir: "/var/lib/jibod", Changes: f.changes}, res)
	assert.Equal(t, [][]string{{"acme/echo"}}, f.asked)

	f.err = errors.New("installed skills: closed")
	_, err = SyncSkills(context.Background(), path, nil)
	assert.ErrorContains(t, err, "jibod's skills sync: installed skills: closed")

	_, err = SyncSkills(context.Background(), filepath.Join(t.TempDir(), "none.sock"), nil)
	assert.ErrorIs(t, err, ErrNoShell)
	_, err = SyncSkills(context.Background(), path, []string{"acme/echo\nreboot --yes"})
	assert.ErrorContains(t, err, "cannot be sent to the shell")
}

// SyncSkillsOf passes over a jibod running with another state folder and
// asks the one running with this one.
func TestSyncSkillsOfFindsTheRobotOfTheStateFolder(t *testing.T) {
	r := newRig(t)
	other := &fakeSyncer{}
	otherPath := serveSocket(t, r.server(t, func(c *Config) { c.Env.Installed = other }))
	state := t.TempDir()
	mine := &stateSyncer{dir: state}
	minePath := serveSocket(t, r.server(t, func(c *Config) { c.Env.Installed = mine }))

	res, path, err := SyncSkillsOf(context.Background(), []string{"/nonexistent/x.sock", otherPath, minePath}, state, []string{"acme/echo"})
	require.NoError(t, err)
	assert.Equal(t, minePath, path)
	assert.Equal(t, state, res.StateDir)

	_, _, err = SyncSkillsOf(context.Background(), []string{otherPath}, state, nil)
	assert.ErrorIs(t, err, ErrNoShell)
	assert.ErrorContains(t, err, "uses another")
	_, _, err = SyncSkillsOf(context.Background(), []string{"/nonexistent/x.sock"}, state, nil)
	assert.ErrorIs(t, err, ErrNoShell)
	assert.ErrorContains(t, err, "none serves at /nonexistent/x.sock")
}

// stateSyncer answers for a state folder of its own.
type stateSyncer struct{ dir string }

func (s *stateSyncer) SyncSkills(context.Context, []string) (SkillSync, error) {
	return SkillSync{StateDir: s.dir}, nil
}
