package lineedit

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/lineedit/lineedittest"
)

// edRun feeds input to a fresh editor (history preloaded) at prompt "> "
// and returns the results, the lines taken and the screen. Output goes
// through "\n" → "\r\n" as a terminal's output processing would.
func edRun(t *testing.T, hist []string, input string) (results []Result, lines []string, scr *lineedittest.Screen, ed *Editor) {
	t.Helper()
	scr = lineedittest.NewScreen()
	ed = New(func(s string) { _, _ = scr.Write([]byte(strings.ReplaceAll(s, "\n", "\r\n"))) },
		func(head []string, word string) []string {
			if len(head) == 0 {
				return []string{"status", "selftest", "session", "say", "skills", "help"}
			}
			if head[0] == "motor" {
				return []string{"bottomSection_r", "middleSection_r", "topSection_r", "home"}
			}
			return nil
		})
	ed.hist = append(ed.hist, hist...)
	ed.Begin("> ", false)
	for i := 0; i < len(input); i++ {
		r := ed.Feed(input[i])
		if r == More {
			continue
		}
		results = append(results, r)
		if r == Line {
			if ed.TooLong() {
				lines = append(lines, "<too long>")
			} else {
				lines = append(lines, ed.Text())
			}
		}
		if r != EOF {
			ed.Begin("> ", false)
		}
	}
	return results, lines, scr, ed
}

func TestEditorLines(t *testing.T) {
	for _, tc := range []struct {
		name   string
		hist   []string
		input  string
		lines  []string
		screen string // the screen's last line, with the fresh prompt
		first  string // the screen's first line
	}{
		{name: "typed and entered", input: "status\r", lines: []string{"status"}, first: "> status"},
		{name: "backspace fixes a typo", input: "statsu\x7f\x7fus\r", lines: []string{"status"}, first: "> status"},
		{name: "^H is a backspace too", input: "sayx\bx\b!\r", lines: []string{"say!"}, first: "> say!"},
		{name: "backspace at the start rings", input: "\x7fa\r", lines: []string{"a"}, first: "> a"},
		{name: "CR LF is one Enter", input: "a\r\nb\r\n", lines: []string{"a", "b"}},
		{name: "LF alone is Enter", input: "a\nb\n", lines: []string{"a", "b"}},
		{name: "CR NUL is one Enter (telnet)", input: "a\r\x00b\r", lines: []string{"a", "b"}},
		{name: "control bytes are ignored", input: "s\x00t\x02a\x1ft\x10us\r", lines: []string{"status"}},
		{name: "invalid UTF-8 is ignored", input: "s\xfft\xc3a\x80tus\r", lines: []string{"status"}},
		{name: "UTF-8 is kept", input: "say café ☕\r", lines: []string{"say café ☕"}, first: "> say café ☕"},
		{name: "C1 controls are ignored", input: "a\xc2\x85b\r", lines: []string{"ab"}},
		{name: "Ctrl-U clears the line", input: "garbage\x15help\r", lines: []string{"help"}, first: "> help"},
		{name: "Ctrl-W deletes a word", input: "say hello there\x17\x17world\r", lines: []string{"say world"}, first: "> say world"},
		{name: "left arrow and insert", input: "sttus\x1b[D\x1b[D\x1b[Da\r", lines: []string{"status"}, first: "> status"},
		{name: "home, end, delete", input: "xstatus\x1b[H\x1b[3~\x1b[F!\r", lines: []string{"status!"}, first: "> status!"},
		{name: "application-mode arrows", input: "ab\x1bOD\x1bODx\x1bOC\x1bOCy\r", lines: []string{"xaby"}},
		{name: "history up", hist: []string{"one", "two"}, input: "\x1b[A\r", lines: []string{"two"}},
		{name: "history up twice, down once", hist: []string{"one", "two"}, input: "\x1b[A\x1b[A\x1b[B\r", lines: []string{"two"}},
		{name: "history keeps the draft", hist: []string{"longer line"}, input: "dr\x1b[A\x1b[B\r", lines: []string{"dr"}, first: "> dr"},
		{name: "shorter history line erases the longer", hist: []string{"ab"}, input: "abcdef\x1b[A\r", lines: []string{"ab"}, first: "> ab"},
		{name: "unknown sequences are dropped", input: "a\x1b[200~b\x1b[201~\x1b[15~\x1b[Ic\r", lines: []string{"abc"}},
		{name: "stray ESC is dropped", input: "a\x1bxb\r", lines: []string{"axb"}},
		{name: "overlong sequence is dropped", input: "a\x1b[" + strings.Repeat("1", 40) + "b\r", lines: []string{"a" + strings.Repeat("1", 23) + "b"}},
		{name: "tab completes the only candidate", input: "sta\t\r", lines: []string{"status "}, first: "> status"},
		{name: "tab completes the common prefix", input: "se\t\r", lines: []string{"se"}},
		{name: "tab completes an argument", input: "motor to\t30deg\r", lines: []string{"motor topSection_r 30deg"}},
		{name: "tab with nothing to offer rings", input: "zz\t\r", lines: []string{"zz"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			results, lines, scr, _ := edRun(t, tc.hist, tc.input)
			assert.Equal(t, tc.lines, lines)
			for _, r := range results {
				assert.Equal(t, Line, r)
			}
			if tc.first != "" {
				assert.Equal(t, tc.first, strings.Split(scr.Text(), "\n")[0], "what the screen shows")
			}
		})
	}
}

