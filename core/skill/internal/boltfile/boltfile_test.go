package boltfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

func TestSchema(t *testing.T) {
	db, err := bolt.Open(filepath.Join(t.TempDir(), "f.db"), 0o600, nil)
	require.NoError(t, err)
	defer db.Close()
	schema := func(current int) (int, error) {
		var v int
		err := db.Update(func(tx *bolt.Tx) error { var err error; v, err = Schema(tx, "meta", "schema", current); return err })
		return v, err
	}
	v, err := schema(2)
	require.NoError(t, err)
	assert.Equal(t, 2, v, "an empty file gets the current version")
	v, err = schema(3)
	require.NoError(t, err)
	assert.Equal(t, 2, v, "an older version is read as it is")
	_, err = schema(1)
	assert.ErrorIs(t, err, ErrNewer)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error { return tx.Bucket([]byte("meta")).Put([]byte("schema"), []byte("x")) }))
	_, err = schema(2)
	var bad *BadVersionError
	require.ErrorAs(t, err, &bad)
	assert.Equal(t, "x", bad.Raw)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error { return tx.DeleteBucket([]byte("meta")) }))
	require.NoError(t, db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket([]byte("other")); return err }))
	_, err = schema(2)
	assert.ErrorIs(t, err, ErrForeign)
	assert.NoError(t, db.View(func(tx *bolt.Tx) error { return Problems(tx) }), "a sound file has no problems")
}

func TestOpenSaysWhatIsWrong(t *testing.T) {
	dir := t.TempDir()
	held := filepath.Join(dir, "held.db")
	holder, aside, err := Open(held, Options{LockTimeout: time.Second, MaxSize: 1 << 20})
	require.NoError(t, err)
	assert.Nil(t, aside, "a new file is nothing to set aside")
	defer holder.Close()

	for _, tc := range []struct {
		name, path string
		want       error
	}{
		{"another process holds it", held, ErrLocked},
		{"its folder is missing", filepath.Join(dir, "no", "such", "f.db"), os.ErrNotExist},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, aside, err := Open(tc.path, Options{LockTimeout: 50 * time.Millisecond, MaxSize: 1 << 20})
			require.Error(t, err)
			assert.Nil(t, db)
			assert.Nil(t, aside)
			assert.ErrorIs(t, err, tc.want)
		})
	}
	names, err := filepath.Glob(held + ".*")
	require.NoError(t, err)
	assert.Empty(t, names, "a file another process holds is never set aside")
}

// sample writes a file like a skill state file in use: two buckets, a few
// pages of records, some pages freed by rewrites.
func sample(t *testing.T, path string) map[string]string {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	require.NoError(t, err)
	want := map[string]string{}
	for round := range 3 {
		require.NoError(t, db.Update(func(tx *bolt.Tx) error {
			for _, name := range []string{"conversations", "timers"} {
				b, err := tx.CreateBucketIfNotExists([]byte(name))
				if err != nil {
					return err
				}
				for i := range 6 {
					k, v := fmt.Sprintf("%s/%02d", name, i), fmt.Sprintf("%d:%s", round, strings.Repeat("x", 200+i*40))
					if err := b.Put([]byte(k), []byte(v)); err != nil {
						return err
					}
					want[k] = v
				}
			}
			return nil
		}))
	}
	require.NoError(t, db.Close())
	return want
}

// contents reads every record back.
func contents(t *testing.T, db *bolt.DB) map[string]string {
	t.Helper()
	got := map[string]string{}
	require.NoError(t, View(db, func(tx *bolt.Tx) error {
		return tx.ForEach(func(_ []byte, b *bolt.Bucket) error {
			return b.ForEach(func(k, v []byte) error { got[string(k)] = string(v); return nil })
		})
	}))
	return got
}

var testNow = func() time.Time { return time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC) }

