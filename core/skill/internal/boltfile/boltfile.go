// Package boltfile holds what the skill state file (core/skill/store) and
// the Wasm skills' storage file (core/skill/wasm/kv) check the same way
// when they open a bbolt file: its consistency and its schema version.
// Callers wrap the errors with their own sentinels and advice.
package boltfile

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// MaxProblems bounds the consistency problems reported.
const MaxProblems = 3

// Problems runs bbolt's consistency check over the whole file and returns
// the first problems found joined in one error, or nil.
func Problems(tx *bolt.Tx) error {
	var problems []string
	for err := range tx.Check() {
		if len(problems) < MaxProblems {
			problems = append(problems, err.Error())
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return errors.New(strings.Join(problems, "; "))
}

// Errors of Schema.
var (
	// ErrForeign marks a file holding buckets but no schema version.
	ErrForeign = errors.New("it holds data but no schema version")
	// ErrNewer marks a file written by a newer jibod.
	ErrNewer = errors.New("schema version was written by a newer jibod")
)

// Schema makes sure the file records its schema version in bucket meta
// under key: an empty file gets current; a recorded version must be a
// positive integer no newer than current. It returns the version.
func Schema(tx *bolt.Tx, meta, key string, current int) (int, error) {
	b := tx.Bucket([]byte(meta))
	if b == nil {
		foreign := false
		_ = tx.ForEach(func([]byte, *bolt.Bucket) error { foreign = true; return nil })
		if foreign {
			return 0, ErrForeign
		}
		var err error
		if b, err = tx.CreateBucket([]byte(meta)); err != nil {
			return 0, err
		}
		if err := b.Put([]byte(key), []byte(strconv.Itoa(current))); err != nil {
			return 0, err
		}
	}
	raw := b.Get([]byte(key))
	v, err := strconv.Atoi(string(raw))
	if err != nil || v < 1 {
		return 0, &BadVersionError{Raw: string(raw)}
	}
	if v > current {
		return v, fmt.Errorf("%w: %d (this one reads up to %d)", ErrNewer, v, current)
	}
	return v, nil
}

// BadVersionError is a recorded schema version that is not a positive
// integer.
type BadVersionError struct{ Raw string }

func (e *BadVersionError) Error() string {
	return fmt.Sprintf("schema version %q is not a positive integer", e.Raw)
}
