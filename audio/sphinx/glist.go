//go:build sphinx

package sphinx

/*
#cgo pkg-config: pocketsphinx sphinxbase
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sphinxbase/glist.h>
#include <sphinxbase/ckd_alloc.h>

// The grammar search keeps its active HMMs in sphinxbase's linked lists:
// every frame it allocates a node for each HMM that goes on into the
// next frame and frees the frame's whole list, through malloc, and its
// word exits' lists likewise. These take sphinxbase's glist_add_ptr,
// glist_insert_ptr and glist_free and keep the freed nodes as spares
// (per thread: each search runs its frames on one) for the next node
// asked for, so the search's nodes come from there, not from
// malloc. The nodes are malloc's blocks all the same, which anything may
// still free, and a node given out is as sphinxbase's: data set, the rest
// of it zero.

// JIBOD_GNODE_KEEP bounds the spare nodes a thread keeps (16 bytes each
// and malloc's header): about three times a frame's active HMMs over
// babble with the garbage path; past it, nodes are freed. They are kept
// in an array, not linked through themselves: taking one then reads
// nothing from the node, which is seldom in the nearest cache, so the
// search does not wait on it.
#define JIBOD_GNODE_KEEP 8192
typedef struct {
	int n;
	gnode_t *node[JIBOD_GNODE_KEEP];
} jibod_spares;

// jibod_mine is the thread's spare nodes, made as it first frees a list
// and freed, nodes and all, as it exits (jibod_key's destructor).
static __thread jibod_spares *jibod_mine;
static pthread_key_t jibod_key;
static pthread_once_t jibod_key_once = PTHREAD_ONCE_INIT;
static int jibod_key_ok;

static void jibod_spares_free(void *p) {
	jibod_spares *s = p;
	for (int i = 0; i < s->n; i++)
		free(s->node[i]);
	free(s);
	jibod_mine = NULL;
}

static void jibod_key_make(void) { jibod_key_ok = pthread_key_create(&jibod_key, jibod_spares_free) == 0; }

// jibod_spares_made returns the thread's spare nodes, made now if need
// be; NULL where they cannot be (nodes are then malloc's and free's).
static jibod_spares *jibod_spares_made(void) {
	if (jibod_mine != NULL)
		return jibod_mine;
	pthread_once(&jibod_key_once, jibod_key_make);
	if (!jibod_key_ok)
		return NULL;
	jibod_spares *s = malloc(sizeof *s);
	if (s == NULL)
		return NULL;
	s->n = 0;
	if (pthread_setspecific(jibod_key, s) != 0) {
		free(s);
		return NULL;
	}
	jibod_mine = s;
	return s;
}

// jibod_reused says that a freed list's nodes were kept, the process
// over: a test's proof that the library's calls reach this file. Set
// once; the per-list cost is a plain load.
static int jibod_reused;

// jibod_spare_off makes these allocate and free as sphinxbase's do (for
// a test and a benchmark comparing the two). A plain load per call.
static int jibod_spare_off;

// jibod_gnode returns a zeroed node, a spare one when there is one.
static gnode_t *jibod_gnode(void) {
	jibod_spares *s = jibod_mine;
	if (s == NULL || s->n == 0 || __atomic_load_n(&jibod_spare_off, __ATOMIC_RELAXED))
		return (gnode_t *)ckd_calloc(1, sizeof(gnode_t));
	gnode_t *gn = s->node[--s->n];
	memset(gn, 0, sizeof *gn);
	return gn;
}

// jibod_glist_add_ptr puts ptr at the head of g.
static glist_t jibod_glist_add_ptr(glist_t g, void *ptr) {
	gnode_t *gn = jibod_gnode();
	gn->data.ptr = ptr;
	gn->next = g;
	return gn;
}

// jibod_glist_insert_ptr puts ptr in a node after gn and returns it.
static gnode_t *jibod_glist_insert_ptr(gnode_t *gn, void *ptr) {
	gnode_t *n = jibod_gnode();
	n->data.ptr = ptr;
	n->next = gn->next;
	gn->next = n;
	return n;
}

static void jibod_glist_free(glist_t g) {
	jibod_spares *s = NULL;
	if (g != NULL && !__atomic_load_n(&jibod_spare_off, __ATOMIC_RELAXED))
		s = jibod_spares_made();
	if (s != NULL && s->n < JIBOD_GNODE_KEEP && !__atomic_load_n(&jibod_reused, __ATOMIC_RELAXED))
		__atomic_store_n(&jibod_reused, 1, __ATOMIC_RELAXED);
	while (g != NULL) {
		gnode_t *next = g->next;
		if (s != NULL && s->n < JIBOD_GNODE_KEEP)
			s->node[s->n++] = g;
		else
			ckd_free(g);
		g = next;
	}
}

// Linked against the shared libraries, these definitions take the place
// of sphinxbase's for every call through the procedure linkage table, as
// history.go's do. Weak: linked statically (scripts/cross-full.sh), the
// library's own stand, and the linker's --wrap=glist_add_ptr,
// --wrap=glist_insert_ptr and --wrap=glist_free send the other objects'
// calls to the ones below.
__attribute__((weak)) glist_t glist_add_ptr(glist_t g, void *ptr) { return jibod_glist_add_ptr(g, ptr); }
__attribute__((weak)) gnode_t *glist_insert_ptr(gnode_t *gn, void *ptr) { return jibod_glist_insert_ptr(gn, ptr); }
__attribute__((weak)) void glist_free(glist_t g) { jibod_glist_free(g); }
glist_t __wrap_glist_add_ptr(glist_t g, void *ptr) { return jibod_glist_add_ptr(g, ptr); }
gnode_t *__wrap_glist_insert_ptr(gnode_t *gn, void *ptr) { return jibod_glist_insert_ptr(gn, ptr); }
void __wrap_glist_free(glist_t g) { jibod_glist_free(g); }

static int jibod_glist_reused(void) { return __atomic_load_n(&jibod_reused, __ATOMIC_RELAXED); }
static void jibod_set_spare_off(int on) { __atomic_store_n(&jibod_spare_off, on, __ATOMIC_RELAXED); }
*/
import "C"

// glistReused reports whether a list's nodes went back to this file's
// spare list, the process over: a test that its glist_free replaced
// sphinxbase's.
func glistReused() bool { return C.jibod_glist_reused() != 0 }

// setSpareNodesOff makes the lists' nodes come from malloc and go back to
// it, as sphinxbase's own functions do, or not: a test and a benchmark
// compare the two.
func setSpareNodesOff(on bool) {
	v := C.int(0)
	if on {
		v = 1
	}
	C.jibod_set_spare_off(v)
}
