//go:build linux

package motion

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// rtSupported says whether this system can serve the loop in real time.
const rtSupported = true

// linuxRT is the real-time set-up's system on Linux.
type linuxRT struct{ goRuntime }

func newRTSystem() rtSystem { return linuxRT{} }

func (linuxRT) setFIFO(prio int) error {
	if prio < 1 || prio > 99 {
		return fmt.Errorf("priority %d outside 1..99", prio)
	}
	// Reset on fork: a thread started from this one is an ordinary
	// thread.
	attr := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_FIFO, Priority: uint32(prio),
		Flags: unix.SCHED_FLAG_RESET_ON_FORK}
	err := unix.SchedSetAttr(0, &attr, 0)
	if errors.Is(err, unix.EPERM) {
		return fmt.Errorf("%w (needs CAP_SYS_NICE or an RLIMIT_RTPRIO of %d: LimitRTPRIO=%d under systemd)", err, prio, prio)
	}
	return err
}

func (linuxRT) cpus() ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, err
	}
	var out []int
	for cpu := 0; len(out) < set.Count(); cpu++ {
		if set.IsSet(cpu) {
			out = append(out, cpu)
		}
	}
	return out, nil
}

func (linuxRT) pin(tid int, cpus []int) error {
	var set unix.CPUSet
	for _, c := range cpus {
		set.Set(c)
	}
	return unix.SchedSetaffinity(tid, &set)
}

func (linuxRT) threads() ([]int, error) {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, err
	}
	tids := make([]int, 0, len(ents))
	for _, e := range ents {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			tids = append(tids, tid)
		}
	}
	return tids, nil
}

func (linuxRT) self() int { return unix.Gettid() }

// lockMemory locks the pages the process has touched and will touch, as
// they are touched (MCL_ONFAULT): without it mlockall would fill in every
// mapping at once, and the Go heap maps its arenas well ahead of use.
//
// The program's clean file pages are let go first (dropCleanFilePages):
// the kernel maps a file page's neighbours along with it, so start-up
// leaves most of the program's code and read-only data mapped, and
// locking would keep all of it in RAM for good. The loop has run no tick
// yet; what it and the rest of the process use comes back from the page
// cache at first use and is locked then.
func (linuxRT) lockMemory() error {
	// Best effort: without /proc the pages stay, which costs only memory.
	_ = dropCleanFilePages()
	err := unix.Mlockall(unix.MCL_CURRENT | unix.MCL_FUTURE | unix.MCL_ONFAULT)
	if errors.Is(err, unix.ENOMEM) || errors.Is(err, unix.EPERM) {
		return fmt.Errorf("%w (over RLIMIT_MEMLOCK: needs CAP_IPC_LOCK or LimitMEMLOCK=infinity under systemd)", err)
	}
	return err
}

func (linuxRT) unlockMemory() error { return unix.Munlockall() }

func (linuxRT) getenv(key string) string { return os.Getenv(key) }

// threadGone reports an error about a thread that has ended meanwhile.
func threadGone(err error) bool { return errors.Is(err, unix.ESRCH) }

// fileMapping is a range of the address space mapped from a file.
type fileMapping struct {
	start, end uintptr
}

// cleanFileMappings reads /proc/self/smaps (r) and returns the private,
// read-only file mappings that hold no anonymous pages. Their pages are
// the file's own, as the page cache holds them, so dropping them loses
// nothing: the next access maps them again. A read-only mapping with
// anonymous pages (relocations written before it was made read-only, a
// debugger's breakpoint) is left alone.
func cleanFileMappings(r io.Reader) ([]fileMapping, error) {
	var out []fileMapping
	var cur fileMapping
	candidate := false
	flush := func(anon bool) {
		if candidate && !anon {
			out = append(out, cur)
		}
		candidate = false
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<16)
	for sc.Scan() {
		line := sc.Text()
		key, val, isField := strings.Cut(line, ":")
		if isField && !strings.Contains(key, " ") && !strings.Contains(key, "-") {
			// A field of the mapping above: "Anonymous:  4 kB".
			if key == "Anonymous" && candidate {
				n, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(val), " kB"), 10, 64)
				if err != nil {
					return nil, fmt.Errorf("smaps: %q: %w", line, err)
				}
				flush(n > 0)
			}
			continue
		}
		// A mapping: "start-end perms offset dev inode [path]".
		f := strings.Fields(line)
		if len(f) < 5 {
			return nil, fmt.Errorf("smaps: unexpected line %q", line)
		}
		flush(true) // a candidate without an Anonymous field is kept
		lo, hi, ok := strings.Cut(f[0], "-")
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if !ok || err1 != nil || err2 != nil || end <= start {
			return nil, fmt.Errorf("smaps: bad range in %q", line)
		}
		perms, inode := f[1], f[4]
		cur = fileMapping{start: uintptr(start), end: uintptr(end)}
		candidate = len(perms) == 4 && perms[1] != 'w' && perms[3] == 'p' && inode != "0"
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("smaps: %w", err)
	}
	flush(true)
	return out, nil
}

// dropCleanFilePages unmaps the pages of the process's clean file
// mappings (cleanFileMappings): the program's code and read-only data.
// They stay in the page cache and come back, one fault each, when used.
// Locked pages stay (madvise refuses them).
func dropCleanFilePages() error {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return err
	}
	maps, err := cleanFileMappings(f)
	f.Close()
	if err != nil {
		return err
	}
	var errs []error
	for _, m := range maps {
		if _, _, e := unix.Syscall(unix.SYS_MADVISE, m.start, m.end-m.start, unix.MADV_DONTNEED); e != 0 {
			errs = append(errs, fmt.Errorf("madvise %#x-%#x: %w", m.start, m.end, e))
		}
	}
	return errors.Join(errs...)
}
