package store

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/openjibo/jibod/core/skill/protocol"
)

func TestPutConversationRefusesInvalid(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(c *Conversation)
		want   string
	}{
		{"no bus session", func(c *Conversation) { c.BusSession = "" }, "busSession: required"},
		{"no skill id", func(c *Conversation) { c.SkillID = "" }, "skillID: required"},
		{"bus session too long", func(c *Conversation) { c.BusSession = strings.Repeat("s", MaxIDLen+1) }, "busSession: 257 bytes, limit 256"},
		{"NUL in skill id", func(c *Conversation) { c.SkillID = "timer\x00x" }, "skillID: control character U+0000 at byte 5"},
		{"bad UTF-8", func(c *Conversation) { c.BusSession = "\xff" }, "busSession: not valid UTF-8"},
		{"wire id differs", func(c *Conversation) { c.Skill.ID = ptr("clock") }, `skill.id: "clock" does not match skillID "timer"`},
		{"negative node", func(c *Conversation) { c.Skill.Session.NodeID = -1 }, "skill.session.nodeID: must not be negative"},
		{"negative trace node", func(c *Conversation) { c.Skill.Session.Trace[1].NodeID = -2 }, "skill.session.trace[1].nodeID: must not be negative"},
		{"trace too long", func(c *Conversation) {
			c.Skill.Session.Trace = make([]protocol.TraceEntry, protocol.MaxTraceLen+1)
		}, "skill.session.trace: 4097 entries, limit 4096"},
		{"session data not JSON", func(c *Conversation) { c.Skill.Session.Data = json.RawMessage(`{"a":`) }, "skill.session.data: not valid JSON"},
		{"listening without window", func(c *Conversation) { c.ExpiresAt = time.Time{} }, "expiresAt: required while listening"},
		{"window without listening", func(c *Conversation) { c.Listen = nil }, "expiresAt: set while not listening"},
		{"empty listen context", func(c *Conversation) { c.Listen = []string{"a", ""} }, "listen[1]: required"},
		{"too many listen contexts", func(c *Conversation) { c.Listen = make([]string, MaxListen+1) }, "listen: 65 contexts, limit 64"},
		{"bad language", func(c *Conversation) { c.Lang = "english please" }, `lang: "english please" is not a language tag`},
		{"record too large", func(c *Conversation) {
			c.Skill.Session.Data = json.RawMessage(`"` + strings.Repeat("x", MaxConversationBytes) + `"`)
		}, "bytes encoded, limit 65536"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := openTemp(t, Options{})
			c := timerConversation("default", "timer")
			tc.change(&c)
			err := s.PutConversation(c)
			require.ErrorIs(t, err, ErrInvalid)
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), "storing conversation")
			all, err := s.Conversations()
			require.NoError(t, err)
			assert.Empty(t, all, "nothing written")
		})
	}
}

func TestConversationAcceptsMinimalRecords(t *testing.T) {
	s, _ := openTemp(t, Options{})
	for _, c := range []Conversation{
		{BusSession: "default", SkillID: "a", UpdatedAt: t0},                                                 // no wire id, no session
		{BusSession: "default", SkillID: "b", Skill: protocol.Skill("b"), Listen: []string{}, ExpiresAt: t0}, // listens for anything
	} {
		require.NoError(t, s.PutConversation(c))
		got, ok, err := s.Conversation(c.BusSession, c.SkillID)
		require.NoError(t, err)
		require.True(t, ok)
		if c.UpdatedAt.IsZero() {
			c.UpdatedAt = got.UpdatedAt
		}
		assert.Equal(t, c, got)
	}
	got, _, err := s.Conversation("default", "b")
	require.NoError(t, err)
	assert.NotNil(t, got.Listen, "an empty listen list is still listening")
}

func TestConversationLookupAndDelete(t *testing.T) {
	s, _ := openTemp(t, Options{})
	require.NoError(t, s.PutConversation(timerConversation("default", "timer")))

	_, ok, err := s.Conversation("default", "clock")
	require.NoError(t, err)
	assert.False(t, ok, "other skill")
	_, ok, err = s.Conversation("other", "timer")
	require.NoError(t, err)
	assert.False(t, ok, "other bus session")
	_, _, err = s.Conversation("", "timer")
	require.ErrorIs(t, err, ErrInvalid)

	// Replacing keeps one record.
	next := timerConversation("default", "timer")
	next.Skill.Session.NodeID = 4
	next.Listen, next.ExpiresAt = nil, time.Time{}
	require.NoError(t, s.PutConversation(next))
	got, ok, err := s.Conversation("default", "timer")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, 4, got.Skill.Session.NodeID)
	assert.Nil(t, got.Listen)

	require.NoError(t, s.DeleteConversation("default", "timer"))
	_, ok, err = s.Conversation("default", "timer")
	require.NoError(t, err)
	assert.False(t, ok)
	require.NoError(t, s.DeleteConversation("default", "timer"), "deleting none is no error")
	require.ErrorIs(t, s.DeleteConversation("default", ""), ErrInvalid)
}