// A state file cut short (a full SD card, a copy interrupted, a power cut
// on a card that lies about flushing) kept its meta pages, which name pages
// past its end: bbolt maps the file and reads them, a SIGBUS that no
// recover catches. Cut at every offset, Open either finds the file whole
// (only free space was lost) or sets it aside and starts a new one; it
// never crashes (issue 22 item 1: 16 KiB kept of 32 KiB).
func TestCutShortFilesAreSetAside(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.db")
	want := sample(t, src)
	raw, err := os.ReadFile(src)
	require.NoError(t, err)
	pageSize := os.Getpagesize()
	var offsets []int
	for n := 1; n < len(raw); n += 512 {
		offsets = append(offsets, n-1, n)
	}
	offsets = append(offsets, 16<<10, pageSize-1, pageSize+1, 2*pageSize+100)
	setAside := 0
	for _, n := range offsets {
		t.Run(fmt.Sprintf("keep %d of %d bytes", n, len(raw)), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.db")
			require.NoError(t, os.WriteFile(path, raw[:n], 0o600))
			db, aside, err := Open(path, Options{LockTimeout: time.Second, MaxSize: 1 << 20, Now: testNow})
			require.NoError(t, err, "a damaged file never keeps the robot from starting")
			defer db.Close()
			if aside == nil {
				assert.Equal(t, want, contents(t, db), "a file found whole holds everything")
				return
			}
			setAside++
			if n == 0 {
				assert.ErrorIs(t, aside.Cause, ErrEmpty)
			} else {
				assert.ErrorIs(t, aside.Cause, ErrDamaged)
			}
			assert.Regexp(t, `^`+regexp.QuoteMeta(path)+`\.(damaged|empty)-20260304T050607Z$`, aside.Path)
			kept, err := os.ReadFile(aside.Path)
			require.NoError(t, err)
			assert.Equal(t, raw[:n], kept, "the damaged file is kept as it was")
			assert.Empty(t, contents(t, db), "a new file took its place")
			require.NoError(t, Update(db, func(tx *bolt.Tx) error { _, err := tx.CreateBucket([]byte("b")); return err }))
		})
	}
	assert.Greater(t, setAside, len(offsets)/2, "most cuts lose pages in use")

	path := filepath.Join(dir, "state.db")
	require.NoError(t, os.WriteFile(path, raw[:16<<10], 0o600))
	db, aside, err := Open(path, Options{LockTimeout: time.Second, MaxSize: 1 << 20})
	require.NoError(t, err)
	require.NoError(t, db.Close())
	require.NotNil(t, aside)
	assert.ErrorContains(t, aside.Cause, "the file is 16384 bytes, but its meta page")
	assert.ErrorContains(t, aside.Cause, "it was cut short")
}

func TestDamagedFilesAreSetAside(t *testing.T) {
	pageSize := os.Getpagesize()
	for _, tc := range []struct {
		name   string
		damage func(raw []byte) []byte
		says   string
	}{
		{"empty", func([]byte) []byte { return nil }, "the file is empty"},
		{"not a bbolt file", func([]byte) []byte { return bytes.Repeat([]byte("not a bbolt file "), 512) }, "neither meta page is valid"},
		{"a file too short to be one", func([]byte) []byte { return []byte("x") }, "neither meta page is valid"},
		{"both meta pages destroyed", func(raw []byte) []byte {
			copy(raw, bytes.Repeat([]byte{0xA5}, 2*pageSize))
			return raw
		}, "neither meta page is valid"},
		{"the free list page overwritten", func(raw []byte) []byte {
			m, _, err := chooseMeta(bytes.NewReader(raw), int64(len(raw)))
			if err != nil {
				panic(err)
			}
			copy(raw[int(m.freelist)*pageSize:], bytes.Repeat([]byte{0x5A}, pageSize))
			return raw
		}, "the free list: page"},
		{"every data page overwritten", func(raw []byte) []byte {
			for i := 2 * pageSize; i < len(raw); i++ {
				raw[i] = byte(i * 7)
			}
			return raw
		}, "the file is damaged"},
		{"page ids garbled in place", func(raw []byte) []byte {
			for p := 2; p*pageSize < len(raw); p++ {
				raw[p*pageSize] ^= 0x40
			}
			return raw
		}, "calls itself page"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "skilldata.db")
			sample(t, path)
			raw, err := os.ReadFile(path)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(path, tc.damage(raw), 0o600))
			db, aside, err := Open(path, Options{LockTimeout: time.Second, MaxSize: 1 << 20, Now: testNow})
			require.NoError(t, err)
			defer db.Close()
			require.NotNil(t, aside)
			assert.ErrorContains(t, aside.Cause, tc.says)
			assert.FileExists(t, aside.Path)
			assert.Empty(t, contents(t, db))
		})
	}
}

// Only bbolt's own consistency check, after opening, finds a page whose
// keys are out of order: that same file is set aside too.
func TestDamageFoundByTheConsistencyCheckIsSetAside(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	db, err := bolt.Open(path, 0o600, nil)
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket([]byte("b"))
		if err != nil {
			return err
		}
		for i := range 300 {
			if err := b.Put([]byte(fmt.Sprintf("key-%04d", i)), bytes.Repeat([]byte("v"), 40)); err != nil {
				return err
			}
		}
		return nil
	}))
	require.NoError(t, db.Close())
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	// Swap two keys' first digits in place: the structure is intact, the
	// order is not.
	i := bytes.Index(raw, []byte("key-0010"))
	j := bytes.Index(raw, []byte("key-0020"))
	require.Positive(t, i)
	require.Positive(t, j)
	raw[i+6], raw[j+6] = raw[j+6], raw[i+6]
	require.NoError(t, os.WriteFile(path, raw, 0o600))

	db, aside, err := Open(path, Options{LockTimeout: time.Second, MaxSize: 1 << 20, Now: testNow})
	require.NoError(t, err)
	defer db.Close()
	require.NotNil(t, aside)
	assert.ErrorIs(t, aside.Cause, ErrDamaged)
	kept, err := os.ReadFile(aside.Path)
	require.NoError(t, err)
	assert.Equal(t, raw, kept)
	assert.Empty(t, contents(t, db))
}

