//go:build sphinx

package sphinx

/*
#cgo pkg-config: pocketsphinx sphinxbase
#include <stdlib.h>
#include <pocketsphinx.h>
#include <sphinxbase/logmath.h>

// latNode is a word of the last search's word lattice as one of its
// links leaves it: the base word, the frames it spans on that link and
// the link's posterior probability.
typedef struct {
	const char *word;
	int sf, ef;
	double post;
} latNode;

// latticeNodes fills out with up to max words of the last search's
// lattice, one per link, posteriors computed with the decoder's acoustic
// scale (-ascale), as pocketsphinx's own confidence is; -1 when there is
// none. The posteriors of the links spanning a frame sum to about one.
static int latticeNodes(ps_decoder_t *ps, latNode *out, int max) {
	ps_lattice_t *dag = ps_get_lattice(ps);
	if (dag == NULL)
		return -1;
	float32 ascale = 1.0 / cmd_ln_float32_r(ps_get_config(ps), "-ascale");
	if (ps_lattice_bestpath(dag, NULL, 1.0, ascale) == NULL)
		return -1;
	ps_lattice_posterior(dag, NULL, ascale);
	logmath_t *lm = ps_lattice_get_logmath(dag);
	int n = 0;
	ps_latnode_iter_t *it = ps_latnode_iter(dag);
	for (; it != NULL && n < max; it = ps_latnode_iter_next(it)) {
		ps_latnode_t *node = ps_latnode_iter_node(it);
		ps_latlink_iter_t *li = ps_latnode_exits(node);
		for (; li != NULL && n < max; li = ps_latlink_iter_next(li)) {
			ps_latlink_t *link = ps_latlink_iter_link(li);
			int16 sf;
			int32 ascr;
			out[n].ef = ps_latlink_times(link, &sf);
			out[n].sf = sf;
			out[n].post = logmath_exp(lm, ps_latlink_prob(dag, link, &ascr));
			out[n].word = ps_latlink_baseword(dag, link);
			n++;
		}
		if (li != NULL)
			ps_latlink_iter_free(li);
	}
	if (it != NULL)
		ps_latnode_iter_free(it);
	return n;
}
*/
import "C"

import (
	"strings"
	"unsafe"
)

// maxLatticeNodes bounds the nodes read from a search's lattice; a
// grammar search's lattice over a few seconds holds far fewer.
const maxLatticeNodes = 8192

// wordPosteriors returns the words of the last search's best path
// (silences, fillers and the garbage path's words left out), each with
// its posterior in the search's word lattice: at the word's middle frame,
// the share of the posterior mass of the lattice's nodes spanning that
// frame that nodes of the same word hold. The sentence's confidence says
// how well its words fit the speech; the posterior says whether other
// words the search also reached there fit about as well. ok is false
// when the search left no lattice.
func (d *decoder) wordPosteriors() (words []string, post []float64, ok bool) {
	type span struct {
		said, word string
		from, to   int
	}
	var best []span
	for seg := C.ps_seg_iter(d.ps); seg != nil; seg = C.ps_seg_next(seg) {
		w := C.GoString(C.ps_seg_word(seg))
		if isFiller(w) || strings.HasPrefix(w, garbagePrefix) {
			continue
		}
		var sf, ef C.int
		C.ps_seg_frames(seg, &sf, &ef)
		best = append(best, span{said: baseWord(w), word: sameWord(w), from: int(sf), to: int(ef)})
	}
	if len(best) == 0 {
		return nil, nil, false
	}
	buf := (*C.latNode)(C.malloc(C.size_t(maxLatticeNodes) * C.size_t(unsafe.Sizeof(C.latNode{}))))
	defer C.free(unsafe.Pointer(buf))
	n := int(C.latticeNodes(d.ps, buf, maxLatticeNodes))
	if n <= 0 {
		return nil, nil, false
	}
	nodes := unsafe.Slice(buf, n)
	type node struct {
		word     string
		from, to int
		post     float64
		// other: silence, a filler or the garbage path's word, which
		// the garbage path and the floors weigh against the sentence.
		other bool
	}
	all := make([]node, n)
	for i, c := range nodes {
		w := C.GoString(c.word)
		all[i] = node{word: sameWord(w), from: int(c.sf), to: int(c.ef), post: float64(c.post),
			other: isFiller(w) || strings.HasPrefix(w, garbagePrefix)}
	}
	words = make([]string, len(best))
	post = make([]float64, len(best))
	for i, b := range best {
		mid := (b.from + b.to) / 2
		var mine, total float64
		for _, a := range all {
			if a.from > mid || a.to < mid || a.other {
				continue
			}
			total += a.post
			if a.word == b.word {
				mine += a.post
			}
		}
		words[i] = b.said
		post[i] = 1
		if total > 0 {
			post[i] = mine / total
		}
	}
	return words, post, true
}

// sameWord names a lattice word so that words that say the same are
// named alike: a pronunciation variant ("two(2)"), the garbage path's
// copy of a word ("=you", the same sound on a path the grammar's
// sentences do not take) and a plural ("minutes", which no command's
// meaning turns on) are the word.
func sameWord(w string) string {
	w = strings.TrimPrefix(baseWord(w), garbagePrefix)
	if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		w = w[:len(w)-1]
	}
	return w
}
