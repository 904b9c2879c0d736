package intent

import (
	"errors"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadLines covers the RES-04 line reader.
func TestReadLines(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Line
	}{
		{"RES-04 LF", "a\nb\n", []Line{{1, 1, "a"}, {2, 1, "b"}}},
		{"RES-04 CRLF", "a\r\nb\r\n", []Line{{1, 1, "a"}, {2, 1, "b"}}},
		{"RES-04 no final newline", "a\nb", []Line{{1, 1, "a"}, {2, 1, "b"}}},
		{"RES-04 BOM dropped", "\uFEFFhello\n", []Line{{1, 1, "hello"}}},
		{"RES-04 BOM then comment", "\uFEFF# c\r\nhi\r\n", []Line{{2, 1, "hi"}}},
		{"RES-04 lines trimmed, column kept", "  a b  \n\tc\n", []Line{{1, 3, "a b"}, {2, 2, "c"}}},
		{"RES-04 blank lines skipped", "\n\n  \na\n\t\n", []Line{{4, 1, "a"}}},
		{"RES-04 comments skipped", "# one\n  # two\na\n", []Line{{3, 1, "a"}}},
		{"RES-04 no inline comments", "a # b\n", []Line{{1, 1, "a # b"}}},
		{"RES-04 hash not first is text", "x#y\n", []Line{{1, 1, "x#y"}}},
		{"RES-04 unicode text", "schöne grüße\n", []Line{{1, 1, "schöne grüße"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadLines(strings.NewReader(tc.in))
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestReadLinesMalformed(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		kind      error
		line, col int
	}{
		{"RES-04 empty file", "", ErrNoTemplates, 0, 0},
		{"RES-04 only a BOM", "\uFEFF", ErrNoTemplates, 0, 0},
		{"RES-04 only comments and blanks", "# a\n\n  # b\r\n", ErrNoTemplates, 0, 0},
		{"RES-04 invalid UTF-8 names line and column", "ok\nab\xffc\n", ErrEncoding, 2, 3},
		{"RES-04 invalid UTF-8 in a comment", "# \xfe\nok\n", ErrEncoding, 1, 3},
		{"line over the limit", "ok\n" + strings.Repeat("a", MaxLineBytes+1) + "\n", ErrTooLarge, 2, 1},
		{"file over the limit", strings.Repeat("abc\n", MaxFileBytes/4+1), ErrTooLarge, 1, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadLines(strings.NewReader(tc.in))
			assert.Nil(t, got)
			require.ErrorIs(t, err, tc.kind)
			var se *SyntaxError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tc.line, se.Line)
			assert.Equal(t, tc.col, se.Col)
		})
	}
}

func TestReadLinesReaderError(t *testing.T) {
	boom := errors.New("disk gone")
	_, err := ReadLines(iotest.ErrReader(boom))
	require.ErrorIs(t, err, boom)
	assert.Contains(t, err.Error(), "reading resource file")
}

func TestReadLinesLimitsAreExact(t *testing.T) {
	line := strings.Repeat("a", MaxLineBytes)
	got, err := ReadLines(strings.NewReader(line + "\n"))
	require.NoError(t, err, "a line of exactly MaxLineBytes is fine")
	assert.Len(t, got, 1)
}
