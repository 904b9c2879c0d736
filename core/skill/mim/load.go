package mim

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// Load reads and parses the .mim file at name in fsys.
func Load(fsys fs.FS, name string) (*MIM, error) {
	return load(fsys, name, newCompiler())
}

func load(fsys fs.FS, name string, c *compiler) (*MIM, error) {
	data, err := readFile(fsys, name)
	if err != nil {
		return nil, err
	}
	return parse(data, name, c)
}

// readFile reads at most MaxFileBytes (+1, to tell a file over the limit).
func readFile(fsys fs.FS, name string) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, fmt.Errorf("reading MIM: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading MIM %s: %w", name, err)
	}
	if len(data) > MaxFileBytes {
		return nil, &Error{File: name, Prompt: -1, Reason: fmt.Sprintf("file is over %d bytes", MaxFileBytes), Err: ErrLimit}
	}
	return data, nil
}

// LoadDir reads every .mim file under dir in fsys, in sub-folders too, into
// a Set. Nothing is returned unless every file loads: the error joins up to
// MaxLoadErrors file errors (and says how many more there were).
func LoadDir(fsys fs.FS, dir string) (*Set, error) {
	var names []string
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".mim") {
			names = append(names, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing MIMs in %s: %w", dir, err)
	}
	if len(names) > MaxSetSize {
		return nil, fmt.Errorf("%s holds %d MIMs, limit %d: %w", dir, len(names), MaxSetSize, ErrLimit)
	}
	slices.Sort(names)
	c := newCompiler()
	var errs []error
	mims := make([]*MIM, 0, len(names))
	for _, name := range names {
		m, err := load(fsys, name, c)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		mims = append(mims, m)
	}
	if len(errs) > MaxLoadErrors {
		more := len(errs) - MaxLoadErrors
		errs = append(errs[:MaxLoadErrors], fmt.Errorf("and %d more files with errors", more))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return newSet(mims, func(m *MIM) string { return path.Join(dir, m.Name) })
}

// Set is a read-only collection of MIMs by id.
type Set struct {
	byID map[string]*MIM
	ids  []string
}

// NewSet collects validated MIMs (Validate is called on each) into a Set;
// two MIMs with one id are an error wrapping ErrDuplicate.
func NewSet(mims ...*MIM) (*Set, error) {
	for _, m := range mims {
		if err := m.Validate(); err != nil {
			return nil, err
		}
	}
	return newSet(mims, func(m *MIM) string { return m.Name })
}

func newSet(mims []*MIM, where func(*MIM) string) (*Set, error) {
	if len(mims) > MaxSetSize {
		return nil, fmt.Errorf("%d MIMs, limit %d: %w", len(mims), MaxSetSize, ErrLimit)
	}
	s := &Set{byID: make(map[string]*MIM, len(mims))}
	for _, m := range mims {
		id := m.MimID()
		if prev, dup := s.byID[id]; dup {
			return nil, fmt.Errorf("MIM id %q of %s is also the id of %s: %w", id, where(m), where(prev), ErrDuplicate)
		}
		s.byID[id] = m
		s.ids = append(s.ids, id)
	}
	slices.Sort(s.ids)
	return s, nil
}

// Get returns the MIM with the id; the error wraps ErrNotFound.
func (s *Set) Get(id string) (*MIM, error) {
	if s != nil {
		if m, ok := s.byID[id]; ok {
			return m, nil
		}
	}
	return nil, fmt.Errorf("MIM %q: %w", id, ErrNotFound)
}

// IDs returns the ids of the set's MIMs, sorted.
func (s *Set) IDs() []string {
	if s == nil {
		return nil
	}
	return slices.Clone(s.ids)
}

// Len returns how many MIMs the set holds.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.ids)
}
