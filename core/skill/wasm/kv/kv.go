// Package kv is the key-value storage of WebAssembly skills: each skill
// sees its own keys only, within quotas, and every write is durable when it
// returns.
//
// # File
//
// One bbolt file beside the robot's skill state (separate from it, so a
// skill filling its storage can never stop the robot keeping conversations
// and timers). Bucket "meta" holds the schema version; bucket "skills" one
// nested bucket per skill id, holding that skill's keys. Every Set and
// Delete is one bbolt read-write transaction, fsync'd before it returns: a
// value is wholly on disk or not at all, even if the process is killed or
// the power fails mid-write. A second process on the same file fails with
// ErrInUse after Options.LockTimeout. A damaged or empty file is checked
// against its own meta pages before it is mapped, kept aside and replaced
// by a new one at Open (logged at ERROR, WARN when empty); damage met later
// is ErrCorrupt, naming the file and what to do (docs/state-files.md).
//
// # Quotas
//
// Keys are 1..MaxKeyBytes bytes of UTF-8 without control characters, values
// at most MaxValueBytes; a skill holds at most MaxKeysPerSkill keys and
// MaxBytesPerSkill bytes (keys and values counted); the file is bounded by
// Options.MaxFileBytes. A Set beyond any of them fails with ErrQuota and
// changes nothing.
//
// Memory keeps the same contract in memory, for a robot run without a
// state folder.
package kv

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/openjibo/jibod/core/skill/registry"
)

// Quotas.
const (
	// MaxKeyBytes bounds a key.
	MaxKeyBytes = 128
	// MaxValueBytes bounds a value.
	MaxValueBytes = 32 << 10
	// MaxKeysPerSkill bounds the keys one skill holds.
	MaxKeysPerSkill = 1024
	// MaxBytesPerSkill bounds one skill's keys and values together.
	MaxBytesPerSkill = 1 << 20
	// MaxListKeys bounds the keys one Keys call returns.
	MaxListKeys = MaxKeysPerSkill
)

// Errors, each wrapped with what was being done.
var (
	// ErrNotFound: Get of a key the skill does not hold.
	ErrNotFound = errors.New("no such key")
	// ErrInvalid: a bad skill id, key or value size.
	ErrInvalid = errors.New("invalid")
	// ErrQuota: a Set would go over a quota or the file's size limit;
	// nothing was written.
	ErrQuota = errors.New("storage quota exceeded")
	// ErrInUse: another process holds the file.
	ErrInUse = errors.New("skill storage file in use by another process")
	// ErrCorrupt: the file is damaged or not a skill storage file.
	ErrCorrupt = errors.New("skill storage file is damaged")
	// ErrClosed: the store was used after Close.
	ErrClosed = errors.New("skill storage closed")
)

// Usage is what a skill holds.
type Usage struct {
	// Keys is how many keys it holds.
	Keys int
	// Bytes is its keys and values together.
	Bytes int
}

// after is u once a value of oldSize (-1: the key is new) under key is
// replaced by one of newSize.
func (u Usage) after(key string, oldSize, newSize int) Usage {
	if oldSize < 0 {
		u.Keys++
		u.Bytes += len(key) + newSize
	} else {
		u.Bytes += newSize - oldSize
	}
	return u
}

func (u Usage) check(skill string) error {
	switch {
	case u.Keys > MaxKeysPerSkill:
		return fmt.Errorf("skill %s: %w: %d keys, limit %d", skill, ErrQuota, u.Keys, MaxKeysPerSkill)
	case u.Bytes > MaxBytesPerSkill:
		return fmt.Errorf("skill %s: %w: %d bytes, limit %d", skill, ErrQuota, u.Bytes, MaxBytesPerSkill)
	}
	return nil
}

// checkSkill checks a skill's manifest id.
func checkSkill(skill string) error {
	if err := registry.ParseID(skill); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return nil
}

// CheckKey checks a key: 1..MaxKeyBytes bytes of UTF-8 without control
// characters.
func CheckKey(key string) error {
	switch {
	case key == "":
		return fmt.Errorf("%w: empty key", ErrInvalid)
	case len(key) > MaxKeyBytes:
		return fmt.Errorf("%w: key of %d bytes, limit %d", ErrInvalid, len(key), MaxKeyBytes)
	case !utf8.ValidString(key):
		return fmt.Errorf("%w: key is not valid UTF-8", ErrInvalid)
	}
	if i := strings.IndexFunc(key, unicode.IsControl); i >= 0 {
		return fmt.Errorf("%w: key has a control character at byte %d", ErrInvalid, i)
	}
	return nil
}

func checkValue(v []byte) error {
	if len(v) > MaxValueBytes {
		return fmt.Errorf("%w: value of %d bytes, limit %d", ErrInvalid, len(v), MaxValueBytes)
	}
	return nil
}

// checkArgs checks a call's skill id and key.
func checkArgs(what, skill, key string) error {
	if err := checkSkill(skill); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := CheckKey(key); err != nil {
		return fmt.Errorf("%s for skill %s: %w", what, skill, err)
	}
	return nil
}
