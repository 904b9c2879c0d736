// Package device holds the small, driver-level interfaces the runtime uses
// to reach Jibo's body (motors, LED ring, voice) and the types they share.
//
// Drivers live in subpackages (device/sim for the simulated body; periph.io
// drivers for real boards later) and are built from a board profile by
// package board. Nothing here knows about skills, JCP or the bus: callers
// above this package define their own interfaces and these drivers satisfy
// them structurally.
//
// Every device reports what it does as an [Event] to an optional
// [Observer], so tests, the diagnostics shell and the bus can watch the
// body without polling it.
package device
