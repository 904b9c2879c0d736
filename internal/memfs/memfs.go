// Package memfs is a read-only file tree in memory, for files read and
// checked once (a skill package's locale and rules, a hub skill's files)
// and then read from many times. It does what testing/fstest.MapFS does
// for the runtime, without linking a testing package (and its own copy of
// the generic sort code) into the binary (docs/size.md).
package memfs

import (
	"errors"
	"io"
	"io/fs"
	"sort"
	"strings"
	"time"
)

// FS is a file tree: files by slash-separated path (fs.ValidPath), and
// folders, which the files' paths imply and Dir adds when empty. Build it
// with File and Dir, then only read it; reading is safe for concurrent use.
type FS struct {
	files map[string][]byte
	dirs  map[string]bool
}

// New returns an empty tree.
func New() *FS { return &FS{files: map[string][]byte{}, dirs: map[string]bool{".": true}} }

// File adds a file (and the folders above it). An invalid path is an
// error and adds nothing.
func (m *FS) File(name string, data []byte) error {
	if !fs.ValidPath(name) || name == "." {
		return &fs.PathError{Op: "add", Path: name, Err: fs.ErrInvalid}
	}
	m.files[name] = data
	m.parents(name)
	return nil
}

// Dir adds a folder (and the folders above it).
func (m *FS) Dir(name string) error {
	if !fs.ValidPath(name) {
		return &fs.PathError{Op: "add", Path: name, Err: fs.ErrInvalid}
	}
	m.dirs[name] = true
	m.parents(name)
	return nil
}

func (m *FS) parents(name string) {
	for i := strings.LastIndexByte(name, '/'); i > 0; i = strings.LastIndexByte(name, '/') {
		name = name[:i]
		m.dirs[name] = true
	}
}

// Open opens a file or a folder.
func (m *FS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if data, ok := m.files[name]; ok {
		return &file{info: info{name: base(name), size: int64(len(data))}, data: data}, nil
	}
	if m.dirs[name] {
		entries, _ := m.ReadDir(name)
		return &dir{info: info{name: base(name), dir: true}, entries: entries}, nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

// ReadFile returns a copy of a file's contents.
func (m *FS) ReadFile(name string) ([]byte, error) {
	data, ok := m.files[name]
	if !ok {
		if _, err := m.Open(name); err != nil {
			return nil, &fs.PathError{Op: "read", Path: name, Err: errors.Unwrap(err)}
		}
		return nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("is a directory")}
	}
	return append([]byte(nil), data...), nil
}

// ReadDir lists a folder, sorted by name.
func (m *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	if !m.dirs[name] {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	prefix := name + "/"
	if name == "." {
		prefix = ""
	}
	seen := map[string]bool{}
	var out []fs.DirEntry
	add := func(p string, isDir bool, size int64) {
		rest, ok := strings.CutPrefix(p, prefix)
		if !ok || rest == "" || rest == "." || strings.Contains(rest, "/") || seen[rest] {
			return
		}
		seen[rest] = true
		out = append(out, fs.FileInfoToDirEntry(info{name: rest, dir: isDir, size: size}))
	}
	for p, data := range m.files {
		add(p, false, int64(len(data)))
	}
	for p := range m.dirs {
		add(p, true, 0)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out, nil
}

// Stat describes a file or a folder.
func (m *FS) Stat(name string) (fs.FileInfo, error) {
	f, err := m.Open(name)
	if err != nil {
		return nil, err
	}
	return f.Stat()
}

func base(name string) string { return name[strings.LastIndexByte(name, '/')+1:] }

// info describes a file or a folder.
type info struct {
	name string
	dir  bool
	size int64
}

func (i info) Name() string { return i.name }
func (i info) Size() int64  { return i.size }
func (i info) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (i info) ModTime() time.Time { return time.Time{} }
func (i info) IsDir() bool        { return i.dir }
func (i info) Sys() any           { return nil }

// file is an open file.
type file struct {
	info info
	data []byte
	off  int
}

func (f *file) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *file) Close() error               { return nil }
func (f *file) Read(b []byte) (int, error) {
	if f.off >= len(f.data) {
		return 0, io.EOF
	}
	n := copy(b, f.data[f.off:])
	f.off += n
	return n, nil
}

// dir is an open folder.
type dir struct {
	info    info
	entries []fs.DirEntry
	off     int
}

func (d *dir) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *dir) Close() error               { return nil }
func (d *dir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.info.name, Err: errors.New("is a directory")}
}

// ReadDir reads the folder's entries as fs.ReadDirFile does.
func (d *dir) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.entries[d.off:]
	if n <= 0 {
		d.off = len(d.entries)
		return rest, nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	rest = rest[:min(n, len(rest))]
	d.off += len(rest)
	return rest, nil
}

// Files counts the files.
func (m *FS) Files() int { return len(m.files) }
