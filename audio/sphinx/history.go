//go:build sphinx

package sphinx

/*
#cgo pkg-config: pocketsphinx sphinxbase
// dlsym (RTLD_NEXT, below) is in libdl before glibc 2.34, in libc since.
#cgo LDFLAGS: -ldl
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <sphinxbase/fsg_model.h>
#include <sphinxbase/glist.h>

// jibod_fsg_history is the head of pocketsphinx's fsg_history_t as the
// Debian build (0.8+5prealpha) lays it out; its header is not installed.
// The build scripts check that version (scripts/pocketsphinx-version.sh),
// and the sweep checks itself as it runs (jibod_end_frame).
// frame_entries[state][left context] holds the word exits of the frame
// being searched.
typedef struct {
	fsg_model_t *fsg;
	void *entries;
	glist_t **frame_entries;
	int n_ciphone;
} jibod_fsg_history;

// blkarray_list_append is pocketsphinx's (exported, header not
// installed): it appends data to the history table.
int blkarray_list_append(void *list, void *data);

// jibod_swept says that a grammar search's end of frame came here: a
// test's proof that the library's calls reach this file, which nothing
// else would show (the sentences are the same either way). Set once; the
// per-frame cost is a plain load.
static int jibod_swept;

// jibod_ctxt is pocketsphinx's fsg_pnode_ctxt_t, the right contexts a
// word exit applies to: four 32-bit words, passed by value.
typedef struct {
	uint32_t bv[4];
} jibod_ctxt;

typedef void (*jibod_entry_add_fn)(void *, fsg_link_t *, int32_t, int32_t, int32_t, int32_t, jibod_ctxt);

// The library's own fsg_history_entry_add: under the static builds'
// --wrap=fsg_history_entry_add, __real_fsg_history_entry_add; linked
// against the shared library, the next definition after ours (dlsym).
// Weak, so that each build links without the other's. Neither may be our
// own definition: linked dynamically with --wrap, __real_ binds to it,
// and calling it would recurse.
extern void __real_fsg_history_entry_add(void *, fsg_link_t *, int32_t, int32_t, int32_t, int32_t, jibod_ctxt)
	__attribute__((weak));
extern void *dlsym(void *, const char *);

static void jibod_own_entry_add(void *, fsg_link_t *, int32_t, int32_t, int32_t, int32_t, jibod_ctxt);
void __wrap_fsg_history_entry_add(void *, fsg_link_t *, int32_t, int32_t, int32_t, int32_t, jibod_ctxt);

static int jibod_is_own(jibod_entry_add_fn f) {
	return f == jibod_own_entry_add || f == __wrap_fsg_history_entry_add;
}

static jibod_entry_add_fn jibod_real_entry_add(void) {
	static jibod_entry_add_fn fn;
	jibod_entry_add_fn f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
	if (f != NULL)
		return f;
	if (__real_fsg_history_entry_add != NULL && !jibod_is_own(__real_fsg_history_entry_add))
		f = __real_fsg_history_entry_add;
	else {
		f = (jibod_entry_add_fn)dlsym((void *)-1L, "fsg_history_entry_add"); // RTLD_NEXT
		if (jibod_is_own(f))
			f = NULL;
	}
	__atomic_store_n(&fn, f, __ATOMIC_RELEASE);
	return f;
}

// The cells a frame's word exits went into, recorded as the search adds
// them (per thread: a search runs its frames on one), so that the sweep
// visits those alone. Full, or for another history, the sweep visits
// every cell.
#define JIBOD_MAX_CELLS 4096
static __thread struct {
	void *h;
	int n, overflow;
	// frames counts the tracked sweeps since the last check.
	int frames;
	int32_t cells[JIBOD_MAX_CELLS];
} jibod_dirty;

// Every JIBOD_CHECK_EVERY tracked sweeps, one visits every cell too: a
// filled cell the tracking missed (a library laid out otherwise than
// jibod_fsg_history says) sets jibod_mismatch, and from then on every
// sweep visits every cell, as pocketsphinx's does.
#define JIBOD_CHECK_EVERY 128
static int jibod_mismatch;

// jibod_tracking says that the search's word exits come through
// jibod_entry_add (the search adds one as each utterance starts, before
// any frame): without it, the sweep visits every cell.
static int jibod_tracking;

// jibod_full_sweeps makes every sweep visit every cell (for a test).
static int jibod_full_sweeps;
static void jibod_set_full_sweeps(int on) { __atomic_store_n(&jibod_full_sweeps, on, __ATOMIC_RELAXED); }
static int jibod_history_tracking(void) { return __atomic_load_n(&jibod_tracking, __ATOMIC_RELAXED); }

static void jibod_entry_add(void *hv, fsg_link_t *link, int32_t frame, int32_t score, int32_t pred, int32_t lc, jibod_ctxt rc) {
	jibod_fsg_history *h = hv;
	jibod_entry_add_fn real = jibod_real_entry_add();
	if (real == NULL) {
		// jibod_history_ready refuses to start a decoder first.
		fprintf(stderr, "jibod: pocketsphinx's fsg_history_entry_add not found\n");
		abort();
	}
	__atomic_store_n(&jibod_tracking, 1, __ATOMIC_RELAXED);
	glist_t *cell = NULL;
	if (frame >= 0 && link != NULL) {
		cell = &h->frame_entries[fsg_link_to_state(link)][lc];
		if (*cell != NULL)
			cell = NULL; // recorded when it was filled
	}
	real(hv, link, frame, score, pred, lc, rc);
	if (cell == NULL || *cell == NULL)
		return;
	if (jibod_dirty.h != hv) {
		if (jibod_dirty.n > 0)
			jibod_dirty.overflow = 1;
		jibod_dirty.h = hv;
	}
	if (jibod_dirty.n == JIBOD_MAX_CELLS) {
		jibod_dirty.overflow = 1;
		return;
	}
	jibod_dirty.cells[jibod_dirty.n++] = fsg_link_to_state(link) * h->n_ciphone + lc;
}

static void jibod_own_entry_add(void *h, fsg_link_t *link, int32_t frame, int32_t score, int32_t pred, int32_t lc, jibod_ctxt rc) {
	jibod_entry_add(h, link, frame, score, pred, lc, rc);
}
void fsg_history_entry_add(void *, fsg_link_t *, int32_t, int32_t, int32_t, int32_t, jibod_ctxt)
	__attribute__((weak, alias("jibod_own_entry_add")));
void __wrap_fsg_history_entry_add(void *h, fsg_link_t *link, int32_t frame, int32_t score, int32_t pred, int32_t lc, jibod_ctxt rc) {
	jibod_entry_add(h, link, frame, score, pred, lc, rc);
}

static int jibod_cmp_cell(const void *a, const void *b) {
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

static void jibod_flush(jibod_fsg_history *h, glist_t *cell) {
	glist_t l = *cell;
	if (l == NULL)
		return;
	for (gnode_t *gn = l; gn != NULL; gn = gnode_next(gn))
		blkarray_list_append(h->entries, gnode_ptr(gn));
	glist_free(l);
	*cell = NULL;
}

// jibod_sweep_all visits every cell, state by state and left context by
// left context, and returns how many it found filled.
static int jibod_sweep_all(jibod_fsg_history *h) {
	int ns = fsg_model_n_state(h->fsg), np = h->n_ciphone, filled = 0;
	for (int s = 0; s < ns; s++) {
		glist_t *row = h->frame_entries[s];
		for (int lc = 0; lc < np; lc += 8) {
			int end = lc + 8 < np ? lc + 8 : np;
			uintptr_t any = 0;
			for (int k = lc; k < end; k++)
				any |= (uintptr_t)row[k];
			if (any == 0)
				continue;
			for (int k = lc; k < end; k++) {
				if (row[k] != NULL) {
					filled++;
					jibod_flush(h, &row[k]);
				}
			}
		}
	}
	return filled;
}

// jibod_end_frame does what pocketsphinx's fsg_history_end_frame does at
// the end of each frame of a grammar search: every word exit of the frame
// goes into the history table, state by state and left context by left
// context, each cell's list in its order, and the cells are emptied.
// pocketsphinx's visits every cell of states × phones each frame, though
// few are filled; this one visits those jibod_entry_add recorded, and,
// where it could not record, every cell, reading the empty ones without
// writing them.
static void jibod_end_frame(jibod_fsg_history *h) {
	if (!__atomic_load_n(&jibod_swept, __ATOMIC_RELAXED))
		__atomic_store_n(&jibod_swept, 1, __ATOMIC_RELAXED);
	if (__atomic_load_n(&jibod_tracking, __ATOMIC_RELAXED) && !__atomic_load_n(&jibod_mismatch, __ATOMIC_RELAXED) &&
		!__atomic_load_n(&jibod_full_sweeps, __ATOMIC_RELAXED) && (jibod_dirty.h == h || jibod_dirty.n == 0) && !jibod_dirty.overflow) {
		// In state order, then left context's, as the full sweep goes.
		qsort(jibod_dirty.cells, jibod_dirty.n, sizeof(int32_t), jibod_cmp_cell);
		int np = h->n_ciphone;
		for (int i = 0; i < jibod_dirty.n; i++)
			jibod_flush(h, &h->frame_entries[jibod_dirty.cells[i] / np][jibod_dirty.cells[i] % np]);
		jibod_dirty.n = 0;
		jibod_dirty.h = NULL;
		if (++jibod_dirty.frames >= JIBOD_CHECK_EVERY) {
			jibod_dirty.frames = 0;
			if (jibod_sweep_all(h) > 0)
				__atomic_store_n(&jibod_mismatch, 1, __ATOMIC_RELAXED);
		}
		return;
	}
	jibod_dirty.n = 0;
	jibod_dirty.overflow = 0;
	jibod_dirty.h = NULL;
	jibod_sweep_all(h);
}

// Linked against the shared library, this definition takes the place of
// pocketsphinx's (its grammar search calls it through the procedure
// linkage table). Weak: linked statically (scripts/cross-full.sh), the
// library's own definition stands, and the linker's
// --wrap=fsg_history_end_frame sends the search's calls to the one below.
__attribute__((weak)) void fsg_history_end_frame(void *h) { jibod_end_frame(h); }
void __wrap_fsg_history_end_frame(void *h) { jibod_end_frame(h); }

static int jibod_history_swept(void) { return __atomic_load_n(&jibod_swept, __ATOMIC_RELAXED); }
static int jibod_history_mismatch(void) { return __atomic_load_n(&jibod_mismatch, __ATOMIC_RELAXED); }
static void jibod_set_history_mismatch(int on) { __atomic_store_n(&jibod_mismatch, on, __ATOMIC_RELAXED); }

// jibod_history_ready reports whether the grammar search can run: where
// the library's word exits come to our fsg_history_entry_add, it must
// find the library's own.
static int jibod_history_ready(void) {
	int ours = (jibod_entry_add_fn)fsg_history_entry_add == jibod_own_entry_add || __real_fsg_history_entry_add != NULL;
	return !ours || jibod_real_entry_add() != NULL;
}
*/
import "C"

