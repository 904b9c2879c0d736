package sortx

import (
	"cmp"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

type pair struct {
	key   string
	order int
}

func TestSortsAsSlicesDoes(t *testing.T) {
	in := []pair{{"b", 0}, {"a", 1}, {"c", 2}, {"a", 3}, {"b", 4}, {"a", 5}}
	byKey := func(a, b pair) int { return cmp.Compare(a.key, b.key) }

	got := slices.Clone(in)
	StableFunc(got, byKey)
	want := slices.Clone(in)
	slices.SortStableFunc(want, byKey)
	assert.Equal(t, want, got, "stable: equal keys keep their order")

	got = slices.Clone(in)
	Func(got, byKey)
	assert.True(t, slices.IsSortedFunc(got, byKey))
	assert.ElementsMatch(t, in, got)

	var empty []pair
	Func(empty, byKey)
	StableFunc(empty, byKey)
}
