package scenario

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/internal/strictjson"
)

// A scenario naming a member twice is refused with its path (issue 22
// item 9), as is a trace line doing so.
func TestScenarioReadStrictly(t *testing.T) {
	_, err := Parse(strings.NewReader(`{"config":{},"plugins":{"a":{},"a":{}}}`))
	require.Error(t, err)
	assert.ErrorIs(t, err, strictjson.ErrDuplicate)
	assert.ErrorContains(t, err, `scenario: plugins.a: member given twice ("a")`)

	_, err = Summarize(strings.NewReader(`{"type":"a","type":"b"}` + "\n"))
	assert.ErrorIs(t, err, strictjson.ErrDuplicate)
}
