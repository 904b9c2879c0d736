// Package ascii checks the shape of short ASCII names and tags: ids,
// file names, language tags. Each check is a loop over bytes with sets
// built once, where a regular expression would link the regexp engine
// and its Unicode tables into every binary for the same answer.
//
// Bytes outside ASCII are in no Set, so any non-ASCII text (valid UTF-8
// or not) fails every check.
//
// The package depends on the standard library only, so every package of
// the module can use it whatever its layer.
package ascii

import (
	"fmt"
	"strings"
)

// Set is a set of ASCII bytes. The zero Set is empty.
type Set [2]uint64

// NewSet builds a Set from a spec like a regular expression's bracket
// class without the brackets: single bytes and ranges "a-z"; a '-' first
// or last stands for itself. A spec that is not ASCII or has a reversed
// range is a programming error and panics, as regexp.MustCompile does.
func NewSet(spec string) Set {
	var s Set
	for i := 0; i < len(spec); i++ {
		lo, hi := spec[i], spec[i]
		if i+2 < len(spec) && spec[i+1] == '-' {
			hi = spec[i+2]
			i += 2
		}
		if hi >= 0x80 || lo > hi {
			panic(fmt.Sprintf("ascii: bad set %q", spec))
		}
		for c := int(lo); c <= int(hi); c++ {
			s[c>>6] |= 1 << (c & 63)
		}
	}
	return s
}

// Common sets.
var (
	Letters = NewSet("A-Za-z")
	Digits  = NewSet("0-9")
	Alnum   = NewSet("A-Za-z0-9")
)

// Union is the Set of the bytes in s or t.
func (s Set) Union(t Set) Set { return Set{s[0] | t[0], s[1] | t[1]} }

// Has reports whether c is in s.
func (s Set) Has(c byte) bool { return c < 0x80 && s[c>>6]&(1<<(c&63)) != 0 }

// All reports whether every byte of str is in s (true for "").
func (s Set) All(str string) bool {
	for i := 0; i < len(str); i++ {
		if !s.Has(str[i]) {
			return false
		}
	}
	return true
}

// Word reports whether str is min to max bytes, all in s.
func (s Set) Word(str string, min, max int) bool {
	return len(str) >= min && len(str) <= max && s.All(str)
}

// Name reports whether str is 1 to max bytes (max < 1: any length), its
// first byte in first and the others in rest: `^[first][rest]{0,max-1}$`.
func Name(str string, first, rest Set, max int) bool {
	if str == "" || (max > 0 && len(str) > max) {
		return false
	}
	return first.Has(str[0]) && rest.All(str[1:])
}

// Tag reports whether str is a dash-separated tag: a primary subtag of
// primaryMin to primaryMax letters, then at most maxSubtags subtags (a
// negative maxSubtags: any number) of subMin to subMax letters and
// digits each; `^[A-Za-z]{pmin,pmax}(-[A-Za-z0-9]{smin,smax}){0,n}$`.
func Tag(str string, primaryMin, primaryMax, subMin, subMax, maxSubtags int) bool {
	primary, rest, more := strings.Cut(str, "-")
	if !Letters.Word(primary, primaryMin, primaryMax) {
		return false
	}
	for n := 0; more; n++ {
		if maxSubtags >= 0 && n == maxSubtags {
			return false
		}
		var sub string
		sub, rest, more = strings.Cut(rest, "-")
		if !Alnum.Word(sub, subMin, subMax) {
			return false
		}
	}
	return true
}
