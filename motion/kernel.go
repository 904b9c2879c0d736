package motion

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Preemption is whether the kernel preempts a task running in the kernel
// when a higher-priority thread, such as the control loop woken on time,
// wants its CPU. A kernel that does not (preempt=none or voluntary) makes
// the woken loop wait until that task leaves the kernel or yields, which
// on a busy machine takes milliseconds (docs/motion.md, "Where the late
// ticks come from").
type Preemption struct {
	// Mode is the kernel's preemption model: "none", "voluntary", "full",
	// "lazy" or "rt" (PREEMPT_RT); "" when it could not be told.
	Mode string `json:"mode,omitempty"`
	// Preemptible is true for full, lazy and rt: a woken real-time thread
	// gets its CPU at once.
	Preemptible bool `json:"preemptible"`
	// From says where the mode was read.
	From string `json:"from,omitempty"`
	// IsolatedCPUs lists the CPUs the kernel keeps free of ordinary tasks
	// (isolcpus=), as it says in /sys/devices/system/cpu/isolated.
	IsolatedCPUs []int `json:"isolated_cpus,omitempty"`
}

// String says what the kernel does in a few words.
func (p Preemption) String() string {
	switch {
	case p.Mode == "" && p.From != "":
		return "preemption model unknown: " + p.From
	case p.Mode == "":
		return "preemption model unknown"
	case p.Preemptible:
		return fmt.Sprintf("preemptible (%s, from %s)", p.Mode, p.From)
	}
	return fmt.Sprintf("not preemptible (%s, from %s): a woken loop waits for the task on its CPU to leave the kernel", p.Mode, p.From)
}

// Advice says what a robot's kernel needs for the loop to be woken on
// time on CPU cpu (-1: not pinned); "" when it has it.
func (p Preemption) Advice(cpu int) string {
	var need []string
	if p.Mode != "" && !p.Preemptible {
		need = append(need, "a preemptible kernel: preempt=full on the kernel command line (a PREEMPT_DYNAMIC kernel) or a PREEMPT_RT kernel")
	}
	if cpu >= 0 && !slices.Contains(p.IsolatedCPUs, cpu) {
		need = append(need, fmt.Sprintf("CPU %d kept free of other processes (isolcpus=%d or a cpuset)", cpu, cpu))
	}
	if len(need) == 0 {
		return ""
	}
	return "for no late tick a robot needs " + strings.Join(need, ", and ")
}

// Where Linux says how it preempts.
const (
	// kernelRealtime is "1" on a PREEMPT_RT kernel.
	kernelRealtime = "sys/kernel/realtime"
	// debugPreempt lists the modes of a PREEMPT_DYNAMIC kernel, the one in
	// force in parentheses: "none (voluntary) full lazy". Only where
	// debugfs is mounted.
	debugPreempt = "sys/kernel/debug/sched/preempt"
	// kernelVersion is what uname -v says: "#1 SMP PREEMPT_DYNAMIC ...".
	kernelVersion = "proc/sys/kernel/version"
	// isolatedCPUs is a CPU list: "1", "2-3,5", or empty.
	isolatedCPUs = "sys/devices/system/cpu/isolated"
	// bootLogPrefix starts the boot log's line on a PREEMPT_DYNAMIC
	// kernel's mode.
	bootLogPrefix = "Dynamic Preempt: "
)

// KernelPreemption reads how this system's kernel preempts.
func KernelPreemption() Preemption {
	return kernelPreemption(osRoot{}, bootLog)
}

// fileReader reads files by path; fstest.MapFS is one.
type fileReader interface {
	ReadFile(name string) ([]byte, error)
}

// osRoot reads the system's own files.
type osRoot struct{}

func (osRoot) ReadFile(name string) ([]byte, error) { return os.ReadFile("/" + name) }

// kernelPreemption tells the preemption model from the files of root
// (paths without the leading slash) and, where they do not say, from the
// lines of the kernel's boot log that log returns.
func kernelPreemption(root fileReader, log func(prefix string) (string, error)) Preemption {
	var p Preemption
	if b, err := root.ReadFile(isolatedCPUs); err == nil {
		p.IsolatedCPUs, _ = parseCPUList(strings.TrimSpace(string(b)))
	}
	set := func(mode, from string) Preemption {
		p.Mode, p.From = mode, from
		p.Preemptible = mode == "full" || mode == "lazy" || mode == "rt"
		return p
	}
	if b, err := root.ReadFile(kernelRealtime); err == nil && strings.TrimSpace(string(b)) == "1" {
		return set("rt", "/"+kernelRealtime)
	}
	if b, err := root.ReadFile(debugPreempt); err == nil {
		if _, rest, ok := strings.Cut(string(b), "("); ok {
			if mode, _, ok := strings.Cut(rest, ")"); ok && mode != "" {
				return set(mode, "/"+debugPreempt)
			}
		}
	}
	version := ""
	if b, err := root.ReadFile(kernelVersion); err == nil {
		version = string(b)
	}
	words := strings.Fields(version)
	switch {
	case hasWord(words, "PREEMPT_RT"):
		return set("rt", "uname -v")
	case hasWord(words, "PREEMPT_DYNAMIC"):
		// The mode is chosen at boot (preempt=), and said in the boot log.
		if log != nil {
			if line, err := log(bootLogPrefix); err == nil && line != "" {
				mode := strings.Fields(strings.TrimPrefix(line, bootLogPrefix))
				if len(mode) > 0 {
					return set(mode[0], "the boot log: "+strings.TrimSpace(line))
				}
			}
		}
		p.From = "uname -v says PREEMPT_DYNAMIC; the mode is in debugfs (not mounted) or the boot log (needs CAP_SYSLOG)"
		return p
	case hasWord(words, "PREEMPT_LAZY"):
		return set("lazy", "uname -v")
	case hasWord(words, "PREEMPT"):
		return set("full", "uname -v")
	case version != "":
		// Built without preemption; uname cannot tell none from voluntary.
		return set("none or voluntary", "uname -v")
	}
	return p
}

func hasWord(words []string, w string) bool { return slices.Contains(words, w) }

// maxCPUs bounds a CPU list.
const maxCPUs = 4096

// parseCPUList reads a kernel CPU list such as "0-2,5".
func parseCPUList(s string) ([]int, error) {
	var out []int
	if s == "" {
		return nil, nil
	}
	for part := range strings.SplitSeq(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("CPU list %q: %w", s, err)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil {
				return nil, fmt.Errorf("CPU list %q: %w", s, err)
			}
		}
		if a < 0 || b < a || b >= maxCPUs {
			return nil, fmt.Errorf("CPU list %q: bad range %q", s, part)
		}
		for c := a; c <= b; c++ {
			out = append(out, c)
		}
	}
	return out, nil
}

// errNoBootLog is bootLog's error where the system keeps none it can read.
var errNoBootLog = errors.New("no readable kernel log")
