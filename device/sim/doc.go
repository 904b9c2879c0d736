// Package sim simulates Jibo's body: a speaker that takes realistic time to
// talk, a PCM sound output, a layered display, a light ring, the three
// motor axes, an on/off switch and push buttons. The devices satisfy the
// interfaces in package device, keep their state observable, and report
// every action as a device.Event (the light ring: every change of what it
// shows), so the whole runtime can run and be tested
// on a machine with no robot attached.
//
// Time: the speaker waits on real timers (a words-per-minute rate; 0 speaks
// instantly) and the motors compute their position from a clock when read.
// Inside a testing/synctest bubble both run on the bubble's fake clock, so
// tests of timing are instant and deterministic.
//
// The simulated devices start no goroutines of their own.
package sim
