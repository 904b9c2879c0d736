package skillpkg

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/openjibo/jibod/core/skill/registry"
)

// DirName is the folder a skill is installed in: its bus id
// ("acme/weather" → "acme.weather").
func DirName(id string) string { return registry.BusID(id) }

// Install copies p into skillsDir/<namespace>.<name>/ (created 0700),
// replacing an installed version, and returns the folder. The copy is
// written under a temporary name, synced, and renamed into place.
func Install(p *Package, skillsDir string) (string, error) {
	if err := os.MkdirAll(skillsDir, 0o700); err != nil {
		return "", fmt.Errorf("installing %s: %w", p.Manifest.ID, err)
	}
	tmp, err := os.MkdirTemp(skillsDir, ".install-")
	if err != nil {
		return "", fmt.Errorf("installing %s: %w", p.Manifest.ID, err)
	}
	defer os.RemoveAll(tmp) // gone once renamed; cleans up after a failure
	if err := writeFile(filepath.Join(tmp, ManifestFile), p.ManifestJSON); err != nil {
		return "", fmt.Errorf("installing %s: %w", p.Manifest.ID, err)
	}
	if err := writeFile(filepath.Join(tmp, ModuleFile), p.Module); err != nil {
		return "", fmt.Errorf("installing %s: %w", p.Manifest.ID, err)
	}
	for name, tree := range map[string]fs.FS{LocaleDir: p.Locale, RulesDir: p.Rules} {
		if tree == nil {
			continue
		}
		if err := copyTree(tree, filepath.Join(tmp, name)); err != nil {
			return "", fmt.Errorf("installing %s: %w", p.Manifest.ID, err)
		}
	}
	if err := syncDir(tmp); err != nil {
		return "", fmt.Errorf("installing %s: %w", p.Manifest.ID, err)
	}
	dst := filepath.Join(skillsDir, DirName(p.Manifest.ID))
	var old string
	if _, err := os.Lstat(dst); err == nil {
		old = tmp + ".old"
		if err := os.Rename(dst, old); err != nil {
			return "", fmt.Errorf("installing %s: moving the installed version aside: %w", p.Manifest.ID, err)
		}
	}
	if err := os.Rename(tmp, dst); err != nil {
		if old != "" {
			_ = os.Rename(old, dst) // put the old version back
		}
		return "", fmt.Errorf("installing %s: %w", p.Manifest.ID, err)
	}
	if err := syncDir(skillsDir); err != nil {
		return "", fmt.Errorf("installing %s: %w", p.Manifest.ID, err)
	}
	if old != "" {
		if err := os.RemoveAll(old); err != nil {
			return dst, fmt.Errorf("installed %s, but removing the old version %s: %w", p.Manifest.ID, old, err)
		}
	}
	return dst, nil
}

func writeFile(name string, data []byte) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", dir, err)
	}
	return nil
}

func copyTree(tree fs.FS, dst string) error {
	if err := os.Mkdir(dst, 0o700); err != nil {
		return err
	}
	return fs.WalkDir(tree, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == "." {
			return err
		}
		out := filepath.Join(dst, filepath.FromSlash(p))
		if d.IsDir() {
			return os.Mkdir(out, 0o700)
		}
		data, err := fs.ReadFile(tree, p)
		if err != nil {
			return err
		}
		return writeFile(out, data)
	})
}

// Entry is one folder of a skills directory.
type Entry struct {
	// Dir is the package's folder.
	Dir string
	// Manifest is its manifest; nil when Err is set.
	Manifest *registry.Manifest
	// Err says why the package cannot be used.
	Err error
}

// List reads the manifest of every package installed in skillsDir, sorted
// by folder. A missing skillsDir holds nothing. Folders whose names start
// with '.' (installs in progress) are skipped; a folder not named after its
// manifest's id is reported in its Entry.
func List(skillsDir string) ([]Entry, error) {
	des, err := os.ReadDir(skillsDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing installed skills: %w", err)
	}
	var out []Entry
	for _, de := range des {
		if strings.HasPrefix(de.Name(), ".") || !de.IsDir() {
			continue
		}
		e := Entry{Dir: filepath.Join(skillsDir, de.Name())}
		e.Manifest, e.Err = ReadManifest(e.Dir)
		if e.Err == nil && DirName(e.Manifest.ID) != de.Name() {
			e.Err = invalid(e.Dir, "the folder of skill %s must be named %s", e.Manifest.ID, DirName(e.Manifest.ID))
			e.Manifest = nil
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Dir < out[j].Dir })
	return out, nil
}

