package intenttool

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"unicode/utf8"

	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/internal/strictjson"
)

// maxExpandLine bounds one JSON line of ExpandLines; a longer
// line is answered with an error and skipped, never buffered whole.
const maxExpandLine = 1 << 20

// expandRequest is one input line of ExpandLines.
type expandRequest struct {
	Template *string             `json:"template"`
	Vocab    map[string][]string `json:"vocab"`
}

// expandAnswer is one output line: the sample set, or what was wrong.
type expandAnswer struct {
	Expansions []string `json:"expansions,omitempty"`
	Warnings   []string `json:"warnings,omitempty"`
	Error      string   `json:"error,omitempty"`
}

// ExpandLines answers each JSON line of in,
// {"template": "...", "vocab": {"name": ["phrase", ...]}}, with one JSON
// line on out, {"expansions": [...]} (sorted, unique; "warnings" when the
// template was accepted with warnings) or {"error": "line N: ..."}. Blank
// lines are skipped. Only failing to read in or write out is an error.
func ExpandLines(ctx context.Context, in io.Reader, out io.Writer) error {
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false) // templates are full of < and >
	r := bufio.NewReaderSize(in, 64<<10)
	for n := 1; ; n++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, tooLong, err := readBoundedLine(r, maxExpandLine)
		if err == io.EOF && line == nil && !tooLong {
			return nil
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("reading standard input: %w", err)
		}
		var ans expandAnswer
		switch {
		case tooLong:
			ans.Error = fmt.Sprintf("line %d: longer than %d bytes; skipped", n, maxExpandLine)
		case len(bytes.TrimSpace(line)) == 0:
			if err == io.EOF {
				return nil
			}
			continue
		default:
			ans = expandLine(line)
			if ans.Error != "" {
				ans.Error = fmt.Sprintf("line %d: %s", n, ans.Error)
			}
		}
		if werr := enc.Encode(ans); werr != nil {
			return fmt.Errorf("writing: %w", werr)
		}
		if err == io.EOF {
			return nil
		}
	}
}

// expandLine answers one request line.
func expandLine(line []byte) expandAnswer {
	if !utf8.Valid(line) {
		return expandAnswer{Error: "not valid UTF-8"}
	}
	if err := strictjson.CheckMembers(line); err != nil {
		return expandAnswer{Error: "invalid request: " + err.Error()}
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	var req expandRequest
	if err := dec.Decode(&req); err != nil {
		return expandAnswer{Error: "invalid request: " + jsonProblem(err)}
	}
	if dec.More() {
		return expandAnswer{Error: "invalid request: more than one JSON value on the line"}
	}
	if req.Template == nil {
		return expandAnswer{Error: `invalid request: "template" is missing`}
	}
	count := 0
	for _, name := range slices.Sorted(maps.Keys(req.Vocab)) {
		count += len(req.Vocab[name])
		if !validVocabName(name) {
			return expandAnswer{Error: fmt.Sprintf("vocab %q: name must match [a-z_][a-z0-9_]* (GRM-04)", name)}
		}
		if len(req.Vocab[name]) == 0 {
			return expandAnswer{Error: fmt.Sprintf("vocab %q: no phrases", name)}
		}
	}
	if count > intent.MaxVocabTemplates {
		return expandAnswer{Error: fmt.Sprintf("vocab has %d phrases, limit is %d", count, intent.MaxVocabTemplates)}
	}
	samples, warns, err := intent.Expand(*req.Template, req.Vocab, intent.ExpandOptions{})
	if err != nil {
		var se *intent.SyntaxError
		if errors.As(err, &se) && se.File == "" {
			se.File = "template"
		}
		return expandAnswer{Error: err.Error()}
	}
	ans := expandAnswer{Expansions: samples}
	for _, w := range warns {
		if w.File == "" {
			w.File = "template"
		}
		ans.Warnings = append(ans.Warnings, w.String())
	}
	return ans
}

// jsonProblem says what is wrong with a JSON request, naming the field
// where the decoder knows it.
func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Sprintf("field %q: want %s, got JSON %s", te.Field, te.Type, te.Value)
	}
	return err.Error()
}

func validVocabName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || (c >= 'a' && c <= 'z') || (i > 0 && c >= '0' && c <= '9')) {
			return false
		}
	}
	return true
}

// readBoundedLine reads one line without its line ending. A line over limit
// bytes is consumed up to its end and reported as tooLong, without being
// kept. At the end of input it returns io.EOF, with the last line if it had
// no line ending.
func readBoundedLine(r *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > limit+2 { // +2: the line ending
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF:
			if len(buf) == 0 && !tooLong {
				return nil, false, io.EOF
			}
			return trimEOL(buf, limit, &tooLong), tooLong, io.EOF
		case err != nil:
			return nil, false, err
		}
		return trimEOL(buf, limit, &tooLong), tooLong, nil
	}
}

func trimEOL(b []byte, limit int, tooLong *bool) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	b = bytes.TrimSuffix(b, []byte("\r"))
	if len(b) > limit {
		*tooLong = true
		return nil
	}
	return b
}
