//go:build linux

package motion

import (
	"context"
	"encoding/binary"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// The real-time set-up on this very system: whatever it grants or refuses
// (all of it as root, little otherwise), the loop runs and moves, each
// refusal says why, and Close leaves the process as it found it. It
// asserts no timing.
func TestRealTimeOnThisSystem(t *testing.T) {
	if os.Getenv("GOMAXPROCS") != "" || os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOMAXPROCS, GOGC or GOMEMLIMIT set: the set-up leaves them alone")
	}
	procs := runtime.GOMAXPROCS(0)
	gc := debug.SetGCPercent(100)
	debug.SetGCPercent(gc)
	limit := debug.SetMemoryLimit(-1)
	cpus := affinities(t)

	c, logs, _ := rtController(t, RealTime{}, newRTSystem())
	require.NoError(t, c.Start(context.Background()))
	st := c.RealTime()
	t.Logf("got %s; refused %q", st, st.Refused)
	assert.Len(t, st.Refused, bytesCount(logs.String(), "level=WARN"), "one warning when anything is refused")
	if st.Priority == 0 {
		assert.Contains(t, st.Refused[0], "SCHED_FIFO priority 40: ")
	}
	j, err := c.MoveTo(Pose{0.2, 0, 0}, AllAxes)
	require.NoError(t, err)
	require.NoError(t, j.Wait(context.Background()))
	require.NoError(t, c.Close(context.Background()))

	assert.Equal(t, procs, runtime.GOMAXPROCS(0), "GOMAXPROCS as it was")
	got := debug.SetGCPercent(gc)
	assert.Equal(t, gc, got, "the collector as it was")
	assert.Equal(t, limit, debug.SetMemoryLimit(-1), "the memory limit as it was")
	for tid, set := range affinities(t) {
		if before, ok := cpus[tid]; ok {
			assert.Equal(t, before, set, "thread %d may use the CPUs it could before", tid)
		}
	}
}

// affinities returns the CPU set of each of the process's threads.
func affinities(t *testing.T) map[int]unix.CPUSet {
	ents, err := os.ReadDir("/proc/self/task")
	require.NoError(t, err)
	out := map[int]unix.CPUSet{}
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		require.NoError(t, err)
		var set unix.CPUSet
		if unix.SchedGetaffinity(tid, &set) == nil {
			out[tid] = set
		}
	}
	return out
}

func bytesCount(s, sub string) int {
	n := 0
	for i := 0; ; {
		j := indexFrom(s, sub, i)
		if j < 0 {
			return n
		}
		n++
		i = j + len(sub)
	}
}

