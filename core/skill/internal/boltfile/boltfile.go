// Package boltfile holds what the skill state file (core/skill/store) and
// the Wasm skills' storage file (core/skill/wasm/kv) do the same way with a
// bbolt file: open it with a bounded wait for its lock, check its
// consistency and schema version, and run transactions that turn bbolt's
// panics on damaged pages into errors. Callers wrap the errors with their
// own sentinels and advice.
package boltfile

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// MaxProblems bounds the consistency problems reported.
const MaxProblems = 3

// Problems runs bbolt's consistency check over the whole file and returns
// the first problems found joined in one error, or nil.
func Problems(tx *bolt.Tx) error {
	var problems []string
	for err := range tx.Check() {
		if len(problems) < MaxProblems {
			problems = append(problems, err.Error())
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return errors.New(strings.Join(problems, "; "))
}

// Errors of Schema.
var (
	// ErrForeign marks a file holding buckets but no schema version.
	ErrForeign = errors.New("it holds data but no schema version")
	// ErrNewer marks a file written by a newer jibod.
	ErrNewer = errors.New("schema version was written by a newer jibod")
)

// Schema makes sure the file records its schema version in bucket meta
// under key: an empty file gets current; a recorded version must be a
// positive integer no newer than current. It returns the version.
func Schema(tx *bolt.Tx, meta, key string, current int) (int, error) {
	b := tx.Bucket([]byte(meta))
	if b == nil {
		foreign := false
		_ = tx.ForEach(func([]byte, *bolt.Bucket) error { foreign = true; return nil })
		if foreign {
			return 0, ErrForeign
		}
		var err error
		if b, err = tx.CreateBucket([]byte(meta)); err != nil {
			return 0, err
		}
		if err := b.Put([]byte(key), []byte(strconv.Itoa(current))); err != nil {
			return 0, err
		}
	}
	raw := b.Get([]byte(key))
	v, err := strconv.Atoi(string(raw))
	if err != nil || v < 1 {
		return 0, &BadVersionError{Raw: string(raw)}
	}
	if v > current {
		return v, fmt.Errorf("%w: %d (this one reads up to %d)", ErrNewer, v, current)
	}
	return v, nil
}

// BadVersionError is a recorded schema version that is not a positive
// integer.
type BadVersionError struct{ Raw string }

func (e *BadVersionError) Error() string {
	return fmt.Sprintf("schema version %q is not a positive integer", e.Raw)
}

// Errors of Open, View and Update, for callers to turn into their own.
var (
	// ErrLocked: another process holds the file's lock.
	ErrLocked = errors.New("the file is locked by another process")
	// ErrDamaged: bbolt could not read its own pages (a *DamagedError).
	ErrDamaged = errors.New("the file is damaged")
	// ErrClosed: the database was closed.
	ErrClosed = errors.New("the file is closed")
	// ErrFull: a write would take the file past its size limit.
	ErrFull = errors.New("the file reached its size limit")
)

// Open opens (creating when missing, mode 0600) the bbolt file at path,
// waiting up to lockTimeout for its lock and bounding it to maxSize bytes.
// A held lock is ErrLocked; a file that cannot be opened is the
// *os.PathError; anything else bbolt reports while reading its own pages,
// or a panic on them (a damaged free list), is ErrDamaged, with the file
// released.
func Open(path string, lockTimeout time.Duration, maxSize int) (db *bolt.DB, err error) {
	// Keep the file so a panic inside bolt.Open can still release the lock.
	var file *os.File
	defer func() {
		if r := recover(); r != nil {
			if file != nil {
				_ = file.Close()
			}
			db, err = nil, &DamagedError{Cause: fmt.Errorf("%v", r)}
		}
	}()
	db, err = bolt.Open(path, 0o600, &bolt.Options{Timeout: lockTimeout, MaxSize: maxSize,
		OpenFile: func(name string, flag int, perm os.FileMode) (*os.File, error) {
			f, err := os.OpenFile(name, flag, perm)
			file = f
			return f, err
		}})
	if err == nil {
		return db, nil
	}
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, ErrLocked
	}
	var pathErr *os.PathError
	if errors.As(err, &pathErr) {
		return nil, err
	}
	// Invalid, checksum and version errors, a short file, a bad page
	// size: bbolt's own pages are unreadable.
	return nil, &DamagedError{Cause: err}
}

// DamagedError is a file bbolt cannot read; it is ErrDamaged.
type DamagedError struct {
	// Cause is what bbolt reported, or the panic it raised.
	Cause error
}

func (e *DamagedError) Error() string { return ErrDamaged.Error() + ": " + e.Cause.Error() }

// Is makes a DamagedError ErrDamaged.
func (e *DamagedError) Is(target error) bool { return target == ErrDamaged }

// Unwrap returns the cause.
func (e *DamagedError) Unwrap() error { return e.Cause }

// View runs a read transaction; see Update for the errors.
func View(db *bolt.DB, fn func(*bolt.Tx) error) (err error) {
	defer recoverDamage(&err)
	return mapErr(db.View(fn))
}

// Update runs one read-write transaction, fsync'd before it returns. A
// panic on a page bbolt cannot parse is ErrDamaged (the transaction is
// already rolled back by bbolt's own deferred cleanup), a closed database
// ErrClosed and the size limit ErrFull; fn's own errors come back as they
// are.
func Update(db *bolt.DB, fn func(*bolt.Tx) error) (err error) {
	defer recoverDamage(&err)
	return mapErr(db.Update(fn))
}

func recoverDamage(err *error) {
	if r := recover(); r != nil {
		*err = &DamagedError{Cause: fmt.Errorf("%v", r)}
	}
}

func mapErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, berrors.ErrDatabaseNotOpen):
		return ErrClosed
	case errors.Is(err, berrors.ErrMaxSizeReached):
		return fmt.Errorf("%w: %w", ErrFull, err)
	}
	return err
}
