package motion

import (
	"errors"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
)

// TestKernelPreemption tells the kernel's preemption model from what
// Linux exposes, in the order of precedence, and what a robot's kernel
// needs for its loop's CPU.
func TestKernelPreemption(t *testing.T) {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	noLog := func(string) (string, error) { return "", errNoBootLog }
	bootNone := func(string) (string, error) { return "Dynamic Preempt: none", nil }
	const unreadable = "uname -v says PREEMPT_DYNAMIC; the mode is in debugfs (not mounted) or the boot log (needs CAP_SYSLOG)"
	for _, tc := range []struct {
		name        string
		files       fstest.MapFS
		log         func(string) (string, error)
		mode, from  string
		preemptible bool
		advice      string // a part of Advice(1); "" for none
	}{
		{name: "this VM: dynamic, none at boot", files: fstest.MapFS{kernelVersion: file("#1 SMP PREEMPT_DYNAMIC @0\n")}, log: bootNone,
			mode: "none", from: "the boot log: Dynamic Preempt: none", advice: "preempt=full"},
		{name: "dynamic, debugfs says full", files: fstest.MapFS{kernelVersion: file("#1 SMP PREEMPT_DYNAMIC"),
			debugPreempt: file("none voluntary (full) lazy\n")}, log: bootNone,
			mode: "full", from: "/" + debugPreempt, preemptible: true, advice: "isolcpus=1"},
		{name: "PREEMPT_RT", files: fstest.MapFS{kernelRealtime: file("1\n"), kernelVersion: file("#1 SMP PREEMPT_RT"),
			isolatedCPUs: file("1\n")}, mode: "rt", from: "/" + kernelRealtime, preemptible: true},
		{name: "built with PREEMPT", files: fstest.MapFS{kernelVersion: file("#1 SMP PREEMPT Tue")},
			mode: "full", from: "uname -v", preemptible: true},
		{name: "built without preemption", files: fstest.MapFS{kernelVersion: file("#1 SMP Debian 6.1")},
			mode: "none or voluntary", from: "uname -v", advice: "PREEMPT_RT"},
		{name: "dynamic, no log to say", files: fstest.MapFS{kernelVersion: file("#1 SMP PREEMPT_DYNAMIC")}, log: noLog,
			from: unreadable},
		{name: "nothing readable", files: fstest.MapFS{}, log: noLog},
		{name: "a log that fails", files: fstest.MapFS{kernelVersion: file("#1 SMP PREEMPT_DYNAMIC")},
			log: func(string) (string, error) { return "", errors.New("permission denied") }, from: unreadable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := kernelPreemption(tc.files, tc.log)
			assert.Equal(t, tc.mode, p.Mode)
			assert.Equal(t, tc.from, p.From)
			assert.Equal(t, tc.preemptible, p.Preemptible)
			if tc.mode == "" {
				assert.Contains(t, p.String(), "preemption model unknown")
				assert.Empty(t, p.Advice(-1), "nothing to advise on what is not known")
			}
			if tc.advice == "" {
				if tc.mode == "rt" {
					assert.Empty(t, p.Advice(1))
				}
				return
			}
			assert.Contains(t, p.Advice(1), tc.advice)
		})
	}
}

func TestParseCPUList(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int
		bad  bool
	}{
		{in: "", want: nil},
		{in: "1", want: []int{1}},
		{in: "0-2,5", want: []int{0, 1, 2, 5}},
		{in: "2-1", bad: true},
		{in: "x", bad: true},
		{in: "0-99999", bad: true},
	} {
		got, err := parseCPUList(tc.in)
		if tc.bad {
			assert.Error(t, err, tc.in)
			continue
		}
		assert.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
	}
}
