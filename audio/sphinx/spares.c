//go:build sphinx

// The grammar search keeps its active HMMs, and each cell's word exits,
// in sphinxbase's linked lists: every frame it allocates a node for each
// HMM that goes on into the next frame and frees the frame's whole list,
// through malloc. These take sphinxbase's glist_add_ptr,
// glist_insert_ptr, glist_free and gnode_free, so that the nodes a
// decoder's search asks for come from the decoder's own pool.
//
// The decoder's wrapper names its pool around each call into the search
// (jibod_start_utt, jibod_process_raw, jibod_process_cep, jibod_end_utt),
// on the thread that runs it. A node asked for in such a call comes from
// the pool's block, while it has free nodes, else from malloc; outside
// those calls, from malloc. A node freed anywhere goes home: to the pool
// whose block holds it, else to free. The block is the pool's own
// mapping, not malloc's: nodes kept in malloc's memory would be spread
// over the arenas of every thread that searched and keep each from giving
// its memory back. It is unmapped with the decoder; a pool that still
// has nodes out then stays registered, closing, so that those nodes
// still find their home, and is unmapped as the last of them comes back.

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <pocketsphinx.h>
#include <sphinxbase/glist.h>
#include <sphinxbase/ckd_alloc.h>
#include "spares.h"

// The free nodes sit in an array, not linked through themselves: taking
// one then reads nothing from the node.
struct jibod_pool {
	// bound: the block's nodes this pool uses; next: those given out at
	// least once (the rest are untouched pages); n: the free ones on
	// the stack.
	int bound, next, n;
	// closing: the decoder is freed; the last node home unmaps the pool.
	int closing;
	gnode_t *free_nodes[JIBOD_SPARES_MAX];
	gnode_t block[JIBOD_SPARES_MAX];
};

// jibod_current is the pool of the decoder whose call runs on this
// thread; NULL outside the calls.
static __thread jibod_pool *jibod_current;

// The pools, for finding a node's home outside its decoder's calls. A
// slot is read without a lock: only the pointer's value is compared,
// and a node can only be in the block of the decoder whose lists hold
// it, which is not being freed meanwhile.
#define JIBOD_POOLS 256
static jibod_pool *jibod_pools[JIBOD_POOLS];
static int jibod_pools_hi;
static pthread_mutex_t jibod_pools_mu = PTHREAD_MUTEX_INITIALIZER;

// jibod_off makes the calls name no pool (for a test and a benchmark
// comparing with sphinxbase's malloc and free).
static int jibod_off;

// jibod_reused says that a node went home to a pool, the process over: a
// test's proof that the library's calls reach this file. Set once.
static int jibod_reused;

// jibod_bound_new is the bound of the pools made from now on (a test
// lowers it).
static int jibod_bound_new = JIBOD_SPARES_MAX;

// jibod_freed counts the pools unmapped, jibod_stranded the nodes out of
// pools as their decoders were freed, the process over (for a test).
static long jibod_freed, jibod_stranded;

static int jibod_holds(const jibod_pool *p, const gnode_t *gn) {
	return (uintptr_t)gn - (uintptr_t)p->block < sizeof p->block;
}

