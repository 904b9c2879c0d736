package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// MaxContextFileBytes bounds the kept intent context file.
const MaxContextFileBytes = 1 << 20

// contextFile keeps the default session's intent context in the state
// folder as one JSON object, {"intent_context": {...}}, replaced whole on
// each save. The pipeline checks what it reads as it checks any session.
type contextFile struct{ path string }

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
// power cut. The pipeline calls it on a writer of its own; once ctx has
// ended the old file is left as it is.
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
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(f.path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // fails harmlessly after the rename
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), f.path); err != nil {
		return err
	}
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
