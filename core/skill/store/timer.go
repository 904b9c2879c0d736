package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/openjibo/jibod/internal/ascii"
	"github.com/openjibo/jibod/internal/strictjson"
)

// Timer limits.
const (
	// MaxTimers bounds the timers kept at once.
	MaxTimers = 64
	// MaxTimerBytes bounds one encoded timer.
	MaxTimerBytes = 16 << 10
	// MaxMemoBytes bounds a timer's memo, the PROACTIVE_LAUNCH memo the
	// skill gets back when the timer fires.
	MaxMemoBytes = 8 << 10
)

// Timer is a proactive launch of a skill due at a point in time, such as
// the timer skill's alarm.
type Timer struct {
	// ID names the timer: [A-Za-z0-9][A-Za-z0-9._-]*, at most MaxTimerIDLen
	// bytes.
	ID string `json:"id"`
	// SkillID is the skill to launch.
	SkillID string `json:"skillID"`
	// BusSession is the bus session the timer was set in; "" for none.
	BusSession string `json:"busSession,omitempty"`
	// Lang is the language to launch the skill in; "" is the default.
	Lang string `json:"lang,omitempty"`
	// Due is when the timer fires.
	Due time.Time `json:"due"`
	// Memo is given to the skill in PROACTIVE_LAUNCH result.memo: a JSON
	// object, null, or nil for none.
	Memo json.RawMessage `json:"memo,omitempty"`
	// Label is what the timer is for, in the user's words ("pasta").
	Label string `json:"label,omitempty"`
	// Created is when the timer was set; PutTimer stamps it when zero.
	Created time.Time `json:"created"`
}

var timerIDRest = ascii.NewSet("A-Za-z0-9._-")

// Validate checks a timer as PutTimer stores it. Errors name the member.
func (t *Timer) Validate() error {
	if err := checkText("id", t.ID, MaxTimerIDLen, true); err != nil {
		return err
	}
	if !ascii.Name(t.ID, ascii.Alnum, timerIDRest, 0) {
		return fieldErr("id", "%q: want [A-Za-z0-9][A-Za-z0-9._-]*", t.ID)
	}
	if err := firstErr(
		checkText("skillID", t.SkillID, MaxIDLen, true),
		checkText("busSession", t.BusSession, MaxIDLen, false),
		checkLang("lang", t.Lang),
		checkObjectOrNull("memo", t.Memo, MaxMemoBytes),
		checkText("label", t.Label, MaxLabelLen, false),
	); err != nil {
		return err
	}
	if t.Due.IsZero() {
		return fieldErr("due", "required")
	}
	if t.Created.IsZero() {
		return fieldErr("created", "required")
	}
	return nil
}

func timerName(id string) string { return fmt.Sprintf("timer %q", truncate(id)) }

// PutTimer stores t in one durable transaction, replacing the timer with
// the same id. An invalid timer fails with ErrInvalid, a new one beyond
// MaxTimers with ErrFull; either way nothing is written.
func (s *Store) PutTimer(t Timer) error {
	if t.Created.IsZero() {
		t.Created = s.now()
	}
	t.Created, t.Due = t.Created.UTC(), t.Due.UTC()
	what := "storing " + timerName(t.ID)
	if err := t.Validate(); err != nil {
		return fmt.Errorf("%s: %w: %w", what, ErrInvalid, err)
	}
	val, err := encode(t)
	if err != nil {
		return fmt.Errorf("%s: %w: %w", what, ErrInvalid, err)
	}
	if len(val) > MaxTimerBytes {
		return fmt.Errorf("%s: %w: %d bytes encoded, limit %d", what, ErrInvalid, len(val), MaxTimerBytes)
	}
	err = s.update(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(bucketTimers))
		if b.Get([]byte(t.ID)) == nil {
			if n := countKeys(b); n >= MaxTimers {
				return fmt.Errorf("%w: %d timers stored, limit %d", ErrFull, n, MaxTimers)
			}
		}
		return b.Put([]byte(t.ID), val)
	})
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// DeleteTimer removes a timer; removing none is no error.
func (s *Store) DeleteTimer(id string) error {
	what := "deleting " + timerName(id)
	if err := checkText("id", id, MaxTimerIDLen, true); err != nil {
		return fmt.Errorf("%s: %w: %w", what, ErrInvalid, err)
	}
	err := s.update(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte(bucketTimers)).Delete([]byte(id))
	})
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// Timers returns every readable timer, soonest first (ties by id).
// Unreadable records are logged with their key and skipped.
func (s *Store) Timers() ([]Timer, error) {
	recs, err := s.records(bucketTimers)
	if err != nil {
		return nil, fmt.Errorf("listing skill timers: %w", err)
	}
	out := make([]Timer, 0, len(recs))
	for _, r := range recs {
		t, err := decodeTimer(r.key, r.val)
		if err != nil {
			s.reportBad(err)
			continue
		}
		out = append(out, t)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Due.Equal(out[j].Due) {
			return out[i].Due.Before(out[j].Due)
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// decodeTimer reads a stored timer back, checking it as on write and
// against its key.
func decodeTimer(key, val []byte) (Timer, error) {
	bad := func(err error) error { return &RecordError{Bucket: bucketTimers, Key: string(key), Err: err} }
	if len(val) > MaxTimerBytes {
		return Timer{}, bad(fmt.Errorf("%d bytes, limit %d", len(val), MaxTimerBytes))
	}
	var t Timer
	if err := strictjson.Unmarshal(val, &t); err != nil {
		return Timer{}, bad(fmt.Errorf("decoding: %w", err))
	}
	if err := t.Validate(); err != nil {
		return Timer{}, bad(err)
	}
	if !bytes.Equal(key, []byte(t.ID)) {
		return Timer{}, bad(fmt.Errorf("holds %s instead", timerName(t.ID)))
	}
	return t, nil
}