import (
	"errors"
	"log/slog"
	"sync/atomic"
)

// historyReady reports an error where the grammar search would abort:
// its word exits come to this file, which cannot find pocketsphinx's own
// fsg_history_entry_add to pass them on to.
func historyReady() error {
	if C.jibod_history_ready() == 0 {
		return errors.New("pocketsphinx's fsg_history_entry_add not found (a shared build needs the dynamic linker's dlsym; a static one, the linker's --wrap, scripts/cross-full.sh)")
	}
	return nil
}

// historyWarned: the mismatch is logged once, the process over.
var historyWarned atomic.Bool

// warnHistoryMismatch logs, once, that the sweep found a word exit it
// had not recorded: pocketsphinx is not laid out as history.go reads it,
// and every sweep now visits every cell.
func warnHistoryMismatch(log *slog.Logger) {
	if C.jibod_history_mismatch() != 0 && historyWarned.CompareAndSwap(false, true) {
		log.Warn("speech recognizer: pocketsphinx's grammar search history is not laid out as expected (another version?); sweeping every cell",
			"want", "pocketsphinx 5prealpha (Debian 12)")
	}
}

// historySwept reports whether a grammar search's end of frame came
// through jibod_end_frame, the process over: a test that it replaced
// pocketsphinx's.
func historySwept() bool { return C.jibod_history_swept() != 0 }

// historyMismatch reports whether a check found a cell the tracking
// missed; setHistoryMismatch sets it (for a test).
func historyMismatch() bool { return C.jibod_history_mismatch() != 0 }

func setHistoryMismatch(on bool) {
	v := C.int(0)
	if on {
		v = 1
	}
	C.jibod_set_history_mismatch(v)
}

// historyTracking reports whether the grammar search's word exits come
// through jibod_entry_add, so that the sweep visits only their cells.
func historyTracking() bool { return C.jibod_history_tracking() != 0 }

// setFullSweeps makes every sweep visit every cell, as pocketsphinx's
// does, or not: a test compares the two. A plain load a frame.
func setFullSweeps(on bool) {
	v := C.int(0)
	if on {
		v = 1
	}
	C.jibod_set_full_sweeps(v)
}
