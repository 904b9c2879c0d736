//go:build portaudio && linux

package portaudio

/*
#cgo pkg-config: alsa
extern void jibodRouteALSAErrors(void);
*/
import "C"

import "log/slog"

// routeALSAErrors sends ALSA's own error messages to slog (debug level)
// rather than stderr.
func routeALSAErrors() { C.jibodRouteALSAErrors() }

//export goALSAMessage
func goALSAMessage(msg *C.char) {
	slog.Debug("alsa", "msg", C.GoString(msg))
}
