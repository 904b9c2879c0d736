package mim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"unicode/utf8"

	"github.com/openjibo/jibod/internal/ascii"
	"github.com/openjibo/jibod/internal/strictjson"
)

// Limits of a category list.
const (
	// MaxCategories bounds the categories of one list.
	MaxCategories = 1000
	// MaxCategoryValues bounds the member values of one category.
	MaxCategoryValues = 10000
	// MaxCategoryValueBytes bounds one member value.
	MaxCategoryValueBytes = 256
)

// categoryRest, after a letter or digit, is what a category may be called,
// `^[A-Za-z0-9][A-Za-z0-9_-]*$`: it ends a MIM id.
var categoryRest = ascii.NewSet("A-Za-z0-9_-")

// Categories says which category each entity value belongs to, for
// semi-specific responses. Its file is a JSON object of category names to
// arrays of member values, in the order categories are tried:
//
//	{"Color": ["red", "dark blue"], "RoomInHouse": ["kitchen", "living room"]}
//
// A category name is letters, digits, _ and - (it ends a MIM id). Values are
// matched ignoring case and runs of blanks; a value may belong to several
// categories; within one category it may be listed once.
type Categories struct {
	order   []string
	byValue map[string][]string // normalised value -> categories in order
}

// ParseCategories reads a category list; name is used in errors.
func ParseCategories(data []byte, name string) (*Categories, error) {
	fail := func(format string, args ...any) error {
		return &Error{File: name, Prompt: -1, Reason: fmt.Sprintf(format, args...), Err: ErrInvalid}
	}
	if len(data) > MaxFileBytes*16 {
		return nil, &Error{File: name, Prompt: -1, Reason: fmt.Sprintf("file is %d bytes, limit %d", len(data), MaxFileBytes*16), Err: ErrLimit}
	}
	if !utf8.Valid(data) {
		return nil, fail("not valid UTF-8")
	}
	var se *strictjson.Error
	if err := strictjson.Check(data); errors.As(err, &se) {
		return nil, &Error{File: name, Prompt: -1, Field: se.Path, Reason: se.Problem(), Err: ErrInvalid}
	}
	// Members are read in file order: it is the order categories are tried.
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fail("want a JSON object of category names to arrays of values")
	}
	c := &Categories{byValue: map[string][]string{}}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fail("%v", notJSON(err))
		}
		cat := tok.(string)
		if !ascii.Name(cat, ascii.Alnum, categoryRest, 0) {
			return nil, fail("category %q: name must be letters, digits, _ and -", cat)
		}
		if len(c.order) == MaxCategories {
			return nil, &Error{File: name, Prompt: -1, Reason: fmt.Sprintf("more than %d categories", MaxCategories), Err: ErrLimit}
		}
		c.order = append(c.order, cat)
		var values []string
		if err := dec.Decode(&values); err != nil {
			return nil, fail("category %q: want an array of strings", cat)
		}
		if len(values) == 0 {
			return nil, fail("category %q: has no values", cat)
		}
		if len(values) > MaxCategoryValues {
			return nil, &Error{File: name, Prompt: -1, Reason: fmt.Sprintf("category %q: %d values, limit %d", cat, len(values), MaxCategoryValues), Err: ErrLimit}
		}
		inCat := map[string]bool{}
		for i, v := range values {
			key := normalizeValue(v)
			switch {
			case key == "":
				return nil, fail("category %q: value %d is empty", cat, i)
			case len(v) > MaxCategoryValueBytes:
				return nil, &Error{File: name, Prompt: -1, Reason: fmt.Sprintf("category %q: value %d is %d bytes, limit %d", cat, i, len(v), MaxCategoryValueBytes), Err: ErrLimit}
			case inCat[key]:
				return nil, fail("category %q: value %q is listed twice", cat, v)
			}
			inCat[key] = true
			c.byValue[key] = append(c.byValue[key], cat)
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, fail("%v", notJSON(err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fail("data after the JSON object")
	}
	return c, nil
}

// LoadCategories reads and parses a category list from fsys.
func LoadCategories(fsys fs.FS, name string) (*Categories, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("reading category list: %w", err)
	}
	return ParseCategories(data, name)
}

// normalizeValue lower-cases a value and collapses its blanks.
func normalizeValue(v string) string {
	return strings.Join(strings.Fields(strings.ToLower(v)), " ")
}

// Of returns the categories holding value, in list order.
func (c *Categories) Of(value string) []string {
	if c == nil {
		return nil
	}
	return append([]string(nil), c.byValue[normalizeValue(value)]...)
}

// Names returns the categories in list order.
func (c *Categories) Names() []string {
	if c == nil {
		return nil
	}
	return append([]string(nil), c.order...)
}

// SemiSpecificID returns the id of the semi-specific MIM of a prefix and a
// category: <prefix>_SS_<category>.
func SemiSpecificID(prefix, category string) string { return prefix + "_SS_" + category }

// SemiSpecific returns the semi-specific MIM for an entity value: of the
// categories holding value, in list order, the first for which set has
// <prefix>_SS_<category>. It returns the MIM and the category; the error
// wraps ErrNotFound when no category holds the value or none has a MIM.
func SemiSpecific(set *Set, cats *Categories, prefix, value string) (*MIM, string, error) {
	found := cats.Of(value)
	if len(found) == 0 {
		return nil, "", fmt.Errorf("semi-specific response for %q: no category lists it: %w", value, ErrNotFound)
	}
	for _, cat := range found {
		if m, err := set.Get(SemiSpecificID(prefix, cat)); err == nil {
			return m, cat, nil
		}
	}
	return nil, "", fmt.Errorf("semi-specific response for %q: no MIM %s for categories %s: %w",
		value, SemiSpecificID(prefix, "<category>"), strings.Join(found, ", "), ErrNotFound)
}
