//go:build sphinx

package sphinx

/*
#cgo pkg-config: pocketsphinx sphinxbase
#include <pocketsphinx.h>
#include "spares.h"
*/
import "C"

import (
	"errors"
	"log/slog"
	"unsafe"
)

// maxSpareNodes bounds the list nodes a decoder's pool holds.
const maxSpareNodes = C.JIBOD_SPARES_MAX

// newSpares makes the decoder's pool of list nodes (spares.c), which its
// searches take nodes from and give them back to, and which close frees.
func (d *decoder) newSpares() error {
	var unregistered C.int
	d.spares = C.jibod_pool_new(&unregistered)
	if d.spares == nil {
		return errors.New("mapping the decoder's list nodes failed")
	}
	if unregistered != 0 {
		// Decodes as well, only with malloc's nodes: the table is full
		// of live decoders' pools, or of leaked ones.
		slog.Debug("the decoders' list node pools are all taken: this decoder's nodes come from malloc")
	}
	return nil
}

// freeSpares frees the decoder's pool, after pocketsphinx's decoder.
func (d *decoder) freeSpares() {
	C.jibod_pool_free(d.spares)
	d.spares = nil
}

// spareNodes is how many free nodes the decoder's pool holds, and
// spareBound how many it holds in all (for a test).
func (d *decoder) spareNodes() int { return int(C.jibod_pool_spares(d.spares)) }
func (d *decoder) spareBound() int { return int(C.jibod_pool_bound(d.spares)) }

// setSpareBound bounds the pools of the decoders started from now on (for
// a test; at most maxSpareNodes).
func setSpareBound(n int) { C.jibod_pool_set_bound_new(C.int(n)) }

// sparePoolsFreed counts the pools unmapped, and spareNodesStranded the
// nodes still in a decoder's lists as it was freed (their pool is then
// unmapped as the last comes back), the process over (for a test).
func sparePoolsFreed() int64    { return int64(C.jibod_pool_freed()) }
func spareNodesStranded() int64 { return int64(C.jibod_pool_stranded()) }

// spareNodesReused reports whether a freed node went back to its pool,
// the process over: a test that spares.c's glist_free replaced
// sphinxbase's.
func spareNodesReused() bool { return C.jibod_pool_reused() != 0 }

// setSpareNodesOff makes the lists' nodes come from malloc and go back to
// it, as sphinxbase's own functions do, or not: a test and a benchmark
// compare the two.
func setSpareNodesOff(on bool) { C.jibod_pool_set_off(cbool(on)) }

// processPart feeds pcm as a piece of the utterance, not the whole (for
// a test that streams).
func (d *decoder) processPart(pcm []int16) error {
	if len(pcm) == 0 {
		return nil
	}
	if C.jibod_process_raw(d.spares, d.ps, (*C.int16)(unsafe.Pointer(&pcm[0])), C.size_t(len(pcm)), 0, 0) < 0 {
		return errors.New("pocketsphinx: processing audio failed")
	}
	return nil
}

// newSparePool, takeSpareNode, giveSpareNode and freeSparePool drive a
// pool without a decoder (for a test): a node taken as a search takes
// one, a list freed outside the decoder's calls, the pool freed as with
// its decoder.
func newSparePool() (*C.jibod_pool, bool) {
	var unregistered C.int
	p := C.jibod_pool_new(&unregistered)
	return p, p != nil && unregistered == 0
}
func takeSpareNode(p *C.jibod_pool) *C.gnode_t { return C.jibod_pool_test_take(p) }
func giveSpareNode(n *C.gnode_t)               { C.jibod_pool_test_give(n) }
func freeSparePool(p *C.jibod_pool)            { C.jibod_pool_free(p) }
func sparePoolNodes(p *C.jibod_pool) int       { return int(C.jibod_pool_spares(p)) }
