//go:build linux

package motion

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// threadAccount reads the kernel's accounts of one thread: its CPU
// clock (time on a CPU), its schedstat (time waiting, runnable, for a
// CPU) and its context switches (getrusage). It must be opened and read on the thread
// it accounts for, which must be locked to its goroutine.
//
// Reads are raw system calls: they do not enter the Go scheduler, so
// the runtime has no chance to take the loop's processor or preempt it
// there, and they allocate nothing.
type threadAccount struct {
	fd  int // /proc/thread-self/schedstat
	buf [128]byte
	ru  unix.Rusage
	ts  unix.Timespec
}

// openAccount opens the calling thread's accounts; nil where the kernel
// does not keep them (no schedstat: a kernel without CONFIG_SCHED_INFO).
func (linuxRT) openAccount() *threadAccount {
	fd, err := unix.Open("/proc/thread-self/schedstat", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	a := &threadAccount{fd: fd}
	var t threadTimes
	if !a.read(&t) {
		a.close()
		return nil
	}
	return a
}

// read fills t; false where the accounts could not be read.
func (a *threadAccount) read(t *threadTimes) bool {
	n, _, e := syscall.RawSyscall6(unix.SYS_PREAD64, uintptr(a.fd), uintptr(unsafe.Pointer(&a.buf[0])), uintptr(len(a.buf)), 0, 0, 0)
	if e != 0 || n == 0 || n > uintptr(len(a.buf)) {
		return false
	}
	// "on-cpu-ns run-delay-ns timeslices\n": the second is wanted
	var f [2]int64
	i := 0
	for k := range f {
		for i < int(n) && a.buf[i] == ' ' {
			i++
		}
		start := i
		for i < int(n) && a.buf[i] >= '0' && a.buf[i] <= '9' {
			f[k] = f[k]*10 + int64(a.buf[i]-'0')
			i++
		}
		if i == start {
			return false
		}
	}
	if _, _, e := syscall.RawSyscall(unix.SYS_GETRUSAGE, unix.RUSAGE_THREAD, uintptr(unsafe.Pointer(&a.ru)), 0); e != 0 {
		return false
	}
	// schedstat's time on a CPU is brought up to date only at the
	// scheduler's events; the thread's CPU clock is exact.
	if _, _, e := syscall.RawSyscall(unix.SYS_CLOCK_GETTIME, unix.CLOCK_THREAD_CPUTIME_ID, uintptr(unsafe.Pointer(&a.ts)), 0); e != 0 {
		return false
	}
	t.onCPU, t.queued = a.ts.Nano(), f[1]
	t.waits, t.preempted = int64(a.ru.Nvcsw), int64(a.ru.Nivcsw)
	return true
}

// close closes the accounts; a nil one is closed already.
func (a *threadAccount) close() {
	if a != nil {
		_ = unix.Close(a.fd)
	}
}
