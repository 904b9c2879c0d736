package loop

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/openjibo/jibod/internal/strictjson"
)

// A loop file naming a member twice is refused, not read with the last
// one winning (issue 22 item 9); nor is text that is not UTF-8.
func TestLoopFileReadStrictly(t *testing.T) {
	_, err := decode([]byte(`{"owner":"a","owner":"b"}`), time.Now())
	assert.ErrorIs(t, err, ErrInvalid)
	assert.ErrorIs(t, err, strictjson.ErrDuplicate)
	assert.ErrorContains(t, err, `owner: member given twice ("owner")`)

	_, err = decode([]byte("{\"owner\":\"caf\xe9\"}"), time.Now())
	assert.ErrorIs(t, err, strictjson.ErrInvalidUTF8)
}
