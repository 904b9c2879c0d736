//go:build sphinx

package sphinx

/*
#cgo pkg-config: pocketsphinx sphinxbase
#include <pocketsphinx.h>
#include "gauss.h"
*/
import "C"

import (
	"log/slog"
	"sync/atomic"
)

// gaussNoSIMD is gauss.h's code for a CPU without the vector
// unit (for tests, which cannot use cgo).
const gaussNoSIMD = C.JIBOD_GAUSS_NO_SIMD

// gaussTripWarned: that a check turned the vector scoring off is
// logged once, the process over, as the check is the process's.
var gaussTripWarned atomic.Bool

// installGauss puts the vector scoring of the Gaussian densities into
// the decoder's acoustic model where it can (pocketsphinx 5prealpha's
// phonetically-tied model on amd64, arm64, or armv7 with NEON); else the
// library's own scoring stays. The scores are the same either way. The
// outcome stays on the decoder (logGaussInstall).
func installGauss(d *decoder) {
	d.gauss = int32(C.jibod_gauss_install(d.ps))
}

// logGaussInstall logs, for a decoder just made, why pocketsphinx's own
// scoring runs in it: the model was not laid out as gauss.c reads it or
// there was no memory (warnings), or the vector scoring does not apply
// to this model or CPU. It logs nothing when the vector scoring runs.
func logGaussInstall(log *slog.Logger, d *decoder) {
	const want = "pocketsphinx 5prealpha (Debian 12)"
	switch d.gauss {
	case C.JIBOD_GAUSS_ON:
	case C.JIBOD_GAUSS_LAYOUT:
		log.Warn("speech recognizer: pocketsphinx's acoustic model is not laid out as expected (another version?); its own scoring runs", "want", want)
	case C.JIBOD_GAUSS_MEMORY:
		log.Warn("speech recognizer: no memory for the vector acoustic scoring; pocketsphinx's own runs")
	case C.JIBOD_GAUSS_MODEL:
		log.Info("speech recognizer: the acoustic model's numbers are outside what the vector scoring handles; pocketsphinx's own scoring runs")
	case C.JIBOD_GAUSS_NO_SIMD:
		log.Info("speech recognizer: no vector unit for the acoustic scoring on this CPU; pocketsphinx's own scoring runs")
	default:
		log.Info("speech recognizer: the acoustic model is not a phonetically-tied one; pocketsphinx's own scoring runs")
	}
}

// warnGaussTripped logs, once for the process, that a check found the
// vector scoring's scores different from the library's and turned it
// off.
func warnGaussTripped(log *slog.Logger) {
	if C.jibod_gauss_off() == 0 || !gaussTripWarned.CompareAndSwap(false, true) {
		return
	}
	log.Warn("speech recognizer: the vector acoustic scoring differed from pocketsphinx's on a checked frame; pocketsphinx scores from now on")
}

// gaussTripped reports whether a check has turned the vector scoring
// off for the process.
func gaussTripped() bool { return C.jibod_gauss_off() != 0 }

// gaussOn reports whether the decoder scores its frames with gauss.c:
// installed in it, and no check has turned it off.
func (d *decoder) gaussOn() bool { return d.gauss == C.JIBOD_GAUSS_ON && C.jibod_gauss_off() == 0 }

// setGaussOff has pocketsphinx's own scoring score every frame (or not)
// for the process, as after a failed check but without its warning: a
// test compares the two.
func setGaussOff(on bool) { C.jibod_gauss_set_off(cbool(on)) }

// setGaussCheckAll makes every new frame be scored both ways and
// compared (a test), not one in 256.
func setGaussCheckAll(on bool) { C.jibod_gauss_set_check_all(cbool(on)) }

// setGaussNarrow makes the decoders made from now on score four
// densities at a time even where the CPU has AVX (a test of the SSE2
// code on such a CPU).
func setGaussNarrow(on bool) { C.jibod_gauss_set_narrow(cbool(on)) }

// gaussWidth is how many densities the decoder's vector scoring scores
// at a time: 4 (SSE2, NEON) or 8 (AVX); 0 where it is not installed.
func (d *decoder) gaussWidth() int { return int(C.jibod_gauss_width(d.ps)) }

// setGaussCorrupt makes every check see our scores differ from the
// library's (a test of the check); turned back off, it clears what the
// check found.
func setGaussCorrupt(on bool) { C.jibod_gauss_set_corrupt(cbool(on)) }

// gaussChecked is the number of frames scored both ways, the process over.
func gaussChecked() int64 { return int64(C.jibod_gauss_checked()) }

// gaussVecFrames is the number of frames the vector scoring scored.
func gaussVecFrames() int64 { return int64(C.jibod_gauss_vec_frames()) }

func cbool(on bool) C.int {
	if on {
		return 1
	}
	return 0
}
