package store

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/openjibo/jibod/core/skill/internal/boltfile"
	berrors "go.etcd.io/bbolt/errors"
)

// SchemaVersion is the layout of the file this package writes. Open
// refuses a file with a higher version rather than misread it.
const SchemaVersion = 1

// File limits and defaults.
const (
	// DefaultLockTimeout is how long Open waits for another process to
	// release the file before failing with ErrInUse.
	DefaultLockTimeout = time.Second
	// DefaultMaxDBBytes bounds the file by default. Everything the count
	// and size limits allow (MaxConversations × MaxConversationBytes +
	// MaxTimers × MaxTimerBytes ≈ 17 MiB), rewritten, fits in a 32 MiB
	// file: bbolt writes new pages before freeing old ones and grows the
	// file in steps of up to 16 MiB. This leaves one more step of room.
	DefaultMaxDBBytes = 64 << 20
	// MinMaxDBBytes is the smallest accepted Options.MaxDBBytes.
	MinMaxDBBytes = 64 << 10
	// MaxMaxDBBytes is the largest accepted Options.MaxDBBytes: bbolt maps
	// the whole file into memory, and a 32-bit board has 2 GiB of address
	// space at most.
	MaxMaxDBBytes = 1 << 30
)

// Errors reported by the store; each is wrapped with what was being done.
var (
	// ErrInUse: another process holds the state file's lock.
	ErrInUse = errors.New("state file in use by another process")
	// ErrCorrupt: the file's structure is damaged and cannot be used: met
	// while the store is open, or at Open when the damaged file cannot be
	// set aside.
	ErrCorrupt = errors.New("state file is corrupt")
	// ErrSchema: the file was written by a newer jibod, or is not a jibod
	// state file at all.
	ErrSchema = errors.New("state file has an unsupported layout")
	// ErrInvalid: a record given to a Put fails validation; nothing is
	// written.
	ErrInvalid = errors.New("invalid record")
	// ErrFull: a Put would exceed a count limit or Options.MaxDBBytes;
	// nothing is written.
	ErrFull = errors.New("state store full")
	// ErrBadRecord: a stored record cannot be read back (see RecordError).
	ErrBadRecord = errors.New("unreadable record")
	// ErrClosed: the store was used after Close.
	ErrClosed = errors.New("state store closed")
)

// RecordError reports a stored record that cannot be read back: it does
// not decode, fails validation, is over its size limit, or its key does
// not match its contents.
type RecordError struct {
	// Bucket is "conversations" or "timers".
	Bucket string
	// Key is the record's key as stored.
	Key string
	// Err says what is wrong.
	Err error
}

func (e *RecordError) Error() string {
	return fmt.Sprintf("%s record %s: %v", e.Bucket, describeKey(e.Bucket, e.Key), e.Err)
}

// Unwrap makes errors.Is(err, ErrBadRecord) hold, and exposes the cause.
func (e *RecordError) Unwrap() []error { return []error{ErrBadRecord, e.Err} }

// describeKey renders a key for people: conversation keys join the bus
// session and skill id with a NUL, which %q would show as \x00.
func describeKey(bucket, key string) string {
	if bucket == bucketConversations {
		if bus, skill, ok := strings.Cut(key, keySep); ok {
			return fmt.Sprintf("(session %q, skill %q)", truncate(bus), truncate(skill))
		}
	}
	return strconv.Quote(truncate(key))
}

const (
	bucketMeta          = "meta"
	bucketConversations = "conversations"
	bucketTimers        = "timers"
	keySchema           = "schema"
)

// Options tune Open; the zero value is usable.
type Options struct {
	// LockTimeout bounds the wait for the file lock; 0 means
	// DefaultLockTimeout.
	LockTimeout time.Duration
	// MaxDBBytes bounds the file size; 0 means DefaultMaxDBBytes. It must
	// lie in [MinMaxDBBytes, MaxMaxDBBytes].
	MaxDBBytes int
	// Logger receives reports of unreadable records and of a damaged or
	// empty file set aside; nil means slog.Default().
	Logger *slog.Logger
	// Now stamps UpdatedAt and Created when a record leaves them zero, and
	// names a file set aside; nil means time.Now.
	Now func() time.Time
}

// Store is the skill state file. Its methods are safe for concurrent use.
type Store struct {
	db   *bolt.DB
	path string
	log  *slog.Logger
	now  func() time.Time
}

