//go:build !linux

package motion

import "time"

// preciseSleep falls back to time.Sleep where nanosleep(2) is not wired.
func preciseSleep(d time.Duration) { time.Sleep(d) }

const havePreciseSleep = false
