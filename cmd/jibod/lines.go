package main

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

// lineReader reads text lines with a hard length limit, without buffering an
// over-long line in memory.
type lineReader struct {
	r    *bufio.Reader
	line int
}

func newLineReader(r io.Reader) *lineReader { return &lineReader{r: bufio.NewReaderSize(r, 4096)} }

// errSkip reports a line that was read and refused; the reader can go on.
type errSkip struct {
	line int
	why  string
}

func (e *errSkip) Error() string { return fmt.Sprintf("line %d: %s; ignored", e.line, e.why) }

// Next returns the next line, trimmed. A refused line gives an *errSkip;
// io.EOF ends the input.
func (lr *lineReader) Next() (string, error) {
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
			return "", &errSkip{lr.line, fmt.Sprintf("%d bytes exceeds the %d-byte limit", b.Len()+over-1, MaxLineBytes)}
		}
		s := strings.TrimRight(b.String(), "\r\n")
		if !utf8.ValidString(s) {
			return "", &errSkip{lr.line, "not valid UTF-8"}
		}
		if strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 && r != '\t' }) {
			return "", &errSkip{lr.line, "contains control characters"}
		}
		if len(s) > MaxLineBytes {
			return "", &errSkip{lr.line, fmt.Sprintf("%d bytes exceeds the %d-byte limit", len(s), MaxLineBytes)}
		}
		return strings.TrimSpace(s), nil
	}
}
