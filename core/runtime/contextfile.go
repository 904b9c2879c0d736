package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// MaxContextFileBytes bounds the kept intent context file.
const MaxContextFileBytes = 1 << 20

// maxStaleTemps bounds how many leftover temporary files one start
// removes.
const maxStaleTemps = 64

// contextFile keeps the default session's intent context in the state
// folder as one JSON object, {"intent_context": {...}}, replaced whole on
// each save. The pipeline checks what it reads as it checks any session.
type contextFile struct{ path string }

// newContextFile is the context file at path, with the temporary files
// of saves a crash or power cut stopped short removed: nothing else
// removes them.
func newContextFile(path string, log *slog.Logger) contextFile {
	f := contextFile{path: path}
	if err := f.removeStale(); err != nil {
		log.Warn("removing leftover intent context files", "err", err)
	}
	return f
}

// tempPrefix and tempSuffix frame the name of a save's temporary file.
func (f contextFile) tempPrefix() string { return "." + filepath.Base(f.path) + "." }

const tempSuffix = ".tmp"

// removeStale removes up to maxStaleTemps temporary files of the context
// file's saves from its folder.
func (f contextFile) removeStale() error {
	dir := filepath.Dir(f.path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("reading %s: %w", dir, err)
	}
	var errs []error
	removed := 0
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasPrefix(name, f.tempPrefix()) || !strings.HasSuffix(name, tempSuffix) {
			continue
		}
		if removed == maxStaleTemps {
			break
		}
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
		removed++
	}
	return errors.Join(errs...)
}

// LoadContext reads the kept context; none when there is no file.
func (f contextFile) LoadContext() (map[string]any, error) {
	fh, err := os.Open(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", f.path, err)
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, MaxContextFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", f.path, err)
	}
	if len(b) > MaxContextFileBytes {
		return nil, fmt.Errorf("reading %s: over %d bytes", f.path, MaxContextFileBytes)
	}
	var doc struct {
		IntentContext map[string]any `json:"intent_context"`
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&doc); err != nil {
		return nil, fmt.Errorf("reading %s: %w", f.path, err)
	}
	return normalizeNumbers(doc.IntentContext), nil
}

// normalizeNumbers turns json.Number into float64, as sessions read from
// the bus carry them.
func normalizeNumbers(m map[string]any) map[string]any {
	for k, v := range m {
		switch x := v.(type) {
		case json.Number:
			if fv, err := x.Float64(); err == nil {
				m[k] = fv
			}
		case map[string]any:
			m[k] = normalizeNumbers(x)
		}
	}
	return m
}

// SaveContext replaces the kept context: written to a new file, synced,
// renamed over the old one and the folder synced, so a crash leaves the
// old or the new, never half of one, and the rename itself survives a
// power cut. The pipeline calls it on a writer of its own; ctx is
// checked before the write and before the sync: once it has ended there
// the old file is left as it is and the new one removed. A file synced is
// always renamed into place, which is quick and atomic, so a save that
// paid for the sync is not thrown away.
func (f contextFile) SaveContext(ctx context.Context, ic map[string]any) error {
	if err := f.save(ctx, ic); err != nil {
		return fmt.Errorf("keeping the intent context in %s: %w", f.path, err)
	}
	return nil
}

func (f contextFile) save(ctx context.Context, ic map[string]any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b, err := json.Marshal(map[string]any{"intent_context": ic})
	if err != nil {
		return err
	}
	if len(b) > MaxContextFileBytes {
		return fmt.Errorf("%d bytes, over %d", len(b), MaxContextFileBytes)
	}
	dir := filepath.Dir(f.path)
	tmp, err := os.CreateTemp(dir, f.tempPrefix()+"*"+tempSuffix)
	if err != nil {
		return err
	}
	renamed := false
	defer func() {
		if !renamed {
			_ = tmp.Close() // closed already on most paths
			_ = os.Remove(tmp.Name())
		}
	}()
	for _, step := range []func() error{func() error { _, err := tmp.Write(b); return err }, tmp.Sync} {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := step(); err != nil {
			return err
		}
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), f.path); err != nil {
		return err
	}
	renamed = true
	return syncDir(dir)
}

// syncDir makes a rename in dir durable, where the file system can sync
// a folder at all.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, errors.ErrUnsupported) {
		err = nil
	}
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
