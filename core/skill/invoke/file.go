package invoke

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// Bounds of the run file.
const (
	// DefaultFileKeep is how many records a FileLog keeps by default.
	DefaultFileKeep = 1000
	// MaxFileKeep bounds FileOptions.Keep.
	MaxFileKeep = 10_000
	// MaxLineBytes bounds one line of the run file; readers skip longer
	// lines. Records are clipped (MaxRecordField, MaxRecordError) to fit.
	MaxLineBytes = 4096
)

// FileOptions configure a FileLog.
type FileOptions struct {
	// Keep is how many records compaction keeps: the file is rewritten
	// with the newest Keep records once it holds more than 2×Keep. 0 means
	// DefaultFileKeep; at most MaxFileKeep.
	Keep int
	// Logger reports write failures; nil means slog.Default().
	Logger *slog.Logger
}

// FileLog is the durable run log: an append-only file of JSON lines, one
// Record per line, bounded by compaction. It is a Recorder, safe for
// concurrent use within one process; one process writes a file.
//
// Other processes read it while it is written (ReadFile), without locks:
// each record is appended with one write of a whole line, compaction
// writes the kept records to a temporary file and renames it over the old
// one (a reader that has the old file open reads it to its end), and
// readers skip a line that does not parse, such as one being written.
//
// A crash can leave a torn last line; OpenFile cuts it off. Records are
// not synced one by one (a run log is not worth an SD-card flush per
// call), so a power cut may lose the last few; a crash of jibod alone
// loses none, the kernel has them.
type FileLog struct {
	path string
	keep int
	log  *slog.Logger

	mu          sync.Mutex
	f           *os.File
	lines       int
	nextCompact int // line count at which to try compacting again
	err         error
	closed      bool
}

// OpenFile opens (creating it and its directory if needed) the run file at
// path for appending, cutting off a torn last line and compacting it if it
// is over its bound.
func OpenFile(path string, opts FileOptions) (*FileLog, error) {
	keep := opts.Keep
	switch {
	case keep == 0:
		keep = DefaultFileKeep
	case keep < 0 || keep > MaxFileKeep:
		return nil, fmt.Errorf("opening run log %s: keep %d is outside 1..%d", path, keep, MaxFileKeep)
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("opening run log: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening run log: %w", err)
	}
	lines, end, torn, err := scanLines(f)
	if err == nil && torn {
		// The last write did not finish (a crash): drop the fragment so the
		// next record starts on a line of its own.
		err = f.Truncate(end)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("opening run log %s: %w", path, err)
	}
	l := &FileLog{path: path, keep: keep, log: logger.With("component", "skill-runs"), f: f, lines: lines}
	if lines > 2*keep {
		if err := l.compact(); err != nil {
			l.f.Close()
			return nil, fmt.Errorf("opening run log %s: %w", path, err)
		}
	}
	return l, nil
}

// scanLines counts the complete lines of f and reports where the last one
// ends and whether a fragment without a newline follows it.
func scanLines(f *os.File) (lines int, end int64, torn bool, err error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return 0, 0, false, err
	}
	br := bufio.NewReaderSize(f, 64<<10)
	var off int64
	for {
		chunk, err := br.ReadSlice('\n')
		off += int64(len(chunk))
		switch {
		case err == nil:
			lines++
			end = off
		case errors.Is(err, bufio.ErrBufferFull):
			// A line longer than the buffer: keep reading to its end.
		case errors.Is(err, io.EOF):
			return lines, end, off > end, nil
		default:
			return 0, 0, false, err
		}
	}
}

