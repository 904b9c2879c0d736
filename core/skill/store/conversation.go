package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/internal/strictjson"
)

// Conversation limits.
const (
	// MaxConversations bounds the conversations kept at once.
	MaxConversations = 256
	// MaxConversationBytes bounds one encoded conversation, session data
	// included.
	MaxConversationBytes = 64 << 10
	// MaxListen bounds the listen contexts of one question.
	MaxListen = 64
	// MaxListenLen bounds one listen context, in bytes.
	MaxListenLen = 256
)

// keySep joins the bus session and skill id of a conversation key; neither
// may contain control characters, so the key is unambiguous.
const keySep = "\x00"

// Conversation is what a multi-turn skill left in a bus session: its
// session as on the wire and, while it waits for an answer, the question's
// listen contexts and the end of the answer window.
type Conversation struct {
	// BusSession is the bus session the conversation belongs to.
	BusSession string `json:"busSession"`
	// SkillID is the skill holding the conversation.
	SkillID string `json:"skillID"`
	// Skill is the skill data as on the wire: id (nil or SkillID) and the
	// graph session {id, nodeID, data, trace}.
	Skill protocol.SkillData `json:"skill"`
	// Listen holds the listen contexts of the question the skill asked;
	// nil when it is not listening, empty when it listens for anything.
	Listen []string `json:"listen"`
	// Lang is the conversation's language; "" is the robot's default.
	Lang string `json:"lang,omitempty"`
	// ExpiresAt ends the answer window; zero exactly when Listen is nil.
	ExpiresAt time.Time `json:"expiresAt,omitzero"`
	// UpdatedAt is when the conversation was last stored; PutConversation
	// stamps it when zero.
	UpdatedAt time.Time `json:"updatedAt"`
}

// Validate checks a conversation as PutConversation stores it: ids present
// and bounded, the wire skill id matching SkillID, a well-formed session,
// bounded listen contexts, an answer window exactly when listening, a
// language tag and an update time. Errors name the member.
func (c *Conversation) Validate() error {
	if err := checkText("busSession", c.BusSession, MaxIDLen, true); err != nil {
		return err
	}
	if err := checkText("skillID", c.SkillID, MaxIDLen, true); err != nil {
		return err
	}
	if c.Skill.ID != nil && *c.Skill.ID != c.SkillID {
		return fieldErr("skill.id", "%q does not match skillID %q", truncate(*c.Skill.ID), c.SkillID)
	}
	if err := checkSession(c.Skill.Session); err != nil {
		return err
	}
	if c.Listen == nil && !c.ExpiresAt.IsZero() {
		return fieldErr("expiresAt", "set while not listening (listen is null)")
	}
	if c.Listen != nil && c.ExpiresAt.IsZero() {
		return fieldErr("expiresAt", "required while listening")
	}
	if len(c.Listen) > MaxListen {
		return fieldErr("listen", "%d contexts, limit %d", len(c.Listen), MaxListen)
	}
	for i, l := range c.Listen {
		if err := checkText(fmt.Sprintf("listen[%d]", i), l, MaxListenLen, true); err != nil {
			return err
		}
	}
	if err := checkLang("lang", c.Lang); err != nil {
		return err
	}
	if c.UpdatedAt.IsZero() {
		return fieldErr("updatedAt", "required")
	}
	return nil
}

// checkSession checks what the runtime relies on in a graph session.
func checkSession(s *protocol.Session) error {
	if s == nil {
		return nil
	}
	if err := checkText("skill.session.id", s.ID, MaxIDLen, false); err != nil {
		return err
	}
	if s.NodeID < 0 {
		return fieldErr("skill.session.nodeID", "must not be negative")
	}
	if len(s.Trace) > protocol.MaxTraceLen {
		return fieldErr("skill.session.trace", "%d entries, limit %d", len(s.Trace), protocol.MaxTraceLen)
	}
	for i, t := range s.Trace {
		if t.NodeID < 0 {
			return fieldErr(fmt.Sprintf("skill.session.trace[%d].nodeID", i), "must not be negative")
		}
	}
	if s.Data != nil && !json.Valid(s.Data) {
		return fieldErr("skill.session.data", "not valid JSON")
	}
	return nil
}

func convKey(busSession, skillID string) []byte {
	return []byte(busSession + keySep + skillID)
}

func convName(busSession, skillID string) string {
	return fmt.Sprintf("conversation (session %q, skill %q)", truncate(busSession), truncate(skillID))
}

