package console

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLineReader(t *testing.T) {
	long := strings.Repeat("a", 1<<20)
	in := "hello\r\n\n  what time is it  \n" + long + "\n\xff\xfe\nbell\x07\nlast"
	lr := NewLineReader(strings.NewReader(in))
	type res struct {
		text string
		skip string
	}
	var got []res
	for {
		s, err := lr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		var sk *SkipError
		if errors.As(err, &sk) {
			got = append(got, res{skip: sk.Error()})
			continue
		}
		require.NoError(t, err)
		got = append(got, res{text: s})
	}
	assert.Equal(t, []res{
		{text: "hello"},
		{text: ""},
		{text: "what time is it"},
		{skip: "line 4: 1048576 bytes exceeds the 2048-byte limit; ignored"},
		{skip: "line 5: not valid UTF-8; ignored"},
		{skip: "line 6: contains control characters; ignored"},
		{text: "last"},
	}, got)
}
