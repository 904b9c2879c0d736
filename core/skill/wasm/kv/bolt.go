package kv

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/openjibo/jibod/core/skill/internal/boltfile"
	berrors "go.etcd.io/bbolt/errors"
)

// SchemaVersion is the layout this package writes; Open refuses a file
// with a higher one.
const SchemaVersion = 1

// File defaults and bounds.
const (
	// DefaultLockTimeout is how long Open waits for another process's lock.
	DefaultLockTimeout = time.Second
	// DefaultMaxFileBytes bounds the file by default: room for 16 skills
	// at their full quota, rewritten (bbolt writes new pages before it
	// frees old ones).
	DefaultMaxFileBytes = 64 << 20
	// MinMaxFileBytes and MaxMaxFileBytes bound Options.MaxFileBytes; the
	// file is mapped into memory, and a 32-bit board has 2 GiB of address
	// space.
	MinMaxFileBytes = 64 << 10
	MaxMaxFileBytes = 1 << 30
)

const (
	bucketMeta   = "meta"
	bucketSkills = "skills"
	keySchema    = "schema"
)

// Options tune Open; the zero value is usable.
type Options struct {
	// LockTimeout bounds the wait for the file lock; 0 means
	// DefaultLockTimeout.
	LockTimeout time.Duration
	// MaxFileBytes bounds the file; 0 means DefaultMaxFileBytes.
	MaxFileBytes int
	// Logger hears of a damaged or empty file set aside; nil means
	// slog.Default().
	Logger *slog.Logger
	// Now names a file set aside; nil means time.Now.
	Now func() time.Time
}

// Store is the skill storage file. Its methods are safe for concurrent
// use.
type Store struct {
	db   *bolt.DB
	path string
}

// corruptAdvice tells the operator what to do about a damaged file.
const corruptAdvice = "stop jibod and move the file aside (what Wasm skills stored in it is lost) or restore a backup"

// Open opens (creating when missing, 0600 in a 0700 folder) the storage
// file at path and checks it. A damaged or empty file is renamed aside
// (path.damaged-TIME, path.empty-TIME) and a new one started, with an
// ERROR (WARN when empty) saying what was kept where; Open fails with
// ErrCorrupt only when it cannot be moved.
func Open(path string, opts Options) (*Store, error) {
	if path == "" {
		return nil, errors.New("opening skill storage: no file path given")
	}
	if opts.LockTimeout < 0 {
		return nil, fmt.Errorf("opening skill storage %s: lock timeout %v is negative", path, opts.LockTimeout)
	}
	if opts.LockTimeout == 0 {
		opts.LockTimeout = DefaultLockTimeout
	}
	if opts.MaxFileBytes == 0 {
		opts.MaxFileBytes = DefaultMaxFileBytes
	}
	if opts.MaxFileBytes < MinMaxFileBytes || opts.MaxFileBytes > MaxMaxFileBytes {
		return nil, fmt.Errorf("opening skill storage %s: size limit %d bytes outside [%d, %d]",
			path, opts.MaxFileBytes, MinMaxFileBytes, MaxMaxFileBytes)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("opening skill storage %s: %w", path, err)
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	db, err := openBolt(path, opts)
	if err != nil {
		return nil, err
	}
	s := &Store{db: db, path: path}
	if err := s.initSchema(); err != nil {
		_ = db.Close()
		return nil, err
	}
	return s, nil
}

func corrupt(path string, cause error) error {
	return fmt.Errorf("opening skill storage %s: %w (%v); %s", path, ErrCorrupt, cause, corruptAdvice)
}

// openBolt opens the file, its failures as errors naming it.
func openBolt(path string, opts Options) (*bolt.DB, error) {
	db, aside, err := boltfile.Open(path, boltfile.Options{LockTimeout: opts.LockTimeout, MaxSize: opts.MaxFileBytes, Now: opts.Now})
	switch {
	case err == nil:
		if aside != nil {
			reportSetAside(opts.Logger.With("component", "skill-storage", "file", path), aside)
		}
		return db, nil
	case errors.Is(err, boltfile.ErrLocked):
		return nil, fmt.Errorf("opening skill storage %s: %w (another jibod running?): waited %v for its lock",
			path, ErrInUse, opts.LockTimeout)
	}
	if d := (*boltfile.DamagedError)(nil); errors.As(err, &d) {
		return nil, corrupt(path, d.Cause)
	}
	return nil, fmt.Errorf("opening skill storage %s: %w", path, err)
}

// reportSetAside says that a damaged or empty file was kept aside and what
// the skills lost with it.
func reportSetAside(log *slog.Logger, aside *boltfile.SetAside) {
	if errors.Is(aside.Cause, boltfile.ErrEmpty) {
		log.Warn("Wasm skill storage file was empty, so whatever it held is lost: kept aside, starting with no stored skill data",
			"kept_as", aside.Path)
		return
	}
	log.Error("Wasm skill storage file was damaged: kept aside, starting with no stored skill data "+
		"(restore a backup over the new file, with jibod stopped, to get it back)",
		"kept_as", aside.Path, "damage", aside.Cause)
}

func (s *Store) initSchema() error {
	err := s.update(func(tx *bolt.Tx) error {
		var bad *boltfile.BadVersionError
		v, err := boltfile.Schema(tx, bucketMeta, keySchema, SchemaVersion)
		switch {
		case errors.Is(err, boltfile.ErrForeign):
			return fmt.Errorf("%w: it holds data but no schema version; it is not a skill storage file", ErrCorrupt)
		case errors.As(err, &bad):
			return fmt.Errorf("%w: schema version %q is not a positive integer", ErrCorrupt, bad.Raw)
		case errors.Is(err, boltfile.ErrNewer):
			return fmt.Errorf("%w: schema version %d was written by a newer jibod (this one reads up to %d)", ErrCorrupt, v, SchemaVersion)
		case err != nil:
			return err
		}
		_, err = tx.CreateBucketIfNotExists([]byte(bucketSkills))
		return err
	})
	if err != nil {
		return fmt.Errorf("opening skill storage %s: %w", s.path, err)
	}
	return nil
}

// Path returns the file's path.
func (s *Store) Path() string { return s.path }

// Close releases the file.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("closing skill storage %s: %w", s.path, err)
	}
	return nil
}

