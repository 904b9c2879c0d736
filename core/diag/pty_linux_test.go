//go:build linux

package diag

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/lineedit"
	"github.com/openjibo/jibod/core/lineedit/lineedittest"
)

// openPTY opens a pseudo-terminal pair: the master is the technician's
// side, the slave's path is the "serial device" the shell opens.
// (grantpt is a no-op on Linux's devpts: the kernel gives the slave the
// opener's ownership; unlockpt and ptsname are the two ioctls.)
func openPTY(t *testing.T) (*os.File, string) {
	t.Helper()
	fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	require.NoError(t, unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0), "unlockpt")
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	require.NoError(t, err, "ptsname")
	return os.NewFile(uintptr(fd), "ptmx"), "/dev/pts/" + strconv.Itoa(n)
}

// technician is a person at a terminal on the robot's serial console.
type technician struct {
	t      *testing.T
	master *os.File
	scr    *lineedittest.Screen
}

func (tc *technician) typeIn(s string) {
	tc.t.Helper()
	_, err := tc.master.Write([]byte(s))
	require.NoError(tc.t, err)
}

// waitForPrompt presses Ctrl-C until the screen has settled with the
// cursor after a bare prompt, as a technician does when it is a mess.
func (tc *technician) waitForPrompt() {
	tc.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		tc.typeIn("\x03")
		// Settled: nothing new on the screen for a while, so every byte
		// typed before has been taken.
		n, quiet := len(tc.scr.Raw()), time.Now()
		for time.Since(quiet) < 300*time.Millisecond {
			time.Sleep(10 * time.Millisecond)
			if m := len(tc.scr.Raw()); m != n {
				n, quiet = m, time.Now()
			}
		}
		if l := tc.scr.Last(); l == "jibo>" || l == "jibo#" {
			return
		}
		require.False(tc.t, time.Now().After(deadline), "no prompt; the screen shows:\n%s", tc.scr.Text())
	}
}

func (tc *technician) waitFor(want string)          { tc.t.Helper(); waitScreen(tc.t, tc.scr, want) }
func (tc *technician) waitCount(want string, n int) { tc.t.Helper(); waitCount(tc.t, tc.scr, want, n) }

// TestSerialConsoleAsATechnicianUsesIt drives the shell through a real
// pseudo-terminal in raw mode, as over a USB-serial cable at 115200 baud,
// and checks what the screen shows.
func TestSerialConsoleAsATechnicianUsesIt(t *testing.T) {
	r := newRig(t)
	s := r.server(t, nil)
	master, slave := openPTY(t)
	tc := &technician{t: t, master: master, scr: lineedittest.NewScreen()}

	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.ServeSerial(ctx, slave, DefaultBaud) }()
	readDone := make(chan struct{})
	go func() { // the terminal's screen: ends when the master is closed
		defer close(readDone)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			_, _ = tc.scr.Write(buf[:n])
			if errors.Is(err, unix.EIO) {
				// No one has the slave open: the console is between
				// sessions. A real serial line just stays quiet.
				time.Sleep(10 * time.Millisecond)
				continue
			}
			if err != nil {
				return
			}
		}
	}()
	defer func() {
		cancel()
		assert.ErrorIs(t, <-served, context.Canceled)
		master.Close()
		<-readDone
	}()

	tc.waitFor("diagnostics shell on the sim board")
	tc.waitFor("jibo>")

	// Typing with a typo fixed by backspace: the screen shows the fixed line.
	tc.typeIn("statsu\x7f\x7fus\r")
	tc.waitFor("last errors:")
	assert.Contains(t, tc.scr.Text(), "\njibo> status\n", "backspace erased the typo on the screen")
	assert.NotContains(t, tc.scr.Raw(), "\x1b", "nothing but plain characters, CR, LF, BS and BEL is sent")

	// Ctrl-C during bus tail stops it and gives the prompt back.
	tc.typeIn("bus tail jibo.test\r")
	tc.waitFor("(watching jibo.test*; Ctrl-C stops)")
	require.NoError(t, r.bus.Publish(ctx, bus.NewMessage("jibo.test.one", map[string]any{"n": 1})))
	tc.waitFor("jibo.test.one n=1")
	tc.typeIn("\x03")
	tc.waitFor("^C\n(1 shown)\njibo>")
	require.NoError(t, r.bus.Publish(ctx, bus.NewMessage("jibo.test.two", map[string]any{"n": 2})))
	tc.typeIn("version\r")
	tc.waitFor("jibod test (")
	assert.NotContains(t, tc.scr.Text(), "jibo.test.two", "the tail stopped at Ctrl-C")

	// A wrong PIN three times locks technician mode out.
	for i, want := range []string{"error: wrong PIN (2 tries left)", "error: wrong PIN (1 try left)",
		"error: wrong PIN: technician mode is locked out after too many wrong PINs for 5m0s"} {
		tc.typeIn("unlock\r")
		tc.waitCount("PIN:", i+1)
		tc.typeIn("1111\r")
		tc.waitFor(want)
	}
	assert.Equal(t, 3, strings.Count(tc.scr.Text(), "PIN: ****\n"), "the PIN is never echoed")
	tc.typeIn("unlock\r")
	tc.waitFor("error: technician mode is locked out after too many wrong PINs: try again in 5m0s")
	tc.typeIn("motor home\r")
	tc.waitFor("error: `motor home` needs technician mode")
	r.clock.Advance(DefaultLockout)
	tc.typeIn("unlock\r")
	tc.waitCount("PIN:", 4)
	tc.typeIn(testPIN + "\r")
	tc.waitFor("jibo#")

	// A 10 KB line is refused whole.
	tc.typeIn(strings.Repeat("a", 10<<10) + "\r")
	tc.waitFor("error: line longer than 1024 bytes; nothing was run")
	assert.Contains(t, tc.scr.Text(), "\njibo# "+strings.Repeat("a", lineedit.MaxLineBytes)+"\n", "the echo stops at the limit")
	assert.NotContains(t, tc.scr.Text(), strings.Repeat("a", lineedit.MaxLineBytes+1))

	// Random bytes: the shell carries on (Ctrl-D among them may end the
	// session; the console then opens again, as for the next technician).
	rng := rand.New(rand.NewPCG(9, 9))
	junk := make([]byte, 8<<10)
	for i := range junk {
		junk[i] = byte(rng.UintN(256))
	}
	versions := strings.Count(tc.scr.Text(), "jibod test (")
	tc.typeIn(string(junk))
	tc.waitForPrompt()
	tc.typeIn("version\r")
	tc.waitCount("jibod test (", versions+1)
	require.NoError(t, r.bus.Publish(ctx, bus.NewMessage("jibo.test.alive", nil)), "the robot is unaffected")

	// Ctrl-D leaves; the console is ready for the next technician.
	banners := strings.Count(tc.scr.Text(), "diagnostics shell on the sim board")
	tc.typeIn("\x04")
	tc.waitFor("bye")
	tc.waitCount("diagnostics shell on the sim board", banners+1)
	tc.typeIn("version\r")
	tc.waitCount("jibod test (", versions+2)
}