// Two damaged files in the same second keep both copies.
func TestSetAsideNamesDoNotCollide(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	var kept []string
	for range 2 {
		require.NoError(t, os.WriteFile(path, []byte("garbage"), 0o600))
		db, aside, err := Open(path, Options{LockTimeout: time.Second, MaxSize: 1 << 20, Now: testNow})
		require.NoError(t, err)
		require.NoError(t, db.Close())
		require.NotNil(t, aside)
		kept = append(kept, aside.Path)
	}
	assert.Equal(t, []string{path + ".damaged-20260304T050607Z", path + ".damaged-20260304T050607Z-2"}, kept)
}

// Were the structure check to miss a page past the end, the memory fault
// bbolt meets while opening is a panic, and the file is set aside all the
// same (its lost mapping still holds the lock, so it is renamed by name).
func TestFaultWhileOpeningIsDamage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	sample(t, path)
	require.NoError(t, os.Truncate(path, 16<<10))
	nocheck := func(io.ReaderAt, int64) error { return nil }
	db, aside, err := open(path, Options{LockTimeout: time.Second, MaxSize: 1 << 20, Now: testNow}, nocheck)
	require.NoError(t, err)
	defer db.Close()
	require.NotNil(t, aside)
	assert.ErrorContains(t, aside.Cause, "reading the mapped file faulted")
	assert.Equal(t, path+".damaged-20260304T050607Z", aside.Path)
	assert.Empty(t, contents(t, db))
}

// A file cut short under a running robot faults on the mapping at the next
// read of a lost page: a panic here, so an error, not a crash.
func TestFaultOnTheMappedFileIsDamage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	sample(t, path)
	db, aside, err := Open(path, Options{LockTimeout: time.Second, MaxSize: 1 << 20})
	require.NoError(t, err)
	require.Nil(t, aside)
	defer db.Close()
	require.NoError(t, os.Truncate(path, int64(2*os.Getpagesize())))
	err = View(db, func(tx *bolt.Tx) error {
		return tx.ForEach(func(_ []byte, b *bolt.Bucket) error {
			return b.ForEach(func(k, v []byte) error { return nil })
		})
	})
	assert.ErrorIs(t, err, ErrDamaged)
	assert.ErrorContains(t, err, "reading the mapped file faulted")
}

func TestTransactionsSayWhatIsWrong(t *testing.T) {
	db, _, err := Open(filepath.Join(t.TempDir(), "f.db"), Options{LockTimeout: time.Second, MaxSize: 1 << 20})
	require.NoError(t, err)
	require.NoError(t, Update(db, func(tx *bolt.Tx) error { _, err := tx.CreateBucket([]byte("b")); return err }))

	err = Update(db, func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("b")).Put([]byte("big"), make([]byte, 2<<20))
	})
	assert.ErrorIs(t, err, ErrFull, "a write past the size limit")

	own := errors.New("the caller's own")
	assert.Same(t, own, Update(db, func(*bolt.Tx) error { return own }), "fn's errors come back as they are")

	err = View(db, func(*bolt.Tx) error { panic("unexpected page type") })
	var d *DamagedError
	require.ErrorAs(t, err, &d, "bbolt's panics on damaged pages become errors")
	assert.ErrorIs(t, err, ErrDamaged)
	assert.Contains(t, d.Cause.Error(), "unexpected page type")

	require.NoError(t, db.Close())
	assert.ErrorIs(t, View(db, func(*bolt.Tx) error { return nil }), ErrClosed)
	assert.ErrorIs(t, Update(db, func(*bolt.Tx) error { return nil }), ErrClosed)
}

// fullFile writes a file like a state file at its limits: 256 records of
// 60 KiB and 64 of 12 KiB, about 16 MiB.
func fullFile(b *testing.B) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "state.db")
	db, err := bolt.Open(path, 0o600, nil)
	require.NoError(b, err)
	require.NoError(b, db.Update(func(tx *bolt.Tx) error {
		for _, bk := range []struct {
			name  string
			n, sz int
		}{{"conversations", 256, 60 << 10}, {"timers", 64, 12 << 10}} {
			bu, err := tx.CreateBucket([]byte(bk.name))
			if err != nil {
				return err
			}
			for i := range bk.n {
				if err := bu.Put([]byte(fmt.Sprintf("k%04d", i)), bytes.Repeat([]byte{byte(i)}, bk.sz)); err != nil {
					return err
				}
			}
		}
		return nil
	}))
	require.NoError(b, db.Close())
	return path
}

// Open of a full file: the structure check, bbolt's open and its
// consistency check.
func BenchmarkOpenFullFile(b *testing.B) {
	path := fullFile(b)
	for b.Loop() {
		db, aside, err := Open(path, Options{LockTimeout: time.Second, MaxSize: 64 << 20})
		if err != nil || aside != nil {
			b.Fatal(err, aside)
		}
		_ = db.Close()
	}
}

// The structure check alone on a full file.
func BenchmarkCheckStructureFullFile(b *testing.B) {
	path := fullFile(b)
	f, err := os.Open(path)
	require.NoError(b, err)
	defer f.Close()
	fi, err := f.Stat()
	require.NoError(b, err)
	for b.Loop() {
		if err := checkStructure(f, fi.Size()); err != nil {
			b.Fatal(err)
		}
	}
}
