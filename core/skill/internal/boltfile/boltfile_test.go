package boltfile

import (
	"path/filepath"
	"testing"

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
