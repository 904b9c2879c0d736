//go:build sphinx

package sphinx

/*
#cgo pkg-config: pocketsphinx sphinxbase
#include <pocketsphinx.h>
#include "spares.h"
*/
import "C"

import "errors"

// maxSpareNodes bounds the list nodes a decoder's pool holds.
const maxSpareNodes = C.JIBOD_SPARES_MAX

// newSpares makes the decoder's pool of list nodes (spares.c), which its
// searches take nodes from and give them back to, and which close frees.
func (d *decoder) newSpares() error {
	d.spares = C.jibod_pool_new()
	if d.spares == nil {
		return errors.New("mapping the decoder's list nodes failed")
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

// sparePoolsFreed counts the pools freed with their decoders, and
// spareNodesStranded the nodes still in a decoder's lists as it was
// freed (their pool is then left), the process over (for a test).
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
