// Package boltfile holds what the skill state file (core/skill/store) and
// the Wasm skills' storage file (core/skill/wasm/kv) do the same way with a
// bbolt file: open it with a bounded wait for its lock, check its
// structure before bbolt maps it and its consistency after, set a damaged
// or empty file aside for a new one, check the schema version, and run
// transactions that turn bbolt's panics on damaged pages (and memory
// faults on the mapped file) into errors. Callers wrap the errors with
// their own sentinels and advice.
package boltfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
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
	// ErrEmpty: the file was there but held nothing, not even bbolt's meta
	// pages; what it held is lost.
	ErrEmpty = errors.New("the file is empty")
	// ErrClosed: the database was closed.
	ErrClosed = errors.New("the file is closed")
	// ErrFull: a write would take the file past its size limit.
	ErrFull = errors.New("the file reached its size limit")
)

// Options tune Open.
type Options struct {
	// LockTimeout bounds the wait for another process's lock.
	LockTimeout time.Duration
	// MaxSize bounds the file, in bytes.
	MaxSize int
	// Now names the copies kept aside; nil means time.Now.
	Now func() time.Time
}

// SetAside is a damaged or empty file Open found and renamed out of the
// way before starting a new one in its place.
type SetAside struct {
	// Path is where the file is now.
	Path string
	// Cause is what was wrong with it: a *DamagedError, or ErrEmpty.
	Cause error
}

// Open opens the bbolt file at path (creating it when missing, mode 0600),
// waiting up to opts.LockTimeout for its lock and bounding it to
// opts.MaxSize bytes, and checks it whole: its structure against its own
// meta pages before bbolt maps it (a page past the end of a cut-short file
// would be a SIGBUS), then bbolt's consistency check.
//
// A file found damaged, or empty (it held data once; bbolt would silently
// start it again), is renamed aside to path.damaged-TIME or
// path.empty-TIME, still under its lock, and a new file is started in its
// place: Open then succeeds, and the returned *SetAside says where the old
// file went and why, for the caller to report. When it cannot be renamed
// the error is a *DamagedError.
//
// A held lock is ErrLocked; a file that cannot be opened is the
// *os.PathError; bbolt's other failures (a mapping refused, say) come back
// as they are.
func Open(path string, opts Options) (*bolt.DB, *SetAside, error) {
	return open(path, opts, checkStructure)
}

// open is Open with the structure check given: tests leave it out to see
// what bbolt does without it.
func open(path string, opts Options, check func(io.ReaderAt, int64) error) (*bolt.DB, *SetAside, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	o := &opener{path: path, opts: opts, check: check}
	db, err := o.attempt()
	var d *DamagedError
	if err == nil || !errors.As(err, &d) || o.aside != nil || o.info == nil {
		return db, o.aside, err
	}
	if o.panicked {
		// bbolt's mapping of the file is lost with its state when it
		// panics (on a fault or a page it cannot parse) while opening; the
		// mapping keeps the file, and so its lock, open. No other process
		// can have taken it since: set it aside by name.
		if pi, serr := os.Stat(path); serr != nil || !os.SameFile(pi, o.info) {
			return nil, nil, err
		}
		if o.aside, err = o.setAside(path, err); err != nil {
			return nil, nil, err
		}
	} else {
		// Damage only bbolt itself found, once it had the file open: open
		// it again to set that same file aside under its lock.
		o.forceAside, o.forceCause = o.info, err
	}
	db, err = o.attempt()
	return db, o.aside, err
}

// opener is one Open: bbolt opens the file through its open method.
type opener struct {
	path  string
	opts  Options
	check func(io.ReaderAt, int64) error

	// forceAside is a file to set aside whatever it holds, for
	// forceCause.
	forceAside os.FileInfo
	forceCause error

	// file and info are the file handed to bbolt.
	file *os.File
	info os.FileInfo
	// aside is the file set aside, if any.
	aside *SetAside
	// panicked: bbolt panicked while opening the file.
	panicked bool
}

// attempt opens the file with bbolt and checks its consistency. Memory
// faults on the mapping become panics, and those (and bbolt's own panics
// on pages it cannot parse) damage.
func (o *opener) attempt() (db *bolt.DB, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if o.file != nil {
				_ = o.file.Close()
			}
			o.panicked = true
			db, err = nil, &DamagedError{Cause: panicCause(r)}
		}
	}()
	o.file, o.info = nil, nil
	db, err = bolt.Open(o.path, 0o600, &bolt.Options{Timeout: o.opts.LockTimeout, MaxSize: o.opts.MaxSize,
		OpenFile: o.open})
	if err != nil {
		switch {
		case errors.Is(err, berrors.ErrTimeout):
			return nil, ErrLocked
		case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrVersionMismatch),
			errors.Is(err, berrors.ErrChecksum):
			return nil, &DamagedError{Cause: err}
		}
		return nil, err
	}
	var problems error
	if err := View(db, func(tx *bolt.Tx) error { problems = Problems(tx); return nil }); err != nil {
		_ = db.Close()
		return nil, err
	}
	if problems != nil {
		_ = db.Close()
		return nil, &DamagedError{Cause: problems}
	}
	return db, nil
}

