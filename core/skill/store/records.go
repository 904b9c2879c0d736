package store

import (
	"bytes"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

type record struct{ key, val []byte }

// records copies a bucket's records out of bbolt's memory map, which is
// valid only during the transaction.
func (s *Store) records(bucket string) ([]record, error) {
	var out []record
	err := s.view(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte(bucket)).ForEach(func(k, v []byte) error {
			out = append(out, record{key: bytes.Clone(k), val: bytes.Clone(v)})
			return nil
		})
	})
	return out, err
}

// reportBad logs an unreadable record with its key.
func (s *Store) reportBad(err error) {
	var rec *RecordError
	if errors.As(err, &rec) {
		s.log.Warn("skipping unreadable skill state record", "bucket", rec.Bucket,
			"key", describeKey(rec.Bucket, rec.Key), "error", rec.Err)
		return
	}
	s.log.Warn("skipping unreadable skill state record", "error", err)
}

// countKeys counts a bucket's records; buckets hold at most a few hundred.
func countKeys(b *bolt.Bucket) int {
	n := 0
	c := b.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		n++
	}
	return n
}

// DropUnreadable deletes, in one transaction, every conversation and
// timer record that cannot be read back (each is logged first), and
// returns how many it deleted. Unreadable records are otherwise kept, for
// an operator to inspect, and count against the limits.
func (s *Store) DropUnreadable() (int, error) {
	n := 0
	err := s.update(func(tx *bolt.Tx) error {
		for _, bucket := range []string{bucketConversations, bucketTimers} {
			b := tx.Bucket([]byte(bucket))
			var doomed [][]byte
			err := b.ForEach(func(k, v []byte) error {
				var err error
				if bucket == bucketConversations {
					_, err = decodeConversation(k, v)
				} else {
					_, err = decodeTimer(k, v)
				}
				if err != nil {
					s.reportBad(err)
					doomed = append(doomed, bytes.Clone(k))
				}
				return nil
			})
			if err != nil {
				return err
			}
			for _, k := range doomed {
				if err := b.Delete(k); err != nil {
					return err
				}
			}
			n += len(doomed)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("dropping unreadable skill state records: %w", err)
	}
	return n, nil
}
