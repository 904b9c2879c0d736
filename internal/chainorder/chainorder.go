// Package chainorder orders a TRANSFORM chain's transformers (TRF-08) the
// same way for the text chains (core/pipeline) and the audio chain
// (audio/transform): the deployer's order when there is one, else
// ascending priority.
package chainorder

import (
	"fmt"
	"sort"
)

// Deployer checks a deployer's order against the loaded transformers
// (prio maps each loaded id to its priority): it may name only loaded
// ids, each once. It returns the ids in the deployer's order.
func Deployer(order []string, prio map[string]int) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, id := range order {
		if _, ok := prio[id]; !ok {
			return nil, fmt.Errorf("deployer order names %q, which is not loaded", id)
		}
		if seen[id] {
			return nil, fmt.Errorf("deployer order names %q twice", id)
		}
		seen[id] = true
		out = append(out, id)
	}
	return out, nil
}

// ByPriority returns the loaded ids (prio maps each to its priority) by
// ascending priority; ties by id, so runs are reproducible.
func ByPriority(prio map[string]int) []string {
	var out []string
	for id := range prio {
		out = append(out, id)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if prio[a] != prio[b] {
			return prio[a] < prio[b]
		}
		return a < b
	})
	return out
}
