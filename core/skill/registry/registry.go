package registry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
)

// MaxSkills bounds the skills one registry holds.
const MaxSkills = 1024

// Registry holds the installed skills' manifests. It is safe for
// concurrent use.
//
// # Read-only while requests are processed
//
// A request holds a Lease on its skill from before the call until its
// action has run (Acquire, then Lease.Release). The lease carries a
// snapshot of the manifest, so nothing a request relies on changes under
// it. Remove and Replace of a skill wait, bounded by their ctx, until the
// skill's leases are released; if ctx ends first they change nothing and
// say how many requests were still in flight. While one of them waits, the
// skill is "being updated": Acquire refuses it at once with ErrBusy rather
// than queueing, so a pending update neither stalls utterances nor is
// starved by them. Add never waits: no request can hold a lease on an id
// that is not there yet.
type Registry struct {
	mu     sync.Mutex
	skills map[string]*entry // by manifest id
	// changed is closed and replaced whenever a lease is released or an
	// update ends, waking whoever waits for one.
	changed chan struct{}
}

type entry struct {
	m        *Manifest // normalized and never modified: leases share it
	leases   int
	updating bool // a Remove or Replace waits for the leases to end
}

// New returns an empty registry.
func New() *Registry {
	return &Registry{skills: map[string]*entry{}, changed: make(chan struct{})}
}

// wake wakes every waiter; r.mu is held.
func (r *Registry) wake() {
	close(r.changed)
	r.changed = make(chan struct{})
}

// Add installs a skill. The manifest is validated and stored normalized
// (see Manifest.Normalized); the caller's value is not retained.
func (r *Registry) Add(m *Manifest) error {
	if err := m.Validate(); err != nil {
		return fmt.Errorf("adding skill: %w", err)
	}
	n := m.Normalized()
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.skills[n.ID]; dup {
		return fmt.Errorf("adding skill %s: %w", n.ID, ErrExists)
	}
	if len(r.skills) >= MaxSkills {
		return fmt.Errorf("adding skill %s: registry holds %d skills, limit %d: %w", n.ID, len(r.skills), MaxSkills, ErrInvalid)
	}
	r.skills[n.ID] = &entry{m: n}
	return nil
}

// AddAll installs several skills, all or none: when any manifest is
// invalid, repeats an id, or is already installed, nothing is added and
// the error lists every problem.
func (r *Registry) AddAll(ms ...*Manifest) error {
	var errs []error
	seen := map[string]bool{}
	norm := make([]*Manifest, 0, len(ms))
	for i, m := range ms {
		if err := m.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("adding skill %d: %w", i+1, err))
			continue
		}
		if seen[m.ID] {
			errs = append(errs, fmt.Errorf("adding skill %s: given twice: %w", m.ID, ErrExists))
			continue
		}
		seen[m.ID] = true
		norm = append(norm, m.Normalized())
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range norm {
		if _, dup := r.skills[n.ID]; dup {
			errs = append(errs, fmt.Errorf("adding skill %s: %w", n.ID, ErrExists))
		}
	}
	if len(r.skills)+len(norm) > MaxSkills {
		errs = append(errs, fmt.Errorf("adding %d skills to %d: limit %d: %w", len(norm), len(r.skills), MaxSkills, ErrInvalid))
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	for _, n := range norm {
		r.skills[n.ID] = &entry{m: n}
	}
	return nil
}

// Remove uninstalls a skill (id or bus id), waiting for its leases to be
// released; see Registry.
func (r *Registry) Remove(ctx context.Context, id string) error {
	return r.update(ctx, "removing", id, func(id string) { delete(r.skills, id) })
}

// Replace installs m in place of the skill with the same id (an upgrade),
// waiting for the old one's leases to be released; see Registry.
func (r *Registry) Replace(ctx context.Context, m *Manifest) error {
	if err := m.Validate(); err != nil {
		return fmt.Errorf("replacing skill: %w", err)
	}
	n := m.Normalized()
	return r.update(ctx, "replacing", n.ID, func(id string) { r.skills[id].m = n })
}

// update runs apply, with r.mu held, once the skill's leases are gone.
func (r *Registry) update(ctx context.Context, verb, given string, apply func(id string)) error {
	id, err := canonicalID(given)
	if err != nil {
		return fmt.Errorf("%s skill: %w", verb, err)
	}
	r.mu.Lock()
	e := r.skills[id]
	switch {
	case e == nil:
		r.mu.Unlock()
		return fmt.Errorf("%s skill %s: %w", verb, id, ErrNotFound)
	case e.updating:
		r.mu.Unlock()
		return fmt.Errorf("%s skill %s: another update is waiting: %w", verb, id, ErrBusy)
	}
	e.updating = true
	for e.leases > 0 {
		ch := r.changed
		r.mu.Unlock()
		select {
		case <-ch:
			r.mu.Lock()
		case <-ctx.Done():
			r.mu.Lock()
			e.updating = false
			n := e.leases
			r.wake()
			r.mu.Unlock()
			return fmt.Errorf("%s skill %s: %d requests still in flight: %w", verb, id, n, context.Cause(ctx))
		}
	}
	e.updating = false
	apply(id)
	r.wake()
	r.mu.Unlock()
	return nil
}