// Open opens the state file at path, creating it and its directory when
// missing, and checks its structure, consistency and schema. A file another
// process holds fails with ErrInUse; one from a newer jibod with ErrSchema.
// A damaged file (cut short, overwritten, failing bbolt's consistency
// check) or an empty one is renamed aside to path.damaged-TIME or
// path.empty-TIME and a new, empty file started in its place, so the robot
// starts; Open logs that at ERROR (WARN for an empty file), naming both
// files and what was lost. Only when it cannot be set aside does Open fail,
// with ErrCorrupt.
func Open(path string, opts Options) (*Store, error) {
	if path == "" {
		return nil, errors.New("opening skill state: no file path given")
	}
	if opts.LockTimeout < 0 {
		return nil, fmt.Errorf("opening skill state %s: lock timeout %v is negative", path, opts.LockTimeout)
	}
	if opts.LockTimeout == 0 {
		opts.LockTimeout = DefaultLockTimeout
	}
	if opts.MaxDBBytes == 0 {
		opts.MaxDBBytes = DefaultMaxDBBytes
	}
	if opts.MaxDBBytes < MinMaxDBBytes || opts.MaxDBBytes > MaxMaxDBBytes {
		return nil, fmt.Errorf("opening skill state %s: size limit %d bytes outside [%d, %d]",
			path, opts.MaxDBBytes, MinMaxDBBytes, MaxMaxDBBytes)
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("opening skill state %s: creating its directory: %w", path, err)
	}
	log := opts.Logger.With("component", "skill-state", "file", path)
	db, err := openBolt(path, opts, log)
	if err != nil {
		return nil, err
	}
	s := &Store{db: db, path: path, log: log, now: opts.Now}
	if err := s.initSchema(); err != nil {
		_ = db.Close()
		return nil, err
	}
	if info, err := os.Stat(path); err == nil && info.Mode().Perm()&0o077 != 0 {
		s.log.Warn("skill state file is readable by other users; it may hold what people said",
			"mode", info.Mode().Perm().String())
	}
	return s, nil
}

// openBolt opens the bbolt file, its failures as errors naming the file,
// and reports a file set aside.
func openBolt(path string, opts Options, log *slog.Logger) (*bolt.DB, error) {
	db, aside, err := boltfile.Open(path, boltfile.Options{LockTimeout: opts.LockTimeout, MaxSize: opts.MaxDBBytes, Now: opts.Now})
	switch {
	case err == nil:
		if aside != nil {
			reportSetAside(log, aside)
		}
		return db, nil
	case errors.Is(err, boltfile.ErrLocked):
		return nil, fmt.Errorf("opening skill state %s: %w (another jibod running?): waited %v for its lock",
			path, ErrInUse, opts.LockTimeout)
	}
	if d := (*boltfile.DamagedError)(nil); errors.As(err, &d) {
		return nil, corrupt(path, d.Cause)
	}
	return nil, fmt.Errorf("opening skill state %s: %w", path, err)
}

// reportSetAside says that a damaged or empty file was kept aside and what
// the robot lost with it.
func reportSetAside(log *slog.Logger, aside *boltfile.SetAside) {
	if errors.Is(aside.Cause, boltfile.ErrEmpty) {
		log.Warn("skill state file was empty, so whatever it held is lost: kept aside, starting with no skill conversations or timers",
			"kept_as", aside.Path)
		return
	}
	log.Error("skill state file was damaged: kept aside, starting with no skill conversations or timers "+
		"(restore a backup over the new file, with jibod stopped, to get them back)",
		"kept_as", aside.Path, "damage", aside.Cause)
}

// corruptAdvice tells the operator what to do about a damaged file.
const corruptAdvice = "stop jibod, move the file aside (the skill conversations and timers it held are lost) " +
	"or restore a backup, then start jibod again"

// corrupt builds the ErrCorrupt error an operator sees at Open.
func corrupt(path string, cause error) error {
	return fmt.Errorf("opening skill state %s: %w (%v); %s", path, ErrCorrupt, cause, corruptAdvice)
}

// initSchema creates the buckets of a new file, or checks an existing
// file's schema version.
func (s *Store) initSchema() error {
	err := s.update(func(tx *bolt.Tx) error {
		var bad *boltfile.BadVersionError
		v, err := boltfile.Schema(tx, bucketMeta, keySchema, SchemaVersion)
		switch {
		case errors.Is(err, boltfile.ErrForeign):
			return fmt.Errorf("%w: it holds data but no schema version; it is not a jibod skill state file", ErrSchema)
		case errors.As(err, &bad):
			return fmt.Errorf("%w: schema version %q is not a positive integer", ErrSchema, bad.Raw)
		case errors.Is(err, boltfile.ErrNewer):
			return fmt.Errorf("%w: schema version %d was written by a newer jibod (this one reads up to %d); "+
				"run the newer jibod, or move the file aside to start with no skill state", ErrSchema, v, SchemaVersion)
		case err != nil:
			return err
		}
		for _, name := range []string{bucketConversations, bucketTimers} {
			if _, err := tx.CreateBucketIfNotExists([]byte(name)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("opening skill state %s: %w", s.path, err)
	}
	return nil
}

// Path returns the state file's path.
func (s *Store) Path() string { return s.path }

// Close releases the file. Using the store afterwards fails with ErrClosed.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("closing skill state %s: %w", s.path, err)
	}
	return nil
}

// view runs a read transaction; see update.
func (s *Store) view(fn func(*bolt.Tx) error) error {
	return s.mapErr(boltfile.View(s.db, fn))
}

// update runs one read-write transaction, fsync'd before it returns, with
// damage, a closed store and a full file as this package's errors.
func (s *Store) update(fn func(*bolt.Tx) error) error {
	return s.mapErr(boltfile.Update(s.db, fn))
}

func (s *Store) mapErr(err error) error {
	if d := (*boltfile.DamagedError)(nil); errors.As(err, &d) {
		return fmt.Errorf("skill state %s: %w (%v); %s", s.path, ErrCorrupt, d.Cause, corruptAdvice)
	}
	switch {
	case errors.Is(err, boltfile.ErrClosed):
		return ErrClosed
	case errors.Is(err, boltfile.ErrFull):
		return fmt.Errorf("%w: %s reached its size limit: %w", ErrFull, s.path, berrors.ErrMaxSizeReached)
	}
	return err
}