// Limits on a zip file of a package.
const (
	// MaxZipBytes bounds the zip file.
	MaxZipBytes = MaxModuleBytes + MaxTreeBytes + 1<<20
	// MaxZipEntries bounds its entries, folders included.
	MaxZipEntries = 2 * MaxFiles
)

// Unzip extracts a zip file of a package into dst (created; it must not
// exist). Entries may sit at the root or all under one folder. Anything
// that could write outside dst (absolute paths, ".."), links, more than
// MaxZipEntries entries and more bytes than a package may hold are
// refused before or while extracting.
func Unzip(file, dst string) error {
	fi, err := os.Stat(file)
	if err != nil {
		return fmt.Errorf("reading skill package: %w", err)
	}
	if fi.Size() > MaxZipBytes {
		return invalid(file, "zip file of %d bytes, limit %d", fi.Size(), MaxZipBytes)
	}
	zr, err := zip.OpenReader(file)
	if err != nil {
		return invalid(file, "not a zip file: %v", err)
	}
	defer zr.Close()
	if len(zr.File) > MaxZipEntries {
		return invalid(file, "%d entries, limit %d", len(zr.File), MaxZipEntries)
	}
	prefix := commonFolder(zr.File)
	if err := os.Mkdir(dst, 0o700); err != nil {
		return fmt.Errorf("unpacking skill package: %w", err)
	}
	var total int64
	for _, f := range zr.File {
		name := strings.TrimPrefix(f.Name, prefix)
		if name == "" {
			continue
		}
		clean := path.Clean(name)
		if !fs.ValidPath(strings.TrimSuffix(clean, "/")) || strings.HasPrefix(f.Name, "/") || strings.Contains(f.Name, "\\") {
			return invalid(file, "entry %q would be written outside the package", f.Name)
		}
		mode := f.Mode()
		out := filepath.Join(dst, filepath.FromSlash(clean))
		switch {
		case mode.IsDir():
			if err := os.MkdirAll(out, 0o700); err != nil {
				return fmt.Errorf("unpacking skill package: %w", err)
			}
			continue
		case !mode.IsRegular():
			return invalid(file, "entry %q is not a regular file or folder (links are refused)", f.Name)
		}
		limit := int64(MaxFileBytes)
		if clean == ModuleFile {
			limit = MaxModuleBytes
		}
		if f.UncompressedSize64 > uint64(limit) {
			return invalid(file, "entry %q is %d bytes, limit %d", f.Name, f.UncompressedSize64, limit)
		}
		if err := os.MkdirAll(filepath.Dir(out), 0o700); err != nil {
			return fmt.Errorf("unpacking skill package: %w", err)
		}
		n, err := extract(f, out, limit)
		if err != nil {
			return fmt.Errorf("%w %s: entry %q: %w", ErrInvalid, file, f.Name, err)
		}
		if total += n; total > MaxZipBytes {
			return invalid(file, "unpacks to more than %d bytes", MaxZipBytes)
		}
	}
	return nil
}

// extract writes one entry, trusting none of its declared sizes.
func extract(f *zip.File, out string, limit int64) (int64, error) {
	r, err := f.Open()
	if err != nil {
		return 0, err
	}
	defer r.Close()
	w, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(w, io.LimitReader(r, limit+1))
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > limit {
		err = fmt.Errorf("over %d bytes", limit)
	}
	return n, err
}