// Get returns a copy of the manifest of a skill (id or bus id).
func (r *Registry) Get(id string) (*Manifest, error) {
	cid, err := canonicalID(id)
	if err != nil {
		return nil, fmt.Errorf("getting skill: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.skills[cid]
	if e == nil {
		return nil, fmt.Errorf("getting skill %s: %w", cid, ErrNotFound)
	}
	return e.m.Clone(), nil
}

// List returns copies of every manifest, by id.
func (r *Registry) List() []*Manifest {
	return r.list(func(*Manifest) bool { return true })
}

// ListByPermission returns copies of the manifests that grant p, by id.
func (r *Registry) ListByPermission(p Permission) ([]*Manifest, error) {
	if !p.Valid() {
		return nil, fmt.Errorf("listing skills by permission: %q is not a permission (want one of %s): %w",
			p, permissionList(), ErrInvalid)
	}
	return r.list(func(m *Manifest) bool { return m.Allows(p) }), nil
}

func (r *Registry) list(keep func(*Manifest) bool) []*Manifest {
	r.mu.Lock()
	out := make([]*Manifest, 0, len(r.skills))
	for _, e := range r.skills {
		if keep(e.m) {
			out = append(out, e.m.Clone())
		}
	}
	r.mu.Unlock()
	slices.SortFunc(out, func(a, b *Manifest) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// Len returns how many skills the registry holds.
func (r *Registry) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.skills)
}

// Lease is a request's hold on a skill: while it is held, the skill is not
// removed or replaced. Release it exactly once when the request is done;
// releasing again does nothing.
type Lease struct {
	r    *Registry
	e    *entry
	m    *Manifest
	once sync.Once
}

// Acquire takes a lease on a skill (id or bus id) for one request. It
// never blocks: a skill that is being removed or replaced is refused with
// ErrBusy, a missing one with ErrNotFound.
func (r *Registry) Acquire(id string) (*Lease, error) {
	cid, err := canonicalID(id)
	if err != nil {
		return nil, fmt.Errorf("acquiring skill: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.skills[cid]
	switch {
	case e == nil:
		return nil, fmt.Errorf("acquiring skill %s: %w", cid, ErrNotFound)
	case e.updating:
		return nil, fmt.Errorf("acquiring skill %s: %w", cid, ErrBusy)
	}
	e.leases++
	return &Lease{r: r, e: e, m: e.m}, nil
}

// Manifest returns the manifest as it was when the lease was taken. It is
// shared by every holder: read it, never modify it (Clone for a copy).
func (l *Lease) Manifest() *Manifest { return l.m }

// Release ends the lease.
func (l *Lease) Release() {
	l.once.Do(func() {
		l.r.mu.Lock()
		l.e.leases--
		if l.e.updating && l.e.leases == 0 {
			l.r.wake()
		}
		l.r.mu.Unlock()
	})
}

// Leases returns how many leases are held on a skill (id or bus id); 0
// for one the registry does not hold.
func (r *Registry) Leases(id string) int {
	cid, err := canonicalID(id)
	if err != nil {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if e := r.skills[cid]; e != nil {
		return e.leases
	}
	return 0
}

// MaxManifestFiles bounds the files LoadDir reads.
const MaxManifestFiles = MaxSkills

// LoadDir reads every "*.json" file directly in dir of fsys as a manifest
// (skills shipped as files). It reports every problem, each naming its
// file: unreadable or invalid files and ids given by two files. The
// manifests returned are the valid ones, by file name; with an error, add
// none of them unless a partial load is what you want (AddAll is all or
// nothing).
func LoadDir(fsys fs.FS, dir string) ([]*Manifest, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("loading skill manifests: %w", err)
	}
	var (
		out  []*Manifest
		errs []error
		from = map[string]string{} // id → file
		n    int
	)
	for _, de := range entries {
		if de.IsDir() || !strings.HasSuffix(de.Name(), ".json") {
			continue
		}
		if n++; n > MaxManifestFiles {
			errs = append(errs, fmt.Errorf("loading skill manifests from %s: more than %d files: %w", dir, MaxManifestFiles, ErrInvalid))
			break
		}
		file := path.Join(dir, de.Name())
		m, err := loadFile(fsys, file)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if prev, dup := from[m.ID]; dup {
			errs = append(errs, fmt.Errorf("%s: skill %s is also defined by %s: %w", file, m.ID, prev, ErrExists))
			continue
		}
		from[m.ID] = file
		out = append(out, m)
	}
	return out, errors.Join(errs...)
}

func loadFile(fsys fs.FS, file string) (*Manifest, error) {
	f, err := fsys.Open(file)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxManifestBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	m, err := ParseManifest(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return m, nil
}