jibod_pool *jibod_pool_new(int *unregistered) {
	jibod_pool *p = mmap(NULL, sizeof *p, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	p->bound = 0; // no block to give until registered
	*unregistered = 1;
	pthread_mutex_lock(&jibod_pools_mu);
	for (int i = 0; i < JIBOD_POOLS; i++) {
		if (__atomic_load_n(&jibod_pools[i], __ATOMIC_RELAXED) == NULL) {
			p->bound = __atomic_load_n(&jibod_bound_new, __ATOMIC_RELAXED);
			__atomic_store_n(&jibod_pools[i], p, __ATOMIC_RELEASE);
			if (i >= jibod_pools_hi)
				__atomic_store_n(&jibod_pools_hi, i + 1, __ATOMIC_RELEASE);
			*unregistered = 0;
			break;
		}
	}
	pthread_mutex_unlock(&jibod_pools_mu);
	return p;
}

// jibod_unmap unregisters p and unmaps it.
static void jibod_unmap(jibod_pool *p) {
	pthread_mutex_lock(&jibod_pools_mu);
	for (int i = 0; i < JIBOD_POOLS; i++) {
		if (__atomic_load_n(&jibod_pools[i], __ATOMIC_RELAXED) == p)
			__atomic_store_n(&jibod_pools[i], NULL, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&jibod_pools_mu);
	munmap(p, sizeof *p);
	__atomic_add_fetch(&jibod_freed, 1, __ATOMIC_RELAXED);
}

void jibod_pool_free(jibod_pool *p) {
	if (p == NULL)
		return;
	int out = p->next - p->n;
	if (out > 0) {
		// A list of the decoder's outlived it: its nodes stay valid and
		// their pool registered until they are back (jibod_release).
		__atomic_add_fetch(&jibod_stranded, out, __ATOMIC_RELAXED);
		__atomic_store_n(&p->closing, 1, __ATOMIC_RELEASE);
		return;
	}
	jibod_unmap(p);
}

void jibod_pool_set_bound_new(int bound) {
	if (bound < 0)
		bound = 0;
	if (bound > JIBOD_SPARES_MAX)
		bound = JIBOD_SPARES_MAX;
	__atomic_store_n(&jibod_bound_new, bound, __ATOMIC_RELAXED);
}

int jibod_pool_spares(const jibod_pool *p) { return p == NULL ? 0 : p->n + p->bound - p->next; }
int jibod_pool_bound(const jibod_pool *p) { return p == NULL ? 0 : p->bound; }
long jibod_pool_freed(void) { return __atomic_load_n(&jibod_freed, __ATOMIC_RELAXED); }
long jibod_pool_stranded(void) { return __atomic_load_n(&jibod_stranded, __ATOMIC_RELAXED); }
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

// jibod_home returns the pool whose block holds gn, NULL for malloc's.
static jibod_pool *jibod_home(const gnode_t *gn) {
	jibod_pool *p = jibod_current;
	if (p != NULL && jibod_holds(p, gn))
		return p;
	int hi = __atomic_load_n(&jibod_pools_hi, __ATOMIC_ACQUIRE);
	for (int i = 0; i < hi; i++) {
		p = __atomic_load_n(&jibod_pools[i], __ATOMIC_ACQUIRE);
		if (p != NULL && jibod_holds(p, gn))
			return p;
	}
	return NULL;
}

// jibod_release sends gn home.
static void jibod_release(gnode_t *gn) {
	jibod_pool *p = jibod_home(gn);
	if (p == NULL) {
		ckd_free(gn);
		return;
	}
	if (!__atomic_load_n(&jibod_reused, __ATOMIC_RELAXED))
		__atomic_store_n(&jibod_reused, 1, __ATOMIC_RELAXED);
	// More home than were given out: a node freed twice. Overrunning
	// the stack instead would hand it out twice later.
	if (p->n >= p->next)
		abort();
	p->free_nodes[p->n++] = gn;
	if (__atomic_load_n(&p->closing, __ATOMIC_ACQUIRE) && p->n == p->next)
		jibod_unmap(p);
}

// jibod_gnode returns a zeroed node, as sphinxbase's calloc'd ones:
// from the running call's pool while it has one free.
static gnode_t *jibod_gnode(void) {
	jibod_pool *p = jibod_current;
	gnode_t *gn;
	if (p == NULL)
		return (gnode_t *)ckd_calloc(1, sizeof(gnode_t));
	if (p->n > 0)
		gn = p->free_nodes[--p->n];
	else if (p->next < p->bound)
		gn = &p->block[p->next++];
	else
		return (gnode_t *)ckd_calloc(1, sizeof(gnode_t));
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
	while (g != NULL) {
		gnode_t *next = g->next;
		jibod_release(g);
		g = next;
	}
}

// jibod_gnode_free frees gn and returns its successor, unlinking it from
// pred's list where pred is given, as sphinxbase's gnode_free.
static gnode_t *jibod_gnode_free(gnode_t *gn, gnode_t *pred) {
	gnode_t *next = gn->next;
	if (pred != NULL)
		pred->next = next;
	jibod_release(gn);
	return next;
}

// Test hooks: a node taken from p as a search does, and a list freed
// outside any decoder's call.
gnode_t *jibod_pool_test_take(jibod_pool *p) {
	jibod_enter(p);
	gnode_t *gn = jibod_glist_add_ptr(NULL, NULL);
	jibod_leave();
	return gn;
}

void jibod_pool_test_give(gnode_t *gn) { jibod_glist_free(gn); }

// Linked against the shared libraries, these definitions take the place
// of sphinxbase's for every call through the procedure linkage table, as
// history.go's do. Weak: linked statically (scripts/cross-full.sh), the
// library's own stand, and the linker's --wrap=glist_add_ptr,
// --wrap=glist_insert_ptr, --wrap=glist_free and --wrap=gnode_free send
// the other objects' calls to the ones below.
__attribute__((weak)) glist_t glist_add_ptr(glist_t g, void *ptr) { return jibod_glist_add_ptr(g, ptr); }
__attribute__((weak)) gnode_t *glist_insert_ptr(gnode_t *gn, void *ptr) { return jibod_glist_insert_ptr(gn, ptr); }
__attribute__((weak)) void glist_free(glist_t g) { jibod_glist_free(g); }
__attribute__((weak)) gnode_t *gnode_free(gnode_t *gn, gnode_t *pred) { return jibod_gnode_free(gn, pred); }
glist_t __wrap_glist_add_ptr(glist_t g, void *ptr) { return jibod_glist_add_ptr(g, ptr); }
gnode_t *__wrap_glist_insert_ptr(gnode_t *gn, void *ptr) { return jibod_glist_insert_ptr(gn, ptr); }
void __wrap_glist_free(glist_t g) { jibod_glist_free(g); }
gnode_t *__wrap_gnode_free(gnode_t *gn, gnode_t *pred) { return jibod_gnode_free(gn, pred); }
