package invoke

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/openjibo/jibod/internal/strictjson"
)

// A run record naming a member twice is refused (issue 22 item 9).
func TestRecordReadStrictly(t *testing.T) {
	var r Record
	err := json.Unmarshal([]byte(`{"time":"2024-06-10T12:00:00Z","skill":"a/b","skill":"c/d","outcome":"ok"}`), &r)
	assert.ErrorIs(t, err, strictjson.ErrDuplicate)
	assert.ErrorContains(t, err, `run record: skill: member given twice ("skill")`)
}
