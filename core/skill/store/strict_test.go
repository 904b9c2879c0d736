package store

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/openjibo/jibod/internal/strictjson"
)

// A stored record with a member given twice (a damaged or hand-edited
// file) is refused, not read with the last one winning (issue 22 item 9).
func TestStoredRecordsReadStrictly(t *testing.T) {
	_, err := decodeTimer([]byte("t1"), []byte(`{"id":"t1","id":"t2"}`))
	var re *RecordError
	assert.ErrorAs(t, err, &re)
	assert.ErrorIs(t, err, strictjson.ErrDuplicate)
	assert.ErrorContains(t, err, `id: member given twice ("id")`)

	_, err = decodeConversation([]byte("k"), []byte(`{"skill_id":"a","skill":{"id":"a","id":"b"}}`))
	assert.ErrorAs(t, err, &re)
	assert.ErrorIs(t, err, strictjson.ErrDuplicate)

	_, err = decodeConversation([]byte("k"), []byte(`{"skill_id":"\udc00"}`))
	assert.ErrorIs(t, err, strictjson.ErrInvalidUTF8)
}
