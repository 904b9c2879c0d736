// List nodes per decoder (spares.c, spares.go).

#include <stddef.h>
#include <pocketsphinx.h>
#include <sphinxbase/glist.h>

// JIBOD_SPARES_MAX bounds the nodes a decoder's pool holds.
#define JIBOD_SPARES_MAX 8192

typedef struct jibod_pool jibod_pool;

// jibod_pool_new sets *unregistered where the pool table is full: the
// pool then gives no nodes, its decoder's come from malloc.
jibod_pool *jibod_pool_new(int *unregistered);
void jibod_pool_free(jibod_pool *p);
void jibod_pool_set_bound_new(int bound);
int jibod_pool_spares(const jibod_pool *p);
int jibod_pool_bound(const jibod_pool *p);
long jibod_pool_freed(void);
long jibod_pool_stranded(void);
int jibod_pool_reused(void);
void jibod_pool_set_off(int on);
gnode_t *jibod_pool_test_take(jibod_pool *p);
void jibod_pool_test_give(gnode_t *gn);

int jibod_start_utt(jibod_pool *p, ps_decoder_t *ps);
int jibod_process_raw(jibod_pool *p, ps_decoder_t *ps, const int16 *data, size_t n, int no_search, int full_utt);
int jibod_process_cep(jibod_pool *p, ps_decoder_t *ps, mfcc_t **data, int n, int no_search, int full_utt);
int jibod_end_utt(jibod_pool *p, ps_decoder_t *ps);