// view runs a read transaction; see update.
func (s *Store) view(fn func(*bolt.Tx) error) error {
	return s.mapErr(boltfile.View(s.db, fn))
}

// update runs one read-write transaction, with damage, a closed store and
// a full file as this package's errors.
func (s *Store) update(fn func(*bolt.Tx) error) error {
	return s.mapErr(boltfile.Update(s.db, fn))
}

func (s *Store) mapErr(err error) error {
	if d := (*boltfile.DamagedError)(nil); errors.As(err, &d) {
		return fmt.Errorf("skill storage %s: %w (%v); %s", s.path, ErrCorrupt, d.Cause, corruptAdvice)
	}
	switch {
	case errors.Is(err, boltfile.ErrClosed):
		return ErrClosed
	case errors.Is(err, boltfile.ErrFull):
		return fmt.Errorf("%w: %s reached its size limit", ErrQuota, s.path)
	}
	return err
}

// Get returns a copy of the value of key in skill's storage, or
// ErrNotFound.
func (s *Store) Get(skill, key string) ([]byte, error) {
	if err := checkArgs("reading skill storage", skill, key); err != nil {
		return nil, err
	}
	var out []byte
	err := s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(bucketSkills)).Bucket([]byte(skill))
		if b == nil {
			return ErrNotFound
		}
		v := b.Get([]byte(key))
		if v == nil {
			return ErrNotFound
		}
		out = bytes.Clone(v)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading key %q of skill %s: %w", key, skill, err)
	}
	return out, nil
}

// Set stores value under key in skill's storage, durably, unless that
// would break a quota (ErrQuota; nothing changes).
func (s *Store) Set(skill, key string, value []byte) error {
	if err := checkArgs("writing skill storage", skill, key); err != nil {
		return err
	}
	if err := checkValue(value); err != nil {
		return fmt.Errorf("writing key %q of skill %s: %w", key, skill, err)
	}
	err := s.update(func(tx *bolt.Tx) error {
		b, err := tx.Bucket([]byte(bucketSkills)).CreateBucketIfNotExists([]byte(skill))
		if err != nil {
			return err
		}
		u := usage(b)
		old := -1
		if v := b.Get([]byte(key)); v != nil {
			old = len(v)
		}
		if err := u.after(key, old, len(value)).check(skill); err != nil {
			return err
		}
		return b.Put([]byte(key), value)
	})
	if err != nil {
		return fmt.Errorf("writing key %q of skill %s: %w", key, skill, err)
	}
	return nil
}

// Delete removes key from skill's storage, durably; a missing key is no
// error.
func (s *Store) Delete(skill, key string) error {
	if err := checkArgs("deleting from skill storage", skill, key); err != nil {
		return err
	}
	err := s.update(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(bucketSkills)).Bucket([]byte(skill))
		if b == nil {
			return nil
		}
		return b.Delete([]byte(key))
	})
	if err != nil {
		return fmt.Errorf("deleting key %q of skill %s: %w", key, skill, err)
	}
	return nil
}

// Keys lists skill's keys starting with prefix, sorted, at most
// MaxListKeys.
func (s *Store) Keys(skill, prefix string) ([]string, error) {
	if err := checkSkill(skill); err != nil {
		return nil, fmt.Errorf("listing skill storage: %w", err)
	}
	var out []string
	err := s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(bucketSkills)).Bucket([]byte(skill))
		if b == nil {
			return nil
		}
		c := b.Cursor()
		for k, _ := c.Seek([]byte(prefix)); k != nil && bytes.HasPrefix(k, []byte(prefix)) && len(out) < MaxListKeys; k, _ = c.Next() {
			out = append(out, string(k))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing keys of skill %s: %w", skill, err)
	}
	sort.Strings(out) // bbolt orders bytes, which is sorted already; kept explicit for Memory's sake
	return out, nil
}

// Usage reports what skill holds.
func (s *Store) Usage(skill string) (Usage, error) {
	if err := checkSkill(skill); err != nil {
		return Usage{}, fmt.Errorf("skill storage usage: %w", err)
	}
	var u Usage
	err := s.view(func(tx *bolt.Tx) error {
		if b := tx.Bucket([]byte(bucketSkills)).Bucket([]byte(skill)); b != nil {
			u = usage(b)
		}
		return nil
	})
	if err != nil {
		return Usage{}, fmt.Errorf("skill storage usage of %s: %w", skill, err)
	}
	return u, nil
}

// usage counts a skill bucket (at most MaxKeysPerSkill keys).
func usage(b *bolt.Bucket) Usage {
	var u Usage
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		u.Keys++
		u.Bytes += len(k) + len(v)
	}
	return u
}

// Drop deletes everything skill stored, durably; a skill that stored
// nothing is no error.
func (s *Store) Drop(skill string) error {
	if err := checkSkill(skill); err != nil {
		return fmt.Errorf("dropping skill storage: %w", err)
	}
	err := s.update(func(tx *bolt.Tx) error {
		err := tx.Bucket([]byte(bucketSkills)).DeleteBucket([]byte(skill))
		if errors.Is(err, berrors.ErrBucketNotFound) {
			return nil
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("dropping the storage of skill %s: %w", skill, err)
	}
	return nil
}
