package people

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/openjibo/jibod/core/skill/protocol"
)

// TopicChanged is the bus topic cmd/jibod announces a changed loop on
// ({count}): the speech grammar takes the members' names.
const TopicChanged = "jibo.loop.changed"

// DefaultWatchInterval is how often Watch looks at the file: a stat, so
// cheap; a person added on the command line is heard by name within it.
const DefaultWatchInterval = 2 * time.Second

// Options configures a Store.
type Options struct {
	// Now is the clock (birthdates may not be in the future; the robot's
	// birthday is the day the file is made); nil means time.Now.
	Now func() time.Time
	// Location is the zone birthdates are days of; nil means time.Local,
	// the zone of the robot's location.iso.
	Location *time.Location
	// Logger reports a file that turned bad or good again; nil means
	// slog.Default().
	Logger *slog.Logger
}

// Store keeps the loop in a JSON file, or in memory. Every read looks at
// the file first (a stat) and reads it again only when it is another file
// than the last one read (a rename replaced it) or its size or
// modification time changed, so changes other processes make (jibod people
// add) are seen by the next read. Every change is checked, then written
// atomically under an advisory lock of the file beside it (loop.json.lock).
// A bad file is never written over. Safe for concurrent use.
type Store struct {
	path string
	now  func() time.Time
	loc  *time.Location
	log  *slog.Logger

	mu sync.Mutex
	// data is the loop as last read or written (or fresh, with no file).
	data fileData
	// checked is the file as last looked at: data's, or a bad one's;
	// nil before any.
	checked os.FileInfo
	// problem is why the checked file cannot be used; nil when it can.
	problem error
	// gen counts the changes of data.
	gen uint64
	// opening is set while Open reads the file: Open returns what it
	// finds rather than log it.
	opening bool
	// beforeRename, in tests, runs before a write's rename.
	beforeRename func(tmp string) error
}

// Open returns the store of the loop file at path ("" keeps the loop in
// memory, for a robot without a state folder). A missing file is made at
// once, with a new identity for the robot (robot and loop ids, kept from
// then on) and nobody in it; the folder must exist.
//
// The store is usable even when Open returns an error: the error says why
// the file could not be read or made, and the loop is then empty (the file
// left untouched, changes refused while it is bad) until the file is
// fixed, which the next read notices. A robot logs the error and runs.
func Open(path string, opts Options) (*Store, error) {
	s := &Store{path: path, now: opts.Now, loc: opts.Location, log: opts.Logger}
	if s.now == nil {
		s.now = time.Now
	}
	if s.loc == nil {
		s.loc = time.Local
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.data = fresh(s.now())
	if path == "" {
		return s, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opening = true
	err := s.refreshLocked()
	s.opening = false
	if err != nil {
		return s, err
	}
	if s.checked == nil { // no file yet: keep this identity from now on
		if err := s.changeLocked(func(*fileData) error { return nil }); err != nil {
			return s, fmt.Errorf("making the loop file %s: %w", path, err)
		}
	}
	return s, nil
}

// Path is the file ("" in memory).
func (s *Store) Path() string { return s.path }

// Loop is the loop as skills get it (jibo.md §2.2 runtime.loop): a deep
// copy, after looking at the file.
func (s *Store) Loop() protocol.Loop {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.refreshLocked() // a bad file is logged, and the last good loop kept
	return s.data.protocol(s.loc)
}

// Members lists the members in the order they were added, and the
// owner's id, after looking at the file.
func (s *Store) Members() (members []Member, owner string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.refreshLocked()
	d := s.data.clone()
	return d.Members, d.Owner
}

// Err says why the file cannot be used now; nil when it can (or the loop
// is in memory).
func (s *Store) Err() error { return s.Refresh() }

// Refresh looks at the file and reads it again if it changed. It returns
// the file's problem, if it has one.
func (s *Store) Refresh() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refreshLocked()
}

// Generation counts the loop's changes, by this store or seen in the
// file: a new value means a new loop.
func (s *Store) Generation() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gen
}

// Watch looks at the file every interval (0 means DefaultWatchInterval)
// until ctx ends, and calls changed with the new loop after each change,
// whoever made it.
func (s *Store) Watch(ctx context.Context, interval time.Duration, changed func(protocol.Loop)) {
	if interval <= 0 {
		interval = DefaultWatchInterval
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	last := s.Generation()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		l := s.Loop()
		if g := s.Generation(); g != last {
			last = g
			changed(l)
		}
	}
}

// refreshLocked brings data up to date with the file.
func (s *Store) refreshLocked() error {
	if s.path == "" {
		return nil
	}
	st, err := os.Stat(s.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if s.checked != nil || s.problem != nil {
			// Deleted: nobody is in the loop now; the robot keeps its
			// identity for the file the next change makes.
			s.log.Warn("loop file gone: nobody is in the loop", "file", s.path)
			s.checked, s.problem = nil, nil
			if len(s.data.Members) > 0 {
				s.data.Members, s.data.Owner = []Member{}, ""
				s.gen++
			}
		}
		return nil
	case err != nil:
		return s.fail(nil, fmt.Errorf("looking at it: %w", err))
	case sameVersion(s.checked, st):
		return s.problem
	}
	f, err := os.Open(s.path)
	if err != nil {
		return s.fail(st, fmt.Errorf("opening it: %w", err))
	}
	defer f.Close()
	// The open file's own stat: the one its bytes are from, should the
	// path be replaced between the stat above and the open.
	if st, err = f.Stat(); err != nil {
		return s.fail(nil, fmt.Errorf("looking at it: %w", err))
	}
	b, err := readFile(f)
	if err != nil {
		return s.fail(st, fmt.Errorf("reading it: %w", err))
	}
	d, err := decode(b, s.now())
	if err != nil {
		return s.fail(st, err)
	}
	if s.problem != nil {
		s.log.Info("loop file readable again", "file", s.path, "members", len(d.Members))
	}
	s.checked, s.problem = st, nil
	if !d.equal(s.data) {
		s.data = d
		s.gen++
	}
	return nil
}