func TestEditorListsCandidates(t *testing.T) {
	_, _, scr, _ := edRun(t, nil, "s\t")
	// "s" has several completions with no longer common prefix: listed,
	// then the prompt and the line again.
	assert.Equal(t, "> s\nsay  selftest  session  skills  status\n> s", scr.Text())
}

func TestEditorControlKeys(t *testing.T) {
	results, lines, scr, _ := edRun(t, nil, "partial\x03\x04")
	assert.Equal(t, []Result{Interrupt, EOF}, results, "Ctrl-C abandons the line, Ctrl-D on an empty line leaves")
	assert.Empty(t, lines)
	assert.Equal(t, "> partial^C\n>", scr.Text())

	results, _, scr, _ = edRun(t, nil, "x\x04")
	assert.Empty(t, results, "Ctrl-D with text on the line does not leave")
	assert.Equal(t, 1, scr.Bells())
}

func TestEditorLineLimit(t *testing.T) {
	// A 10 KB line: the screen shows the first MaxLineBytes, one bell, and
	// the line is refused whole.
	results, lines, scr, _ := edRun(t, nil, strings.Repeat("a", 10<<10)+"\rok\r")
	require.Equal(t, []Result{Line, Line}, results)
	assert.Equal(t, []string{"<too long>", "ok"}, lines)
	assert.Equal(t, 1, scr.Bells())
	rows := strings.Split(scr.Text(), "\n")
	assert.Equal(t, "> "+strings.Repeat("a", MaxLineBytes), rows[0])
	assert.Equal(t, "> ok", rows[1])

	// A multi-byte rune that would straddle the limit is refused too.
	_, lines, _, _ = edRun(t, nil, strings.Repeat("a", MaxLineBytes-1)+"é\r")
	assert.Equal(t, []string{"<too long>"}, lines)
	// Exactly at the limit is fine.
	_, lines, _, _ = edRun(t, nil, strings.Repeat("a", MaxLineBytes)+"\r")
	assert.Equal(t, []string{strings.Repeat("a", MaxLineBytes)}, lines)
}

func TestEditorGarbageHint(t *testing.T) {
	_, _, scr, ed := edRun(t, nil, "ab"+strings.Repeat("\xff", garbageHint)+"c"+strings.Repeat("\x01", 2*garbageHint))
	assert.Equal(t, "> ab\n"+garbageHintText+"\n> abc", scr.Text(), "the hint shows once, then the line again")
	assert.True(t, ed.hinted)
}

