package intent

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	doubleSlot = regexp.MustCompile(`\{\{([a-z_][a-z0-9_]*)\}\}`)
	typedSlot  = regexp.MustCompile(`\{[a-z_][a-z0-9_]*:([a-z_][a-z0-9_]*)\}`)
)

// textualExpand is §3.2 steps 2–6 done literally on strings: fold slots,
// rewrite [ as ( and ] as |), then substitute innermost groups until none
// is left. It checks nothing; the fuzzer runs it only on templates Expand
// accepted, and both must give the same sample set (GRM-10).
func textualExpand(t string) []string {
	t = doubleSlot.ReplaceAllString(t, "{$1}")
	t = typedSlot.ReplaceAllString(t, "{$1}")
	t = strings.ReplaceAll(t, "[", "(")
	t = strings.ReplaceAll(t, "]", "|)")
	set := map[string]bool{}
	work := []string{t}
	for len(work) > 0 {
		s := work[len(work)-1]
		work = work[:len(work)-1]
		end := strings.IndexByte(s, ')')
		if end < 0 {
			set[strings.Join(strings.Fields(s), " ")] = true
			continue
		}
		start := strings.LastIndexByte(s[:end], '(')
		for _, b := range strings.Split(s[start+1:end], "|") {
			work = append(work, s[:start]+b+s[end+1:])
		}
	}
	out := make([]string, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

var fuzzSeeds = []string{
	"open (the|) (door|gate)", "[[very] big] dog", "x (a|[b]) y", "(a|(b|c)) d", "  turn   on  ",
	"(hi|hi) there", "set timer for {duration:length}", "call {{who}} now", "say (yes)", "light[s] on",
	"[please]", "{a} (and|) {b}", "[{a}] [{b}] word", "(a]", "()", "(|)", "{x} and {date:x}", "a | b",
	"(buy {item}|sell {item})", "[the] {item}", "x []", "{a}x{b} y", "Hello, {name}!", "ä (ö|ü)[ß]",
}

// FuzzExpand checks Expand against the literal §3.2 algorithm and the
// invariants every sample set has.
func FuzzExpand(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, template string) {
		samples, _, err := Expand(template, nil, ExpandOptions{MaxSamples: 256})
		if err != nil {
			var se *SyntaxError
			require.ErrorAs(t, err, &se)
			require.GreaterOrEqual(t, se.Line, 1)
			require.GreaterOrEqual(t, se.Col, 1)
			return
		}
		require.NotEmpty(t, samples)
		require.True(t, slices.IsSorted(samples))
		require.Equal(t, len(samples), len(slices.Compact(slices.Clone(samples))), "unique")
		for _, s := range samples {
			require.NotEmpty(t, s, "GRM-07: no empty sample")
			require.Equal(t, strings.Join(strings.Fields(s), " "), s, "whitespace normalised")
			require.True(t, utf8.ValidString(s))
			require.NotContains(t, s, "{{")
			if !strings.ContainsFunc(s, func(r rune) bool { return strings.ContainsRune("()[]<>|", r) }) {
				// A sample is a template that expands to itself, unless it
				// is only slots (allowed inside a worded template).
				if again, _, err := Expand(s, nil, ExpandOptions{}); err == nil {
					require.Equal(t, []string{s}, again)
				}
			} else {
				t.Fatalf("structural character left in sample %q", s)
			}
		}
		assert.Equal(t, textualExpand(template), samples, "GRM-10: same set as the textual algorithm")
	})
}

// FuzzReadLines checks the RES-04 reader never panics and returns only
// trimmed, non-comment, valid lines in order.
func FuzzReadLines(f *testing.F) {
	for _, s := range []string{"a\nb\n", "\uFEFF# c\r\n x \r\n", "", "#", "a\xffb\n", "\n\n\t\n", "  # x\ny"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lines, err := ReadLines(bytes.NewReader(data))
		if err != nil {
			var se *SyntaxError
			require.ErrorAs(t, err, &se)
			return
		}
		require.NotEmpty(t, lines)
		prev := 0
		for _, l := range lines {
			require.Greater(t, l.Number, prev)
			prev = l.Number
			require.GreaterOrEqual(t, l.Col, 1)
			require.NotEmpty(t, l.Text)
			require.Equal(t, strings.TrimSpace(l.Text), l.Text)
			require.False(t, strings.HasPrefix(l.Text, "#"))
			require.True(t, utf8.ValidString(l.Text))
			require.NotContains(t, l.Text, "\n")
		}
		require.LessOrEqual(t, prev, bytes.Count(data, []byte("\n"))+1)
	})
}
