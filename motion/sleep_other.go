//go:build !linux

package motion

import "time"

// preciseClock falls back to time.Sleep where clock_nanosleep(2) is not
// wired.
type preciseClock struct{}

func newPreciseClock() preciseClock { return preciseClock{} }

func (preciseClock) sleepUntil(t time.Time) int { time.Sleep(time.Until(t)); return 1 }

const havePreciseSleep = false
