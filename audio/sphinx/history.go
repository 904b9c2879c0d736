//go:build sphinx

package sphinx

/*
#cgo pkg-config: pocketsphinx sphinxbase
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <sphinxbase/fsg_model.h>
#include <sphinxbase/glist.h>

// jibod_fsg_history is the head of pocketsphinx's fsg_history_t as the
// Debian build (0.8+5prealpha) lays it out; its header is not installed.
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

static unsigned long long jibod_sweeps;

// jibod_ctxt is pocketsphinx's fsg_pnode_ctxt_t, the right contexts a
// word exit applies to: four 32-bit words, passed by value.
typedef struct {
	uint32_t bv[4];
} jibod_ctxt;

typedef void (*jibod_entry_add_fn)(void *, fsg_link_t *, int32_t, int32_t, int32_t, int32_t, jibod_ctxt);

// The library's own fsg_history_entry_add: under the static builds'
// --wrap=fsg_history_entry_add, __real_fsg_history_entry_add; linked
// against the shared library, the next definition after ours (dlsym).
// Both weak, so that each build links without the other's.
extern void __real_fsg_history_entry_add(void *, fsg_link_t *, int32_t, int32_t, int32_t, int32_t, jibod_ctxt)
	__attribute__((weak));
extern void *dlsym(void *, const char *) __attribute__((weak));

static jibod_entry_add_fn jibod_real_entry_add(void) {
	static jibod_entry_add_fn fn;
	jibod_entry_add_fn f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
	if (f != NULL)
		return f;
	if (__real_fsg_history_entry_add != NULL)
		f = __real_fsg_history_entry_add;
	else if (dlsym != NULL)
		f = (jibod_entry_add_fn)dlsym((void *)-1L, "fsg_history_entry_add"); // RTLD_NEXT
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
	int32_t cells[JIBOD_MAX_CELLS];
} jibod_dirty;

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

__attribute__((weak)) void fsg_history_entry_add(void *h, fsg_link_t *link, int32_t frame, int32_t score, int32_t pred, int32_t lc, jibod_ctxt rc) {
	jibod_entry_add(h, link, frame, score, pred, lc, rc);
}
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

// jibod_end_frame does what pocketsphinx's fsg_history_end_frame does at
// the end of each frame of a grammar search: every word exit of the frame
// goes into the history table, state by state and left context by left
// context, each cell's list in its order, and the cells are emptied. It
// visits every cell as pocketsphinx's does, but only reads the empty
// ones, where pocketsphinx frees and rewrites each: most are empty, and
// the sweep over states × phones every frame was a fifth of the
// recogniser's CPU.
static void jibod_end_frame(jibod_fsg_history *h) {
	int ns = fsg_model_n_state(h->fsg), np = h->n_ciphone;
	if (__atomic_load_n(&jibod_tracking, __ATOMIC_RELAXED) && !__atomic_load_n(&jibod_full_sweeps, __ATOMIC_RELAXED) && (jibod_dirty.h == h || jibod_dirty.n == 0) && !jibod_dirty.overflow) {
		// In state order, then left context's, as the full sweep goes.
		qsort(jibod_dirty.cells, jibod_dirty.n, sizeof(int32_t), jibod_cmp_cell);
		for (int i = 0; i < jibod_dirty.n; i++)
			jibod_flush(h, &h->frame_entries[jibod_dirty.cells[i] / np][jibod_dirty.cells[i] % np]);
		jibod_dirty.n = 0;
		jibod_dirty.h = NULL;
		__atomic_add_fetch(&jibod_sweeps, 1, __ATOMIC_RELAXED);
		return;
	}
	jibod_dirty.n = 0;
	jibod_dirty.overflow = 0;
	jibod_dirty.h = NULL;
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
				glist_t l = row[k];
				if (l == NULL)
					continue;
				for (gnode_t *gn = l; gn != NULL; gn = gnode_next(gn))
					blkarray_list_append(h->entries, gnode_ptr(gn));
				glist_free(l);
				row[k] = NULL;
			}
		}
	}
	__atomic_add_fetch(&jibod_sweeps, 1, __ATOMIC_RELAXED);
}

// Linked against the shared library, this definition takes the place of
// pocketsphinx's (its grammar search calls it through the procedure
// linkage table). Weak: linked statically (scripts/cross-full.sh), the
// library's own definition stands, and the linker's
// --wrap=fsg_history_end_frame sends the search's calls to the one below.
__attribute__((weak)) void fsg_history_end_frame(void *h) { jibod_end_frame(h); }
void __wrap_fsg_history_end_frame(void *h) { jibod_end_frame(h); }

static unsigned long long jibod_history_sweeps(void) {
	return __atomic_load_n(&jibod_sweeps, __ATOMIC_RELAXED);
}
*/
import "C"

// historySweeps counts the frames whose word exits went into a grammar
// search's history table through jibod_end_frame, the process over: a
// test that it replaced pocketsphinx's.
func historySweeps() uint64 { return uint64(C.jibod_history_sweeps()) }

// historyTracking reports whether the grammar search's word exits come
// through jibod_entry_add, so that the sweep visits only their cells.
func historyTracking() bool { return C.jibod_history_tracking() != 0 }

// setFullSweeps makes every sweep visit every cell, as pocketsphinx's
// does, or not (for a test).
func setFullSweeps(on bool) {
	v := C.int(0)
	if on {
		v = 1
	}
	C.jibod_set_full_sweeps(v)
}
