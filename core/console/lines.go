package console

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// MaxLineBytes bounds one typed utterance. Longer lines are refused whole
// (never truncated into a different command) and skipped.
const MaxLineBytes = 2048

// LineReader reads text lines with a hard length limit, without buffering
// an over-long line in memory.
type LineReader struct {
	r    *bufio.Reader
	line int
}

// NewLineReader reads lines from r.
func NewLineReader(r io.Reader) *LineReader { return &LineReader{r: bufio.NewReaderSize(r, 4096)} }

// SkipError reports a line that was read and refused; the reader can go
// on.
type SkipError struct {
	// Line is the line's number, from 1.
	Line int
	// Why says why it was refused.
	Why string
}

// Error says which line was refused and why.
func (e *SkipError) Error() string { return fmt.Sprintf("line %d: %s; ignored", e.Line, e.Why) }

// Next returns the next line, trimmed. A refused line gives a *SkipError;
// io.EOF ends the input.
func (lr *LineReader) Next() (string, error) {
	var b strings.Builder
	over := 0
	for {
		chunk, err := lr.r.ReadSlice('\n')
		if over == 0 && b.Len()+len(chunk) <= MaxLineBytes+2 { // +2 for the line ending
			b.Write(chunk)
		} else {
			over += len(chunk)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && (err != io.EOF || (b.Len() == 0 && over == 0)) {
			return "", err
		}
		lr.line++
		if over > 0 {
			return "", &SkipError{lr.line, fmt.Sprintf("%d bytes exceeds the %d-byte limit", b.Len()+over-1, MaxLineBytes)}
		}
		s := strings.TrimRight(b.String(), "\r\n")
		if !utf8.ValidString(s) {
			return "", &SkipError{lr.line, "not valid UTF-8"}
		}
		if strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 && r != '\t' }) {
			return "", &SkipError{lr.line, "contains control characters"}
		}
		if len(s) > MaxLineBytes {
			return "", &SkipError{lr.line, fmt.Sprintf("%d bytes exceeds the %d-byte limit", len(s), MaxLineBytes)}
		}
		return strings.TrimSpace(s), nil
	}
}
