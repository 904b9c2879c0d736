//go:build linux

package motion

import (
	"errors"
	"fmt"
	"os"
	"strconv"

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
func (linuxRT) lockMemory() error {
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
