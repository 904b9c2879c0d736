package intent

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/openjibo/jibod/internal/textcheck"
)

// Resource file limits (RES-04). They keep one bad file from costing
// unbounded memory or time.
const (
	// MaxFileBytes is the largest resource file ReadLines and LoadLocale
	// accept.
	MaxFileBytes = 1 << 20
	// MaxLineBytes is the longest line ReadLines accepts, before trimming.
	MaxLineBytes = MaxTemplateBytes
)

// Line is one template line of a resource file.
type Line struct {
	Number int    // 1-based line number in the file
	Col    int    // 1-based rune column where Text starts, after trimming
	Text   string // the trimmed line
}

// ReadLines reads a resource file the way RES-04 prescribes: UTF-8 with an
// optional BOM, LF or CRLF line ends, every line trimmed, blank lines and
// lines starting with '#' skipped. Each remaining line is a template; a file
// with none is malformed (ErrNoTemplates). Input over MaxFileBytes, a line
// over MaxLineBytes or invalid UTF-8 is an error naming the line and column.
func ReadLines(r io.Reader) ([]Line, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading resource file: %w", err)
	}
	if len(data) > MaxFileBytes {
		return nil, &SyntaxError{Line: 1, Col: 1, Kind: ErrTooLarge,
			Msg: fmt.Sprintf("file is larger than %d bytes", MaxFileBytes)}
	}
	return splitLines(data)
}

func splitLines(data []byte) ([]Line, error) {
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	var lines []Line
	for n := 1; len(data) > 0; n++ {
		raw := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			raw, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if len(raw) > MaxLineBytes {
			return nil, &SyntaxError{Line: n, Col: 1, Kind: ErrTooLarge,
				Msg: fmt.Sprintf("line is %d bytes, limit is %d", len(raw), MaxLineBytes)}
		}
		if !utf8.Valid(raw) {
			off := 0
			for off < len(raw) {
				r, size := utf8.DecodeRune(raw[off:])
				if r == utf8.RuneError && size <= 1 {
					break
				}
				off += size
			}
			return nil, &SyntaxError{Line: n, Col: utf8.RuneCount(raw[:off]) + 1, Kind: ErrEncoding,
				Msg: "line is not valid UTF-8 (RES-04)"}
		}
		// Every line is matched or spoken (templates, vocabularies,
		// entities, blacklists, dialogs): it must read as it looks.
		var te *textcheck.Error
		if err := textcheck.Text(string(raw)); errors.As(err, &te) {
			return nil, &SyntaxError{Line: n, Col: utf8.RuneCount(raw[:te.Offset]) + 1, Kind: ErrControl,
				Msg: "line contains " + te.Problem()}
		}
		line := string(raw)
		text := strings.TrimFunc(line, unicode.IsSpace)
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		lead := len(line) - len(strings.TrimLeftFunc(line, unicode.IsSpace))
		lines = append(lines, Line{Number: n, Col: utf8.RuneCountInString(line[:lead]) + 1, Text: text})
	}
	if len(lines) == 0 {
		return nil, &SyntaxError{Kind: ErrNoTemplates, Msg: "file has no template lines (RES-04)"}
	}
	return lines, nil
}