// commonFolder returns "name/" when every entry of the zip lies under that
// one folder and the manifest is in it, else "".
func commonFolder(files []*zip.File) string {
	prefix := ""
	for i, f := range files {
		first, _, ok := strings.Cut(f.Name, "/")
		if !ok {
			return ""
		}
		if i == 0 {
			prefix = first + "/"
		} else if first+"/" != prefix {
			return ""
		}
	}
	for _, f := range files {
		if prefix != "/" && f.Name == prefix+ManifestFile {
			return prefix
		}
	}
	return ""
}

// Uninstall removes the package of skill id from skillsDir and returns the
// folder it was in. The folder is first renamed aside (so a robot starting
// meanwhile sees the skill whole or not at all), then deleted. A skill not
// installed, or a folder holding another skill, is an error and nothing is
// removed; a package whose manifest is unreadable is removed.
func Uninstall(skillsDir, id string) (string, error) {
	if err := registry.ParseID(id); err != nil {
		return "", fmt.Errorf("uninstalling %q: %w", id, err)
	}
	dir := filepath.Join(skillsDir, DirName(id))
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("uninstalling %s: not installed in %s", id, skillsDir)
	}
	// A package broken on disk (its manifest unreadable) is removed all the
	// same: its folder bears the skill's name, and removing it is the fix.
	if m, err := ReadManifest(dir); err == nil && m.ID != id {
		return "", fmt.Errorf("uninstalling %s: %s holds skill %s; left alone", id, dir, m.ID)
	}
	aside, err := os.MkdirTemp(skillsDir, ".uninstall-")
	if err != nil {
		return "", fmt.Errorf("uninstalling %s: %w", id, err)
	}
	gone := filepath.Join(aside, "pkg")
	if err := os.Rename(dir, gone); err != nil {
		_ = os.Remove(aside)
		return "", fmt.Errorf("uninstalling %s: %w", id, err)
	}
	if err := syncDir(skillsDir); err != nil {
		return dir, fmt.Errorf("uninstalled %s, but syncing %s: %w", id, skillsDir, err)
	}
	if err := os.RemoveAll(aside); err != nil {
		return dir, fmt.Errorf("uninstalled %s, but deleting its files in %s: %w", id, aside, err)
	}
	return dir, nil
}

// purgePrefix starts the name of a purge marker in a skills directory.
const purgePrefix = ".purge-"

// MarkPurge leaves a note in skillsDir that the data skill id stored is to
// be deleted: by the robot that holds the storage open, when it notices
// the skill is gone (see PendingPurges), or by whoever opens the storage
// next.
func MarkPurge(skillsDir, id string) error {
	if err := registry.ParseID(id); err != nil {
		return fmt.Errorf("marking %q for purging: %w", id, err)
	}
	if err := os.MkdirAll(skillsDir, 0o700); err != nil {
		return fmt.Errorf("marking %s for purging: %w", id, err)
	}
	tmp, err := os.CreateTemp(skillsDir, ".tmp-purge-")
	if err != nil {
		return fmt.Errorf("marking %s for purging: %w", id, err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(id)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(skillsDir, purgePrefix+DirName(id)))
	}
	if err != nil {
		return fmt.Errorf("marking %s for purging: %w", id, err)
	}
	return nil
}

// ClearPurge removes the purge note of skill id, if there is one: the
// data was deleted, or the skill was installed again and keeps it.
func ClearPurge(skillsDir, id string) error {
	err := os.Remove(filepath.Join(skillsDir, purgePrefix+DirName(id)))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("clearing the purge note of %s: %w", id, err)
	}
	return nil
}

// PendingPurges lists the ids of the skills whose data is marked for
// deletion in skillsDir, sorted. A note that does not read as a skill id
// is skipped.
func PendingPurges(skillsDir string) ([]string, error) {
	des, err := os.ReadDir(skillsDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing purge notes: %w", err)
	}
	var ids []string
	for _, de := range des {
		if !strings.HasPrefix(de.Name(), purgePrefix) || !de.Type().IsRegular() {
			continue
		}
		b, err := readFile(skillsDir, de.Name(), registry.MaxManifestBytes)
		if err != nil {
			continue
		}
		id := strings.TrimSpace(string(b))
		if registry.ParseID(id) != nil || purgePrefix+DirName(id) != de.Name() {
			continue
		}
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids, nil
}