// PutConversation stores c in one durable transaction, replacing the
// conversation of the same bus session and skill. An invalid conversation
// fails with ErrInvalid, a new one beyond MaxConversations with ErrFull;
// either way nothing is written.
func (s *Store) PutConversation(c Conversation) error {
	if c.UpdatedAt.IsZero() {
		c.UpdatedAt = s.now()
	}
	c.UpdatedAt, c.ExpiresAt = c.UpdatedAt.UTC(), c.ExpiresAt.UTC()
	what := "storing " + convName(c.BusSession, c.SkillID)
	if err := c.Validate(); err != nil {
		return fmt.Errorf("%s: %w: %w", what, ErrInvalid, err)
	}
	val, err := encode(c)
	if err != nil {
		return fmt.Errorf("%s: %w: %w", what, ErrInvalid, err)
	}
	if len(val) > MaxConversationBytes {
		return fmt.Errorf("%s: %w: %d bytes encoded, limit %d", what, ErrInvalid, len(val), MaxConversationBytes)
	}
	key := convKey(c.BusSession, c.SkillID)
	err = s.update(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(bucketConversations))
		if b.Get(key) == nil {
			if n := countKeys(b); n >= MaxConversations {
				return fmt.Errorf("%w: %d conversations stored, limit %d", ErrFull, n, MaxConversations)
			}
		}
		return b.Put(key, val)
	})
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// Conversation returns the conversation of skillID in busSession; false
// when there is none. A stored record that cannot be read back is reported
// as a *RecordError.
func (s *Store) Conversation(busSession, skillID string) (Conversation, bool, error) {
	what := "reading " + convName(busSession, skillID)
	if err := firstErr(checkText("busSession", busSession, MaxIDLen, true),
		checkText("skillID", skillID, MaxIDLen, true)); err != nil {
		return Conversation{}, false, fmt.Errorf("%s: %w: %w", what, ErrInvalid, err)
	}
	key := convKey(busSession, skillID)
	var val []byte
	err := s.view(func(tx *bolt.Tx) error {
		// Clone: bbolt's bytes live in its memory map only during the
		// transaction.
		val = bytes.Clone(tx.Bucket([]byte(bucketConversations)).Get(key))
		return nil
	})
	if err != nil {
		return Conversation{}, false, fmt.Errorf("%s: %w", what, err)
	}
	if val == nil {
		return Conversation{}, false, nil
	}
	c, err := decodeConversation(key, val)
	if err != nil {
		return Conversation{}, false, err
	}
	return c, true, nil
}

// DeleteConversation removes a conversation; removing none is no error.
func (s *Store) DeleteConversation(busSession, skillID string) error {
	what := "deleting " + convName(busSession, skillID)
	if err := firstErr(checkText("busSession", busSession, MaxIDLen, true),
		checkText("skillID", skillID, MaxIDLen, true)); err != nil {
		return fmt.Errorf("%s: %w: %w", what, ErrInvalid, err)
	}
	err := s.update(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte(bucketConversations)).Delete(convKey(busSession, skillID))
	})
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// Conversations returns every readable conversation, ordered by bus
// session then skill id, to restore them after a restart. Unreadable
// records are logged with their key and skipped.
func (s *Store) Conversations() ([]Conversation, error) {
	recs, err := s.records(bucketConversations)
	if err != nil {
		return nil, fmt.Errorf("listing skill conversations: %w", err)
	}
	out := make([]Conversation, 0, len(recs))
	for _, r := range recs {
		c, err := decodeConversation(r.key, r.val)
		if err != nil {
			s.reportBad(err)
			continue
		}
		out = append(out, c)
	}
	return out, nil
}

// PruneConversations deletes, in one transaction, the conversations last
// updated before olderThan and the conversation records that cannot be
// read back, and returns how many it deleted.
func (s *Store) PruneConversations(olderThan time.Time) (int, error) {
	n := 0
	err := s.update(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(bucketConversations))
		var doomed [][]byte
		err := b.ForEach(func(k, v []byte) error {
			c, err := decodeConversation(k, v)
			if err != nil {
				s.reportBad(err)
			}
			if err != nil || c.UpdatedAt.Before(olderThan) {
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
		n = len(doomed)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("pruning skill conversations older than %s: %w", olderThan.Format(time.RFC3339), err)
	}
	return n, nil
}

// decodeConversation reads a stored conversation back, checking it as on
// write and against its key.
func decodeConversation(key, val []byte) (Conversation, error) {
	bad := func(err error) error {
		return &RecordError{Bucket: bucketConversations, Key: string(key), Err: err}
	}
	if len(val) > MaxConversationBytes {
		return Conversation{}, bad(fmt.Errorf("%d bytes, limit %d", len(val), MaxConversationBytes))
	}
	var c Conversation
	if err := strictjson.Unmarshal(val, &c); err != nil {
		return Conversation{}, bad(fmt.Errorf("decoding: %w", err))
	}
	if err := c.Validate(); err != nil {
		return Conversation{}, bad(err)
	}
	if !bytes.Equal(key, convKey(c.BusSession, c.SkillID)) {
		return Conversation{}, bad(fmt.Errorf("holds %s instead", convName(c.BusSession, c.SkillID)))
	}
	return c, nil
}

// firstErr returns the first non-nil error.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
