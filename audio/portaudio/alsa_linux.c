//go:build portaudio && linux

// ALSA reports problems (no sound card, an unknown PCM in its
// configuration) by printing to stderr from deep inside the library, on
// every device scan. This handler hands each message to Go instead, which
// logs it at debug level.

#include <stdarg.h>
#include <stdio.h>
#include <alsa/asoundlib.h>
#include "_cgo_export.h"

static void jibodALSAError(const char *file, int line, const char *function, int err, const char *fmt, ...) {
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	char full[768];
	if (err != 0) {
		snprintf(full, sizeof full, "%s:%d (%s): %s: %s", file, line, function, msg, snd_strerror(err));
	} else {
		snprintf(full, sizeof full, "%s:%d (%s): %s", file, line, function, msg);
	}
	goALSAMessage(full);
}

void jibodRouteALSAErrors(void) {
	snd_lib_error_set_handler(jibodALSAError);
}
