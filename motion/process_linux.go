//go:build linux

package motion

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// newMirrorMemory makes the memory the loop process shares with the
// parent: a memory file, mapped here and handed to every process started.
// The mapping goes when owner is garbage.
func newMirrorMemory(owner *Controller) (*os.File, *mirror, error) {
	fd, err := unix.MemfdCreate("jibod-motion", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, nil, fmt.Errorf("shared memory: %w", err)
	}
	f := os.NewFile(uintptr(fd), "motion-mirror")
	size := mirrorBytes()
	if err := unix.Ftruncate(fd, int64(size)); err != nil {
		_ = f.Close()
		return nil, nil, fmt.Errorf("shared memory: %w", err)
	}
	mem, err := unix.Mmap(fd, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		_ = f.Close()
		return nil, nil, fmt.Errorf("shared memory: %w", err)
	}
	runtime.AddCleanup(owner, func(m []byte) { _ = unix.Munmap(m) }, mem)
	runtime.AddCleanup(owner, func(f *os.File) { _ = f.Close() }, f)
	return f, (*mirror)(unsafe.Pointer(&mem[0])), nil
}

// mirrorBytes is the mirror's size in whole pages.
func mirrorBytes() int {
	page := os.Getpagesize()
	n := int(unsafe.Sizeof(mirror{}))
	return (n + page - 1) / page * page
}

// mapMirror maps the parent's memory in the loop process, for good.
func mapMirror(f *os.File) (*mirror, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("shared memory: %w", err)
	}
	if st.Size() < int64(unsafe.Sizeof(mirror{})) {
		return nil, fmt.Errorf("shared memory: %d bytes, want %d", st.Size(), unsafe.Sizeof(mirror{}))
	}
	mem, err := unix.Mmap(int(f.Fd()), 0, mirrorBytes(), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("shared memory: %w", err)
	}
	return (*mirror)(unsafe.Pointer(&mem[0])), nil
}

// hurryOthers puts every thread of the process but the loop's at the
// highest ordinary priority (nice -20), where the loop runs in a process
// of its own. When the runtime preempts the loop's goroutine, which it
// does every few hundred ticks, another thread of the process must hand
// it back to the loop's thread; at an ordinary priority on the busy other
// CPU that thread waited milliseconds for its turn. The process does
// little else, so it takes little from the rest of the robot. Threads
// started later inherit it.
func (rt *realTime) hurryOthers() error {
	return rt.eachThread(func(tid int) error {
		if tid == rt.tid {
			return nil
		}
		if err := unix.Setpriority(unix.PRIO_PROCESS, tid, -20); err != nil && !threadGone(err) {
			return fmt.Errorf("thread %d: %w", tid, err)
		}
		return nil
	})
}

// connFile returns the loop process's end of its connection, pollable so
// that closing it ends a read.
func connFile() *os.File {
	if err := unix.SetNonblock(processConnFD, true); err != nil {
		return nil
	}
	return os.NewFile(processConnFD, "motion-conn")
}

// startProcess starts the loop's process with its end of a new
// connection and the shared memory. It gets SIGTERM when this process
// goes, and a process group of its own, so that a terminal's interrupt
// reaches the parent alone, which then closes it.
func startProcess(pc Process, mem *os.File) (*loopProc, error) {
	if err := notEmulated(); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrProcessNotStarted, pc.Path, err)
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("connection: %w", err)
	}
	if err := unix.SetNonblock(fds[0], true); err != nil {
		_, _ = unix.Close(fds[0]), unix.Close(fds[1])
		return nil, fmt.Errorf("connection: %w", err)
	}
	mine, theirs := os.NewFile(uintptr(fds[0]), "motion-conn"), os.NewFile(uintptr(fds[1]), "motion-conn")
	defer theirs.Close()
	cmd := exec.Command(pc.Path, pc.Args...)
	cmd.Env = append(os.Environ(), ProcessEnv+"=1")
	cmd.ExtraFiles = []*os.File{theirs, mem} // processConnFD, processMemFD
	cmd.Stdout, cmd.Stderr = pc.Stderr, pc.Stderr
	if pc.Stderr == nil {
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM, Setpgid: true}
	// Wait does not wait for ever on a copy of the output that something
	// the killed process started still holds.
	cmd.WaitDelay = processWaitDelay
	if err := cmd.Start(); err != nil {
		_ = mine.Close()
		return nil, fmt.Errorf("%w: %s: %w", ErrProcessNotStarted, pc.Path, err)
	}
	return &loopProc{cmd: cmd, conn: mine}, nil
}

// processWaitDelay bounds Wait's copying of a killed process's output.
const processWaitDelay = 5 * time.Second

// killGroup kills process p and the processes it started in its group.
func killGroup(p *os.Process) {
	if err := unix.Kill(-p.Pid, unix.SIGKILL); err != nil {
		_ = p.Kill()
	}
}

// notEmulated fails where this program runs under a user-mode emulator
// such as qemu-user. There the kernel's /proc/self/exe is the emulator,
// which shows the program's own file to what the program opens but not
// to stat; natively both are this program's file. Such an emulator's
// forked child can hang on its way to the program or out of a failed
// exec, where os/exec's start waits for it, so no process is started.
func notEmulated() error {
	kernel, err := os.Stat(selfExe)
	if err != nil {
		return nil // no /proc: nothing to tell
	}
	f, err := os.Open(selfExe)
	if err != nil {
		return nil
	}
	defer f.Close()
	own, err := f.Stat()
	if err != nil || os.SameFile(kernel, own) {
		return nil
	}
	return errEmulated
}

// selfExe names this process's program.
const selfExe = "/proc/self/exe"
