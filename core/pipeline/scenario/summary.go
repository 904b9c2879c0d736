package scenario

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/openjibo/jibod/internal/strictjson"
)

// MaxTraceLine bounds one line of a trace read back by Summarize.
const MaxTraceLine = 4 << 20

// Summarize reads a trace (one JSON message per line, as Run writes it)
// and returns one "<step> <type>" line per message, in bus order. The step
// is the message's context.scenario_step, "-" when it has none.
func Summarize(r io.Reader) ([]string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxTraceLine)
	var out []string
	for n := 1; sc.Scan(); n++ {
		var m struct {
			Type    string         `json:"type"`
			Context map[string]any `json:"context"`
		}
		if err := strictjson.Unmarshal(sc.Bytes(), &m); err != nil {
			return nil, fmt.Errorf("trace line %d: %w", n, err)
		}
		step := "-"
		switch v := m.Context[StepKey].(type) {
		case float64:
			step = strconv.FormatFloat(v, 'f', -1, 64)
		case string:
			step = v
		}
		out = append(out, step+" "+m.Type)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading trace: %w", err)
	}
	return out, nil
}

// Expected is the sequence a scenario must print, read from its
// ".expected" file: one "<step> <type>" per line, blank lines and lines
// starting with "#" ignored. The directive "#! per-step" compares each
// step's own sequence only, for scenarios whose steps legitimately
// interleave in more than one order; "#! loose <type>" compares messages of
// that type by their count per step, not their position, for poll answers
// that may still arrive after the poll was decided.
type Expected struct {
	Lines   []string
	PerStep bool
	Loose   []string
}

// ParseExpected reads an expected-output file.
func ParseExpected(r io.Reader) (Expected, error) {
	var e Expected
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		l := strings.TrimSpace(sc.Text())
		switch {
		case l == "#! per-step":
			e.PerStep = true
		case strings.HasPrefix(l, "#! loose "):
			e.Loose = append(e.Loose, strings.TrimSpace(strings.TrimPrefix(l, "#! loose ")))
		case l == "" || strings.HasPrefix(l, "#"):
		default:
			f := strings.Fields(l)
			if len(f) != 2 {
				return Expected{}, fmt.Errorf("expected line %d: want \"<step> <type>\", got %q", n, l)
			}
			e.Lines = append(e.Lines, f[0]+" "+f[1])
		}
	}
	if err := sc.Err(); err != nil {
		return Expected{}, fmt.Errorf("reading expected output: %w", err)
	}
	return e, nil
}

// Diff compares a summary with the expectation and describes the first
// difference; "" means they agree.
func (e Expected) Diff(got []string) string {
	wantLines, wantLoose := e.split(e.Lines)
	gotLines, gotLoose := e.split(got)
	for _, k := range sortedKeys(merge(wantLoose, gotLoose)) {
		if len(wantLoose[k]) != len(gotLoose[k]) {
			return fmt.Sprintf("%q: got %d, want %d", k, len(gotLoose[k]), len(wantLoose[k]))
		}
	}
	if !e.PerStep {
		return diffLines(wantLines, gotLines)
	}
	want, have := byStep(wantLines), byStep(gotLines)
	for _, s := range sortedKeys(merge(want, have)) {
		if d := diffLines(want[s], have[s]); d != "" {
			return "step " + s + ": " + d
		}
	}
	return ""
}

// split separates the lines of loose types, grouped by line.
func (e Expected) split(lines []string) ([]string, map[string][]string) {
	var strict []string
	loose := map[string][]string{}
	for _, l := range lines {
		_, typ, _ := strings.Cut(l, " ")
		if contains(e.Loose, typ) {
			loose[l] = append(loose[l], l)
			continue
		}
		strict = append(strict, l)
	}
	return strict, loose
}

func byStep(lines []string) map[string][]string {
	out := map[string][]string{}
	for _, l := range lines {
		s, _, _ := strings.Cut(l, " ")
		out[s] = append(out[s], l)
	}
	return out
}

func merge(a, b map[string][]string) map[string][]string {
	out := map[string][]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

func diffLines(want, got []string) string {
	for i := 0; i < len(want) || i < len(got); i++ {
		switch {
		case i >= len(want):
			return fmt.Sprintf("line %d: unexpected %q (want end)", i+1, got[i])
		case i >= len(got):
			return fmt.Sprintf("line %d: missing %q (got end)", i+1, want[i])
		case want[i] != got[i]:
			return fmt.Sprintf("line %d: got %q, want %q", i+1, got[i], want[i])
		}
	}
	return ""
}