// Record appends r as one line, compacting the file when it is over its
// bound. Failures are logged (once until the next success) and kept for
// Err; the record is then lost, the call it describes is not affected.
func (l *FileLog) Record(r Record) {
	b, err := json.Marshal(r.clipped())
	if err == nil && len(b) >= MaxLineBytes {
		// Escaping can grow clipped text up to sixfold: clip harder.
		r.Skill, r.Intent, r.RequestID = clip(r.Skill, 64), clip(r.Intent, 64), clip(r.RequestID, 64)
		r.TransID, r.RequestType, r.ResponseType = clip(r.TransID, 64), clip(r.RequestType, 64), clip(r.ResponseType, 64)
		r.Error = clip(r.Error, 128)
		b, err = json.Marshal(r)
	}
	if err != nil {
		l.fail(fmt.Errorf("encoding a record: %w", err))
		return
	}
	b = append(b, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	if _, err := l.f.Write(b); err != nil {
		l.failLocked(fmt.Errorf("appending to %s: %w", l.path, err))
		return
	}
	l.lines++
	if l.lines > 2*l.keep && l.lines >= l.nextCompact {
		if err := l.compact(); err != nil {
			l.failLocked(err)
			// Try again after another keep records rather than on every one.
			l.nextCompact = l.lines + l.keep
			return
		}
	}
	if l.err != nil {
		l.log.Info("run log writable again", "path", l.path)
		l.err = nil
	}
}

func (l *FileLog) fail(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.failLocked(err)
}

func (l *FileLog) failLocked(err error) {
	if l.err == nil {
		l.log.Error("run log: record lost", "path", l.path, "err", err)
	}
	l.err = err
}

// Err returns the last write failure, or nil when the last write worked.
func (l *FileLog) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// compact rewrites the file with its newest l.keep records, through a
// temporary file renamed over it; l.mu is held.
func (l *FileLog) compact() error {
	recs, err := readRecords(l.path, Filter{Limit: l.keep})
	if err != nil {
		return fmt.Errorf("compacting %s: %w", l.path, err)
	}
	slices.Reverse(recs) // oldest first, as appended
	var buf bytes.Buffer
	for _, r := range recs {
		b, err := json.Marshal(r)
		if err != nil {
			return fmt.Errorf("compacting %s: %w", l.path, err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	dir := filepath.Dir(l.path)
	tmp, err := os.CreateTemp(dir, filepath.Base(l.path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("compacting %s: %w", l.path, err)
	}
	_, werr := tmp.Write(buf.Bytes())
	if werr == nil {
		werr = tmp.Sync()
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp.Name(), 0o644)
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), l.path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("compacting %s: %w", l.path, werr)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // make the rename durable; not all file systems support it
		d.Close()
	}
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("compacting %s: reopening: %w", l.path, err)
	}
	l.f.Close()
	l.f = f
	l.lines = len(recs)
	l.nextCompact = 0
	return nil
}

// Close flushes the file to disk and closes it; later records are dropped.
func (l *FileLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	serr := l.f.Sync()
	cerr := l.f.Close()
	if err := errors.Join(serr, cerr); err != nil {
		return fmt.Errorf("closing run log %s: %w", l.path, err)
	}
	return nil
}

// ReadFile reads the records of a run file that f selects, newest first,
// while another process may be writing it. Lines that do not parse (a torn
// or half-written last line, a line over MaxLineBytes) are skipped. A
// missing file holds no records.
func ReadFile(path string, f Filter) ([]Record, error) {
	recs, err := readRecords(path, f.normalize())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading run log: %w", err)
	}
	return recs, nil
}

// readRecords returns the matching records, newest first, keeping at most
// f.Limit of them as it goes.
func readRecords(path string, f Filter) ([]Record, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	br := bufio.NewReaderSize(file, MaxLineBytes)
	var (
		out  []Record // a ring of the newest matches when f.Limit > 0
		next int
		long bool // inside a line over MaxLineBytes
	)
	for {
		line, err := br.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			long = true
			continue
		case errors.Is(err, io.EOF):
			// A fragment without a newline is a line being written or torn.
			return newestFirst(out, next, f.Limit), nil
		case err != nil:
			return nil, err
		}
		if long {
			long = false
			continue
		}
		var r Record
		if json.Unmarshal(line, &r) != nil || !f.match(&r) {
			continue
		}
		if f.Limit > 0 && len(out) == f.Limit {
			out[next] = r
			next = (next + 1) % f.Limit
			continue
		}
		out = append(out, r)
	}
}

// newestFirst unrolls the ring out (oldest at next once full) newest first.
func newestFirst(out []Record, next, limit int) []Record {
	if limit > 0 && len(out) == limit && next > 0 {
		out = slices.Concat(out[next:], out[:next])
	}
	slices.Reverse(out)
	return out
}

// clipped bounds the record's strings so its line stays under
// MaxLineBytes.
func (r Record) clipped() Record {
	r.Skill = clip(r.Skill, MaxRecordField)
	r.Intent = clip(r.Intent, MaxRecordField)
	r.RequestID = clip(r.RequestID, MaxRecordField)
	r.TransID = clip(r.TransID, MaxRecordField)
	r.RequestType = clip(r.RequestType, MaxRecordField)
	r.ResponseType = clip(r.ResponseType, MaxRecordField)
	r.Error = clip(r.Error, MaxRecordError)
	return r
}
