//go:build sphinx

package sphinx

/*
#cgo pkg-config: pocketsphinx sphinxbase
#include <pocketsphinx.h>
#include "spares.h"
*/
import "C"

import "errors"

// newSpares makes the decoder's pool of spare list nodes (spares.c), which
// its grammar searches take nodes from and give them back to, and which
// close frees.
func (d *decoder) newSpares() error {
	d.spares = C.jibod_pool_new()
	if d.spares == nil {
		return errors.New("allocating the decoder's spare list nodes failed")
	}
	return nil
}

// freeSpares frees the decoder's spare nodes and their pool.
func (d *decoder) freeSpares() {
	C.jibod_pool_free(d.spares)
	d.spares = nil
}

// spareNodes is how many spare nodes the decoder holds (for a test).
func (d *decoder) spareNodes() int { return int(C.jibod_pool_spares(d.spares)) }

// setSpareBound bounds the decoder's spare nodes, freeing those over it
// (for a test; at most maxSpareNodes).
func (d *decoder) setSpareBound(n int) { C.jibod_pool_set_bound(d.spares, C.int(n)) }

// spareNodesFreed counts the spare nodes freed with their pools or over
// their bounds, the process over (for a test).
func spareNodesFreed() int64 { return int64(C.jibod_pool_nodes_freed()) }

// spareNodesReused reports whether a freed list's nodes went to a pool,
// the process over: a test that spares.c's glist_free replaced
// sphinxbase's.
func spareNodesReused() bool { return C.jibod_pool_reused() != 0 }

// setSpareNodesOff makes the lists' nodes come from malloc and go back to
// it, as sphinxbase's own functions do, or not: a test and a benchmark
// compare the two.
func setSpareNodesOff(on bool) { C.jibod_pool_set_off(cbool(on)) }

// maxSpareNodes bounds the spare nodes a decoder keeps.
const maxSpareNodes = C.JIBOD_SPARES_MAX