// TestSerialSettings checks the raw mode the console puts the device in,
// and that closing puts the old settings back.
func TestSerialSettings(t *testing.T) {
	master, slave := openPTY(t)
	defer master.Close()
	// Hold the slave open so its settings outlive the console's own open.
	hold, err := openFile(slave)
	require.NoError(t, err)
	defer hold.Close()
	var before *unix.Termios
	require.NoError(t, control(hold, func(fd int) error { before, err = unix.IoctlGetTermios(fd, unix.TCGETS); return err }))

	c, err := OpenSerial(slave, 57600)
	require.NoError(t, err)
	var during *unix.Termios
	require.NoError(t, control(hold, func(fd int) error { during, err = unix.IoctlGetTermios(fd, unix.TCGETS); return err }))
	assert.Zero(t, during.Lflag&(unix.ICANON|unix.ECHO|unix.ISIG), "raw: no line editing, echo or signal keys")
	assert.Zero(t, during.Iflag&(unix.IXON|unix.ICRNL), "no XON/XOFF, CR arrives as CR")
	assert.NotZero(t, during.Oflag&unix.ONLCR, "newlines reach the screen as CR LF")
	assert.Equal(t, uint32(unix.CS8), during.Cflag&unix.CSIZE)
	assert.Zero(t, during.Cflag&(unix.PARENB|unix.CSTOPB|unix.CRTSCTS), "8N1, no hardware flow control")
	assert.Equal(t, uint32(unix.B57600), during.Cflag&unix.CBAUD)
	require.NoError(t, c.Close())

	var after *unix.Termios
	require.NoError(t, control(hold, func(fd int) error { after, err = unix.IoctlGetTermios(fd, unix.TCGETS); return err }))
	assert.Equal(t, *before, *after)

	_, err = OpenSerial(slave, 12345)
	assert.ErrorContains(t, err, "baud rate 12345 not supported")
	_, err = OpenSerial("/dev/null", DefaultBaud)
	assert.ErrorContains(t, err, "not a terminal")
	_, err = OpenSerial("/nonexistent/ttyGS0", DefaultBaud)
	assert.ErrorContains(t, err, "no such file")
}

// TestSerialDeviceComesLater: a console device that is missing at start
// (the USB gadget not up yet) is retried, not fatal.
func TestSerialDeviceComesLater(t *testing.T) {
	r := newRig(t)
	s := r.server(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ServeSerial(ctx, "/nonexistent/ttyGS0", DefaultBaud) }()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(logText(r.logs), "serial console not available; retrying") {
		require.False(t, time.Now().After(deadline), "no retry logged")
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	assert.ErrorIs(t, <-done, context.Canceled)
}
