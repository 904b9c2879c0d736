//go:build sphinx

package sphinx

/*
#cgo pkg-config: pocketsphinx sphinxbase
#include <stddef.h>
#include <stdint.h>
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
