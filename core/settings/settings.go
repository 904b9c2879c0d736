// Package settings keeps the owner's settings of the robot (its master
// volume, for one) in a small JSON file in the state folder, so that a
// change survives a restart. Writes replace the file whole (a temporary
// file renamed over it), so a crash never leaves half a file.
package settings

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sync"
)

// Limits of a settings file.
const (
	// MaxBytes bounds the file.
	MaxBytes = 64 << 10
	// MaxKeys bounds the settings kept.
	MaxKeys = 256
	// MaxKeyLen bounds a setting's name.
	MaxKeyLen = 64
)

// File is a settings file. Its methods are safe for concurrent use.
type File struct {
	path string

	mu     sync.Mutex
	values map[string]any
}

// Open reads the settings at path; a missing file holds none. A file that
// is not a JSON object of at most MaxKeys settings, or is over MaxBytes,
// is an error naming the file: nothing of it is used.
func Open(path string) (*File, error) {
	f := &File{path: path, values: map[string]any{}}
	fh, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return nil, fmt.Errorf("settings: %w", err)
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("settings %s: %w", path, err)
	}
	if len(data) > MaxBytes {
		return nil, fmt.Errorf("settings %s: more than %d bytes", path, MaxBytes)
	}
	if err := json.Unmarshal(data, &f.values); err != nil || f.values == nil {
		return nil, fmt.Errorf("settings %s: not a JSON object of settings: %v", path, err)
	}
	if len(f.values) > MaxKeys {
		return nil, fmt.Errorf("settings %s: %d settings, limit %d", path, len(f.values), MaxKeys)
	}
	return f, nil
}

// Number returns the number set for key, if one is.
func (f *File) Number(key string) (float64, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	v, ok := f.values[key].(float64)
	return v, ok && !math.IsNaN(v) && !math.IsInf(v, 0)
}

// SetNumber sets key to v and writes the file. A key that is empty or
// over MaxKeyLen, a value that is not finite, or a new key beyond MaxKeys
// is refused and changes nothing.
func (f *File) SetNumber(key string, v float64) error {
	switch {
	case key == "" || len(key) > MaxKeyLen:
		return fmt.Errorf("settings: key %q: want 1 to %d bytes", key, MaxKeyLen)
	case math.IsNaN(v) || math.IsInf(v, 0):
		return fmt.Errorf("settings: %s: %v is not a finite number", key, v)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.values[key]; !ok && len(f.values) >= MaxKeys {
		return fmt.Errorf("settings: %s: %d settings already, limit %d", key, len(f.values), MaxKeys)
	}
	old, had := f.values[key]
	f.values[key] = v
	if err := f.write(); err != nil {
		if had {
			f.values[key] = old
		} else {
			delete(f.values, key)
		}
		return err
	}
	return nil
}

// write replaces the file with the values; the caller holds f.mu.
func (f *File) write() error {
	data, err := json.MarshalIndent(f.values, "", "  ")
	if err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(f.path), filepath.Base(f.path)+".*")
	if err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	_, werr := tmp.Write(append(data, '\n'))
	serr := tmp.Sync()
	cerr := tmp.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("settings %s: %w", f.path, err)
	}
	if err := os.Rename(tmp.Name(), f.path); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("settings %s: %w", f.path, err)
	}
	return nil
}