func indexFrom(s, sub string, from int) int {
	for i := from; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// Only private read-only file mappings without anonymous pages are
// dropped: not writable data, not the heap, not a read-only mapping that
// holds written pages (relocations), not the vDSO.
func TestCleanFileMappings(t *testing.T) {
	smaps := `00400000-00bd5000 r-xp 00000000 fd:01 1234                               /usr/bin/jibod
Size:               8020 kB
Anonymous:             0 kB
VmFlags: rd ex mr mw me dw
00bd5000-013b8000 r--p 007d5000 fd:01 1234                               /usr/bin/jibod
Size:               8076 kB
Anonymous:             0 kB
013b8000-01423000 rw-p 00fb8000 fd:01 1234                               /usr/bin/jibod
Anonymous:           124 kB
7f0000000000-7f0000004000 r--p 00020000 fd:01 99                         /usr/lib/libc.so.6
Anonymous:            16 kB
7f0000004000-7f0000008000 r--s 00000000 fd:01 98                         /dev/shm/x
Anonymous:             0 kB
c000000000-c004000000 rw-p 00000000 00:00 0
Anonymous:          9220 kB
7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0                          [vdso]
Anonymous:             0 kB
`
	got, err := cleanFileMappings(strings.NewReader(smaps))
	require.NoError(t, err)
	assert.Equal(t, []fileMapping{{0x400000, 0xbd5000}, {0xbd5000, 0x13b8000}}, got)

	_, err = cleanFileMappings(strings.NewReader("garbage\n"))
	assert.ErrorContains(t, err, `smaps: unexpected line "garbage"`)
}

// Dropping the clean file pages unmaps them and loses nothing: a file's
// pages read back the same, and a read-only mapping holding a written
// page keeps it.
func TestDropCleanFilePages(t *testing.T) {
	page := os.Getpagesize()
	path := t.TempDir() + "/data"
	content := make([]byte, 8*page)
	for i := range content {
		content[i] = byte(i % 251)
	}
	require.NoError(t, os.WriteFile(path, content, 0o600))
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	clean, err := unix.Mmap(int(f.Fd()), 0, len(content), unix.PROT_READ, unix.MAP_PRIVATE)
	require.NoError(t, err)
	defer unix.Munmap(clean)
	written, err := unix.Mmap(int(f.Fd()), 0, len(content), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE)
	require.NoError(t, err)
	defer unix.Munmap(written)
	written[0] = 7
	require.NoError(t, unix.Mprotect(written, unix.PROT_READ))
	sum, want := 0, 0
	for i := 0; i < len(clean); i += page {
		sum += int(clean[i])
		want += int(content[i])
	}
	require.Equal(t, want, sum, "the mapping reads the file")
	if n := resident(t, clean); n != len(clean)/page {
		// Every page was just read, so the kernel's page table shows them
		// all. Under qemu-user (make qemu-drivers) the guest's pages are the
		// emulator's, which maps and drops them its own way: what this test
		// observes is not there to observe.
		t.Skipf("/proc/self/pagemap shows %d of the %d pages just read: not a kernel's view of this process (an emulator?)", n, len(clean)/page)
	}

	require.NoError(t, dropCleanFilePages())
	assert.Zero(t, resident(t, clean), "dropped")
	assert.Equal(t, content, []byte(clean), "read back from the file")
	assert.Equal(t, byte(7), written[0], "the written page kept")
	assert.Equal(t, content[1:], []byte(written[1:]))
}

// resident counts the pages of b mapped into the process
// (/proc/self/pagemap's present bit, readable without privilege).
func resident(t *testing.T, b []byte) int {
	t.Helper()
	f, err := os.Open("/proc/self/pagemap")
	require.NoError(t, err)
	defer f.Close()
	page := uintptr(os.Getpagesize())
	start := uintptr(unsafe.Pointer(&b[0]))
	buf := make([]byte, 8*(uintptr(len(b))/page))
	_, err = f.ReadAt(buf, int64(start/page*8))
	require.NoError(t, err)
	n := 0
	for i := 0; i < len(buf); i += 8 {
		if binary.LittleEndian.Uint64(buf[i:])>>63 == 1 {
			n++
		}
	}
	return n
}

// skipWithoutSchedstat skips a test of the loop thread's accounts on a
// kernel that does not keep them (no CONFIG_SCHED_INFO): there the loop
// runs with its misses unaccounted, which is no failure.
func skipWithoutSchedstat(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/proc/thread-self/schedstat"); err != nil {
		t.Skipf("this kernel keeps no per-thread schedstat: %v", err)
	}
}

// A tick the process itself makes late (here the loop's own wait, as
// when the Go runtime holds it) is taken apart from the loop thread's
// accounts and blamed on the process, whether or not the priority is
// granted.
func TestMissedTickTakenApartOnThisSystem(t *testing.T) {
	skipWithoutSchedstat(t)
	c, _, _ := rtController(t, RealTime{}, newRTSystem())
	period := c.Period()
	n := 0
	c.lag = func() {
		n++
		if n == 20 {
			time.Sleep(4 * period) // blocks the loop's thread: a wait of the process's
		}
	}
	require.NoError(t, c.Start(context.Background()))
	require.Eventually(t, func() bool {
		for _, m := range c.Stats().Misses {
			if m.Late >= 4*period {
				return true
			}
		}
		return false
	}, time.Minute, period)
	require.NoError(t, c.Close(context.Background()))
	var own []Miss
	for _, m := range c.Stats().Misses {
		if m.Late >= 4*period {
			own = append(own, m)
		}
	}
	require.NotEmpty(t, own)
	m := own[0]
	require.True(t, m.Accounted, "the accounts of the loop's thread are read: %+v", m)
	assert.GreaterOrEqual(t, m.Waits, 1, "the thread blocked after its sleep")
	blame, why := m.Verdict()
	assert.Equal(t, BlameProcess, blame, why)
}

// The accounts of a locked thread count its blocking and its time on a
// CPU.
func TestThreadAccount(t *testing.T) {
	skipWithoutSchedstat(t)
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		a := linuxRT{}.openAccount()
		if !assert.NotNil(t, a, "/proc/thread-self/schedstat") {
			return
		}
		defer a.close()
		var before, after threadTimes
		if !assert.True(t, a.read(&before)) {
			return
		}
		time.Sleep(time.Millisecond)
		for x := 0; x < 1e6; x++ {
			sinkSpin += x
		}
		if !assert.True(t, a.read(&after)) {
			return
		}
		assert.Greater(t, after.waits, before.waits, "the sleep blocked the thread")
		assert.Greater(t, after.onCPU, before.onCPU)
		assert.GreaterOrEqual(t, after.queued, before.queued)
	}()
	<-done
}

var sinkSpin int
