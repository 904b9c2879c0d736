// Package device holds the small, driver-level interfaces the runtime uses
// to reach Jibo's body (motors, LED ring, voice, PCM speaker, display,
// switches and buttons) and the types they share.
//
// Drivers live in subpackages and are built from a board profile by
// package board:
//
//   - device/sim: the simulated body;
//   - device/pca9685: hobby servos on a PCA9685 over I²C (periph.io);
//   - device/apa102: an APA102 LED ring over SPI (periph.io);
//   - device/gpio: the motor power switch and buttons on GPIO (periph.io);
//   - device/ledring: animates any LEDRing (listening, thinking, speaking,
//     error patterns and keyframed colours);
//   - device/sfx: sound effects on any PCMSink.
//
// Nothing here knows about skills, JCP or the bus: callers above this
// package define their own interfaces and these drivers satisfy them
// structurally. Driver tests replay recorded bus traffic (periph.io's
// i2ctest, spitest, gpiotest); none needs hardware.
//
// Every device reports what it does as an [Event] to an optional
// [Observer], so tests, the diagnostics shell and the bus can watch the
// body without polling it. Streams are not reported frame by frame: the
// motion controller reports moves, not the setpoints it sends each tick,
// and the ring animator reports programs, not frames.
package device
