//go:build !linux

package diag

import "time"

// The robot runs Linux; elsewhere status reports what Go itself knows.

func cpuTime() (time.Duration, bool)                   { return 0, false }
func residentBytes() (int64, bool)                     { return 0, false }
func loadAverage() (string, bool)                      { return "", false }
func systemMemory() (total, avail int64, ok bool)      { return 0, 0, false }
func temperature() (float64, bool)                     { return 0, false }
func diskFree(dir string) (free, total int64, ok bool) { return 0, 0, false }