func TestEditorSecret(t *testing.T) {
	scr := lineedittest.NewScreen()
	ed := New(func(s string) { _, _ = scr.Write([]byte(strings.ReplaceAll(s, "\n", "\r\n"))) }, nil)
	ed.hist = []string{"previous"}
	ed.Begin("PIN: ", true)
	var got Result
	for _, b := range []byte("12x\x7f34\x1b[A\t\r") {
		if r := ed.Feed(b); r != More {
			got = r
		}
	}
	assert.Equal(t, Line, got)
	assert.Equal(t, "1234", ed.Text())
	assert.Equal(t, "PIN: ****", strings.Split(scr.Text(), "\n")[0], "a secret is never echoed")
	assert.Equal(t, []string{"previous"}, ed.hist, "nor kept in history")
}

func TestEditorHistoryBounded(t *testing.T) {
	in := ""
	for i := range MaxHistory + 20 {
		in += "cmd" + strings.Repeat("x", i%3) + string(rune('a'+i%26)) + "\r"
	}
	in += "same\rsame\r\r   \r"
	_, _, _, ed := edRun(t, nil, in)
	assert.Len(t, ed.hist, MaxHistory)
	assert.Equal(t, "same", ed.hist[len(ed.hist)-1])
	assert.NotEqual(t, "same", ed.hist[len(ed.hist)-2], "repeats and blank lines are not kept")
}

func TestEditorScriptMode(t *testing.T) {
	ed := New(nil, nil) // no echo: a script
	ed.Begin("", false)
	var lines []string
	for _, b := range []byte("a\tb\r\n") {
		if ed.Feed(b) == Line {
			lines = append(lines, ed.Text())
			ed.Begin("", false)
		}
	}
	assert.Equal(t, []string{"a b"}, lines, "a tab in a script is a space")
}

func FuzzEditor(f *testing.F) {
	f.Add([]byte("status\r"), []byte("\x1b[A\x1b[3~\t\x7f"))
	f.Add([]byte("\xff\xfe\x1b[999999999999999A"), []byte("\r\n\x03\x04"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		_, lines, _, ed := edRun(t, []string{"help"}, string(a)+string(b))
		for _, l := range lines {
			assert.LessOrEqual(t, len(l), MaxLineBytes)
			assert.True(t, strings.IndexFunc(l, func(r rune) bool { return r < 0x20 && r != ' ' }) < 0 || l == "<too long>")
		}
		assert.LessOrEqual(t, ed.pos, len(ed.line))
		assert.LessOrEqual(t, len(ed.hist), MaxHistory)
	})
}

func BenchmarkEditorFeed(b *testing.B) {
	ed := New(func(string) {}, nil)
	line := []byte("bus tail ovos.utterance jibo.body.motion --count 10\r")
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		ed.Begin("> ", false)
		for _, c := range line {
			ed.Feed(c)
		}
	}
}

// Output that is not the editor's (the robot speaking while a line is
// typed) goes on its own line, and the prompt and the half-typed line come
// back after it, cursor where it was.
func TestHideAndShowAroundOutput(t *testing.T) {
	scr := lineedittest.NewScreen()
	ed := New(func(s string) { _, _ = scr.Write([]byte(strings.ReplaceAll(s, "\n", "\r\n"))) }, nil)
	ed.Begin("you> ", false)
	for _, b := range []byte("what tim\x1b[D") { // cursor one left
		require.Equal(t, More, ed.Feed(b))
	}
	ed.Hide()
	_, _ = scr.Write([]byte("jibo: Your timer is done!\r\n"))
	ed.Show()
	assert.Equal(t, "jibo: Your timer is done!\nyou> what tim", scr.Text())
	require.Equal(t, More, ed.Feed('e'))
	assert.Equal(t, "you> what tiem", scr.Last(), "typing goes on where the cursor was")
	require.Equal(t, Line, ed.Feed('\r'))
	assert.Equal(t, "what tiem", ed.Text())
	assert.Equal(t, []string{"what tiem"}, ed.History())
}