// fail records that the file as st is bad, logging it the first time.
func (s *Store) fail(st os.FileInfo, err error) error {
	ferr := &FileError{Path: s.path, Err: err}
	if !s.opening && (s.problem == nil || s.problem.Error() != ferr.Error()) {
		s.log.Error("loop file unusable; keeping the loop as it was", "err", ferr)
	}
	s.checked, s.problem = st, ferr
	return ferr
}

// changeLocked applies change to the loop as the file has it now, checks
// the result and writes it. Nothing changes if any step fails.
func (s *Store) changeLocked(change func(d *fileData) error) error {
	if s.path != "" {
		unlock, err := lockFile(s.path + ".lock")
		if err != nil {
			return err
		}
		defer unlock()
		// Another process may have changed the file: start from it, and
		// never write over a bad one.
		if err := s.refreshLocked(); err != nil {
			return err
		}
	}
	d := s.data.clone()
	if err := change(&d); err != nil {
		return err
	}
	d, err := d.clean(s.now())
	if err != nil {
		return err
	}
	if s.path != "" {
		b, err := d.encode()
		if err != nil {
			return err
		}
		if err := writeAtomic(s.path, b, s.beforeRename); err != nil {
			return fmt.Errorf("writing the loop file %s: %w", s.path, err)
		}
		st, err := os.Stat(s.path)
		if err != nil {
			return fmt.Errorf("writing the loop file %s: %w", s.path, err)
		}
		s.checked, s.problem = st, nil
	}
	if !d.equal(s.data) {
		s.data = d
		s.gen++
	}
	return nil
}

// Add adds m to the loop with a new id and returns it as kept (names
// single-spaced, gender lower-case). The first member is the owner; owner
// makes m the owner in any case.
func (s *Store) Add(m Member, owner bool) (Member, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var added Member
	err := s.changeLocked(func(d *fileData) error {
		if len(d.Members) >= MaxMembers {
			return fmt.Errorf("adding %s: %w: %d members, at most %d", m.Name(), ErrFull, len(d.Members), MaxMembers)
		}
		c, err := m.clean(s.now())
		if err != nil {
			return fmt.Errorf("adding %s: %w", m.Name(), err)
		}
		taken := []string{d.Jibo.ID, d.LoopID}
		for _, o := range d.Members {
			taken = append(taken, o.ID)
		}
		c.ID = newID("lp-", taken...)
		d.Members = append(d.Members, c)
		if owner || d.Owner == "" {
			d.Owner = c.ID
		}
		added = c
		return nil
	})
	return added, err
}

// Remove takes the member ref names (see Find) out of the loop and
// returns them. The owner can only go last: make another member the
// owner first.
func (s *Store) Remove(ref string) (Member, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var gone Member
	err := s.changeLocked(func(d *fileData) error {
		i, err := find(d.Members, ref)
		if err != nil {
			return fmt.Errorf("removing %q: %w", ref, err)
		}
		gone = d.Members[i]
		if gone.ID == d.Owner && len(d.Members) > 1 {
			return fmt.Errorf("removing %s: %w while others are in the loop: make another member the owner first", gone.Name(), ErrOwner)
		}
		d.Members = append(d.Members[:i], d.Members[i+1:]...)
		if len(d.Members) == 0 {
			d.Owner = ""
		}
		return nil
	})
	return gone, err
}

// SetOwner makes the member ref names (see Find) the owner and returns
// them.
func (s *Store) SetOwner(ref string) (Member, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var owner Member
	err := s.changeLocked(func(d *fileData) error {
		i, err := find(d.Members, ref)
		if err != nil {
			return fmt.Errorf("making %q the owner: %w", ref, err)
		}
		owner = d.Members[i]
		d.Owner = owner.ID
		return nil
	})
	return owner, err
}

// Find returns the member ref names: by id, else by a name only they have
// (see Called).
func (s *Store) Find(ref string) (Member, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.refreshLocked()
	i, err := find(s.data.Members, ref)
	if err != nil {
		return Member{}, err
	}
	return s.data.Members[i], nil
}

// find is the index of the member ref names.
func find(members []Member, ref string) (int, error) {
	for i, m := range members {
		if m.ID == ref {
			return i, nil
		}
	}
	var hits []int
	for i, m := range members {
		if Called(m, ref) {
			hits = append(hits, i)
		}
	}
	switch len(hits) {
	case 0:
		return -1, fmt.Errorf("%w: nobody has that id or name", ErrNotFound)
	case 1:
		return hits[0], nil
	}
	var who []string
	for _, i := range hits {
		who = append(who, members[i].Name()+" ("+members[i].ID+")")
	}
	return -1, fmt.Errorf("%w: %d members are called that: %s; give the id", ErrAmbiguous, len(hits), strings.Join(who, ", "))
}
