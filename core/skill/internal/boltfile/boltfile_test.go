package boltfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
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
	holder, err := Open(held, time.Second, 1<<20)
	require.NoError(t, err)
	defer holder.Close()
	garbage := filepath.Join(dir, "garbage.db")
	require.NoError(t, os.WriteFile(garbage, bytes.Repeat([]byte("not a bbolt file "), 512), 0o600))
	short := filepath.Join(dir, "short.db")
	require.NoError(t, os.WriteFile(short, []byte("x"), 0o600))

	for _, tc := range []struct {
		name, path string
		want       error
	}{
		{"another process holds it", held, ErrLocked},
		{"not a bbolt file", garbage, ErrDamaged},
		{"a file too short to be one", short, ErrDamaged},
		{"its folder is missing", filepath.Join(dir, "no", "such", "f.db"), os.ErrNotExist},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, err := Open(tc.path, 50*time.Millisecond, 1<<20)
			require.Error(t, err)
			assert.Nil(t, db)
			assert.ErrorIs(t, err, tc.want)
			if tc.want == ErrDamaged {
				var d *DamagedError
				require.ErrorAs(t, err, &d)
				assert.NotEmpty(t, d.Cause.Error(), "the cause says what bbolt found")
			}
		})
	}
}

func TestTransactionsSayWhatIsWrong(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "f.db"), time.Second, 1<<20)
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
