//go:build sphinx

// The grammar search keeps its active HMMs, and each cell's word exits,
// in sphinxbase's linked lists: every frame it allocates a node for each
// HMM that goes on into the next frame and frees the frame's whole list,
// through malloc. These take sphinxbase's glist_add_ptr, glist_insert_ptr
// and glist_free, and keep a freed node as a spare in the pool of the
// decoder whose call is running on the thread, for the next node that
// decoder's search asks for.
//
// The decoder's wrapper names its pool around each call into the search
// (jibod_start_utt, jibod_process_raw, jibod_process_cep, jibod_end_utt),
// on the thread that runs it; outside those calls nodes are malloc's and
// free's. A pool keeps at most its bound and is freed, nodes and all,
// with its decoder, so what the spares hold is bounded by the decoders,
// not by the threads that ever searched. Every node, spare or not, is a
// whole block from malloc of a node's size, which anything may free; a
// node one decoder's search allocated and another's freed is only one
// more spare of the other's.

#include <stdlib.h>
#include <string.h>
#include <pocketsphinx.h>
#include <sphinxbase/glist.h>
#include <sphinxbase/ckd_alloc.h>
#include "spares.h"

// The spares sit in an array, not linked through themselves: taking one
// then reads nothing from the node, which is seldom in the nearest cache.
struct jibod_pool {
	int n, bound;
	gnode_t *node[JIBOD_SPARES_MAX];
};

// jibod_current is the pool of the decoder whose call runs on this
// thread; NULL outside the calls.
static __thread jibod_pool *jibod_current;

// jibod_off makes the calls name no pool (for a test and a benchmark
// comparing with sphinxbase's malloc and free).
static int jibod_off;

// jibod_reused says that a node went to a pool, the process over: a
// test's proof that the library's calls reach this file. Set once.
static int jibod_reused;

// jibod_freed counts the spare nodes freed with their pools (for a test).
static long jibod_freed;

jibod_pool *jibod_pool_new(void) {
	jibod_pool *p = malloc(sizeof *p);
	if (p == NULL)
		return NULL;
	p->n = 0;
	p->bound = JIBOD_SPARES_MAX;
	return p;
}

void jibod_pool_set_bound(jibod_pool *p, int bound) {
	if (bound < 0)
		bound = 0;
	if (bound > JIBOD_SPARES_MAX)
		bound = JIBOD_SPARES_MAX;
	while (p->n > bound) {
		free(p->node[--p->n]);
		__atomic_add_fetch(&jibod_freed, 1, __ATOMIC_RELAXED);
	}
	p->bound = bound;
}

void jibod_pool_free(jibod_pool *p) {
	if (p == NULL)
		return;
	jibod_pool_set_bound(p, 0);
	free(p);
}

int jibod_pool_spares(const jibod_pool *p) { return p == NULL ? 0 : p->n; }
long jibod_pool_nodes_freed(void) { return __atomic_load_n(&jibod_freed, __ATOMIC_RELAXED); }
int jibod_pool_reused(void) { return __atomic_load_n(&jibod_reused, __ATOMIC_RELAXED); }
void jibod_pool_set_off(int on) { __atomic_store_n(&jibod_off, on, __ATOMIC_RELAXED); }

static void jibod_enter(jibod_pool *p) {
	jibod_current = __atomic_load_n(&jibod_off, __ATOMIC_RELAXED) ? NULL : p;
}

static void jibod_leave(void) { jibod_current = NULL; }

int jibod_start_utt(jibod_pool *p, ps_decoder_t *ps) {
	jibod_enter(p);
	int rv = ps_start_utt(ps);
	jibod_leave();
	return rv;
}

int jibod_process_raw(jibod_pool *p, ps_decoder_t *ps, const int16 *data, size_t n, int no_search, int full_utt) {
	jibod_enter(p);
	int rv = ps_process_raw(ps, data, n, no_search, full_utt);
	jibod_leave();
	return rv;
}

int jibod_process_cep(jibod_pool *p, ps_decoder_t *ps, mfcc_t **data, int n, int no_search, int full_utt) {
	jibod_enter(p);
	int rv = ps_process_cep(ps, data, n, no_search, full_utt);
	jibod_leave();
	return rv;
}

int jibod_end_utt(jibod_pool *p, ps_decoder_t *ps) {
	jibod_enter(p);
	int rv = ps_end_utt(ps);
	jibod_leave();
	return rv;
}

// jibod_gnode returns a zeroed node, as sphinxbase's calloc'd ones: a
// spare when the running call's pool has one.
static gnode_t *jibod_gnode(void) {
	jibod_pool *p = jibod_current;
	if (p == NULL || p->n == 0)
		return (gnode_t *)ckd_calloc(1, sizeof(gnode_t));
	gnode_t *gn = p->node[--p->n];
	memset(gn, 0, sizeof *gn);
	return gn;
}

static glist_t jibod_glist_add_ptr(glist_t g, void *ptr) {
	gnode_t *gn = jibod_gnode();
	gn->data.ptr = ptr;
	gn->next = g;
	return gn;
}

static gnode_t *jibod_glist_insert_ptr(gnode_t *gn, void *ptr) {
	gnode_t *n = jibod_gnode();
	n->data.ptr = ptr;
	n->next = gn->next;
	gn->next = n;
	return n;
}

static void jibod_glist_free(glist_t g) {
	jibod_pool *p = jibod_current;
	if (p != NULL && g != NULL && p->n < p->bound && !__atomic_load_n(&jibod_reused, __ATOMIC_RELAXED))
		__atomic_store_n(&jibod_reused, 1, __ATOMIC_RELAXED);
	while (g != NULL) {
		gnode_t *next = g->next;
		if (p != NULL && p->n < p->bound)
			p->node[p->n++] = g;
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
