//go:build sphinx

// Package pstest reads pocketsphinx's own view of what audio/sphinx hands
// it, for audio/sphinx's tests only: the settings a decoder runs with and
// the automaton pocketsphinx's JSGF compiler makes. Test files cannot use
// cgo, and none of this belongs in the robot's binary.
package pstest

/*
#cgo pkg-config: pocketsphinx sphinxbase
#include <stdlib.h>
#include <pocketsphinx.h>
#include <sphinxbase/jsgf.h>
#include <sphinxbase/fsg_model.h>
#include <sphinxbase/logmath.h>
#include <sphinxbase/err.h>

// pocketsphinxFSG compiles jsgf's public rule as pocketsphinx's decoder
// does (ps_set_jsgf_string), with logmath's base, or returns NULL.
static fsg_model_t *pocketsphinxFSG(const char *jsgf, logmath_t *lmath) {
	jsgf_t *g = jsgf_parse_string(jsgf, NULL);
	if (g == NULL)
		return NULL;
	jsgf_rule_t *r = jsgf_get_public_rule(g);
	fsg_model_t *f = r == NULL ? NULL : jsgf_build_fsg(g, r, lmath, 1.0);
	jsgf_grammar_free(g);
	return f;
}

static int fsgStates(fsg_model_t *f) { return fsg_model_n_state(f); }
static int fsgStart(fsg_model_t *f) { return fsg_model_start_state(f); }
static int fsgFinal(fsg_model_t *f) { return fsg_model_final_state(f); }

// fsgArcs writes up to max arcs of f (null ones with word -1) and returns
// how many it has.
static int fsgArcs(fsg_model_t *f, int max, int *from, int *to, int *word, int *logp) {
	int n = 0;
	for (int s = 0; s < fsg_model_n_state(f); s++) {
		for (fsg_arciter_t *it = fsg_model_arcs(f, s); it != NULL; it = fsg_arciter_next(it)) {
			fsg_link_t *l = fsg_arciter_get(it);
			if (n < max) {
				from[n] = fsg_link_from_state(l);
				to[n] = fsg_link_to_state(l);
				word[n] = fsg_link_wid(l);
				logp[n] = fsg_link_logs2prob(l);
			}
			n++;
		}
	}
	return n;
}

static const char *fsgWord(fsg_model_t *f, int wid) { return fsg_model_word_str(f, wid); }

static const char *setting(void *ps, const char *flag) {
	return cmd_ln_str_r(ps_get_config((ps_decoder_t *)ps), flag);
}

static double floatSetting(void *ps, const char *flag) {
	return cmd_ln_float_r(ps_get_config((ps_decoder_t *)ps), flag);
}
*/
import "C"

import (
	"errors"
	"sync"
	"unsafe"
)

// quiet silences pocketsphinx's log once: the log file is process-wide
// state the decoders of the tests running beside may be writing to.
var quiet sync.Once

// Arc is a transition of an automaton; Word is "" for a null one.
type Arc struct {
	From, To int
	Word     string
}

// Automaton is the automaton pocketsphinx's own JSGF compiler makes of
// jsgf, with the log probabilities of its transitions in base 1.0001.
func Automaton(jsgf string) (states, start, final int, arcs []Arc, logp []int, err error) {
	quiet.Do(func() { C.err_set_logfp(nil) })
	lmath := C.logmath_init(1.0001, 0, 0)
	defer C.logmath_free(lmath)
	cj := C.CString(jsgf)
	defer C.free(unsafe.Pointer(cj))
	f := C.pocketsphinxFSG(cj, lmath)
	if f == nil {
		return 0, 0, 0, nil, nil, errors.New("pocketsphinx refused the grammar")
	}
	defer C.fsg_model_free(f)
	n := int(C.fsgArcs(f, 0, nil, nil, nil, nil))
	if n == 0 {
		return int(C.fsgStates(f)), int(C.fsgStart(f)), int(C.fsgFinal(f)), nil, nil, nil
	}
	from, to, word, lp := make([]C.int, n), make([]C.int, n), make([]C.int, n), make([]C.int, n)
	C.fsgArcs(f, C.int(n), &from[0], &to[0], &word[0], &lp[0])
	for i := range n {
		a := Arc{From: int(from[i]), To: int(to[i])}
		if word[i] >= 0 {
			a.Word = C.GoString(C.fsgWord(f, word[i]))
		}
		arcs = append(arcs, a)
		logp = append(logp, int(lp[i]))
	}
	return int(C.fsgStates(f)), int(C.fsgStart(f)), int(C.fsgFinal(f)), arcs, logp, nil
}

// Log is p as a log probability in base 1.0001, as the decoder turns a
// transition's probability into one.
func Log(p float64) int {
	lmath := C.logmath_init(1.0001, 0, 0)
	defer C.logmath_free(lmath)
	return int(C.logmath_log(lmath, C.float64(p)))
}

// Setting is the value of a string argument of the decoder ps (a
// *ps_decoder_t) as it runs, after the model's feature parameters; "" for
// none.
func Setting(ps unsafe.Pointer, flag string) string {
	cf := C.CString(flag)
	defer C.free(unsafe.Pointer(cf))
	v := C.setting(ps, cf)
	if v == nil {
		return ""
	}
	return C.GoString(v)
}

// FloatSetting is Setting for a number.
func FloatSetting(ps unsafe.Pointer, flag string) float64 {
	cf := C.CString(flag)
	defer C.free(unsafe.Pointer(cf))
	return float64(C.floatSetting(ps, cf))
}
