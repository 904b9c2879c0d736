// Package sortx sorts slices by a comparison function through package
// sort's shared code.
//
// slices.SortFunc compiles a whole pattern-defeating quicksort for every
// element type that does not share a shape with another (every struct
// type), about 16 KB of the arm64 binary each; these functions compile to a
// few hundred bytes per type and share sort.Slice's code. Use them off the
// hot paths, where a list is sorted once for output or at registration
// (docs/size.md).
package sortx

import "sort"

// Func sorts s in the order cmp gives (negative: a before b), as
// slices.SortFunc does; equal elements may be reordered.
func Func[T any](s []T, cmp func(a, b T) int) {
	sort.Slice(s, func(i, j int) bool { return cmp(s[i], s[j]) < 0 })
}

// StableFunc sorts s in the order cmp gives, keeping equal elements in
// their order, as slices.SortStableFunc does.
func StableFunc[T any](s []T, cmp func(a, b T) int) {
	sort.SliceStable(s, func(i, j int) bool { return cmp(s[i], s[j]) < 0 })
}