func TestConversationCountLimit(t *testing.T) {
	s, _ := openTemp(t, Options{})
	for i := range MaxConversations {
		require.NoError(t, s.PutConversation(timerConversation(fmt.Sprintf("s%03d", i), "timer")))
	}
	err := s.PutConversation(timerConversation("one-too-many", "timer"))
	require.ErrorIs(t, err, ErrFull)
	assert.Contains(t, err.Error(), "256 conversations stored, limit 256")
	require.NoError(t, s.PutConversation(timerConversation("s000", "timer")), "replacing one is fine at the limit")
	require.NoError(t, s.DeleteConversation("s001", "timer"))
	require.NoError(t, s.PutConversation(timerConversation("one-too-many", "timer")), "room again after a delete")
}

// putRaw writes a record behind the store's back, as damage would.
func putRaw(t *testing.T, s *Store, bucket, key string, val []byte) {
	t.Helper()
	require.NoError(t, s.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte(bucket)).Put([]byte(key), val)
	}))
}

func TestUnreadableConversationsAreReportedAndSkipped(t *testing.T) {
	var logs logBuffer
	s, _ := openTemp(t, Options{Logger: logs.logger()})
	good := timerConversation("default", "timer")
	require.NoError(t, s.PutConversation(good))

	valid, err := encode(timerConversation("default", "clock"))
	require.NoError(t, err)
	invalid, err := encode(Conversation{BusSession: "default", SkillID: "volume", Listen: []string{"x"}, UpdatedAt: t0})
	require.NoError(t, err)
	bad := map[string]struct {
		val  []byte
		want string
	}{
		"garbled" + keySep + "a":      {[]byte(`{"busSession":`), "decoding"},
		"oversized" + keySep + "b":    {make([]byte, MaxConversationBytes+1), "65537 bytes, limit 65536"},
		"elsewhere" + keySep + "c":    {valid, `holds conversation (session "default", skill "clock") instead`},
		"default" + keySep + "volume": {invalid, "expiresAt: required while listening"},
	}
	for k, v := range bad {
		putRaw(t, s, bucketConversations, k, v.val)
	}

	all, err := s.Conversations()
	require.NoError(t, err)
	assert.Equal(t, []Conversation{good}, all, "the good one survives its neighbours")
	for k, v := range bad {
		bus, skill, _ := strings.Cut(k, keySep)
		// The text log escapes the quotes of the key.
		assert.Contains(t, logs.String(), fmt.Sprintf(`(session \"%s\", skill \"%s\")`, bus, skill))

		_, ok, err := s.Conversation(bus, skill)
		require.ErrorIs(t, err, ErrBadRecord, k)
		assert.False(t, ok)
		var rec *RecordError
		require.ErrorAs(t, err, &rec)
		assert.Equal(t, k, rec.Key)
		assert.Contains(t, err.Error(), "conversations record (session")
		assert.Contains(t, err.Error(), v.want)
	}

	n, err := s.DropUnreadable()
	require.NoError(t, err)
	assert.Equal(t, len(bad), n)
	n, err = s.DropUnreadable()
	require.NoError(t, err)
	assert.Zero(t, n)
	all, err = s.Conversations()
	require.NoError(t, err)
	assert.Equal(t, []Conversation{good}, all)
}

func TestPruneConversations(t *testing.T) {
	var logs logBuffer
	s, _ := openTemp(t, Options{Logger: logs.logger()})
	for i, age := range []time.Duration{time.Hour, 10 * time.Minute, time.Minute, 0} {
		c := timerConversation(fmt.Sprintf("s%d", i), "timer")
		c.UpdatedAt = t0.Add(-age)
		require.NoError(t, s.PutConversation(c))
	}
	putRaw(t, s, bucketConversations, "broken"+keySep+"timer", []byte("{"))

	n, err := s.PruneConversations(t0.Add(-5 * time.Minute))
	require.NoError(t, err)
	assert.Equal(t, 3, n, "two stale ones and the unreadable one")
	all, err := s.Conversations()
	require.NoError(t, err)
	var kept []string
	for _, c := range all {
		kept = append(kept, c.BusSession)
	}
	assert.Equal(t, []string{"s2", "s3"}, kept)
	assert.Contains(t, logs.String(), `(session \"broken\", skill \"timer\")`)
}
