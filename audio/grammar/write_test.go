package grammar

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWritePrompts: a sentence a line, or a JSON object a line with the
// intent left out for the wake phrase alone.
func TestWritePrompts(t *testing.T) {
	prompts := []Prompt{{Text: "hey jibo", Wake: true}, {Text: "what time is it", Intent: "clock:time"}}
	var text, js strings.Builder
	require.NoError(t, WritePrompts(&text, prompts, false))
	assert.Equal(t, "hey jibo\nwhat time is it\n", text.String())
	require.NoError(t, WritePrompts(&js, prompts, true))
	assert.Equal(t, `{"text":"hey jibo","wake":true}`+"\n"+`{"text":"what time is it","intent":"clock:time","wake":false}`+"\n", js.String())
}