// open is bbolt's OpenFile: it opens and locks the file, checks its
// structure, and sets a damaged or empty one aside for a new one.
func (o *opener) open(name string, flag int, perm os.FileMode) (*os.File, error) {
	f, created, err := lockedOpen(name, flag, perm, o.opts.LockTimeout)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	var cause error
	switch {
	case o.forceAside != nil && os.SameFile(fi, o.forceAside):
		cause = o.forceCause
	case created:
	case fi.Size() == 0:
		cause = ErrEmpty
	default:
		var bad *structureError
		if err := o.check(f, fi.Size()); errors.As(err, &bad) {
			cause = &DamagedError{Cause: bad}
		} else if err != nil {
			_ = f.Close()
			return nil, fmt.Errorf("checking %s: %w", name, err)
		}
	}
	if cause != nil {
		aside, err := o.setAside(name, cause)
		_ = f.Close()
		if err != nil {
			return nil, err
		}
		o.aside = aside
		if f, _, err = lockedOpen(name, flag, perm, o.opts.LockTimeout); err != nil {
			return nil, err
		}
		if fi, err = f.Stat(); err != nil {
			_ = f.Close()
			return nil, err
		}
	}
	o.file, o.info = f, fi
	return f, nil
}

// openOrCreate opens path; when it is missing and flag has O_CREATE, it
// creates it, and created says so.
func openOrCreate(path string, flag int, perm os.FileMode) (f *os.File, created bool, err error) {
	for range 3 { // another process may create or remove it meanwhile
		f, err = os.OpenFile(path, flag&^os.O_CREATE, perm)
		if err == nil || !errors.Is(err, os.ErrNotExist) || flag&os.O_CREATE == 0 {
			return f, false, err
		}
		f, err = os.OpenFile(path, flag|os.O_EXCL, perm)
		if err == nil || !errors.Is(err, os.ErrExist) {
			return f, err == nil, err
		}
	}
	return nil, false, err
}

// maxAsideTries bounds the names tried for a copy kept aside.
const maxAsideTries = 100

// setAside renames the file at name (locked by this process) to a name of
// its own beside it.
func (o *opener) setAside(name string, cause error) (*SetAside, error) {
	kind := "damaged"
	if errors.Is(cause, ErrEmpty) {
		kind = "empty"
	}
	base := name + "." + kind + "-" + o.opts.Now().UTC().Format("20060102T150405Z")
	for i := 1; i <= maxAsideTries; i++ {
		dst := base
		if i > 1 {
			dst += "-" + strconv.Itoa(i)
		}
		if _, err := os.Lstat(dst); !errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err := os.Rename(name, dst); err != nil {
			return nil, &DamagedError{Cause: fmt.Errorf("%w; moving it aside to %s: %w", damageOf(cause), dst, err)}
		}
		return &SetAside{Path: dst, Cause: cause}, nil
	}
	return nil, &DamagedError{Cause: fmt.Errorf("%w; moving it aside: %d names like %s are taken", damageOf(cause), maxAsideTries, base)}
}

// damageOf is what is wrong with a file: the cause of a *DamagedError, or
// cause itself (ErrEmpty).
func damageOf(cause error) error {
	if d := (*DamagedError)(nil); errors.As(cause, &d) {
		return d.Cause
	}
	return cause
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
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer recoverDamage(&err)
	return mapErr(db.View(fn))
}

// Update runs one read-write transaction, fsync'd before it returns. A
// panic on a page bbolt cannot parse is ErrDamaged (the transaction is
// already rolled back by bbolt's own deferred cleanup), a closed database
// ErrClosed and the size limit ErrFull; fn's own errors come back as they
// are. A memory fault on the mapped file (cut short under the running
// robot) is turned into a panic, and so into ErrDamaged too.
func Update(db *bolt.DB, fn func(*bolt.Tx) error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer recoverDamage(&err)
	return mapErr(db.Update(fn))
}

func recoverDamage(err *error) {
	if r := recover(); r != nil {
		*err = &DamagedError{Cause: panicCause(r)}
	}
}

// panicCause says what a recovered panic was: a memory fault
// (SetPanicOnFault makes one a panic, with the faulting address where the
// kernel gives one) is most likely a read of the mapped file past its end.
func panicCause(r any) error {
	_, addr := r.(interface{ Addr() uintptr })
	if re, ok := r.(runtime.Error); ok && (addr || strings.Contains(re.Error(), "invalid memory address")) {
		return fmt.Errorf("reading the mapped file faulted (a page past its end?): %v", r)
	}
	return fmt.Errorf("%v", r)
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
